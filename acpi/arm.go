package acpi

import "fmt"

// This file holds the tables that describe an Arm machine: the Generic
// Timer Description Table (GTDT, ACPI 6.5 §5.2.25), the IO Remapping
// Table (IORT, Arm DEN 0049E.f) and the Processor Properties Topology
// Table (PPTT, ACPI 6.5 §5.2.30). Their layouts are the specifications';
// the structure lists are walked by the shared walker (subtable.go).

// Signatures of the Arm tables.
const (
	SigGTDT = "GTDT"
	SigIORT = "IORT"
	SigPPTT = "PPTT"
	SigMPAM = "MPAM"
	SigAPMT = "APMT"
	SigAEST = "AEST"
)

// GTDT sizes: revision 2 (ACPI 6.0-6.4) ends after the platform timer
// offset; revision 3 (ACPI 6.5) adds the virtual EL2 timer.
const (
	GTDTSizeRev2 = 96
	GTDTSizeRev3 = 104
)

// Timer flags (ACPI 6.5 Table 5.122): the interrupt's mode and polarity,
// and whether the timer keeps running in every power state.
const (
	TimerEdge     = 1 << 0
	TimerActiveLo = 1 << 1
	TimerAlwaysOn = 1 << 2
)

// GTDT platform timer types (ACPI 6.5 Table 5.123).
const (
	GTDTGTBlock  = 0
	GTDTWatchdog = 1
)

// GTDTNoBase is the value of CntControlBase and CntReadBase when the
// platform has no such frame.
const GTDTNoBase = ^uint64(0)

// Timer is one timer interrupt: its GSIV and flags.
type Timer struct {
	GSIV, Flags uint32
}

// GTDT is the Generic Timer Description Table.
type GTDT struct {
	Header         Header
	CntControlBase uint64
	SecureEL1      Timer
	NonSecureEL1   Timer
	VirtualEL1     Timer
	EL2            Timer
	CntReadBase    uint64
	TimerCount     uint32
	TimerOffset    uint32
	// VirtualEL2 is present from revision 3 (HasVirtualEL2).
	VirtualEL2    Timer
	HasVirtualEL2 bool
	// Blocks and Watchdogs are the platform timers; Others holds the
	// structures of other types and the short ones.
	Blocks    []GTBlock
	Watchdogs []SBSAWatchdog
	Others    []Subtable
	NotRead   int
}

// GTBlock is a GT Block structure (type 0) with its timer frames.
type GTBlock struct {
	Offset      int
	Address     uint64
	TimerCount  uint32
	TimerOffset uint32
	Frames      []GTFrame
	// FramesShort is set when the frames the block claims do not fit in
	// its length.
	FramesShort bool
}

// GTFrame is one GT Block timer structure (ACPI 6.5 Table 5.126).
type GTFrame struct {
	Number            uint8
	CntBase, CntEL0   uint64
	Physical, Virtual Timer
	CommonFlags       uint32
}

// SBSAWatchdog is an Arm Generic Watchdog structure (type 1).
type SBSAWatchdog struct {
	Offset               int
	RefreshBase, Control uint64
	Timer                Timer
}

// GT block frame common flags: bit 0 secure, bit 1 always-on.
const (
	GTFrameSecure   = 1 << 0
	GTFrameAlwaysOn = 1 << 1
	// WatchdogSecure is the watchdog flags' bit 2.
	WatchdogSecure = 1 << 2
)

