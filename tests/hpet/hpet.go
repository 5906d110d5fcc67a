// Package hpet checks the HPET description table: its length, base address
// and address space, comparator count, vendor ID, page protection and
// minimum tick.
//
// fwts' hpet test, rule by rule (fwts names → fwcheck labels):
// HPETAcpiTableTooSmall → HPETTableLength; HPETAcpiBaseAddressNull →
// HPETNullBase; HPETAcpiBaseAddressSpaceIdNotMemory → HPETAddressSpace;
// HPETAcpiBaseAddressBogus → HPETBaseAbove4G; HPETVendorIdZero →
// HPETVendorID (which also takes 0xFFFF, no vendor's ID either);
// HPETBaseMismatch (the DSDT's HPET _CRS) → the hpet-crs check. Left out
// on purpose: the base against the kernel log's (Linux takes it from this
// very table, so they cannot differ but by a kernel quirk), and the
// vendor ID and clock period read from the timer's own registers through
// /dev/mem (MMIO reads a strict kernel refuses, and the table's Event
// Timer Block ID is judged instead).
//
// HPETVendorID was read on the corpus before it was kept: 5 machines
// (4067500F99BB, 40AECBFF4573, 57ED146F2C3C, 58E82626C3C5, 9DD6689C023B)
// give vendor 0x0000 or 0xFFFF; the 0xFFFF ones also claim 32
// comparators and a 64-bit counter, an Event Timer Block ID left all
// ones rather than copied from the timer's capabilities register.
package hpet

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const hpetSpec = "IA-PC HPET 1.0a §3.2.4; ACPI 6.5 §5.2.6 Table 5.6"

var (
	labelHPETLength = tests.NewLabel("HPETTableLength", tests.Medium, hpetSpec,
		"The HPET table is not the 56 bytes the HPET specification defines, so its fields cannot all "+
			"be read. Publish the full table.")
	labelHPETNullBase = tests.NewLabel("HPETNullBase", tests.High, hpetSpec,
		"The HPET base address is zero: the OS cannot reach the timer and falls back to other clock "+
			"sources. Give the timer block's real MMIO address (usually 0xFED00000).")
	labelHPETSpace = tests.NewLabel("HPETAddressSpace", tests.High, hpetSpec,
		"The HPET base address is not in System Memory space. HPET registers are memory-mapped; set "+
			"the GAS Address Space ID to 0 (System Memory).")
	labelHPETHigh = tests.NewLabel("HPETBaseAbove4G", tests.Medium, hpetSpec,
		"The HPET base address has its upper 32 bits set. Timer blocks on PC platforms sit below "+
			"4 GiB, so this is almost certainly a garbage address: check what fills in the upper half.")
	labelHPETComparators = tests.NewLabel("HPETComparatorCount", tests.Low, hpetSpec,
		"The Event Timer Block ID says the first timer block has fewer than 3 comparators; the HPET "+
			"specification requires at least 3. Report the number the hardware implements "+
			"(the capabilities register's NUM_TIM_CAP, i.e. the count minus one).")
	labelHPETVendor = tests.NewLabel("HPETVendorID", tests.Low, hpetSpec,
		"The Event Timer Block ID's PCI vendor ID (bits 31:16) is 0x0000 or 0xFFFF, which is no "+
			"vendor's ID; the HPET specification asks for the vendor ID the timer block would have as a "+
			"PCI function. Give the chipset vendor's ID, as the timer's capabilities register does.")
	labelHPETProtection = tests.NewLabel("HPETPageProtection", tests.Low, hpetSpec,
		"The page-protection value (bits 3:0) is reserved (3-15). Use 0 (no guarantee), 1 (4 KiB) or "+
			"2 (64 KiB) as the timer block's mapping really is.")
	labelHPETTick = tests.NewLabel("HPETMinClockTick", tests.Low, hpetSpec,
		"The main counter minimum clock tick in periodic mode is 0, which tells the OS it may program "+
			"arbitrarily short periods. Give the smallest tick the hardware supports without losing interrupts.")
)

// Check is the hpet check.
var Check = &tests.Check{
	ID:       "hpet",
	Title:    "HPET table fields and base address",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     hpetSpec,
	Labels: []*tests.Label{labelHPETLength, labelHPETNullBase, labelHPETSpace, labelHPETHigh,
		labelHPETComparators, labelHPETVendor, labelHPETProtection, labelHPETTick},
	Run: run,
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	tables := ts.Get(acpi.SigHPET)
	if len(tables) == 0 {
		p.NotApplicable("no HPET table: the platform does not describe an HPET (it is optional)")
		return nil
	}
	for _, t := range tables {
		before := p.Failures()
		h, err := acpi.ParseHPET(t)
		if err != nil {
			p.Fail(labelHPETLength, "%s: %v", t.Name(), err)
			continue
		}
		if t.Header.Length != acpi.HPETSize {
			p.Fail(labelHPETLength, "%s: length %d, expected %d", t.Name(), t.Header.Length, acpi.HPETSize)
		}
		b := h.BaseAddress
		switch {
		case b.Address == 0:
			p.Fail(labelHPETNullBase, "%s: base address is 0", t.Name())
		case b.Address>>32 != 0:
			p.Fail(labelHPETHigh, "%s: base address 0x%x", t.Name(), b.Address)
		}
		if b.Space != acpi.SpaceSystemMemory {
			p.Fail(labelHPETSpace, "%s: base address space is %s", t.Name(), b.Space)
		}
		if h.ComparatorField() < 2 {
			p.Fail(labelHPETComparators, "%s: comparator field %d (%d comparators)", t.Name(), h.ComparatorField(), int(h.ComparatorField())+1)
		}
		if v := h.VendorID(); v == 0 || v == 0xFFFF {
			p.Fail(labelHPETVendor, "%s: vendor ID 0x%04x", t.Name(), v)
		}
		if h.Protection() > 2 {
			p.Fail(labelHPETProtection, "%s: page protection %d", t.Name(), h.Protection())
		}
		if h.MinClockTick == 0 {
			p.Fail(labelHPETTick, "%s: minimum clock tick 0", t.Name())
		}
		summary := fmt.Sprintf("%s: base 0x%x, vendor 0x%04x, %d comparators, %s counter, minimum tick %d", t.Name(), b.Address,
			h.VendorID(), int(h.ComparatorField())+1, map[bool]string{true: "64-bit", false: "32-bit"}[h.Counter64()], h.MinClockTick)
		if p.Failures() == before {
			p.Passed("%s", summary)
		} else {
			p.Info(nil, "%s", summary)
		}
	}
	return nil
}
