// Package mpst checks the Memory Power State Table (ACPI 6.5 §5.2.22):
// its revision and reserved bytes; each memory power node (as many as
// the node count gives) inside the table, its Length field equal to the
// 32 bytes of its fixed part plus 2 per power state and 2 per physical
// component, its reserved byte and flag bits, unique node IDs, and every
// power state's characteristics index naming one of the table's memory
// power state characteristics structures; the characteristics count
// against the structures the table holds, each structure's reserved
// bytes and flag bits; and no bytes after the last structure.
//
// Left out on purpose: the PCC subspace the table names (its PCC ID)
// against the PCCT (the pcct check reads the PCCT; an MPST's subspace is
// a generic one that any PCCT may hold), the nodes' address ranges
// against the memory map and the SRAT (a node may describe memory the
// memory map reports as hot-pluggable and absent), the power and
// latency values (any value is allowed), and the characteristics
// structures' first byte (its split into a structure type and a revision
// could not be confirmed against the 6.5 text; ACPICA reads it as a
// plain ID, older ACPICA as a revision).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	MPSTMalformed        none
//	MPSTRevision         none
//	MPSTReserved         none
//	MPSTNodeLength       none
//	MPSTNodeID           none
//	MPSTStateIndex       none
//	MPSTCharacteristics  none
//	MPSTTrailingBytes    none
package mpst

import (
	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.22"

var (
	labelMalformed = tests.NewLabel("MPSTMalformed", tests.Medium, spec,
		"The MPST is shorter than its 44-byte fixed part or its Length disagrees with its bytes. "+
			"Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("MPSTRevision", tests.Low, spec,
		"The MPST revision is not 1, the only one defined. Set Revision to 1.")
	labelReserved = tests.NewLabel("MPSTReserved", tests.Low, spec,
		"A reserved field of the MPST, of a memory power node or of a characteristics structure, or "+
			"a reserved flag bit (7:3), is not zero. Clear it.")
	labelNodeLength = tests.NewLabel("MPSTNodeLength", tests.Medium, spec+".1",
		"A memory power node runs past the end of the table, or its Length is not the 32 bytes of its "+
			"fixed part plus 2 for each power state and 2 for each physical component it counts, so "+
			"the OS reads the next node from the wrong place. Make the Length, the counts and the "+
			"table agree.")
	labelNodeID = tests.NewLabel("MPSTNodeID", tests.Medium, spec+".1",
		"Two memory power nodes share a Memory Power Node ID, which the OS uses to name a node in "+
			"its PCC commands, so a command reaches the wrong memory. Give each node its own ID.")
	labelIndex = tests.NewLabel("MPSTStateIndex", tests.Medium, spec+".1",
		"A memory power state's characteristics index names no characteristics structure of the "+
			"table, so the OS cannot tell the state's power saving or exit latency and may not use "+
			"it. Point the index at the state's characteristics structure.")
	labelChars = tests.NewLabel("MPSTCharacteristics", tests.Medium, spec+".2",
		"The memory power state characteristics count is larger than the structures the table "+
			"holds, so the OS reads characteristics from beyond the table. Make the count and the "+
			"structures agree.")
	labelTrailing = tests.NewLabel("MPSTTrailingBytes", tests.Low, spec,
		"The MPST's Length goes on after its last characteristics structure (or the nodes leave no "+
			"room for the characteristics count), so the counts and the table disagree. Make the "+
			"Length end at the last structure.")
	allLabels = []*tests.Label{labelMalformed, labelRevision, labelReserved, labelNodeLength, labelNodeID, labelIndex, labelChars, labelTrailing}
)

// confirmed: none; no corpus machine and no QEMU configuration ships an
// MPST.
var confirmed = []*tests.Label{}

// Check is the mpst check.
var Check = &tests.Check{
	ID:       "mpst",
	Title:    "MPST memory power nodes, their states and characteristics",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   allLabels,
	Run:      run,
}

func run(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(allLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigMPST, "no MPST table (the platform has no memory power management; it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		m, err := acpi.ParseMPST(t)
		if m == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1)
		if m.Reserved != 0 {
			r.Fail(labelReserved, "reserved bytes of the fixed part are not zero")
		}
		check(r, m, int(t.Header.Length))
		r.Done("revision %d, PCC subspace %d, %d memory power nodes, %d characteristics structures", t.Header.Revision, m.PCCID, len(m.Nodes), len(m.Chars))
	}
	return nil
}

func check(r *tablecheck.T, m *acpi.MPST, length int) {
	ids := map[uint16]int{}
	for i, n := range m.Nodes {
		if n.Unreadable {
			r.Fail(labelNodeLength, "node %d at offset %d (of %d counted) runs past the table's end at %d", i, n.Offset, m.NodeCount, length)
			return
		}
		if uint64(n.Length) != n.Want {
			r.Fail(labelNodeLength, "node %d (ID %d) at offset %d: Length %d; %d power states and %d components need %d", i, n.ID, n.Offset, n.Length, n.NumStates, n.NumComps, n.Want)
		}
		if n.Reserved != 0 || n.Flags&^acpi.MPSTNodeFlagsDefined != 0 {
			r.Fail(labelReserved, "node %d (ID %d): flags 0x%02x, reserved byte 0x%02x", i, n.ID, n.Flags, n.Reserved)
		}
		if prev, dup := ids[n.ID]; dup {
			r.Fail(labelNodeID, "nodes %d and %d share ID %d", prev, i, n.ID)
		} else {
			ids[n.ID] = i
		}
		for _, s := range n.States {
			// Without the characteristics count (the nodes overran the
			// table) there is nothing to judge the index against.
			if m.CharOffset >= 0 && int(s.Index) >= int(m.CharCount) {
				r.Fail(labelIndex, "node %d (ID %d): power state %d names characteristics %d; the table has %d", i, n.ID, s.State, s.Index, m.CharCount)
			}
		}
	}
	if m.CharOffset < 0 {
		r.Fail(labelTrailing, "the %d nodes end at %d, leaving no room for the characteristics count before the table's end at %d", len(m.Nodes), m.End, length)
		return
	}
	if m.CharReserved != 0 {
		r.Fail(labelReserved, "reserved field after the characteristics count 0x%04x", m.CharReserved)
	}
	if int(m.CharCount) > len(m.Chars) {
		r.Fail(labelChars, "characteristics count %d at offset %d; the table holds %d", m.CharCount, m.CharOffset, len(m.Chars))
	}
	for i, c := range m.Chars {
		if c.Reserved != 0 || c.Flags&^acpi.MPSTCharFlagsDefined != 0 {
			r.Fail(labelReserved, "characteristics %d: flags 0x%02x, reserved bytes not zero", i, c.Flags)
		}
	}
	if int(m.CharCount) <= len(m.Chars) && m.End < length {
		r.Fail(labelTrailing, "the last structure ends at %d; Length is %d", m.End, length)
	}
}
