// Package biosprotect checks, read-only, that the BIOS flash cannot be
// written from the OS. Two halves:
//
//   - BIOS_CNTL (the LPC bridge's, PCI 00:1f.0 DCh, or from the 300 Series
//     on the SPI function's, 00:1f.5 DCh): BIOSWE clear, BLE set (an
//     attempt to set BIOSWE traps to SMM, which refuses it) and, where the
//     chipset has it, SMM_BWP set (writes only from SMM). Read from PCI
//     configuration space (input pci-config: root reads past 64 bytes,
//     lockdown allows it).
//   - The SPI controller's registers (input spi-flash, its memory-mapped
//     block read through /dev/mem, found through the SPI function's BAR0 or
//     the LPC bridge's RCBA): HSFS.FLOCKDN set (the flash configuration,
//     protected ranges included, locked until reset), HSFS.FDV set (a valid
//     flash descriptor, without which no region is protected), FDOPSS set
//     (the descriptor override strap not asserted), the BIOS master's
//     write access (FRAP.BRWA) denied to the descriptor and ME regions, and
//     the BIOS region (FREG1) covered by write-protected ranges (PR0-PR4
//     with WPE, valid only when FLOCKDN holds them) or by BIOS_CNTL's
//     SMM-only writes.
//
// /dev/mem is refused under kernel lockdown (and restricted by
// iomem=strict): the SPI half is then NOT CHECKED naming the cause and the
// remedy, and the BIOS_CNTL half still stands: the result says which half
// was checked. Register offsets per chipset are data in package chipset;
// a chipset not there is NOT CHECKED with its PCI ID.
//
// Labels and their fwupd HSI attributes:
//
//	BIOSWriteEnabled       BIOSWE set while the OS runs: org.fwupd.hsi.Spi.Bioswe (HSI-1)
//	BIOSLockDisabled       BLE clear: org.fwupd.hsi.Spi.Ble (HSI-1)
//	SMMBWPDisabled         SMM_BWP clear: org.fwupd.hsi.Spi.SmmBwp (HSI-1)
//	SPIConfigNotLocked     FLOCKDN clear: no fwupd attribute (CHIPSEC's spi_lock)
//	FlashDescriptorInvalid FDV clear: no fwupd attribute
//	FlashDescriptorOverride FDOPSS clear (override strap asserted): no fwupd
//	                       attribute (fwupd's Mei.OverrideStrap is the ME's own flag)
//	FlashRegionWritable    the BIOS master may write the descriptor or ME
//	                       region: org.fwupd.hsi.Spi.Descriptor (HSI-1), which
//	                       fwupd reads from the descriptor image instead
//	BIOSRegionUnprotected  neither locked PR ranges nor BIOS_CNTL keep the
//	                       BIOS region from OS writes: no single fwupd
//	                       attribute (it is what Spi.Ble and Spi.SmmBwp guard)
//
// QEMU's ICH9 model has no BIOS_CNTL (it reads 0) and no SPI controller:
// its flash is guarded by the pflash device itself (secure=on with OVMF's
// SMM build), so a zero register under a detected hypervisor is explained,
// and the SPI half is information there, not a part left unchecked. None
// of the labels has a real hardware occurrence in the project's data yet:
// each is a warning until one is seen.
package biosprotect

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/chipset"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

