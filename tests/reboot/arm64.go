package reboot

import (
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/journal"
	"github.com/fwcheck/fwcheck/tests"
)

// requestArm64 is request on arm64, whose kernel has one reset path and
// no /sys/kernel/reboot/type to choose from (arch/arm64/kernel/process.c,
// machine_restart): EFI ResetSystem when UEFI runtime services are up,
// then the restart handlers, PSCI SYSTEM_RESET (SYSTEM_RESET2 for a warm
// reset) among them. The methods offered are that path (default, or efi,
// which names its first step) and psci, which is that path on a machine
// not booted through UEFI; the x86 methods (the ACPI reset register, the
// keyboard controller, 0xCF9, a triple fault, the BIOS) do not exist.
func requestArm64(p *tests.Pass, j *journal.Journal, n, cycles int, method string) (*Outcome, error) {
	refuse := func(why string) (*Outcome, error) {
		o := &Outcome{Cycle: n, Status: "failed", Method: method, Problems: []string{why}}
		p.Fail(labelFailed, "reboot %d: %s", n, why)
		return o, j.Append(Record{Event: "outcome", Cycle: n, Time: p.Now(), Outcome: o})
	}
	efi := false
	if rc, err := tests.Load(p, input.RebootConfig); err == nil && rc != nil {
		efi = rc.EFI
	}
	switch method {
	case "default":
	case "efi":
		if !efi {
			return refuse("method efi: the machine was not booted through UEFI, so the arm64 kernel resets through PSCI SYSTEM_RESET (use --reboot.method psci)")
		}
	case "psci":
		if efi {
			return refuse("method psci: booted through UEFI, the arm64 kernel resets through EFI ResetSystem first and reaches PSCI only if that returns; to test PSCI alone boot without UEFI runtime services (efi=noruntime)")
		}
	default:
		return refuse("method " + method + " is x86 only: on arm64 the methods are default (efi, then psci), efi and psci")
	}
	if err := j.Append(Record{Event: "request", Cycle: n, Time: p.Now(), Method: method}); err != nil {
		return nil, err
	}
	path := "PSCI SYSTEM_RESET"
	if efi {
		path = "EFI ResetSystem, then PSCI SYSTEM_RESET"
	}
	p.Progress("reboot %d/%d: resetting the machine through %s", n, cycles, path)
	if err := j.Close(); err != nil {
		return nil, err
	}
	if err := p.Control().Reboot(""); err != nil {
		o := &Outcome{Cycle: n, Status: "failed", Method: method, Problems: []string{err.Error()}}
		p.Fail(labelFailed, "reboot %d: %v", n, err)
		return o, j.Append(Record{Event: "outcome", Cycle: n, Time: p.Now(), Outcome: o})
	}
	return nil, nil
}