// ParseGTDT decodes a GTDT. The platform timers are read from
// TimerOffset; a structure list that breaks off is returned with a
// *WalkError.
func ParseGTDT(t *Table) (*GTDT, error) {
	body, err := sdtBody(t, SigGTDT, GTDTSizeRev2)
	if err != nil {
		return nil, err
	}
	r := le(body)
	g := &GTDT{Header: t.Header, CntControlBase: r.u64(36),
		SecureEL1: Timer{r.u32(48), r.u32(52)}, NonSecureEL1: Timer{r.u32(56), r.u32(60)},
		VirtualEL1: Timer{r.u32(64), r.u32(68)}, EL2: Timer{r.u32(72), r.u32(76)},
		CntReadBase: r.u64(80), TimerCount: r.u32(88), TimerOffset: r.u32(92)}
	if t.Header.Revision >= 3 && len(body) >= GTDTSizeRev3 {
		g.VirtualEL2, g.HasVirtualEL2 = Timer{r.u32(96), r.u32(100)}, true
	}
	if g.TimerCount == 0 {
		return g, nil
	}
	off := int(g.TimerOffset)
	if off < GTDTSizeRev2 || off > len(body) {
		return g, fmt.Errorf("GTDT: platform timer offset %d lies outside the table's %d bytes after its fixed part", g.TimerOffset, len(body))
	}
	subs, notRead, err := walkSubtables("GTDT platform timer", body, off, subtableLayout{typeSize: 1, lenOff: 1, lenSize: 2})
	g.NotRead = notRead
	for _, s := range subs {
		b := le(s.Raw)
		switch {
		case s.Type == GTDTGTBlock && s.Length >= 20:
			blk := GTBlock{Offset: s.Offset, Address: b.u64(4), TimerCount: b.u32(12), TimerOffset: b.u32(16)}
			for i := 0; i < int(min(blk.TimerCount, 8)); i++ {
				fo := int(blk.TimerOffset) + 40*i
				if fo < 20 || fo+40 > s.Length {
					blk.FramesShort = true
					break
				}
				f := le(s.Raw[fo : fo+40])
				blk.Frames = append(blk.Frames, GTFrame{Number: f.u8(0), CntBase: f.u64(4), CntEL0: f.u64(12),
					Physical: Timer{f.u32(20), f.u32(24)}, Virtual: Timer{f.u32(28), f.u32(32)}, CommonFlags: f.u32(36)})
			}
			g.Blocks = append(g.Blocks, blk)
		case s.Type == GTDTWatchdog && s.Length >= 28:
			g.Watchdogs = append(g.Watchdogs, SBSAWatchdog{Offset: s.Offset, RefreshBase: b.u64(4), Control: b.u64(12), Timer: Timer{b.u32(20), b.u32(24)}})
		default:
			g.Others = append(g.Others, s)
		}
	}
	return g, err
}

// IORT node types (Arm DEN 0049E.f Table 4).
const (
	IORTITSGroup      = 0
	IORTNamedComp     = 1
	IORTRootComplex   = 2
	IORTSMMUv1v2      = 3
	IORTSMMUv3        = 4
	IORTPMCG          = 5
	IORTRMR           = 6
	IORTFirstReserved = 7
)

// IORTNodeName names an IORT node type.
func IORTNodeName(t uint8) string {
	switch t {
	case IORTITSGroup:
		return "ITS group"
	case IORTNamedComp:
		return "named component"
	case IORTRootComplex:
		return "root complex"
	case IORTSMMUv1v2:
		return "SMMUv1/v2"
	case IORTSMMUv3:
		return "SMMUv3"
	case IORTPMCG:
		return "PMCG"
	case IORTRMR:
		return "RMR"
	}
	return fmt.Sprintf("reserved type %d", t)
}

// IORTHeaderSize is the IORT's fixed part; an ID mapping is 20 bytes.
const (
	IORTHeaderSize  = 48
	IORTMappingSize = 20
	// IORTNodeHeader is the part every node starts with.
	IORTNodeHeader = 16
)

// IORTSingleMapping is an ID mapping's flag bit 0: one ID (the node's
// own, for an SMMU's or a PMCG's MSIs), not a range.
const IORTSingleMapping = 1 << 0

// IORT is the IO Remapping Table.
type IORT struct {
	Header     Header
	NodeCount  uint32
	NodeOffset uint32
	Nodes      []IORTNode
	NotRead    int
	// Beyond counts the bytes after the NodeCount nodes, which the table
	// does not count as nodes.
	Beyond int
}

// IORTNode is one node.
type IORTNode struct {
	Type     uint8
	Length   int
	Revision uint8
	ID       uint32
	// Offset is the node's offset from the start of the table: what ID
	// mappings and PMCG nodes refer to.
	Offset int
	// MappingCount and MappingOffset are the node's ID array fields;
	// Mappings holds those that fit in the node (MappingsShort when not
	// all do).
	MappingCount  uint32
	MappingOffset uint32
	Mappings      []IORTMapping
	MappingsShort bool
	// ITSIDs are an ITS group's ITS identifiers.
	ITSIDs []uint32
	// Name is a named component's device object path.
	Name string
	// Segment is a root complex's PCI segment number.
	Segment uint32
	// Base is an SMMU's or a PMCG's (page 0) base address.
	Base uint64
	// Model is an SMMU's model field.
	Model uint32
	// Flags is an SMMUv3's, a named component's or an RMR's flags.
	Flags uint32
	// Interrupts are an SMMUv3's event, PRI, GERR and sync GSIVs, or a
	// PMCG's overflow GSIV.
	Interrupts []uint32
	// NodeRef is a PMCG's reference to the node whose events it counts.
	NodeRef uint32
	// Ranges are an RMR's memory ranges.
	Ranges []MemRange
	// Raw holds the node's bytes.
	Raw []byte
}

