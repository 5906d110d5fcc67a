// Package lpit checks the Low Power Idle Table (Intel, ACPI Low Power Idle
// Table (LPIT), revision 001): revision, every LPI structure walked by its
// own length, native C-state structures' size, unique IDs, reserved bits,
// entry trigger and residency counter. Linux reads the residency counters
// of this table for its S0ix residency (drivers/acpi/acpi_lpit.c: a counter
// in System Memory is mapped, one in Functional Fixed Hardware space is
// an MSR), so a counter it cannot read hides whether the machine reaches
// its low-power idle state.
//
// Left out on purpose: the residency and latency values (the specification
// sets no bounds), a counter frequency of 0 (it means the TSC's
// frequency), and disabled states (reported as information; the
// specification lets firmware describe states it turned off).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	LPITMalformed         none
//	LPITRevision          1: core/728634434C6F
//	LPITStructureLength   none
//	LPITStructureSize     none
//	LPITDuplicateID       none
//	LPITReservedBits      none
//	LPITResidencyCounter  none
//	LPITEntryTrigger      none
//	LPITNoStates          none
package lpit

import (
	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "Intel ACPI Low Power Idle Table (LPIT) rev. 001 §2"

var (
	labelMalformed = tests.NewLabel("LPITMalformed", tests.Medium, spec,
		"The LPIT is shorter than its header or its Length disagrees with its bytes. Publish the whole "+
			"table with a correct Length.")
	labelRevision = tests.NewLabel("LPITRevision", tests.Low, spec,
		"The LPIT revision is not 1, the only one defined. Set Revision to 1.")
	labelStructLength = tests.NewLabel("LPITStructureLength", tests.Medium, spec+".1",
		"An LPI structure has a length shorter than its Type and Length fields or runs past the end "+
			"of the table, so the OS stops reading the states there. Give each structure its real length.")
	labelSize = tests.NewLabel("LPITStructureSize", tests.Medium, spec+".1",
		"A native C-state LPI structure is not the 56 bytes the specification defines, so its "+
			"residency counter is cut off or read from the wrong place. Use length 56.")
	labelDupID = tests.NewLabel("LPITDuplicateID", tests.Low, spec+".1",
		"Two LPI structures share a Unique ID; the OS cannot tell the states apart. Give each its own ID.")
	labelReserved = tests.NewLabel("LPITReservedBits", tests.Low, spec+".1",
		"An LPI structure's reserved field or reserved flag bits (31:2) are not zero. Clear them.")
	labelCounter = tests.NewLabel("LPITResidencyCounter", tests.Medium, spec+".1",
		"An LPI structure says it has a residency counter (flag bit 1 clear), but the counter's "+
			"register is empty or in an address space other than System Memory or Functional Fixed "+
			"Hardware (an MSR), which are what OSes read; the time spent in the state cannot be "+
			"measured. Give the counter's real register, or set the 'counter not available' flag.")
	labelTrigger = tests.NewLabel("LPITEntryTrigger", tests.Low, spec+".1",
		"An enabled LPI structure has an all-zero entry trigger, so it does not say how the state is "+
			"entered. Give the register or MWAIT hint (Functional Fixed Hardware) that enters it.")
	labelEmpty = tests.NewLabel("LPITNoStates", tests.Low, spec,
		"The LPIT describes no low-power idle state. Describe the platform's states, or publish no LPIT.")
)

var unconfirmed = map[*tests.Label]bool{
	labelMalformed: true, labelStructLength: true, labelSize: true, labelDupID: true,
	labelReserved: true, labelCounter: true, labelTrigger: true, labelEmpty: true,
}

// Check is the lpit check.
var Check = &tests.Check{
	ID:       "lpit",
	Title:    "LPIT low-power idle states and their residency counters",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelMalformed, labelRevision, labelStructLength, labelSize, labelDupID, labelReserved, labelCounter, labelTrigger, labelEmpty},
	Run:      run,
}

func run(p *tests.Pass) error {
	for _, t := range tablecheck.Tables(p, acpi.SigLPIT, "no LPIT table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		l, err := acpi.ParseLPIT(t)
		if l == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1)
		r.Walk(labelStructLength, err)
		r.NotRead(l.NotRead)
		if len(l.States) == 0 && err == nil {
			r.Fail(labelEmpty, "no LPI structures")
		}
		ids := map[uint16]int{}
		enabled := 0
		for _, s := range l.States {
			if s.Type != acpi.LPITNativeCState {
				r.Info("LPI structure type %d at offset %d (length %d) is reserved: not interpreted", s.Type, s.Offset, s.Length)
				continue
			}
			if s.Length != acpi.LPITNativeCStateSize {
				r.Fail(labelSize, "native C-state structure at offset %d has length %d", s.Offset, s.Length)
			}
			if s.Short {
				continue
			}
			if prev, dup := ids[s.UniqueID]; dup {
				r.Fail(labelDupID, "structures at offsets %d and %d share unique ID %d", prev, s.Offset, s.UniqueID)
			} else {
				ids[s.UniqueID] = s.Offset
			}
			if s.Reserved != 0 || s.Flags&^3 != 0 {
				r.Fail(labelReserved, "state %d: reserved field 0x%04x, flags 0x%08x", s.UniqueID, s.Reserved, s.Flags)
			}
			if s.Flags&acpi.LPITDisabled != 0 {
				r.Info("state %d is disabled", s.UniqueID)
				continue
			}
			enabled++
			if s.EntryTrigger.IsZero() {
				r.Fail(labelTrigger, "state %d: entry trigger %s", s.UniqueID, s.EntryTrigger)
			}
			c := s.ResidencyCounter
			if s.Flags&acpi.LPITCounterNotPresent == 0 && (c.Address == 0 || (c.Space != acpi.SpaceSystemMemory && c.Space != acpi.SpaceFunctionalFixed)) {
				r.Fail(labelCounter, "state %d: residency counter %s", s.UniqueID, c)
			}
		}
		r.Done("revision %d, %d LPI structures, %d enabled", t.Header.Revision, len(l.States), enabled)
	}
	return nil
}