var (
	labelWE = tests.NewLabel("BIOSWriteEnabled", tests.High, "Intel PCH datasheets, LPC BIOS_CNTL bit 0 (BIOSWE)",
		"The BIOS flash is writable from the OS right now (BIOS_CNTL.BIOSWE set): any ring-0 code can replace the "+
			"firmware. Firmware must leave BIOSWE clear when it boots the OS and set it only inside SMM for an update.")
	labelBLE = tests.NewLabel("BIOSLockDisabled", tests.High, "Intel PCH datasheets, LPC BIOS_CNTL bit 1 (BLE)",
		"BIOS_CNTL.BLE is clear, so the OS can set BIOSWE and write the flash without SMM being asked. Set BLE "+
			"(and handle the SMI it raises) before booting the OS.")
	labelBWP = tests.NewLabel("SMMBWPDisabled", tests.High, "Intel PCH datasheets, LPC BIOS_CNTL bit 5 (SMM_BWP)",
		"BIOS_CNTL.SMM_BWP is clear: once BIOSWE is set, code outside SMM may write the flash (the race that "+
			"CVE-2015-3692-class attacks use). Set SMM_BWP so that only SMM can write it.")
	labelFLOCKDN = tests.NewLabel("SPIConfigNotLocked", tests.High, "Intel PCH datasheets, SPI HSFS/HSFSTS_CTL bit 15 (FLOCKDN)",
		"The SPI controller's configuration is not locked down (FLOCKDN clear): the OS can rewrite the protected "+
			"range registers, the opcode menu and the region access settings, undoing every flash protection the "+
			"firmware set. Set FLOCKDN at the end of the firmware's own configuration, before the OS runs.")
	labelFDV = tests.NewLabel("FlashDescriptorInvalid", tests.High, "Intel PCH datasheets, SPI HSFS bit 14 (FDV); flash descriptor",
		"The flash descriptor is not valid (FDV clear): the controller runs in non-descriptor mode, where no flash "+
			"region is protected from any master. Ship an image with a valid descriptor.")
	labelFDO = tests.NewLabel("FlashDescriptorOverride", tests.High, "Intel PCH datasheets, SPI HSFS bit 13 (FDOPSS)",
		"The flash descriptor override strap is asserted (FDOPSS clear): the descriptor's region access limits are "+
			"ignored and every master may read and write every region. The strap is for manufacturing; a shipping "+
			"board must not assert it.")
	labelFRAP = tests.NewLabel("FlashRegionWritable", tests.High, "Intel PCH datasheets, SPI FRAP (BRWA); flash descriptor master section",
		"The flash descriptor grants the BIOS master (the host CPU, so the OS) write access to the descriptor or ME "+
			"region: the OS can rewrite the descriptor's own protections or the ME firmware. Clear those write grants "+
			"in the descriptor's master section before shipping.")
	labelRegion = tests.NewLabel("BIOSRegionUnprotected", tests.High, "Intel PCH datasheets, SPI FREG1, PR0-PR4 (WPE) and BIOS_CNTL",
		"Nothing keeps the OS from writing the BIOS region: no locked, write-protected range (PR0-PR4 with FLOCKDN) "+
			"covers it, and BIOS_CNTL does not restrict writes to SMM. Protect it one way or the other: BLE and "+
			"SMM_BWP with an SMM-only update path, or protected ranges locked with FLOCKDN.")
)

// Check is the bios-write-protect check.
var Check = &tests.Check{
	ID: "bios-write-protect", Title: "BIOS flash not writable from the OS (BIOS_CNTL locks, SPI FLOCKDN, protected ranges, descriptor access)",
	Category: tests.Security,
	Arch:     tests.X86,
	Optional: []input.Decl{input.PCIConfig, input.SPIFlash, input.DMI, input.KernelLog, input.CPUInfo},
	Spec:     "Intel ICH/PCH datasheets, LPC/SPI BIOS_CNTL (DCh) and SPI memory-mapped registers (HSFS, FRAP, FREGn, PRn)",
	Labels:   []*tests.Label{labelWE, labelBLE, labelBWP, labelFLOCKDN, labelFDV, labelFDO, labelFRAP, labelRegion},
	Run:      run,
}

const (
	lpc     = "0000:00:1f.0"
	spiFunc = "0000:00:1f.5"
)

// cntlState is what the BIOS_CNTL half found.
type cntlState int

const (
	cntlUnread cntlState = iota
	cntlOpen             // read, and writes are not restricted to SMM
	cntlLocked           // BIOSWE clear, BLE and (where present) SMM_BWP set
)

type checker struct {
	p   *tests.Pass
	why string
}

func (c *checker) warn(l *tests.Label, format string, args ...any) {
	// No real reading has shown any of the labels yet: warnings until
	// one does (the project's rule for new labels).
	c.p.Warn(l, format, args...)
}

func run(p *tests.Pass) error {
	cfg, cfgErr := tests.Load(p, input.PCIConfig)
	spi, spiErr := tests.Load(p, input.SPIFlash)
	if cfg == nil && spi == nil {
		p.Skip("neither PCI configuration space nor the SPI registers were read: %v; %v", cfgErr, spiErr)
		return nil
	}
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	cpus, _ := tests.Load(p, input.CPUInfo)
	c := &checker{p: p, why: vm.Evidence(dmi, recs, cpus)}
	state, vmZero, done := c.biosControl(cfg, cfgErr)
	if done {
		return nil
	}
	if vmZero {
		// The chipset model has no BIOS_CNTL, and no SPI controller either.
		p.Info(nil, "SPI flash locks: %s: the VM's chipset model has no SPI controller; its flash is the hypervisor's pflash device", c.why)
		return nil
	}
	c.spi(spi, spiErr, state)
	return nil
}

