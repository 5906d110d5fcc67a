package acpi

// This file covers the DMA Remapping Reporting table (Intel Virtualization
// Technology for Directed I/O, revision 4.1, chapter 8): the table header,
// its remapping structures and their device scopes, each walked by its own
// length. Structure types the parser does not know are kept raw.

// SigDMAR is the DMA Remapping table's signature.
const SigDMAR = "DMAR"

// DMARHeaderSize is the DMAR's fixed part: the SDT header, Host Address
// Width, Flags and 10 reserved bytes.
const DMARHeaderSize = 48

// DMAR flags (VT-d 4.1 §8.1).
const (
	DMARIntrRemap        = 1 << 0 // INTR_REMAP
	DMARX2APICOptOut     = 1 << 1 // X2APIC_OPT_OUT
	DMARDMACtrlPlatOptIn = 1 << 2 // DMA_CTRL_PLATFORM_OPT_IN_FLAG
)

// DMAR remapping structure types (VT-d 4.1 §8.2).
const (
	DMARTypeDRHD = 0
	DMARTypeRMRR = 1
	DMARTypeATSR = 2
	DMARTypeRHSA = 3
	DMARTypeANDD = 4
	DMARTypeSATC = 5
	DMARTypeSIDP = 6
)

// DMARTypeName names a remapping structure type.
func DMARTypeName(t uint32) string {
	switch t {
	case DMARTypeDRHD:
		return "DRHD"
	case DMARTypeRMRR:
		return "RMRR"
	case DMARTypeATSR:
		return "ATSR"
	case DMARTypeRHSA:
		return "RHSA"
	case DMARTypeANDD:
		return "ANDD"
	case DMARTypeSATC:
		return "SATC"
	case DMARTypeSIDP:
		return "SIDP"
	}
	return "reserved"
}

// dmarMinLength is each known structure type's fixed part.
var dmarMinLength = map[uint32]int{DMARTypeDRHD: 16, DMARTypeRMRR: 24, DMARTypeATSR: 8, DMARTypeRHSA: 20, DMARTypeANDD: 8, DMARTypeSATC: 8, DMARTypeSIDP: 8}

// DMARMinLength is the fixed part of structure type t, 4 (the type and
// length) for types the parser does not know.
func DMARMinLength(t uint32) int {
	if n, ok := dmarMinLength[t]; ok {
		return n
	}
	return 4
}

// Device scope types (VT-d 4.1 §8.3.1).
const (
	ScopePCIEndpoint  = 1
	ScopePCIBridge    = 2 // PCI sub-hierarchy
	ScopeIOAPIC       = 3
	ScopeHPET         = 4 // MSI-capable HPET
	ScopeACPINamespac = 5 // ACPI namespace device
)

// ScopeTypeName names a device scope type.
func ScopeTypeName(t uint8) string {
	switch t {
	case ScopePCIEndpoint:
		return "PCI endpoint"
	case ScopePCIBridge:
		return "PCI sub-hierarchy"
	case ScopeIOAPIC:
		return "I/O APIC"
	case ScopeHPET:
		return "HPET"
	case ScopeACPINamespac:
		return "ACPI namespace device"
	}
	return "reserved"
}

// DeviceScope is one device scope entry of a DRHD, RMRR, ATSR, SATC or
// SIDP structure.
type DeviceScope struct {
	Type   uint8
	Length int
	Flags  uint8
	// EnumerationID is the I/O APIC ID, HPET number or ACPI device number
	// for those scope types; reserved (0) for PCI scopes.
	EnumerationID uint8
	StartBus      uint8
	// Path holds the (device, function) pairs from StartBus down.
	Path [][2]uint8
	// Offset is where the entry starts in the table.
	Offset int
	// Odd is set when the path part is not a whole number of 2-byte
	// entries.
	Odd bool
}

// DMARStructure is one remapping structure. The fields used depend on
// the type; Raw keeps the bytes of every type.
type DMARStructure struct {
	Subtable
	// Short is set when Length is below the type's fixed part; the
	// structure is then not decoded.
	Short bool
	Flags uint8
	// Size is the DRHD's register set size field (bits 3:0: 2^N pages).
	Size uint8
	// Segment is the PCI segment (DRHD, RMRR, ATSR, SATC, SIDP).
	Segment uint16
	// Base is the register base (DRHD, RHSA) or the region base (RMRR).
	Base uint64
	// Limit is the RMRR's last byte.
	Limit uint64
	// ProximityDomain is the RHSA's.
	ProximityDomain uint32
	// DeviceNumber and ObjectName are the ANDD's; NameTerminated says
	// whether the name had its NUL.
	DeviceNumber   uint8
	ObjectName     string
	NameTerminated bool
	// Reserved is the OR of the structure's reserved bytes.
	Reserved uint64
	Scopes   []DeviceScope
	// ScopeErr is why the device scope list stopped early, nil when it
	// was walked to the end.
	ScopeErr error
}

