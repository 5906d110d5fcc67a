// Package bootguard is the bootguard-txt check: read-only, it reports the
// state of Intel Boot Guard, the CPU's verification of the firmware's
// initial boot block before the first instruction of the BIOS runs, and of
// Intel TXT's public status registers.
//
// Evidence: MSR_BOOT_GUARD_SACM_INFO (MSR 13Ah, input msrs: the msr module;
// reads are allowed under lockdown): bit 32 says the CPU is Boot Guard
// capable, bit 6 that the startup ACM verified the initial boot block,
// bit 5 that it measured it into the TPM, bit 7 that the ACM was revoked,
// bit 0 that it ran from cache (NEM). The TXT public space at FED30000h
// (input txt-public, through /dev/mem, read only on an Intel CPU with SMX):
// TXT.DIDVID names the chipset's TXT device, TXT.STS, TXT.ESTS,
// TXT.ERRORCODE, the ACM status and TXT.DPR the rest. Under kernel lockdown
// /dev/mem is refused: the TXT half is then NOT CHECKED, naming it.
//
// Everything here is information except one label: Boot Guard verified
// boot is an OEM's choice of policy, and TXT is an opt-in feature. The
// label:
//
//	BootGuardNotVerifying  a Boot Guard capable CPU whose ACM did not verify
//	                       the boot block: fwupd's
//	                       org.fwupd.hsi.IntelBootguard.Verified (HSI-2).
//	                       No real occurrence in the project's data yet: a
//	                       warning.
//
// Why not converged-security-suite: 9elements' Go library
// (github.com/9elements/converged-security-suite/v2) has Boot Guard and
// TXT tests, reading these same registers, and parses the FIT, the key
// and boot policy manifests of a firmware image. It was weighed for this
// check: the Go module proxy this project builds from does not serve it
// (go get answers 403 Forbidden, and the project's package lists do not
// have it), and it brings its own hardware-access layer
// (go-linux-lowlevel-hw) and fiano, which would read the machine beside
// fwcheck's input seam. Reading two registers and six words of TXT space
// needs neither, so the check reads them through the input seam itself;
// image-level manifest checks (what the suite is for) are not done here.
package bootguard

