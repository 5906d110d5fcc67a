// Package smm checks, read-only, that the firmware shut System Management
// Mode's memory away from the OS before it booted it: SMRAM closed and
// locked in the host bridge, TSEG's base locked, the SMM range registers
// (SMRR) programmed on Intel CPUs that have them and covering all of TSEG
// (TSEGMB up to BGSM, on Core host bridges), and SMM_LOCK set in AMD's
// HWCR. Firmware that leaves any of these open lets ring-0 code write into
// SMRAM, or move it, and run with more privilege than the OS and any
// hypervisor: the class of bug behind most published SMM CVEs.
//
// Evidence: the host bridge's configuration space (input pci-config: the
// lock registers lie beyond the 64-byte header, so reading them needs
// root; kernel lockdown does not refuse it) and the MSRs (the msr module;
// reads are allowed under lockdown). Register offsets differ between
// chipsets: the chipset package has them as data with their sources, and a
// host bridge it does not know is NOT CHECKED with its PCI ID.
//
// Labels and what confirms them:
//
//	SMRAMNotLocked   SMRAMC.D_LCK clear. Seen on QEMU q35 with OVMF built
//	                 without SMM (OVMF_CODE_4M.fd), where nothing uses
//	                 SMRAM: reported there as the VM explains it.
//	SMRAMOpen        SMRAMC.D_OPEN set while the OS runs. No real
//	                 occurrence yet: a warning until one is seen.
//	TSEGNotLocked    TSEGMB or BGSM lock bit clear (Core host bridges).
//	                 No real occurrence yet: a warning.
//	SMRRNotProgrammed IA32_MTRRCAP.SMRR set but IA32_SMRR_PHYSMASK's valid
//	                 bit clear. No real occurrence yet: a warning.
//	TSEGNotCoveredBySMRR a valid SMRR range (PHYSBASE/PHYSMASK) that does
//	                 not cover TSEG, TSEGMB up to BGSM (Core host
//	                 bridges). No real occurrence yet: a warning.
//	AMDSMMNotLocked  HWCR.SMMLOCK clear on an AMD CPU. Virtual CPUs do not
//	                 model it (QEMU returns 0): explained there. No real
//	                 occurrence on hardware yet: a warning.
//
// fwupd HSI attributes: AMDSMMNotLocked is org.fwupd.hsi.Amd.SmmLocked
// (HSI-1); fwupd has no attribute for the Intel SMRAM, TSEG and SMRR
// locks, which CHIPSEC's smm, smrr and memconfig modules cover.
//
// IA32_SMRR_PHYSBASE/MASK may refuse reads outside SMM on some CPUs; a
// register that could not be read is NOT CHECKED, never passed.
package smm

