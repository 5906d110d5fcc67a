package acpi

import "encoding/binary"

// SigNFIT is the NVDIMM Firmware Interface Table's signature (ACPI 6.5
// §5.2.26).
const SigNFIT = "NFIT"

// NFITHeaderSize is the NFIT's fixed part: the table header and 4
// reserved bytes.
const NFITHeaderSize = HeaderSize + 4

// NFIT structure types (ACPI 6.5 §5.2.26.1-§5.2.26.9).
const (
	NFITSPARange       = 0 // system physical address range
	NFITRegionMapping  = 1 // NVDIMM region mapping (memory device to SPA range)
	NFITInterleave     = 2
	NFITSMBIOS         = 3 // SMBIOS management information
	NFITControlRegion  = 4 // NVDIMM control region
	NFITBlockWindow    = 5 // NVDIMM block data window region
	NFITFlushHint      = 6 // flush hint address
	NFITCapabilities   = 7 // platform capabilities
	NFITSPACookieValid = 1 << 2
)

// NFITSPADomainValid is the SPA range flag bit saying the proximity
// domain field is valid.
const NFITSPADomainValid = 1 << 1

// NFIT SPA range flag bits and region mapping state flags defined.
const (
	NFITSPAFlagsDefined   = 0x7  // management only, proximity domain valid, location cookie valid
	NFITStateFlagsDefined = 0x7F // save, restore, flush failed; not armed; health observed, enabled; map failed
	NFITCapsDefined       = 0x7  // CPU cache flush, memory controller flush, hardware mirroring
)

// NFITStruct is one NFIT structure. Fields past Type and Length are
// decoded only when the structure is at least its type's fixed part
// (Short is clear); unused fields stay zero.
type NFITStruct struct {
	Subtable
	Short bool
	// Want is the length the type and its counts give (0: any length
	// of at least the fixed part; for an SPA range, 56 or 64).
	Want int
	// Index is the structure's own index: the SPA range's, the control
	// region's or the interleave structure's.
	Index uint16
	Flags uint16
	// Reserved holds a reserved field's value; ReservedFlags the flag
	// bits set that no revision defines.
	Reserved      uint64
	ReservedFlags uint32
	// SPA range.
	Domain     uint32
	RangeType  GUIDBytes
	Base, Size uint64
	// Region mapping: the structures it refers to (0: none) and the
	// NVDIMM's state flags. A block data window region's control region
	// is in ControlIndex too.
	Handle          uint32
	SPAIndex        uint16
	ControlIndex    uint16
	InterleaveIndex uint16
	Ways            uint16
	// Count is the interleave lines, the flush hint addresses or the
	// block control windows the structure says it holds.
	Count uint32
	// Capabilities.
	HighestCap   uint8
	Capabilities uint32
}

// NFIT is the NVDIMM Firmware Interface Table.
type NFIT struct {
	Header     Header
	Reserved   uint32
	Structures []NFITStruct
	NotRead    int
}

// nfitFixed is each type's fixed part.
var nfitFixed = map[uint32]int{
	NFITSPARange: 56, NFITRegionMapping: 48, NFITInterleave: 16, NFITSMBIOS: 8,
	NFITControlRegion: 32, NFITBlockWindow: 40, NFITFlushHint: 16, NFITCapabilities: 16,
}

// ParseNFIT decodes an NFIT. When the structure list is malformed it
// returns the structures before the fault with a *WalkError.
func ParseNFIT(t *Table) (*NFIT, error) {
	body, err := sdtBody(t, SigNFIT, NFITHeaderSize)
	if err != nil {
		return nil, err
	}
	subs, notRead, err := walkSubtables("NFIT structure", body, NFITHeaderSize, subtableLayout{typeSize: 2, lenOff: 2, lenSize: 2})
	n := &NFIT{Header: t.Header, Reserved: binary.LittleEndian.Uint32(body[HeaderSize:]), NotRead: notRead}
	for _, s := range subs {
		n.Structures = append(n.Structures, decodeNFIT(s))
	}
	return n, err
}

