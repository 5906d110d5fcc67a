package acpi

// SigMPST is the Memory Power State Table's signature (ACPI 6.5 §5.2.22).
const SigMPST = "MPST"

// MPST layout (ACPI 6.5 §5.2.22): the fixed part (header, PCC ID, 3
// reserved bytes, node count, 2 reserved bytes), memory power nodes of
// MPSTNodeFixed bytes plus 2 per power state and 2 per physical
// component, then a characteristics count (2) and 2 reserved bytes and
// MPSTCharSize-byte memory power state characteristics structures.
const (
	MPSTHeaderSize = HeaderSize + 8
	MPSTNodeFixed  = 32
	MPSTCharSize   = 28
	// MPSTNodeFlagsDefined: enabled, power managed, hot pluggable.
	MPSTNodeFlagsDefined = 0x7
	// MPSTCharFlagsDefined: content preserved, autonomous entry and exit.
	MPSTCharFlagsDefined = 0x7
)

// MPSTState is a node's memory power state: its value and the index of
// its characteristics structure.
type MPSTState struct{ State, Index uint8 }

// MPSTNode is one memory power node.
type MPSTNode struct {
	Offset   int
	Flags    uint8
	Reserved uint8
	ID       uint16
	// Length is the node's Length field; Want what its counts give.
	Length      uint32
	Want        uint64
	Base, Size  uint64
	States      []MPSTState
	NumStates   uint32
	NumComps    uint32
	Unreadable  bool // the node's fixed part or its lists run past the table
	ComponentID []uint16
}

// MPSTChar is a memory power state characteristics structure.
type MPSTChar struct {
	Offset       int
	ID           uint8 // the first byte as read: a structure ID to ACPICA, a revision to older ACPICA
	Flags        uint8
	Reserved     uint64
	AveragePower uint32
	PowerSaving  uint32
	ExitLatency  uint64
}

// MPST is the Memory Power State Table.
type MPST struct {
	Header    Header
	PCCID     uint8
	Reserved  uint64 // the fixed part's reserved bytes ORed together
	NodeCount uint16
	Nodes     []MPSTNode
	// CharOffset is where the characteristics count lies (-1 when the
	// nodes leave no room for it); CharCount the count; Chars the
	// structures the table holds of them.
	CharOffset   int
	CharCount    uint16
	CharReserved uint16
	Chars        []MPSTChar
	// End is where the last structure read ends.
	End int
}

// ParseMPST decodes an MPST. It reads nodes while they fit in the table
// and stops at the first that does not (marked Unreadable); it returns an
// error only for a table shorter than its fixed part.
func ParseMPST(t *Table) (*MPST, error) {
	body, err := sdtBody(t, SigMPST, MPSTHeaderSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	m := &MPST{Header: t.Header, PCCID: r.u8(HeaderSize), NodeCount: r.u16(HeaderSize + 4), CharOffset: -1}
	m.Reserved = uint64(r.u8(HeaderSize+1)) | uint64(r.u16(HeaderSize+2)) | uint64(r.u16(HeaderSize+6))
	off := MPSTHeaderSize
	for i := 0; i < int(m.NodeCount) && i < MaxSubtables; i++ {
		n := MPSTNode{Offset: off}
		if off+MPSTNodeFixed > len(body) {
			n.Unreadable = true
			m.Nodes = append(m.Nodes, n)
			m.End = len(body)
			return m, nil
		}
		n.Flags, n.Reserved, n.ID, n.Length = r.u8(off), r.u8(off+1), r.u16(off+2), r.u32(off+4)
		n.Base, n.Size = r.u64(off+8), r.u64(off+16)
		n.NumStates, n.NumComps = r.u32(off+24), r.u32(off+28)
		n.Want = MPSTNodeFixed + 2*uint64(n.NumStates) + 2*uint64(n.NumComps)
		if uint64(off)+n.Want > uint64(len(body)) {
			n.Unreadable = true
			m.Nodes = append(m.Nodes, n)
			m.End = len(body)
			return m, nil
		}
		p := off + MPSTNodeFixed
		for j := uint32(0); j < n.NumStates; j++ {
			n.States = append(n.States, MPSTState{r.u8(p), r.u8(p + 1)})
			p += 2
		}
		for j := uint32(0); j < n.NumComps; j++ {
			n.ComponentID = append(n.ComponentID, r.u16(p))
			p += 2
		}
		m.Nodes = append(m.Nodes, n)
		off = p // the node's extent is its counts'; its Length field is judged apart
	}
	m.End = off
	if off+4 > len(body) {
		return m, nil
	}
	m.CharOffset, m.CharCount, m.CharReserved = off, r.u16(off), r.u16(off+2)
	off += 4
	for i := 0; i < int(m.CharCount) && off+MPSTCharSize <= len(body); i++ {
		m.Chars = append(m.Chars, MPSTChar{Offset: off, ID: r.u8(off), Flags: r.u8(off + 1),
			Reserved:     uint64(r.u16(off+2)) | r.u64(off+20),
			AveragePower: r.u32(off + 4), PowerSaving: r.u32(off + 8), ExitLatency: r.u64(off + 12)})
		off += MPSTCharSize
	}
	m.End = off
	return m, nil
}
