package acpi

// This file holds the tables describing a machine's NUMA topology: the
// System Resource Affinity Table (ACPI 6.5 §5.2.16), the System Locality
// Information Table (§5.2.17), the Maximum System Characteristics Table
// (§5.2.19), and AMD's Component Resource Attribute Table and Component
// Locality Distance Information Table (layouts as AMD's HSA topology
// tables and Linux's drivers/gpu/drm/amd/amdkfd/kfd_crat.h give them).

// Signatures of the NUMA topology tables.
const (
	SigSRAT = "SRAT"
	SigSLIT = "SLIT"
	SigMSCT = "MSCT"
	SigCRAT = "CRAT"
	SigCDIT = "CDIT"
)

// SRAT structure types (ACPI 6.5 §5.2.16.1-§5.2.16.7).
const (
	SRATProcessorAPIC    = 0
	SRATMemory           = 1
	SRATProcessorX2APIC  = 2
	SRATGICC             = 3
	SRATGICITS           = 4
	SRATGenericInitiator = 5
	SRATGenericPort      = 6
)

// SRATHeaderSize is the SRAT's header: the ACPI header, the reserved
// table revision word (1) and 8 reserved bytes.
const SRATHeaderSize = 48

// SRATStructSize returns the length ACPI 6.5 gives SRAT structure type t,
// 0 for a reserved type.
func SRATStructSize(t uint32) int {
	switch t {
	case SRATProcessorAPIC:
		return 16
	case SRATMemory:
		return 40
	case SRATProcessorX2APIC:
		return 24
	case SRATGICC:
		return 18
	case SRATGICITS:
		return 12
	case SRATGenericInitiator, SRATGenericPort:
		return 32
	}
	return 0
}

// SRATTypeName names an SRAT structure type.
func SRATTypeName(t uint32) string {
	switch t {
	case SRATProcessorAPIC:
		return "processor local APIC affinity"
	case SRATMemory:
		return "memory affinity"
	case SRATProcessorX2APIC:
		return "processor x2APIC affinity"
	case SRATGICC:
		return "GICC affinity"
	case SRATGICITS:
		return "GIC ITS affinity"
	case SRATGenericInitiator:
		return "generic initiator affinity"
	case SRATGenericPort:
		return "generic port affinity"
	}
	return "reserved type"
}

// SRAT flag bits.
const (
	SRATEnabled      = 1 << 0
	SRATHotPluggable = 1 << 1 // memory
	SRATNonVolatile  = 1 << 2 // memory
	// SRATArchTransactions is the generic initiator's "architectural
	// transactions" flag.
	SRATArchTransactions = 1 << 1
)

// SRATEntry is one SRAT structure. Fields past Type and Length are
// decoded only for a structure of a defined type at least as long as the
// specification gives it (Short is set for a shorter one).
type SRATEntry struct {
	Subtable
	Short bool
	// Domain is the proximity domain; for a processor local APIC
	// structure of a revision-1 SRAT only its low 8 bits are meant.
	Domain uint32
	// ID is the APIC ID, x2APIC ID, ACPI processor UID or ITS ID.
	ID          uint32
	Flags       uint32
	ClockDomain uint32
	Base, Size  uint64 // memory
	// Reserved holds the structure's reserved bytes ORed together.
	Reserved uint64
	// HandleType is a generic initiator or port's device handle type.
	HandleType uint8
}

// SRAT is the System Resource Affinity Table.
type SRAT struct {
	Header        Header
	TableRevision uint32
	Reserved      uint64
	Entries       []SRATEntry
	NotRead       int
}