import (
	"fmt"

	"github.com/fwcheck/fwcheck/chipset"
	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/cpu/msr"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

var (
	labelNotLocked = tests.NewLabel("SMRAMNotLocked", tests.High, "Intel 3 Series chipset datasheet §5.1.21 (SMRAM); Core datasheets vol. 2 (SMRAMC)",
		"The host bridge's SMRAM control register is not locked (D_LCK clear), so the OS can open SMRAM and "+
			"write its own code into System Management Mode. Firmware must set D_LCK before it runs anything it "+
			"did not build itself (at the end of DXE, before option ROMs and the boot loader).")
	labelOpen = tests.NewLabel("SMRAMOpen", tests.High, "Intel 3 Series chipset datasheet §5.1.21 (SMRAM)",
		"SMRAM is open to non-SMM accesses (D_OPEN set) while the OS runs: any ring-0 code can read and write "+
			"SMM's memory. Firmware must close SMRAM (clear D_OPEN) before locking it and booting the OS.")
	labelTSEG = tests.NewLabel("TSEGNotLocked", tests.High, "Intel Core datasheets vol. 2 (TSEGMB, BGSM)",
		"The host bridge's TSEG base (TSEGMB) or graphics-stolen base (BGSM) register is not locked, so the OS "+
			"can move TSEG and take SMRAM out of the protected range. Firmware must set both lock bits.")
	labelSMRR = tests.NewLabel("SMRRNotProgrammed", tests.High, "Intel SDM Vol. 3A §32.4.2 (SMRR)",
		"The CPU has SMM range registers (IA32_MTRRCAP.SMRR) but the firmware left IA32_SMRR_PHYSMASK invalid, "+
			"so the CPU does not stop non-SMM code, or the cache, from reaching SMRAM. Program SMRR on every CPU "+
			"to cover TSEG with write-back caching, and set the valid bit.")
	labelCover = tests.NewLabel("TSEGNotCoveredBySMRR", tests.High, "Intel SDM Vol. 3A §32.4.2 (SMRR); Core datasheets vol. 2 (TSEGMB, BGSM)",
		"The SMM range registers do not cover all of TSEG (TSEGMB up to BGSM): the part of SMRAM outside SMRR can "+
			"be cached and reached by cache-poisoning attacks from outside SMM. Program IA32_SMRR_PHYSBASE/MASK on every "+
			"CPU to the whole TSEG (TSEG's size is a power of two, aligned, so one SMRR pair covers it).")
	labelAMD = tests.NewLabel("AMDSMMNotLocked", tests.High, "AMD BKDG/PPR, MSR C001_0015 HWCR bit 0 (SmmLock)",
		"HWCR.SmmLock is clear: the SMM base, TSeg and ASeg registers can still be changed from outside SMM. "+
			"Firmware must set SmmLock on every core once SMM is set up.")
)

// confirmed reports whether a real reading has shown label l: the others
// are warnings until one does (the project's rule for new labels). Only
// SMRAMNotLocked has been seen (QEMU q35 with OVMF built without SMM).
func confirmed(l *tests.Label) bool { return l == labelNotLocked }

// Check is the smm check.
var Check = &tests.Check{
	ID: "smm", Title: "SMRAM closed and locked, TSEG locked, SMRR programmed and covering TSEG, AMD SmmLock set",
	Category: tests.Security,
	Arch:     tests.X86,
	Optional: []input.Decl{input.PCIConfig, input.MSRs, input.CPUInfo, input.DMI, input.KernelLog},
	Spec:     "Intel chipset and Core datasheets (SMRAMC, TSEGMB); Intel SDM Vol. 3A §32.4.2; AMD PPR (HWCR)",
	Labels:   []*tests.Label{labelNotLocked, labelOpen, labelTSEG, labelSMRR, labelCover, labelAMD},
	Run:      run,
}

// hostBridgeAddr is the host bridge's PCI address on every PC chipset.
const hostBridgeAddr = "0000:00:00.0"

type checker struct {
	p   *tests.Pass
	why string // the VM evidence, or ""
	// tseg is TSEG's range from the host bridge (TSEGMB to BGSM-1) when
	// both were read; tsegWhy says why not otherwise.
	tseg    *span
	tsegWhy string
}

// span is an inclusive physical address range.
type span struct{ base, end uint64 }

func (s span) String() string { return fmt.Sprintf("0x%x-0x%x", s.base, s.end) }

func (c *checker) fail(l *tests.Label, format string, args ...any) {
	if !confirmed(l) {
		c.p.Warn(l, format, args...)
		return
	}
	c.p.Fail(l, format, args...)
}

func run(p *tests.Pass) error {
	cfg, cfgErr := tests.Load(p, input.PCIConfig)
	d, msrErr := tests.Load(p, input.MSRs)
	cpus, _ := tests.Load(p, input.CPUInfo)
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	if cfg == nil && d == nil {
		p.Skip("neither PCI configuration space nor MSRs could be read: %v; %v", cfgErr, msrErr)
		return nil
	}
	c := &checker{p: p, why: vm.Evidence(dmi, recs, cpus), tsegWhy: "the host bridge's TSEG registers were not read"}
	intel, amd := vendor(cpus)
	c.hostBridge(cfg, cfgErr, amd)
	switch {
	case d == nil:
		p.NotChecked("SMRR and SmmLock", fmt.Sprintf("MSRs not read: %v", msrErr), "run as root with the msr module available")
	case intel:
		c.smrr(d)
	case amd:
		c.smmLock(d)
	default:
		p.NotChecked("SMRR and SmmLock", "CPU vendor unknown (no /proc/cpuinfo)", "")
	}
	return nil
}

func (c *checker) hostBridge(cfg *input.PCIState, cfgErr error, amd bool) {
	p := c.p
	if cfg == nil {
		p.NotChecked("SMRAM locks in the host bridge", fmt.Sprintf("PCI configuration space not read: %v", cfgErr), "run as root")
		return
	}
	dev := cfg.Find(hostBridgeAddr)
	if dev == nil {
		p.NotChecked("SMRAM locks in the host bridge", "no PCI function at "+hostBridgeAddr, "")
		return
	}
	ven, id := dev.ID()
	hb := chipset.LookupHostBridge(ven, id)
	if hb == nil && amd && ven == 0x1022 {
		p.Info(nil, "host bridge %s: not read: AMD processors keep SMRAM's controls in MSRs (SMM_ADDR, SMM_MASK, HWCR), not in the host bridge", chipset.ID(ven, id))
		return
	}
	if hb == nil {
		p.NotChecked("SMRAM locks in the host bridge", fmt.Sprintf("host bridge %s is not in fwcheck's chipset table", chipset.ID(ven, id)),
			"report the chipset with its datasheet so its SMRAM register layout can be added")
		return
	}
	l := hb.SMRAM
	smramc, ok := dev.U8(l.SMRAMC)
	if !ok {
		p.NotChecked("SMRAM locks in the host bridge", fmt.Sprintf("%s: only %d bytes of configuration space were readable (the kernel gives the registers past 64 bytes to root only)", hb.Name, len(dev.Config)), "run as root")
		return
	}
	var esmramc uint8
	haveE := false
	if l.ESMRAMC != 0 {
		esmramc, haveE = dev.U8(l.ESMRAMC)
	}
	regs := fmt.Sprintf("%s: SMRAMC(0x%02x)=0x%02x", hb.Name, l.SMRAMC, smramc)
	if haveE {
		regs += fmt.Sprintf(", ESMRAMC(0x%02x)=0x%02x", l.ESMRAMC, esmramc)
	}
	// SMRAM that is not enabled at all (neither the legacy range nor
	// TSEG) holds nothing: firmware built without SMM.
	unused := smramc&chipset.GSMRAME == 0 && (!haveE || esmramc&chipset.TEn == 0)
	if smramc&chipset.DOpen != 0 {
		c.fail(labelOpen, "%s: D_OPEN is set while the OS runs", regs)
	}
	switch {
	case smramc&chipset.DLck != 0:
		p.Passed("%s: SMRAM locked (D_LCK set)", regs)
	case unused && c.why != "":
		p.Explained(labelNotLocked, c.why+": the firmware does not use SMM (SMRAM and TSEG not enabled), as VM firmware built without SMM does; firmware that keeps UEFI variables safe needs the SMM build",
			"%s: D_LCK clear", regs)
	default:
		what := ""
		if unused {
			what = " (SMRAM and TSEG not enabled: the firmware does not use SMM, and the OS may enable and fill it)"
		}
		c.fail(labelNotLocked, "%s: D_LCK clear%s", regs, what)
	}
	if l.TSEGMB == 0 {
		c.tsegWhy = hb.Name + " has no TSEGMB register"
	}
	var tv [2]uint32
	var tok [2]bool
	for i, r := range []struct {
		name string
		off  int
	}{{"TSEGMB", l.TSEGMB}, {"BGSM", l.BGSM}} {
		if r.off == 0 {
			continue
		}
		v, ok := dev.U32(r.off)
		tv[i], tok[i] = v, ok
		switch {
		case !ok:
			p.NotChecked(r.name+" lock", fmt.Sprintf("%s (0x%02x) not in the recorded configuration space", r.name, r.off), "run as root")
		case v&1 == 0:
			c.fail(labelTSEG, "%s: %s(0x%02x)=0x%08x: lock bit 0 clear", hb.Name, r.name, r.off, v)
		default:
			p.Passed("%s: %s locked (0x%08x)", hb.Name, r.name, v)
		}
	}
	if tok[0] && tok[1] {
		// Bits 31:20 of each are the base: TSEG runs from TSEGMB to
		// just below BGSM (graphics-stolen memory sits above it).
		base, top := uint64(tv[0]&0xFFF00000), uint64(tv[1]&0xFFF00000)
		if top > base {
			c.tseg = &span{base, top - 1}
		} else {
			c.tsegWhy = fmt.Sprintf("TSEGMB=0x%08x is not below BGSM=0x%08x: no TSEG range", tv[0], tv[1])
		}
	}
}

// IA32_MTRRCAP bit 11 says SMRR exists.
const mtrrCapSMRR = 1 << 11

func (c *checker) smrr(d *msr.Dump) {
	p := c.p
	cpus := d.CPUs()
	if len(cpus) == 0 {
		p.NotChecked("SMRR programmed", "no CPU's MSRs in the dump", "")
		return
	}
	capv, ok := d.Get(cpus[0], 0xFE)
	if !ok {
		p.NotChecked("SMRR programmed", "IA32_MTRRCAP not read", "run as root with the msr module available")
		return
	}
	if capv&mtrrCapSMRR == 0 {
		p.Info(nil, "SMRR: not applicable: this CPU has no SMM range registers (IA32_MTRRCAP=0x%x, bit 11 clear)", capv)
		return
	}
	var bad, unread []int
	for _, cpu := range cpus {
		m, ok := d.Get(cpu, msr.SMRRPhysMask)
		switch {
		case !ok:
			unread = append(unread, cpu)
		case m&(1<<11) == 0:
			bad = append(bad, cpu)
		}
	}
	if len(bad) > 0 {
		m, _ := d.Get(bad[0], msr.SMRRPhysMask)
		c.fail(labelSMRR, "IA32_SMRR_PHYSMASK valid bit clear on CPUs %v (CPU %d: 0x%x)", bad, bad[0], m)
	}
	switch {
	case len(unread) == len(cpus):
		p.NotChecked("SMRR programmed", "IA32_SMRR_PHYSMASK could not be read (some CPUs refuse it outside SMM)", "")
	case len(unread) > 0:
		p.NotChecked("SMRR programmed on every CPU", fmt.Sprintf("IA32_SMRR_PHYSMASK unreadable on CPUs %v", unread), "")
	case len(bad) == 0:
		base, _ := d.Get(cpus[0], msr.SMRRPhysBase)
		m, _ := d.Get(cpus[0], msr.SMRRPhysMask)
		p.Passed("SMRR valid on all %d CPUs (CPU %d: PHYSBASE=0x%x PHYSMASK=0x%x)", len(cpus), cpus[0], base, m)
	}
	c.smrrCoversTSEG(d, cpus)
}

// smrrRange decodes an SMRR pair: base bits 31:12 of PHYSBASE, the range
// as long as PHYSMASK's bits 31:12 say (a power of two).
func smrrRange(base, mask uint64) span {
	b := base & 0xFFFFF000
	m := mask & 0xFFFFF000
	size := (uint64(1) << 32) - m
	if m == 0 {
		size = 1 << 32
	}
	return span{b, b + size - 1}
}

// smrrCoversTSEG compares each CPU's valid SMRR range with TSEG.
func (c *checker) smrrCoversTSEG(d *msr.Dump, cpus []int) {
	p := c.p
	var short []int
	var first span
	n := 0
	for _, cpu := range cpus {
		b, okb := d.Get(cpu, msr.SMRRPhysBase)
		m, okm := d.Get(cpu, msr.SMRRPhysMask)
		if !okb || !okm || m&(1<<11) == 0 {
			continue // unread or invalid: reported above
		}
		r := smrrRange(b, m)
		if n == 0 {
			first = r
		}
		n++
		if c.tseg != nil && (r.base > c.tseg.base || r.end < c.tseg.end) {
			if len(short) == 0 {
				first = r
			}
			short = append(short, cpu)
		}
	}
	switch {
	case n == 0:
		return
	case c.tseg == nil:
		p.NotChecked("SMRR covers TSEG", c.tsegWhy, "")
	case len(short) > 0:
		c.fail(labelCover, "TSEG %s (TSEGMB to BGSM) not covered by SMRR on CPUs %v (CPU %d: SMRR %s)", c.tseg, short, short[0], first)
	default:
		p.Passed("SMRR %s covers TSEG %s on all %d CPUs with a valid SMRR", first, c.tseg, n)
	}
}

func (c *checker) smmLock(d *msr.Dump) {
	p := c.p
	cpus := d.CPUs()
	var unlocked, unread []int
	for _, cpu := range cpus {
		v, ok := d.Get(cpu, msr.HWCR)
		switch {
		case !ok:
			unread = append(unread, cpu)
		case v&1 == 0:
			unlocked = append(unlocked, cpu)
		}
	}
	switch {
	case len(cpus) == 0 || len(unread) == len(cpus):
		p.NotChecked("HWCR.SmmLock set", "HWCR could not be read", "run as root with the msr module available")
		return
	case len(unlocked) > 0 && c.why != "":
		p.Explained(labelAMD, c.why+": virtual CPUs do not model SmmLock, and the hypervisor's firmware runs SMM, if at all, in the host bridge model",
			"HWCR.SmmLock clear on CPUs %v", unlocked)
	case len(unlocked) > 0:
		c.fail(labelAMD, "HWCR.SmmLock clear on CPUs %v", unlocked)
	default:
		p.Passed("HWCR.SmmLock set on all %d CPUs read", len(cpus)-len(unread))
	}
	if len(unread) > 0 {
		p.NotChecked("HWCR.SmmLock on every CPU", fmt.Sprintf("HWCR unreadable on CPUs %v", unread), "")
	}
}

func vendor(cpus []cpuinfo.CPU) (intel, amd bool) {
	if len(cpus) == 0 {
		return false, false
	}
	return cpus[0].Intel(), cpus[0].AMD()
}
