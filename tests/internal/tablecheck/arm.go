package tablecheck

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
)

// Arm says what in the tables shows an Arm machine (GIC structures in the
// MADT, an ARM_BOOT_ARCH in the FADT, a GTDT), "" when nothing does: the
// Arm checks' rules for a missing table apply only then.
func Arm(ts *acpi.Tables) string {
	var why []string
	if m, _ := ts.MADT(); m != nil {
		if n := len(m.GICCs) + len(m.GICDs); n > 0 {
			why = append(why, fmt.Sprintf("%d GIC structures in the MADT", n))
		}
	}
	if f, err := ts.FADT(); err == nil && f.ARMBootArch != 0 {
		why = append(why, fmt.Sprintf("FADT ARM_BOOT_ARCH 0x%x", f.ARMBootArch))
	}
	if ts.First(acpi.SigGTDT) != nil {
		why = append(why, "a GTDT")
	}
	return strings.Join(why, ", ")
}

// X86 says what in the tables shows an x86 PC (an FADT that is not
// hardware-reduced, local APIC or I/O APIC structures in the MADT, an
// HPET, IA-PC boot flags), "" when nothing does.
func X86(ts *acpi.Tables) string {
	var why []string
	if f, err := ts.FADT(); err == nil {
		if !f.HWReduced() {
			why = append(why, "FADT not hardware-reduced (HW_REDUCED_ACPI clear)")
		}
		if f.IAPCBootArch != 0 {
			why = append(why, fmt.Sprintf("FADT IAPC_BOOT_ARCH 0x%x", f.IAPCBootArch))
		}
	}
	if m, _ := ts.MADT(); m != nil {
		if n := len(m.LocalAPICs) + len(m.X2APICs) + len(m.IOAPICs); n > 0 {
			why = append(why, fmt.Sprintf("%d local/I/O APIC structures in the MADT", n))
		}
	}
	for _, sig := range []string{acpi.SigHPET, "FACS", "DMAR", "IVRS", "WSMT"} {
		if ts.First(sig) != nil {
			why = append(why, sig+" table")
		}
	}
	return strings.Join(why, ", ")
}