// ParseSRAT decodes an SRAT. When the structure list is malformed it
// returns the structures before the fault with a *WalkError.
func ParseSRAT(t *Table) (*SRAT, error) {
	body, err := sdtBody(t, SigSRAT, SRATHeaderSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	s := &SRAT{Header: t.Header, TableRevision: r.u32(36), Reserved: r.u64(40)}
	subs, notRead, err := walkSubtables("SRAT structure", body, SRATHeaderSize, subtableLayout{typeSize: 1, lenOff: 1, lenSize: 1})
	s.NotRead = notRead
	for _, sub := range subs {
		e := SRATEntry{Subtable: sub}
		n := SRATStructSize(sub.Type)
		if n > 0 && sub.Length < n {
			e.Short = true
		} else if n > 0 {
			decodeSRAT(&e, le(sub.Raw), t.Header.Revision)
		}
		s.Entries = append(s.Entries, e)
	}
	return s, err
}

func decodeSRAT(e *SRATEntry, b le, rev uint8) {
	switch e.Type {
	case SRATProcessorAPIC:
		e.Domain, e.ID, e.Flags, e.ClockDomain = uint32(b.u8(2)), uint32(b.u8(3)), b.u32(4), b.u32(12)
		if rev >= 2 {
			e.Domain |= (b.u32(8) >> 8) << 8
		}
	case SRATMemory:
		e.Domain, e.Base, e.Size, e.Flags = b.u32(2), b.u64(8), b.u64(16), b.u32(28)
		e.Reserved = uint64(b.u16(6)) | uint64(b.u32(24)) | b.u64(32)
	case SRATProcessorX2APIC:
		e.Domain, e.ID, e.Flags, e.ClockDomain = b.u32(4), b.u32(8), b.u32(12), b.u32(16)
		e.Reserved = uint64(b.u16(2)) | uint64(b.u32(20))
	case SRATGICC:
		e.Domain, e.ID, e.Flags, e.ClockDomain = b.u32(2), b.u32(6), b.u32(10), b.u32(14)
	case SRATGICITS:
		e.Domain, e.ID, e.Flags = b.u32(2), b.u32(8), SRATEnabled // an ITS has no flags
		e.Reserved = uint64(b.u16(6))
	case SRATGenericInitiator, SRATGenericPort:
		e.HandleType, e.Domain, e.Flags = b.u8(3), b.u32(4), b.u32(24)
		e.Reserved = uint64(b.u8(2)) | uint64(b.u32(28))
	}
}

// Domains returns the proximity domains of the SRAT's enabled structures.
func (s *SRAT) Domains() map[uint32]bool {
	d := map[uint32]bool{}
	for _, e := range s.Entries {
		if SRATStructSize(e.Type) > 0 && !e.Short && e.Flags&SRATEnabled != 0 {
			d[e.Domain] = true
		}
	}
	return d
}

// MemoryDomains returns the proximity domains of the SRAT's enabled
// memory affinity structures: the domains memory can belong to.
func (s *SRAT) MemoryDomains() map[uint32]bool {
	d := map[uint32]bool{}
	for _, e := range s.Entries {
		if e.Type == SRATMemory && !e.Short && e.Flags&SRATEnabled != 0 {
			d[e.Domain] = true
		}
	}
	return d
}

// Distances is a locality distance matrix: a SLIT's or a CDIT's.
type Distances struct {
	Header Header
	// N is the table's count of localities (domains).
	N uint64
	// Matrix holds the N×N entries, row by row, when the table holds
	// them all; Missing counts the bytes short of N×N and Trailing those
	// after it.
	Matrix            []byte
	Missing, Trailing uint64
}

// At returns the distance from locality i to locality j.
func (d *Distances) At(i, j uint64) byte { return d.Matrix[i*d.N+j] }

// ParseSLIT decodes a SLIT (an 8-byte locality count, then the matrix).
func ParseSLIT(t *Table) (*Distances, error) { return parseDistances(t, SigSLIT, 8) }

// ParseCDIT decodes a CDIT (a 4-byte domain count, then the matrix).
func ParseCDIT(t *Table) (*Distances, error) { return parseDistances(t, SigCDIT, 4) }

func parseDistances(t *Table, sig string, countSize int) (*Distances, error) {
	body, err := sdtBody(t, sig, HeaderSize+countSize)
	if err != nil {
		return nil, err
	}
	d := &Distances{Header: t.Header}
	if countSize == 8 {
		d.N = le(body).u64(HeaderSize)
	} else {
		d.N = uint64(le(body).u32(HeaderSize))
	}
	have := uint64(len(body) - HeaderSize - countSize)
	// N×N overflows for N ≥ 2^32; such a table is short in any case.
	if d.N >= 1<<32 || d.N*d.N > have {
		if d.N < 1<<32 {
			d.Missing = d.N*d.N - have
		} else {
			d.Missing = ^uint64(0)
		}
		return d, nil
	}
	d.Matrix = body[HeaderSize+countSize : HeaderSize+countSize+int(d.N*d.N)]
	d.Trailing = have - d.N*d.N
	return d, nil
}

// MSCT is the Maximum System Characteristics Table.
type MSCT struct {
	Header           Header
	Offset           uint32 // to the first proximity domain information structure
	MaxDomains       uint32 // the highest proximity domain number possible
	MaxClockDomains  uint32
	MaxPhysAddr      uint64
	Domains          []MSCTDomain
	Trailing         int
	OffsetOutOfTable bool
}

// MSCTHeaderSize is the MSCT's fixed part; MSCTDomainSize a maximum
// proximity domain information structure.
const (
	MSCTHeaderSize = 56
	MSCTDomainSize = 22
)

// MSCTDomain is a maximum proximity domain information structure.
type MSCTDomain struct {
	Offset            int
	Revision, Length  uint8
	Low, High         uint32
	ProcessorCapacity uint32
	MemoryCapacity    uint64
}

// ParseMSCT decodes an MSCT. The domain structures are read from the
// table's offset field in steps of their own length field (a length
// below 2 stops the walk, which Trailing then counts).
func ParseMSCT(t *Table) (*MSCT, error) {
	body, err := sdtBody(t, SigMSCT, MSCTHeaderSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	m := &MSCT{Header: t.Header, Offset: r.u32(36), MaxDomains: r.u32(40), MaxClockDomains: r.u32(44), MaxPhysAddr: r.u64(48)}
	if m.Offset < MSCTHeaderSize || uint64(m.Offset) > uint64(len(body)) {
		m.OffsetOutOfTable = true
		return m, nil
	}
	off := int(m.Offset)
	for off+MSCTDomainSize <= len(body) && len(m.Domains) < MaxSubtables {
		d := MSCTDomain{Offset: off, Revision: body[off], Length: body[off+1], Low: r.u32(off + 2), High: r.u32(off + 6),
			ProcessorCapacity: r.u32(off + 10), MemoryCapacity: r.u64(off + 14)}
		m.Domains = append(m.Domains, d)
		if d.Length < 2 {
			off += MSCTDomainSize
			break
		}
		off += int(d.Length)
	}
	if off < len(body) {
		m.Trailing = len(body) - off
	}
	return m, nil
}

// CRAT structure types (Linux kfd_crat.h) and their sizes.
const (
	CRATCompute    = 0
	CRATMemory     = 1
	CRATCache      = 2
	CRATTLB        = 3
	CRATCCompute   = 4
	CRATIOLink     = 5
	CRATHeaderSize = 48
	CRATEnabled    = 1 << 0
	cratLastType   = CRATIOLink
)

// CRATStructSize returns the size of CRAT structure type t, 0 for a type
// not defined.
func CRATStructSize(t uint32) int {
	switch t {
	case CRATCompute, CRATMemory, CRATCCompute, CRATIOLink:
		return 40
	case CRATCache, CRATTLB:
		return 64
	}
	return 0
}

// CRATTypeName names a CRAT structure type.
func CRATTypeName(t uint32) string {
	names := []string{"compute unit affinity", "memory affinity", "cache affinity", "TLB affinity", "compute affinity", "I/O link affinity"}
	if t <= cratLastType {
		return names[t]
	}
	return "reserved type"
}

// CRATEntry is one CRAT structure.
type CRATEntry struct {
	Subtable
	Flags uint32
	// Domain is a compute or memory structure's proximity domain, and an
	// I/O link's "from" domain; DomainTo the link's other end.
	Domain, DomainTo uint32
}

// CRAT is AMD's Component Resource Attribute Table.
type CRAT struct {
	Header       Header
	TotalEntries uint32
	NumDomains   uint16
	Entries      []CRATEntry
	NotRead      int
}

// ParseCRAT decodes a CRAT. When the structure list is malformed it
// returns the structures before the fault with a *WalkError.
func ParseCRAT(t *Table) (*CRAT, error) {
	body, err := sdtBody(t, SigCRAT, CRATHeaderSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	c := &CRAT{Header: t.Header, TotalEntries: r.u32(36), NumDomains: r.u16(40)}
	subs, notRead, err := walkSubtables("CRAT structure", body, CRATHeaderSize, subtableLayout{typeSize: 1, lenOff: 1, lenSize: 1})
	c.NotRead = notRead
	for _, s := range subs {
		e := CRATEntry{Subtable: s}
		b := le(s.Raw)
		e.Flags = b.u32(4)
		switch s.Type {
		case CRATCompute, CRATMemory:
			e.Domain = b.u32(8)
		case CRATIOLink:
			e.Domain, e.DomainTo = b.u32(12), b.u32(16)
		}
		c.Entries = append(c.Entries, e)
	}
	return c, err
}

// SigHMAT is the Heterogeneous Memory Attribute Table's signature (ACPI
// 6.5 §5.2.28).
const SigHMAT = "HMAT"

// HMAT structure types.
const (
	HMATProximity     = 0 // memory proximity domain attributes
	HMATLocality      = 1 // system locality latency and bandwidth information
	HMATCache         = 2 // memory side cache information
	HMATHeaderSize    = 40
	HMATProximitySize = 40
	// HMATLocalityFixed and HMATCacheFixed are the fixed parts before the
	// lists of a locality structure and a cache structure.
	HMATLocalityFixed = 32
	HMATCacheFixed    = 32
	// HMATInitiatorValid is the proximity structure's flag saying its
	// initiator proximity domain field is valid.
	HMATInitiatorValid = 1 << 0
)

// HMATEntry is one HMAT structure. The fields of each type are decoded
// when the structure holds its fixed part (Short is set otherwise).
type HMATEntry struct {
	Subtable
	Short bool
	Flags uint16
	// Proximity: the initiator and memory proximity domains.
	Initiator, Memory uint32
	// Locality: the memory hierarchy and data type, the domain lists.
	DataType            uint8
	Initiators, Targets uint32
	InitiatorDomains    []uint32
	TargetDomains       []uint32
	EntryBaseUnit       uint64
	// Cache: the cache size and attributes, the SMBIOS handle count.
	CacheSize       uint64
	CacheAttributes uint32
	Handles         uint16
	// WantLength is the length the structure's counts call for (0 when
	// the type is reserved).
	WantLength uint64
	Reserved   uint64
}

// HMAT is the Heterogeneous Memory Attribute Table.
type HMAT struct {
	Header   Header
	Reserved uint32
	Entries  []HMATEntry
	NotRead  int
}

// ParseHMAT decodes an HMAT. When the structure list is malformed it
// returns the structures before the fault with a *WalkError.
func ParseHMAT(t *Table) (*HMAT, error) {
	body, err := sdtBody(t, SigHMAT, HMATHeaderSize)
	if err != nil {
		return nil, err
	}
	h := &HMAT{Header: t.Header, Reserved: le(body).u32(36)}
	subs, notRead, err := walkSubtables("HMAT structure", body, HMATHeaderSize, subtableLayout{typeSize: 2, lenOff: 4, lenSize: 4})
	h.NotRead = notRead
	for _, s := range subs {
		e := HMATEntry{Subtable: s}
		b := le(s.Raw)
		e.Reserved = uint64(b.u16(2))
		switch s.Type {
		case HMATProximity:
			e.WantLength = HMATProximitySize
			if e.Short = s.Length < HMATProximitySize; !e.Short {
				e.Flags, e.Initiator, e.Memory = b.u16(8), b.u32(12), b.u32(16)
				e.Reserved |= uint64(b.u16(10)) | uint64(b.u32(20)) | b.u64(24) | b.u64(32)
			}
		case HMATLocality:
			e.WantLength = HMATLocalityFixed
			if e.Short = s.Length < HMATLocalityFixed; !e.Short {
				e.Flags, e.DataType = uint16(b.u8(8)), b.u8(9)
				e.Initiators, e.Targets, e.EntryBaseUnit = b.u32(12), b.u32(16), b.u64(24)
				e.Reserved |= uint64(b.u8(11)) | uint64(b.u32(20))
				i, tg := uint64(e.Initiators), uint64(e.Targets)
				e.WantLength = HMATLocalityFixed + 4*i + 4*tg + 2*i*tg
				if e.WantLength <= uint64(s.Length) {
					for k := range i {
						e.InitiatorDomains = append(e.InitiatorDomains, b.u32(HMATLocalityFixed+4*int(k)))
					}
					for k := range tg {
						e.TargetDomains = append(e.TargetDomains, b.u32(HMATLocalityFixed+4*int(i)+4*int(k)))
					}
				}
			}
		case HMATCache:
			e.WantLength = HMATCacheFixed
			if e.Short = s.Length < HMATCacheFixed; !e.Short {
				e.Memory, e.CacheSize, e.CacheAttributes, e.Handles = b.u32(8), b.u64(16), b.u32(24), b.u16(30)
				e.Reserved |= uint64(b.u32(12)) | uint64(b.u16(28))
				e.WantLength = HMATCacheFixed + 2*uint64(e.Handles)
			}
		}
		h.Entries = append(h.Entries, e)
	}
	return h, err
}