func decodeNFIT(s Subtable) NFITStruct {
	e := NFITStruct{Subtable: s}
	fixed, known := nfitFixed[s.Type]
	if !known {
		return e
	}
	if s.Length < fixed {
		e.Short = true
		return e
	}
	r := le(s.Raw)
	switch s.Type {
	case NFITSPARange:
		e.Index, e.Flags, e.Reserved, e.Domain = r.u16(4), r.u16(6), uint64(r.u32(8)), r.u32(12)
		copy(e.RangeType[:], s.Raw[16:32])
		e.Base, e.Size = r.u64(32), r.u64(40)
		e.ReservedFlags = uint32(e.Flags) &^ NFITSPAFlagsDefined
		if e.Flags&NFITSPACookieValid != 0 {
			e.Want = 64
		}
	case NFITRegionMapping:
		e.Want = 48
		e.Handle, e.SPAIndex, e.ControlIndex = r.u32(4), r.u16(12), r.u16(14)
		e.InterleaveIndex, e.Ways, e.Flags, e.Reserved = r.u16(40), r.u16(42), r.u16(44), uint64(r.u16(46))
		e.ReservedFlags = uint32(e.Flags) &^ NFITStateFlagsDefined
	case NFITInterleave:
		e.Index, e.Reserved, e.Count = r.u16(4), uint64(r.u16(6)), r.u32(8)
		e.Want = int(min(uint64(16)+4*uint64(e.Count), 1<<20))
	case NFITSMBIOS:
		e.Reserved = uint64(r.u32(4))
	case NFITControlRegion:
		e.Index = r.u16(4)
		e.Reserved = uint64(r.u16(18))
		e.Count = uint32(r.u16(30))
		e.Want = 80
		if s.Length == 32 && e.Count == 0 {
			e.Want = 32
		}
		if s.Length >= 80 {
			e.Flags = r.u16(72)
			e.ReservedFlags = uint32(e.Flags) &^ 1
			e.Reserved |= uint64(r.u16(74)) | uint64(r.u32(76))
		}
	case NFITBlockWindow:
		e.Want = 40
		e.ControlIndex, e.Count = r.u16(4), uint32(r.u16(6))
	case NFITFlushHint:
		e.Handle, e.Count = r.u32(4), uint32(r.u16(8))
		e.Reserved = uint64(r.u16(10)) | uint64(r.u32(12))
		e.Want = 16 + 8*int(e.Count)
	case NFITCapabilities:
		e.Want = 16
		e.HighestCap = s.Raw[4]
		e.Reserved = uint64(s.Raw[5]) | uint64(s.Raw[6]) | uint64(s.Raw[7]) | uint64(r.u32(12))
		e.Capabilities = r.u32(8)
		e.ReservedFlags = e.Capabilities &^ NFITCapsDefined
	}
	return e
}

// Known NFIT address range type GUIDs (ACPI 6.5 §5.2.26.2), as
// GUIDBytes.String prints them.
var nfitRangeTypes = map[string]string{
	"7305944f-fdda-44e3-b16c-3f22d252e5d0": "volatile memory",
	"66f0d379-b4f3-4074-ac43-0d3318b78cdb": "persistent memory",
	"92f701f6-13b4-405d-910b-299367e8234c": "NVDIMM control region",
	"91af0530-5d86-470e-a6b0-0a2db9408249": "NVDIMM block data window region",
	"77ab535a-45fc-624b-5560-f7b281d1f96e": "RAM disk (virtual disk, volatile)",
	"3d5abd30-4175-87ce-6d64-d2ade523c4bb": "RAM disk (virtual CD, volatile)",
	"5cea02c9-4d07-69d3-269f-4496fbe096f9": "RAM disk (virtual disk, persistent)",
	"08018188-42cd-bb48-100f-5387d53ded3d": "RAM disk (virtual CD, persistent)",
}

// NFITRangeTypeName names an SPA range's address range type GUID, ""
// for one ACPI 6.5 does not define.
func NFITRangeTypeName(g GUIDBytes) string { return nfitRangeTypes[g.String()] }