// IORTMapping is one ID mapping (Arm DEN 0049E.f Table 5): Count is the
// number of IDs in the range minus one.
type IORTMapping struct {
	InputBase, Count, OutputBase, OutputRef, Flags uint32
}

// MemRange is a base and a length.
type MemRange struct{ Base, Length uint64 }

// ParseIORT decodes an IORT. Nodes start at NodeOffset; at most NodeCount
// (and MaxSubtables) are read.
func ParseIORT(t *Table) (*IORT, error) {
	body, err := sdtBody(t, SigIORT, IORTHeaderSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	io := &IORT{Header: t.Header, NodeCount: r.u32(36), NodeOffset: r.u32(40)}
	off := int(io.NodeOffset)
	if io.NodeCount == 0 {
		return io, nil
	}
	if off < IORTHeaderSize || off > len(body) {
		return io, fmt.Errorf("IORT: node offset %d lies outside the table's %d bytes after its fixed part", io.NodeOffset, len(body))
	}
	subs, notRead, err := walkSubtables("IORT node", body, off, subtableLayout{typeSize: 1, lenOff: 1, lenSize: 2})
	io.NotRead = notRead
	for i, s := range subs {
		if uint32(i) == io.NodeCount {
			// The rest is not nodes the table counts.
			io.Beyond = len(body) - s.Offset
			break
		}
		io.Nodes = append(io.Nodes, decodeIORTNode(s))
	}
	return io, err
}

func decodeIORTNode(s Subtable) IORTNode {
	b := le(s.Raw)
	n := IORTNode{Type: uint8(s.Type), Length: s.Length, Revision: b.u8(3), ID: b.u32(4), Offset: s.Offset,
		MappingCount: b.u32(8), MappingOffset: b.u32(12), Raw: s.Raw}
	if s.Length < IORTNodeHeader {
		n.MappingsShort = n.MappingCount > 0
		return n
	}
	for i := 0; i < int(min(n.MappingCount, MaxSubtables)); i++ {
		mo := int(n.MappingOffset) + IORTMappingSize*i
		if mo < IORTNodeHeader || mo+IORTMappingSize > s.Length {
			n.MappingsShort = true
			break
		}
		m := le(s.Raw[mo:])
		n.Mappings = append(n.Mappings, IORTMapping{m.u32(0), m.u32(4), m.u32(8), m.u32(12), m.u32(16)})
	}
	switch n.Type {
	case IORTITSGroup:
		cnt := b.u32(16)
		for i := 0; i < int(cnt) && 20+4*i+4 <= s.Length; i++ {
			n.ITSIDs = append(n.ITSIDs, b.u32(20+4*i))
		}
	case IORTNamedComp:
		n.Flags = b.u32(16)
		if s.Length > 29 {
			n.Name, _ = cString(s.Raw[29:])
		}
	case IORTRootComplex:
		n.Segment = b.u32(28)
	case IORTSMMUv1v2:
		n.Base, n.Model, n.Flags = b.u64(16), b.u32(32), b.u32(36)
	case IORTSMMUv3:
		n.Base, n.Flags, n.Model = b.u64(16), b.u32(24), b.u32(40)
		n.Interrupts = []uint32{b.u32(44), b.u32(48), b.u32(52), b.u32(56)}
	case IORTPMCG:
		n.Base, n.NodeRef = b.u64(16), b.u32(28)
		n.Interrupts = []uint32{b.u32(24)}
	case IORTRMR:
		n.Flags = b.u32(16)
		cnt, ro := b.u32(20), int(b.u32(24))
		for i := 0; i < int(min(cnt, MaxSubtables)); i++ {
			o := ro + 20*i
			if o < IORTNodeHeader || o+20 > s.Length {
				break
			}
			n.Ranges = append(n.Ranges, MemRange{b.u64(o), b.u64(o + 8)})
		}
	}
	return n
}

// Node returns the node at offset off from the table's start, or nil.
func (io *IORT) Node(off uint32) *IORTNode {
	for i := range io.Nodes {
		if uint32(io.Nodes[i].Offset) == off {
			return &io.Nodes[i]
		}
	}
	return nil
}

// PPTT structure types (ACPI 6.5 §5.2.30).
const (
	PPTTProcessor = 0
	PPTTCache     = 1
	PPTTID        = 2 // removed in ACPI 6.3
)

// PPTT processor hierarchy node flags (ACPI 6.5 Table 5.158).
const (
	PPTTPhysicalPackage = 1 << 0
	PPTTIDValid         = 1 << 1
	PPTTThread          = 1 << 2
	PPTTLeaf            = 1 << 3
	PPTTIdentical       = 1 << 4
)

// PPTT cache flags (ACPI 6.5 Table 5.160): which fields are valid.
const (
	CacheSizeValid     = 1 << 0
	CacheSetsValid     = 1 << 1
	CacheAssocValid    = 1 << 2
	CacheAllocValid    = 1 << 3
	CacheTypeValid     = 1 << 4
	CacheWritePolValid = 1 << 5
	CacheLineValid     = 1 << 6
	CacheIDValid       = 1 << 7
)

// PPTT is the Processor Properties Topology Table.
type PPTT struct {
	Header     Header
	Processors []PPTTProcessorNode
	Caches     []PPTTCacheNode
	// Others are structures of other types, and short ones.
	Others  []Subtable
	NotRead int
}

// PPTTProcessorNode is a processor hierarchy node (type 0).
type PPTTProcessorNode struct {
	Offset      int
	Flags       uint32
	Parent      uint32
	ProcessorID uint32
	// Private are the offsets of the node's private resources (caches).
	Private []uint32
	// PrivateShort is set when the resources claimed do not fit.
	PrivateShort bool
}

// PPTTCacheNode is a cache type structure (type 1).
type PPTTCacheNode struct {
	Offset        int
	Flags         uint32
	NextLevel     uint32
	Size          uint32
	Sets          uint32
	Associativity uint8
	Attributes    uint8
	LineSize      uint16
	// ID is the cache ID (revision 3, length 28), HasID when present.
	ID    uint32
	HasID bool
}

// ParsePPTT decodes a PPTT.
func ParsePPTT(t *Table) (*PPTT, error) {
	body, err := sdtBody(t, SigPPTT, HeaderSize)
	if err != nil {
		return nil, err
	}
	p := &PPTT{Header: t.Header}
	subs, notRead, err := walkSubtables("PPTT structure", body, HeaderSize, subtableLayout{typeSize: 1, lenOff: 1, lenSize: 1})
	p.NotRead = notRead
	for _, s := range subs {
		b := le(s.Raw)
		switch {
		case s.Type == PPTTProcessor && s.Length >= 20:
			n := PPTTProcessorNode{Offset: s.Offset, Flags: b.u32(4), Parent: b.u32(8), ProcessorID: b.u32(12)}
			cnt := b.u32(16)
			for i := 0; i < int(cnt); i++ {
				if 20+4*i+4 > s.Length {
					n.PrivateShort = true
					break
				}
				n.Private = append(n.Private, b.u32(20+4*i))
			}
			p.Processors = append(p.Processors, n)
		case s.Type == PPTTCache && s.Length >= 24:
			c := PPTTCacheNode{Offset: s.Offset, Flags: b.u32(4), NextLevel: b.u32(8), Size: b.u32(12), Sets: b.u32(16),
				Associativity: b.u8(20), Attributes: b.u8(21), LineSize: b.u16(22)}
			if s.Length >= 28 {
				c.ID, c.HasID = b.u32(24), true
			}
			p.Caches = append(p.Caches, c)
		default:
			p.Others = append(p.Others, s)
		}
	}
	return p, err
}

// Processor returns the processor node at offset off, or nil.
func (p *PPTT) Processor(off uint32) *PPTTProcessorNode {
	for i := range p.Processors {
		if uint32(p.Processors[i].Offset) == off {
			return &p.Processors[i]
		}
	}
	return nil
}

// Cache returns the cache node at offset off, or nil.
func (p *PPTT) Cache(off uint32) *PPTTCacheNode {
	for i := range p.Caches {
		if uint32(p.Caches[i].Offset) == off {
			return &p.Caches[i]
		}
	}
	return nil
}

// Leaves returns the processor nodes no other node names as its parent,
// or that carry the leaf flag: the processors themselves.
func (p *PPTT) Leaves() []PPTTProcessorNode {
	parent := map[uint32]bool{}
	for _, n := range p.Processors {
		if n.Parent != 0 {
			parent[n.Parent] = true
		}
	}
	var out []PPTTProcessorNode
	for _, n := range p.Processors {
		if n.Flags&PPTTLeaf != 0 || !parent[uint32(n.Offset)] {
			out = append(out, n)
		}
	}
	return out
}
