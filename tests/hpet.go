package tests

import (
	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
)

const hpetSpec = "IA-PC HPET 1.0a §3.2.4; ACPI 6.5 §5.2.6 Table 5.6"

var (
	labelHPETLength = NewLabel("HPETTableLength", Medium, hpetSpec,
		"The HPET table is not the 56 bytes the HPET specification defines, so its fields cannot all "+
			"be read. Publish the full table.")
	labelHPETNullBase = NewLabel("HPETNullBase", High, hpetSpec,
		"The HPET base address is zero: the OS cannot reach the timer and falls back to other clock "+
			"sources. Give the timer block's real MMIO address (usually 0xFED00000).")
	labelHPETSpace = NewLabel("HPETAddressSpace", High, hpetSpec,
		"The HPET base address is not in System Memory space. HPET registers are memory-mapped; set "+
			"the GAS Address Space ID to 0 (System Memory).")
	labelHPETHigh = NewLabel("HPETBaseAbove4G", Medium, hpetSpec,
		"The HPET base address has its upper 32 bits set. Timer blocks on PC platforms sit below "+
			"4 GiB, so this is almost certainly a garbage address: check what fills in the upper half.")
	labelHPETComparators = NewLabel("HPETComparatorCount", Low, hpetSpec,
		"The Event Timer Block ID says the first timer block has fewer than 3 comparators; the HPET "+
			"specification requires at least 3. Report the number the hardware implements "+
			"(the capabilities register's NUM_TIM_CAP, i.e. the count minus one).")
	labelHPETProtection = NewLabel("HPETPageProtection", Low, hpetSpec,
		"The page-protection value (bits 3:0) is reserved (3-15). Use 0 (no guarantee), 1 (4 KiB) or "+
			"2 (64 KiB) as the timer block's mapping really is.")
	labelHPETTick = NewLabel("HPETMinClockTick", Low, hpetSpec,
		"The main counter minimum clock tick in periodic mode is 0, which tells the OS it may program "+
			"arbitrarily short periods. Give the smallest tick the hardware supports without losing interrupts.")
)

func init() {
	Register(&Check{
		ID:       "hpet",
		Title:    "HPET table fields and base address",
		Category: ACPI,
		Inputs:   []input.Name{input.ACPITables},
		Spec:     hpetSpec,
		Run:      runHPET,
	})
}

func runHPET(p *Pass) error {
	ts := p.ACPI()
	tables := ts.Get(acpi.SigHPET)
	if len(tables) == 0 {
		p.Info(nil, "no HPET table: the platform does not describe an HPET (it is optional)")
		return nil
	}
	for _, t := range tables {
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
		if h.Protection() > 2 {
			p.Fail(labelHPETProtection, "%s: page protection %d", t.Name(), h.Protection())
		}
		if h.MinClockTick == 0 {
			p.Fail(labelHPETTick, "%s: minimum clock tick 0", t.Name())
		}
		p.Info(nil, "%s: base 0x%x, vendor 0x%04x, %d comparators, %s counter, minimum tick %d", t.Name(), b.Address,
			h.VendorID(), int(h.ComparatorField())+1, map[bool]string{true: "64-bit", false: "32-bit"}[h.Counter64()], h.MinClockTick)
	}
	return nil
}