import (
	"fmt"

	"github.com/fwcheck/fwcheck/cpu/msr"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

var labelNotVerifying = tests.NewLabel("BootGuardNotVerifying", tests.Medium, "Intel Boot Guard (MSR_BOOT_GUARD_SACM_INFO bit 6, verified boot)",
	"The CPU can verify the firmware's initial boot block before running it (Boot Guard), but its startup ACM did "+
		"not: a modified flash image runs unchallenged. Provision a Boot Guard profile with verified boot (key "+
		"manifest and boot policy manifest, and the fused OEM key) before shipping, or record why this product does not.")

// Check is the bootguard-txt check.
var Check = &tests.Check{
	ID: "bootguard-txt", Title: "Intel Boot Guard verified/measured boot and TXT status (information)",
	Category: tests.Security,
	Arch:     tests.X86,
	Optional: []input.Decl{input.MSRs, input.TXT, input.CPUInfo, input.DMI, input.KernelLog},
	Spec:     "Intel Boot Guard and TXT (MSR 13Ah; TXT public space FED30000h)",
	Labels:   []*tests.Label{labelNotVerifying},
	Run:      run,
}

// MSR_BOOT_GUARD_SACM_INFO bits.
const (
	sacmNEM      = 1 << 0
	sacmMeasured = 1 << 5
	sacmVerified = 1 << 6
	sacmRevoked  = 1 << 7
	sacmCapable  = 1 << 32
)

func run(p *tests.Pass) error {
	cpus, cpuErr := tests.Load(p, input.CPUInfo)
	if len(cpus) == 0 {
		p.Skip("/proc/cpuinfo not read: %v", cpuErr)
		return nil
	}
	if !cpus[0].Intel() {
		p.NotApplicable("not an Intel CPU: Boot Guard and TXT are Intel's")
		return nil
	}
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	why := vm.Evidence(dmi, recs, cpus)
	bg := bootGuard(p, why)
	tx := txt(p, why)
	switch {
	case bg != "" && tx != "":
		p.NotApplicable("%s; %s", bg, tx)
	case bg != "":
		p.Info(nil, "%s", bg)
	case tx != "":
		p.Info(nil, "%s", tx)
	}
	return nil
}

// bootGuard reports Boot Guard's state; it returns why Boot Guard is not
// there, or "" when it is (or could not be read).
func bootGuard(p *tests.Pass, why string) string {
	d, err := tests.Load(p, input.MSRs)
	if d == nil {
		p.NotChecked("Boot Guard status (MSR 13Ah)", fmt.Sprintf("MSRs not read: %v", err), p.Machine().Remedy(err, "run as root with the msr module"))
		return ""
	}
	cpus := d.CPUs()
	if len(cpus) == 0 {
		p.NotChecked("Boot Guard status (MSR 13Ah)", "no CPU's MSRs in the dump", "")
		return ""
	}
	v, ok := d.Get(cpus[0], msr.BootGuardSACMInfo)
	if !ok {
		e := d.Errors[cpus[0]][msr.BootGuardSACMInfo]
		if e == "" {
			e = "not in the dump"
		}
		if why != "" {
			return fmt.Sprintf("Boot Guard: %s: MSR_BOOT_GUARD_SACM_INFO refused (%s): a virtual CPU has no Boot Guard", why, e)
		}
		p.NotChecked("Boot Guard status (MSR 13Ah)", "MSR_BOOT_GUARD_SACM_INFO could not be read: "+e,
			"CPUs without Boot Guard refuse it; nothing to change if this CPU has none")
		return ""
	}
	regs := fmt.Sprintf("MSR_BOOT_GUARD_SACM_INFO=0x%x", v)
	if v&sacmCapable == 0 {
		return fmt.Sprintf("Boot Guard: %s: the CPU is not Boot Guard capable (bit 32 clear)", regs)
	}
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	verified, measured := v&sacmVerified != 0, v&sacmMeasured != 0
	state := fmt.Sprintf("%s: verified boot %s, measured boot %s, ACM ran from cache (NEM) %s", regs, onOff(verified), onOff(measured), onOff(v&sacmNEM != 0))
	if v&sacmRevoked != 0 {
		p.Info(nil, "Boot Guard: %s: the startup ACM reports itself revoked (bit 7)", regs)
	}
	if verified {
		p.Passed("Boot Guard: %s", state)
		return ""
	}
	// Not seen on a real machine in the project's data yet: a warning.
	p.Warn(labelNotVerifying, "Boot Guard: %s", state)
	return ""
}

// txt reports TXT's public status registers; it returns why TXT is not
// there, or "" when it is (or could not be read).
func txt(p *tests.Pass, why string) string {
	s, err := tests.Load(p, input.TXT)
	if s == nil {
		p.NotChecked("TXT status (public space FED30000h)", fmt.Sprintf("not read: %v", err),
			p.Machine().Remedy(err, "run as root on the machine: the TXT registers are read through /dev/mem"))
		return ""
	}
	if s.Absent != "" {
		return "TXT: " + s.Absent
	}
	did := s.Regs[input.TXTDIDVID]
	if did&0xFFFF != 0x8086 {
		what := "the chipset does not decode the TXT public space"
		if why != "" {
			what = why + ": " + what
		}
		return fmt.Sprintf("TXT: TXT.DIDVID=0x%08x: %s (no TXT)", did, what)
	}
	sts, ests, ec, acm, dpr := s.Regs[input.TXTSts], s.Regs[input.TXTEsts], s.Regs[input.TXTErrorCode], s.Regs[input.TXTACMStatus], s.Regs[input.TXTDPR]
	p.Info(nil, "TXT: TXT.DIDVID=0x%08x, TXT.STS=0x%08x (SENTER.DONE %v, MEM-CONFIG-LOCK %v, PRIVATE-OPEN %v), TXT.ESTS=0x%08x (TXT_RESET %v)",
		did, sts, sts&1 != 0, sts&(1<<6) != 0, sts&(1<<7) != 0, ests, ests&1 != 0)
	p.Info(nil, "TXT: TXT.ERRORCODE=0x%08x (valid %v), ACM status=0x%08x (valid %v, ACM started %v), TXT.DPR=0x%08x (locked %v, %d MiB below 0x%x)",
		ec, ec&(1<<31) != 0, acm, acm&(1<<31) != 0, acm&(1<<15) != 0, dpr, dpr&1 != 0, dpr>>4&0xFF, uint64(dpr>>20)<<20)
	p.Passed("TXT: the public space is decoded and its status read")
	return ""
}
