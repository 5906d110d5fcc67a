// Package reset is the static reset-path check: which method the running
// kernel will use to reset this machine, and whether the firmware gives
// that method what it needs. It reads the reboot= parameter and
// /sys/kernel/reboot, and the FADT's reset register; it never resets
// anything (the reboot check does, when asked). The reset register's own
// hazards (the single 0xCF9 write, a flag without an address, an address
// space an OS cannot write) are the fadt check's; this check says whether
// the kernel's path goes through them.
//
// The order is Linux's on x86 (arch/x86/kernel/reboot.c): the configured
// method first, then the others in turn when it returns: ACPI's reset
// register, the 8042 keyboard controller, ACPI once more, EFI
// ResetSystem, the BIOS (32-bit kernels only), the PCI reset port 0xCF9
// when known to be safe, and a triple fault.
package reset

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const spec = "ACPI 6.5 §4.8.3.6 (reset register), §5.2.9 (FADT RESET_REG, RESET_REG_SUP); Linux arch/x86/kernel/reboot.c"

var (
	labelACPIUnavailable = tests.NewLabel("ResetACPIRegisterUnavailable", tests.Low, spec,
		"The kernel resets through ACPI first, but the FADT offers no reset register it will use (RESET_REG_SUP "+
			"clear, no address, or a FADT too old to have one), so every reset falls through to the keyboard "+
			"controller and the later fallbacks. Publish a RESET_REG that resets the platform and set RESET_REG_SUP.")
	labelEFIUnavailable = tests.NewLabel("ResetMethodUnavailable", tests.Medium, spec,
		"The reset method the kernel is set to use cannot work on this machine (EFI ResetSystem on a machine "+
			"not booted through UEFI), so resets always take the fallbacks. Change reboot= or the method chosen "+
			"in /sys/kernel/reboot/type.")
)

// Check is the reset check.
var Check = &tests.Check{
	ID:       "reset",
	Title:    "Reset path: the method the kernel will use to reboot, and what the firmware gives it",
	Category: tests.Power,
	Inputs:   []input.Decl{input.RebootConfig},
	Optional: []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelACPIUnavailable, labelEFIUnavailable},
	Run:      run,
}

// paramTypes maps reboot= letters to the method names of
// /sys/kernel/reboot/type.
var paramTypes = map[byte]string{'a': "acpi", 'k': "kbd", 'b': "bios", 'e': "efi", 't': "triple", 'p': "pci", 'q': "cf9_safe"}

// method returns the method the kernel starts with and where that was read.
func method(rc *input.Reboot) (string, string) {
	if rc.Type != "" {
		return rc.Type, "/sys/kernel/reboot/type"
	}
	for _, part := range strings.Split(rc.Param, ",") {
		if part != "" {
			if m, ok := paramTypes[part[0]]; ok {
				return m, "reboot=" + rc.Param
			}
		}
	}
	return "", ""
}

func run(p *tests.Pass) error {
	rc := tests.Input(p, input.RebootConfig)
	if p.Arch() == "arm64" {
		runArm64(p, rc)
		return nil
	}
	ts, _ := tests.Load(p, input.ACPITables)
	m, from := method(rc)
	if m == "" {
		p.NotChecked("the kernel's reset method", "the kernel predates /sys/kernel/reboot (5.11) and no reboot= was given, so its choice (ACPI by default, changed by DMI quirks) cannot be read",
			"boot with reboot=acpi (or the method to test) to make it explicit")
		return nil
	}
	p.Info(nil, "the kernel resets through %s first (%s)", m, from)

	var f *acpi.FADT
	if ts != nil {
		if fs := ts.Get(acpi.SigFADT); len(fs) > 0 {
			f, _ = acpi.ParseFADT(fs[0])
		}
	}
	switch m {
	case "acpi":
		if f == nil {
			p.NotChecked("the ACPI reset register", "no FADT could be read", "run as root, or give --acpidump")
			return nil
		}
		usable := f.HasResetReg() && f.ResetSupported() && f.ResetReg.Address != 0
		if !usable {
			why := "RESET_REG_SUP is clear"
			switch {
			case !f.HasResetReg():
				why = fmt.Sprintf("the FADT (revision %d, %d bytes) has no RESET_REG field", f.Header.Revision, f.Length)
			case f.ResetSupported():
				why = "RESET_REG_SUP is set but RESET_REG's address is 0"
			}
			next := "the keyboard controller"
			if f.IAPCBootArch&acpi.BootArch8042 == 0 {
				next += " (which the FADT does not declare)"
			}
			p.Warn(labelACPIUnavailable, "%s: ACPI resets do nothing and fall through to %s, then EFI ResetSystem%s and a triple fault", why, next, map[bool]string{true: "", false: " (not booted by UEFI: unavailable)"}[rc.EFI])
			return nil
		}
		p.Passed("ACPI reset register %s 0x%x ← 0x%02x, RESET_REG_SUP set (its hazards are the fadt check's)", f.ResetReg.Space, f.ResetReg.Address, f.ResetValue)
	case "efi":
		if !rc.EFI {
			p.Fail(labelEFIUnavailable, "the method is efi (%s) but the machine was not booted through UEFI: the kernel falls back to the BIOS, 0xCF9 and a triple fault", from)
			return nil
		}
		p.Passed("EFI ResetSystem, on a machine booted through UEFI")
	default:
		p.Passed("%s needs nothing from the ACPI tables", m)
	}
	return nil
}

// runArm64 is the check on arm64, whose kernel has one reset path
// (arch/arm64/kernel/process.c, machine_restart): EFI ResetSystem when
// UEFI runtime services are up, then the restart handlers, PSCI
// SYSTEM_RESET among them. The x86 paths (the FADT's reset register, the
// keyboard controller, 0xCF9) are not there.
func runArm64(p *tests.Pass, rc *input.Reboot) {
	if rc.EFI {
		p.Info(nil, "the arm64 kernel resets through EFI ResetSystem, then PSCI SYSTEM_RESET if that returns (no reset-method choice: /sys/kernel/reboot/type is x86 only)")
		p.Passed("EFI ResetSystem, on a machine booted through UEFI")
		return
	}
	p.Info(nil, "the arm64 kernel resets through PSCI SYSTEM_RESET (the machine was not booted through UEFI)")
	p.NotChecked("PSCI SYSTEM_RESET", "this check does not call the firmware; the devicetree check reports the PSCI version the kernel found",
		"run the reboot check (fwcheck run reboot) to reset through it")
}
