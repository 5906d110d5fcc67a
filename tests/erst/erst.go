// Package erst checks the two APEI tables made of instruction entries:
// the Error Record Serialization Table (ACPI 6.5 §18.5, check erst), with
// which the OS stores error records in persistent storage (Linux's pstore
// uses it), and the Error Injection table (§18.6, check einj), with which
// a validation engineer injects errors. Each check reads the header size,
// the reserved or flag bytes, the entry count against the table's length,
// and every 32-byte entry: a defined action and instruction, reserved
// flag bits and byte, and for each instruction that accesses a register,
// a register region the OS can use (System Memory or System I/O, nonzero,
// width within access size). Linux's APEI code refuses the whole table
// when one entry's register is unusable.
//
// Left out on purpose: which actions a table must provide (ACPI 6.5 lists
// the actions without saying which are mandatory, and Linux fails an
// operation only when it runs one that is missing); the order of entries
// (each action's entries run in table order, which is the firmware's
// choice); Value and Mask (any value may be written); the EINJ's trigger
// action table, which lives in memory the table does not hold. A header
// size of 48 (the whole header) is accepted beside 12 (the fields after
// the ACPI header): the specification's wording allows both, and Linux
// accepts both.
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	ERSTMalformed       none
//	ERSTRevision        none
//	ERSTHeaderSize      none
//	ERSTEntryCount      none
//	ERSTAction          none
//	ERSTInstruction     none
//	ERSTReservedBits    none
//	ERSTRegisterRegion  none
//	ERSTNoEntries       none
//	EINJMalformed       none
//	EINJRevision        none
//	EINJHeaderSize      none
//	EINJEntryCount      none
//	EINJAction          none
//	EINJInstruction     none
//	EINJReservedBits    none
//	EINJRegisterRegion  6: core/40AECBFF4573 core/58E82626C3C5 core/CE92DF29C87C full/40AECBFF4573 …
//	EINJNoEntries       none
package erst