// biosControl checks BIOS_CNTL. done means the check ended (not
// applicable); vmZero that it read 0 on a VM's chipset model.
func (c *checker) biosControl(cfg *input.PCIState, cfgErr error) (state cntlState, vmZero, done bool) {
	p := c.p
	if cfg == nil {
		p.NotChecked("BIOS_CNTL", fmt.Sprintf("PCI configuration space not read: %v", cfgErr), p.Machine().Remedy(cfgErr, "run as root"))
		return cntlUnread, false, false
	}
	dev := cfg.Find(lpc)
	sf := cfg.Find(spiFunc)
	if dev == nil && sf == nil {
		p.NotApplicable("no LPC bridge at PCI %s (not an Intel PC chipset)", lpc)
		return cntlUnread, false, true
	}
	var (
		ctl  chipset.BIOSControl
		name string
		from *sysdev.PCIDevice
	)
	if dev != nil {
		ven, id := dev.ID()
		if ven != 0x8086 {
			p.NotApplicable("the function at %s is %s, not an Intel LPC bridge", lpc, chipset.ID(ven, id))
			return cntlUnread, false, true
		}
		if b := chipset.LookupLPCBridge(ven, id); b != nil {
			ctl, name, from = b.Control, b.Name, dev
		}
	}
	if from == nil && sf != nil {
		if s := chipset.LookupSPIFunction(sf.ID()); s != nil {
			ctl, name, from = s.BIOSControl, s.Name, sf
		}
	}
	if from == nil {
		id := "none"
		if dev != nil {
			id = chipset.ID(dev.ID())
		}
		sid := "none"
		if sf != nil {
			sid = chipset.ID(sf.ID())
		}
		p.NotChecked("BIOS_CNTL", fmt.Sprintf("neither the LPC bridge (%s) nor the SPI function at %s (%s) is in fwcheck's chipset table", id, spiFunc, sid),
			"report the chipset with its datasheet so its layout can be added")
		return cntlUnread, false, false
	}
	v, ok := from.U8(ctl.Offset)
	if !ok {
		p.NotChecked("BIOS_CNTL", fmt.Sprintf("%s: only %d bytes of configuration space were readable (the kernel gives the registers past 64 bytes to root only)", name, len(from.Config)), "run as root")
		return cntlUnread, false, false
	}
	regs := fmt.Sprintf("%s: BIOS_CNTL(0x%02x)=0x%02x", name, ctl.Offset, v)
	vmZero = v == 0 && c.why != ""
	fail := func(l *tests.Label, what string) {
		if vmZero {
			p.Explained(l, c.why+": QEMU's chipset model has no BIOS_CNTL (it reads 0); its flash is write-protected by the pflash device itself", "%s: %s", regs, what)
			return
		}
		c.warn(l, "%s: %s", regs, what)
	}
	state = cntlLocked
	if v&chipset.BIOSWE != 0 {
		fail(labelWE, "BIOSWE set")
		state = cntlOpen
	}
	if v&chipset.BLE == 0 {
		fail(labelBLE, "BLE clear")
		state = cntlOpen
	}
	if ctl.HasSMMBWP && v&chipset.SMMBWP == 0 {
		fail(labelBWP, "SMM_BWP clear")
		state = cntlOpen
	}
	if !ctl.HasSMMBWP && state != cntlLocked {
		p.Info(nil, "%s: this chipset has no SMM_BWP", name)
	}
	if state == cntlLocked {
		bits := "BIOSWE clear, BLE set, SMM_BWP set"
		if !ctl.HasSMMBWP {
			bits = "BIOSWE clear, BLE set; this chipset has no SMM_BWP"
		}
		p.Passed("%s: flash writes locked to SMM (%s)", regs, bits)
	}
	return state, vmZero, false
}

const spiWhat = "SPI flash locks (FLOCKDN, descriptor, PR0-PR4, region access)"

