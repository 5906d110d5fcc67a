// Package mpst checks the Memory Power State Table (ACPI 6.5 §5.2.22):
// its revision and reserved bytes; each memory power node (as many as
// the node count gives) inside the table, its Length field equal to the
// 32 bytes of its fixed part plus 2 per power state and 2 per physical
// component, its reserved byte and flag bits, no two structures of one
// node ID over the same memory, and every power state's
// characteristics index naming one of the table's memory
// power state characteristics structures; the characteristics count
// against the structures the table holds, each structure's reserved
// bytes and flag bits; and no bytes after the last structure.
//
// The table's PCC ID is looked up in the PCCT (ACPI 6.5 §14.1): the
// subspace of that index is the channel of every command OSPM sends
// about memory power (get and set a node's power state, read its power
// and energy). An ID past the PCCT's subspaces names a channel that does
// not exist (MPSTPCCSubspace); no PCCT at all leaves OSPM no channel
// (MPSTNoPCCT, of low severity: the nodes and their states still tell
// OSPM where to gather allocations so that memory the platform powers
// down by itself stays idle, and the characteristics flags that would
// say whether a state needs OSPM's command cannot be relied on: the
// specification names bit 1 "autonomous entry" and describes its set
// value as entry triggered by OSPM's Set command).
//
// Left out on purpose: the PCC subspace's type (the pcct check reads
// the PCCT; the MPST's shared memory layout fits any subspace with the
// generic communications header), the nodes' address ranges
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
//	MPSTNoPCCT           none
//	MPSTPCCSubspace      none
package mpst

import (
	"fmt"
	"strconv"

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
	labelNodeLength = tests.NewLabel("MPSTNodeLength", tests.Medium, spec+".4",
		"A memory power node runs past the end of the table, or its Length is not the 32 bytes of its "+
			"fixed part plus 2 for each power state and 2 for each physical component it counts, so "+
			"the OS reads the next node from the wrong place. Make the Length, the counts and the "+
			"table agree.")
	labelNodeID = tests.NewLabel("MPSTNodeID", tests.Medium, spec+".4",
		"Two memory power node structures share a Memory Power Node ID and overlapping address "+
			"ranges. A node of several separate ranges has one structure per range, all with its "+
			"ID; structures that overlap describe one memory twice, or are two nodes with one ID, "+
			"so the OS's commands for that ID reach memory it did not mean. Describe each range "+
			"once, and give different nodes different IDs.")
	labelIndex = tests.NewLabel("MPSTStateIndex", tests.Medium, spec+".5",
		"A memory power state's characteristics index names no characteristics structure of the "+
			"table, so the OS cannot tell the state's power saving or exit latency and may not use "+
			"it. Point the index at the state's characteristics structure.")
	labelChars = tests.NewLabel("MPSTCharacteristics", tests.Medium, spec+".6",
		"The memory power state characteristics count is larger than the structures the table "+
			"holds, so the OS reads characteristics from beyond the table. Make the count and the "+
			"structures agree.")
	labelTrailing = tests.NewLabel("MPSTTrailingBytes", tests.Low, spec,
		"The MPST's Length goes on after its last characteristics structure (or the nodes leave no "+
			"room for the characteristics count), so the counts and the table disagree. Make the "+
			"Length end at the last structure.")
	labelNoPCCT = tests.NewLabel("MPSTNoPCCT", tests.Low, spec+".1, §14.1",
		"The MPST names a PCC subspace, but the tables have no PCCT, so OSPM has no channel to get "+
			"or set a memory power node's state or read its power and energy; it can only use the "+
			"node layout. Publish the PCCT that holds the subspace, or the MPST only where the PCC "+
			"channel exists.")
	labelPCC = tests.NewLabel("MPSTPCCSubspace", tests.Medium, spec+".1, §14.1",
		"The MPST's PCC ID is past the last subspace of the PCCT (subspace IDs are the subspaces' "+
			"positions in the PCCT, from 0), so every memory power command OSPM sends goes to a "+
			"channel that does not exist. Give the index of the PCCT subspace the platform serves "+
			"MPST commands on.")
	allLabels = []*tests.Label{labelMalformed, labelRevision, labelReserved, labelNodeLength, labelNodeID, labelIndex, labelChars, labelTrailing, labelNoPCCT, labelPCC}
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
	ts := tests.Input(p, input.ACPITables)
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
		checkPCC(p, r, ts, m.PCCID)
		r.Done("revision %d, PCC subspace %d, %d memory power nodes, %d characteristics structures", t.Header.Revision, m.PCCID, len(m.Nodes), len(m.Chars))
	}
	return nil
}

func check(r *tablecheck.T, m *acpi.MPST, length int) {
	ids := map[uint16][]int{} // node ID → the structures with it
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
		// One ID in several structures is a node of several address
		// ranges (ACPI 6.5 §5.2.22.4 asks for a structure per range);
		// only ranges that overlap are two descriptions of one memory.
		for _, j := range ids[n.ID] {
			if o := m.Nodes[j]; overlap(o.Base, o.Size, n.Base, n.Size) {
				r.Fail(labelNodeID, "nodes %d and %d share ID %d and overlap: 0x%x-0x%x and 0x%x-0x%x", j, i, n.ID,
					o.Base, o.Base+o.Size-1, n.Base, n.Base+n.Size-1)
				break
			}
		}
		ids[n.ID] = append(ids[n.ID], i)
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

// overlap reports whether two address ranges given by base and length
// share a byte (an empty range shares none; a range past the top of the
// address space is taken to end there).
func overlap(b1, n1, b2, n2 uint64) bool {
	if n1 == 0 || n2 == 0 {
		return false
	}
	e1, e2 := b1+n1-1, b2+n2-1
	if e1 < b1 {
		e1 = ^uint64(0)
	}
	if e2 < b2 {
		e2 = ^uint64(0)
	}
	return b1 <= e2 && b2 <= e1
}

// checkPCC looks the MPST's PCC subspace up in the PCCT: a subspace's ID
// is its position in the PCCT's list, counting from 0, whatever its type.
func checkPCC(p *tests.Pass, r *tablecheck.T, ts *acpi.Tables, id uint8) {
	t := ts.First(acpi.SigPCCT)
	if t == nil {
		r.Fail(labelNoPCCT, "PCC subspace %d, and the tables have no PCCT", id)
		return
	}
	pc, err := acpi.ParsePCCT(t)
	switch {
	case pc == nil:
		p.NotChecked(r.Name+": PCC subspace "+strconv.Itoa(int(id))+" against the PCCT", fmt.Sprintf("the PCCT cannot be read: %v", err), "")
	case int(id) < len(pc.Subspaces):
		// The subspace is there.
	case err != nil || pc.NotRead > 0:
		// The subspace list stops short of its end: the subspace may be
		// among those not read (the pcct check reports why).
		read := "none of the PCCT's subspaces can be read"
		if n := len(pc.Subspaces); n > 0 {
			read = fmt.Sprintf("the PCCT's subspaces are read only up to subspace %d", n-1)
		}
		p.NotChecked(r.Name+": PCC subspace "+strconv.Itoa(int(id))+" against the PCCT", read, "")
	default:
		r.Fail(labelPCC, "PCC subspace %d; the PCCT (%s) has %d subspaces%s", id, t.Name(), len(pc.Subspaces), idRange(len(pc.Subspaces)))
	}
}

func idRange(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return ", subspace 0 only"
	}
	return fmt.Sprintf(", 0 to %d", n-1)
}