import (
	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// table describes what differs between the two checks.
type table struct {
	sig, spec, absent string
	parse             func(*acpi.Table) (*acpi.WHEATable, error)
	actionName        func(uint8) string
	labels            labels
}

type labels struct {
	malformed, revision, headerSize, count, action, instruction, reserved, register, empty *tests.Label
}

func (l labels) all() []*tests.Label {
	return []*tests.Label{l.malformed, l.revision, l.headerSize, l.count, l.action, l.instruction, l.reserved, l.register, l.empty}
}

// newLabels declares one table's labels; use says what the table is for
// ("error records are not saved", "errors cannot be injected").
func newLabels(sig, spec, use string) labels {
	return labels{
		malformed: tests.NewLabel(sig+"Malformed", tests.Medium, spec,
			"The "+sig+" is shorter than its 48-byte header or its Length disagrees with its bytes; "+use+". "+
				"Publish the whole table with a correct Length."),
		revision: tests.NewLabel(sig+"Revision", tests.Low, spec,
			"The "+sig+" revision is not 1, the one ACPI 6.5 defines. Set Revision to 1."),
		headerSize: tests.NewLabel(sig+"HeaderSize", tests.Medium, spec,
			"The "+sig+"'s header size field is neither 12 (the fields after the ACPI header) nor 48 (the "+
				"whole header); Linux refuses such a table, so "+use+". Set it to 12."),
		count: tests.NewLabel(sig+"EntryCount", tests.Medium, spec,
			"The "+sig+"'s entry count disagrees with its length (48 bytes of header plus 32 per entry), so "+
				"the OS runs too few instructions or reads past the table. Make Length and the count agree."),
		action: tests.NewLabel(sig+"Action", tests.Medium, spec,
			"An "+sig+" entry has an action the specification does not define, so the OS cannot tell which "+
				"operation the instruction belongs to. Use a defined action, or remove the entry."),
		instruction: tests.NewLabel(sig+"Instruction", tests.Medium, spec,
			"An "+sig+" entry has an instruction the specification does not define; Linux stops the operation "+
				"at it, so "+use+". Use a defined instruction."),
		reserved: tests.NewLabel(sig+"ReservedBits", tests.Low, spec,
			"Reserved bytes of the "+sig+" header, or an entry's reserved flag bits (7:1) or reserved byte, are "+
				"not zero. Clear them: a later revision may give them a meaning."),
		register: tests.NewLabel(sig+"RegisterRegion", tests.Medium, spec,
			"An "+sig+" entry whose instruction accesses its register gives a register region the OS cannot "+
				"use (not System Memory or System I/O, address 0, or a bit width and offset outside the access "+
				"size); Linux refuses the whole table, so "+use+". Give each entry its real register."),
		empty: tests.NewLabel(sig+"NoEntries", tests.Medium, spec,
			"The "+sig+" holds no instruction entry, so "+use+". Describe the operations, or publish no "+sig+"."),
	}
}

var (
	erst = table{sig: acpi.SigERST, spec: "ACPI 6.5 §18.5", absent: "no ERST table (it is optional; error records are kept by other means)",
		parse: acpi.ParseERST, actionName: acpi.ERSTActionName,
		labels: newLabels(acpi.SigERST, "ACPI 6.5 §18.5", "error records are not saved across a reboot")}
	einj = table{sig: acpi.SigEINJ, spec: "ACPI 6.5 §18.6", absent: "no EINJ table (it is optional; error injection is often a firmware setup option)",
		parse: acpi.ParseEINJ, actionName: acpi.EINJActionName,
		labels: newLabels(acpi.SigEINJ, "ACPI 6.5 §18.6", "errors cannot be injected to validate error handling")}
)

// confirmed are the labels whose corpus occurrences were read against the
// specification: EINJRegisterRegion on the EINJs whose END_OPERATION entry
// writes a value (WRITE_REGISTER_VALUE) to System Memory address 0
// (40AECBFF4573, 58E82626C3C5, CE92DF29C87C): a write to physical address
// 0 is no register, and Linux's EINJ driver, which maps every register
// entry when it loads, refuses the table.
var confirmed = []*tests.Label{einj.labels.register}

// Check is the erst check.
var Check = &tests.Check{
	ID:       "erst",
	Title:    "ERST error record serialization instructions and their registers",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     erst.spec,
	Labels:   erst.labels.all(),
	Run:      func(p *tests.Pass) error { return run(p, erst) },
}

// EINJ is the einj check.
var EINJ = &tests.Check{
	ID:       "einj",
	Title:    "EINJ error injection instructions and their registers",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     einj.spec,
	Labels:   einj.labels.all(),
	Run:      func(p *tests.Pass) error { return run(p, einj) },
}

func run(p *tests.Pass, tb table) error {
	l := tb.labels
	unconfirmed := tablecheck.Unconfirmed(l.all(), confirmed)
	for _, t := range tablecheck.Tables(p, tb.sig, tb.absent) {
		r := tablecheck.New(p, t, unconfirmed)
		w, err := tb.parse(t)
		if w == nil {
			r.Fail(l.malformed, "%v", err)
			continue
		}
		r.Revision(l.revision, t, 1)
		if w.HeaderSize != acpi.WHEAHeaderSize-acpi.HeaderSize && w.HeaderSize != acpi.WHEAHeaderSize {
			r.Fail(l.headerSize, "header size %d", w.HeaderSize)
		}
		if w.Flags != 0 {
			r.Fail(l.reserved, "header flags/reserved word 0x%08x", w.Flags)
		}
		if w.Trailing != 0 || uint64(w.EntryCount) != uint64(len(w.Entries)) {
			r.Fail(l.count, "entry count %d; length %d holds %d entries and %d bytes more", w.EntryCount, t.Header.Length, len(w.Entries), w.Trailing)
		}
		r.NotRead(w.NotRead)
		if len(w.Entries) == 0 {
			r.Fail(l.empty, "no instruction entries")
		}
		for i, e := range w.Entries {
			if !acpi.WHEAActionKnown(tb.sig, e.Action) {
				r.Fail(l.action, "entry %d (offset %d): %s", i, e.Offset, tb.actionName(e.Action))
			}
			if !acpi.WHEAInstructionKnown(tb.sig, e.Instruction) {
				r.Fail(l.instruction, "entry %d (offset %d, %s): reserved instruction 0x%02x", i, e.Offset, tb.actionName(e.Action), e.Instruction)
				continue
			}
			if acpi.WHEAEntryFlagsReserved(e.Flags) != 0 || e.Reserved != 0 {
				r.Fail(l.reserved, "entry %d (offset %d): flags 0x%02x, reserved byte 0x%02x", i, e.Offset, e.Flags, e.Reserved)
			}
			if acpi.WHEAInstructionReadsRegister(e.Instruction) {
				if why := acpi.APEIRegisterProblem(e.Register); why != "" {
					r.Fail(l.register, "entry %d (offset %d, %s, instruction 0x%02x): register %s: %s", i, e.Offset, tb.actionName(e.Action), e.Instruction, e.Register, why)
				}
			}
		}
		r.Done("revision %d, %d instruction entries", t.Header.Revision, len(w.Entries))
	}
	return nil
}