// DMAR is the DMA Remapping Reporting table.
type DMAR struct {
	Header Header
	// HostAddressWidth is the field's value: the DMA address width
	// minus one.
	HostAddressWidth uint8
	Flags            uint8
	// Reserved is the OR of the 10 reserved header bytes.
	Reserved   uint64
	Structures []DMARStructure
	// NotRead counts bytes left after MaxSubtables structures.
	NotRead int
}

// ParseDMAR decodes a DMAR. When the structure list is malformed it
// returns the structures before the fault with a *WalkError.
func ParseDMAR(t *Table) (*DMAR, error) {
	body, err := sdtBody(t, SigDMAR, DMARHeaderSize)
	if err != nil {
		return nil, err
	}
	b := le(body)
	d := &DMAR{Header: t.Header, HostAddressWidth: b.u8(36), Flags: b.u8(37)}
	for i := 38; i < 48; i++ {
		d.Reserved |= uint64(b[i])
	}
	subs, notRead, err := walkSubtables("DMAR remapping structure", body, DMARHeaderSize, subtableLayout{typeSize: 2, lenOff: 2, lenSize: 2})
	d.NotRead = notRead
	for _, s := range subs {
		d.Structures = append(d.Structures, decodeDMAR(s))
	}
	return d, err
}

func decodeDMAR(s Subtable) DMARStructure {
	x := DMARStructure{Subtable: s}
	if s.Length < DMARMinLength(s.Type) {
		x.Short = true
		return x
	}
	r := le(s.Raw)
	scopeAt := 0
	switch s.Type {
	case DMARTypeDRHD:
		x.Flags, x.Size, x.Segment, x.Base = r.u8(4), r.u8(5), r.u16(6), r.u64(8)
		scopeAt = 16
	case DMARTypeRMRR:
		x.Reserved, x.Segment, x.Base, x.Limit = uint64(r.u16(4)), r.u16(6), r.u64(8), r.u64(16)
		scopeAt = 24
	case DMARTypeATSR, DMARTypeSATC:
		x.Flags, x.Reserved, x.Segment = r.u8(4), uint64(r.u8(5)), r.u16(6)
		scopeAt = 8
	case DMARTypeSIDP:
		x.Reserved, x.Segment = uint64(r.u16(4)), r.u16(6)
		scopeAt = 8
	case DMARTypeRHSA:
		x.Reserved, x.Base, x.ProximityDomain = uint64(r.u32(4)), r.u64(8), r.u32(16)
	case DMARTypeANDD:
		x.Reserved = uint64(r.u8(4)) | uint64(r.u8(5))<<8 | uint64(r.u8(6))<<16
		x.DeviceNumber = r.u8(7)
		x.ObjectName, x.NameTerminated = cString(s.Raw[8:])
	}
	if scopeAt > 0 {
		x.Scopes, x.ScopeErr = deviceScopes(s.Raw, scopeAt, s.Offset)
	}
	return x
}

// deviceScopeHeader is a device scope's fixed part: type, length, flags,
// reserved, enumeration ID, start bus.
const deviceScopeHeader = 6

func deviceScopes(b []byte, off, base int) ([]DeviceScope, error) {
	subs, _, err := walkSubtables("DMAR device scope", b, off, subtableLayout{typeSize: 1, lenOff: 1, lenSize: 1})
	var out []DeviceScope
	for _, s := range subs {
		r := le(s.Raw)
		ds := DeviceScope{Type: uint8(s.Type), Length: s.Length, Offset: base + s.Offset}
		if s.Length >= deviceScopeHeader {
			ds.Flags, ds.EnumerationID, ds.StartBus = r.u8(2), r.u8(4), r.u8(5)
			n := s.Length - deviceScopeHeader
			ds.Odd = n%2 != 0
			for i := 0; i+1 < n; i += 2 {
				ds.Path = append(ds.Path, [2]uint8{s.Raw[deviceScopeHeader+i], s.Raw[deviceScopeHeader+i+1]})
			}
		}
		out = append(out, ds)
	}
	if we, ok := err.(*WalkError); ok {
		we.Offset += base
		we.End += base
	}
	return out, err
}