// spi checks the SPI controller's registers.
func (c *checker) spi(s *input.SPIState, err error, cntl cntlState) {
	p := c.p
	half := ""
	if cntl != cntlUnread {
		half = "; BIOS_CNTL was checked, this half was not"
	}
	if s == nil {
		p.NotChecked(spiWhat, fmt.Sprintf("the SPI controller's registers were not read: %v%s", err, half),
			p.Machine().Remedy(err, "run as root on the machine: the SPI registers are read through /dev/mem"))
		return
	}
	if s.Absent != "" {
		if c.why != "" {
			p.Info(nil, "SPI flash locks: %s: %s; a VM's flash is the hypervisor's device, not an SPI chip", c.why, s.Absent)
			return
		}
		p.NotChecked(spiWhat, s.Absent+half, "report the chipset with its datasheet so its SPI controller's layout can be added")
		return
	}
	var ctl *chipset.SPIController
	if s.Addr == spiFunc {
		ctl = chipset.LookupSPIFunction(s.Vendor, s.Device)
	} else {
		ctl = chipset.LookupSPIBehindRCBA(s.Vendor, s.Device)
	}
	if ctl == nil {
		p.NotChecked(spiWhat, fmt.Sprintf("the recorded controller %s at %s is not in this fwcheck's chipset table%s", chipset.ID(s.Vendor, s.Device), s.Addr, half), "")
		return
	}
	l := ctl.Layout
	hsfs, ok := s.Reg(l.HSFS)
	if !ok {
		p.NotChecked(spiWhat, fmt.Sprintf("%s: HSFS (0x%02x) not recorded", ctl.Name, l.HSFS), "")
		return
	}
	hsfs &= 0xFFFF
	regs := fmt.Sprintf("%s at 0x%x: HSFS=0x%04x", ctl.Name, s.Base, hsfs)
	locked := hsfs&chipset.FLOCKDN != 0
	if locked {
		p.Passed("%s: FLOCKDN set", regs)
	} else {
		c.warn(labelFLOCKDN, "%s: FLOCKDN clear", regs)
	}
	if hsfs&chipset.FDV == 0 {
		c.warn(labelFDV, "%s: FDV clear (no valid flash descriptor: no region is protected)", regs)
	} else {
		if hsfs&chipset.FDOPSS == 0 {
			c.warn(labelFDO, "%s: FDOPSS clear (descriptor override strap asserted)", regs)
		} else {
			p.Passed("%s: descriptor valid, override strap not asserted", regs)
		}
		c.regionAccess(ctl, s)
	}
	c.biosRegion(ctl, s, locked, cntl)
}

// regionAccess checks the BIOS master's write grants over the
// descriptor and ME regions.
func (c *checker) regionAccess(ctl *chipset.SPIController, s *input.SPIState) {
	p := c.p
	frap, ok := s.Reg(ctl.Layout.FRAP)
	if !ok {
		p.NotChecked("BIOS master region access (FRAP)", fmt.Sprintf("%s: FRAP (0x%02x) not recorded", ctl.Name, ctl.Layout.FRAP), "")
		return
	}
	brra, brwa := frap&0xFF, frap>>8&0xFF
	var bad []string
	for _, r := range []int{chipset.RegionDescriptor, chipset.RegionME} {
		if brwa&(1<<r) != 0 && c.regionUsed(ctl, s, r) {
			bad = append(bad, chipset.RegionName(r))
		}
	}
	if len(bad) > 0 {
		c.warn(labelFRAP, "%s: FRAP=0x%08x: BRWA=0x%02x lets the BIOS master write the %s", ctl.Name, frap, brwa, regions(bad))
	} else {
		p.Passed("%s: FRAP=0x%08x: the BIOS master cannot write the descriptor or ME region (BRWA=0x%02x)", ctl.Name, frap, brwa)
	}
	if brra&(1<<chipset.RegionME) != 0 && c.regionUsed(ctl, s, chipset.RegionME) {
		p.Info(nil, "%s: the BIOS master may read the ME region (BRRA=0x%02x)", ctl.Name, brra)
	}
}

// regions names a list of region names: "the ME region", "the
// descriptor and ME regions".
func regions(names []string) string {
	if len(names) == 1 {
		return names[0] + " region"
	}
	return strings.Join(names, " and ") + " regions"
}

// regionUsed reports whether flash region r is in use (FREGr base not
// above its limit); an unrecorded region counts as used.
func (c *checker) regionUsed(ctl *chipset.SPIController, s *input.SPIState, r int) bool {
	v, ok := s.Reg(ctl.Layout.FREG0 + 4*r)
	if !ok {
		return true
	}
	_, _, used := ctl.Layout.Range(v)
	return used
}

// biosRegion checks that the BIOS region is covered by locked,
// write-protected ranges or by BIOS_CNTL's SMM-only writes.
func (c *checker) biosRegion(ctl *chipset.SPIController, s *input.SPIState, locked bool, cntl cntlState) {
	p := c.p
	l := ctl.Layout
	freg, ok := s.Reg(l.FREG0 + 4*chipset.RegionBIOS)
	if !ok {
		p.NotChecked("BIOS region write protection", fmt.Sprintf("%s: FREG1 (0x%02x) not recorded", ctl.Name, l.FREG0+4), "")
		return
	}
	base, limit, used := l.Range(freg)
	if !used {
		p.NotChecked("BIOS region write protection", fmt.Sprintf("%s: FREG1=0x%08x names no BIOS region", ctl.Name, freg), "")
		return
	}
	var prs []string
	var ranges [][2]uint64
	for i := 0; i < l.NPR; i++ {
		v, ok := s.Reg(l.PR0 + 4*i)
		if !ok || v&chipset.PRWriteProtect == 0 {
			continue
		}
		b, e, ok := l.Range(v)
		if !ok {
			continue
		}
		prs = append(prs, fmt.Sprintf("PR%d=0x%08x (0x%x-0x%x)", i, v, b, e))
		ranges = append(ranges, [2]uint64{b, e})
	}
	covered := coveredBytes(base, limit, ranges)
	total := limit - base + 1
	region := fmt.Sprintf("BIOS region 0x%x-0x%x (FREG1=0x%08x)", base, limit, freg)
	prText := "no write-protected range"
	if len(prs) > 0 {
		prText = strings.Join(prs, ", ")
	}
	switch {
	case covered == total && locked:
		p.Passed("%s: %s: write-protected ranges cover it all, locked by FLOCKDN: %s", ctl.Name, region, prText)
	case cntl == cntlLocked:
		p.Passed("%s: %s: writes restricted to SMM by BIOS_CNTL; locked protected ranges cover %d of %d KiB (%s)",
			ctl.Name, region, lockedOr(covered, locked)/1024, total/1024, prText)
	case cntl == cntlUnread:
		p.NotChecked("BIOS region write protection", fmt.Sprintf("%s: %s: locked protected ranges cover %d of %d KiB, and BIOS_CNTL, which may protect the rest, was not read",
			ctl.Name, region, lockedOr(covered, locked)/1024, total/1024), "run as root")
	default:
		what := prText
		if !locked && len(prs) > 0 {
			what += ", not locked (FLOCKDN clear)"
		}
		c.warn(labelRegion, "%s: %s: BIOS_CNTL does not restrict writes to SMM, and locked write-protected ranges cover %d of %d KiB: %s",
			ctl.Name, region, lockedOr(covered, locked)/1024, total/1024, what)
	}
}

// lockedOr counts coverage only when FLOCKDN holds the ranges: unlocked
// ranges can be cleared by the OS.
func lockedOr(covered uint64, locked bool) uint64 {
	if !locked {
		return 0
	}
	return covered
}

// coveredBytes returns how many bytes of [base, limit] the ranges cover
// together (overlaps counted once). At most 5 ranges come in.
func coveredBytes(base, limit uint64, ranges [][2]uint64) uint64 {
	var n uint64
	at := base
	for at <= limit {
		// the range covering at that reaches furthest
		best := uint64(0)
		found := false
		for _, r := range ranges {
			if r[0] <= at && r[1] >= at && (!found || r[1] > best) {
				best, found = r[1], true
			}
		}
		if found {
			end := min(best, limit)
			n += end - at + 1
			if end == limit {
				break
			}
			at = end + 1
			continue
		}
		// skip to the next range start above at
		next, ok := uint64(0), false
		for _, r := range ranges {
			if r[0] > at && r[0] <= limit && (!ok || r[0] < next) {
				next, ok = r[0], true
			}
		}
		if !ok {
			break
		}
		at = next
	}
	return n
}
