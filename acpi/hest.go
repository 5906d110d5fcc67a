package acpi

import "fmt"

// SigHEST is the Hardware Error Source Table's signature (ACPI 6.5
// §18.3.2).
const SigHEST = "HEST"

// HESTHeaderSize is the HEST's header with its error source count.
const HESTHeaderSize = 40

// HEST error source types (ACPI 6.5 §18.3.2, Table 18.3). Types 3 to 5
// were IPF types and are reserved, as is everything above 11.
const (
	HESTIA32MCE        = 0
	HESTIA32CMC        = 1
	HESTIA32NMI        = 2
	HESTAERRootPort    = 6
	HESTAEREndpoint    = 7
	HESTAERBridge      = 8
	HESTGHES           = 9
	HESTGHESv2         = 10
	HESTIA32DeferredMC = 11
)

// HEST error source flags (ACPI 6.5 §18.3.2.1-§18.3.2.6).
const (
	HESTFirmwareFirst = 1 << 0
	HESTGlobal        = 1 << 1 // PCIe AER sources: every device of the type
	HESTGHESAssist    = 1 << 2 // IA-32 sources
)

// HESTBankSize is the size of one IA-32 machine check bank structure.
const HESTBankSize = 28

// HESTNotifySize is the size of a hardware error notification structure.
const HESTNotifySize = 28

// HESTErrorStatusHeaderSize is the fixed part of a generic error status
// block (block status, raw data offset and length, data length, error
// severity; ACPI 6.5 §18.3.2.7.1).
const HESTErrorStatusHeaderSize = 20

// HESTTypeName names an error source type.
func HESTTypeName(t uint16) string {
	switch t {
	case HESTIA32MCE:
		return "IA-32 machine check"
	case HESTIA32CMC:
		return "IA-32 corrected machine check"
	case HESTIA32NMI:
		return "IA-32 NMI"
	case HESTAERRootPort:
		return "PCIe root port AER"
	case HESTAEREndpoint:
		return "PCIe device AER"
	case HESTAERBridge:
		return "PCIe bridge AER"
	case HESTGHES:
		return "generic hardware error source"
	case HESTGHESv2:
		return "generic hardware error source v2"
	case HESTIA32DeferredMC:
		return "IA-32 deferred machine check"
	}
	return fmt.Sprintf("reserved type %d", t)
}

// HESTFixedSize is the size of an error source of type t before its
// machine check banks; 0 for a type the specification does not define
// (whose length, since error sources carry no length field, is unknown).
func HESTFixedSize(t uint16) int {
	switch t {
	case HESTIA32MCE:
		return 40
	case HESTIA32CMC, HESTIA32DeferredMC, HESTAERRootPort:
		return 48
	case HESTIA32NMI:
		return 20
	case HESTAEREndpoint:
		return 44
	case HESTAERBridge:
		return 56
	case HESTGHES:
		return 64
	case HESTGHESv2:
		return 92
	}
	return 0
}

// HESTNotify is a hardware error notification structure (ACPI 6.5
// §18.3.2.9).
type HESTNotify struct {
	Type, Length       uint8
	ConfigWriteEnable  uint16
	PollInterval       uint32 // milliseconds
	Vector             uint32
	PollThreshold      uint32
	PollThresholdWin   uint32
	ErrorThreshold     uint32
	ErrorThresholdWind uint32
}

// HESTNotifyTypeMax is the highest notification type ACPI 6.5 defines
// (11, Software Delegated Exception).
const HESTNotifyTypeMax = 11

// HESTNotifyName names a notification type.
func HESTNotifyName(t uint8) string {
	names := []string{"polled", "external interrupt", "local interrupt", "SCI", "NMI", "CMCI", "MCE",
		"GPIO signal", "Armv8 SEA", "Armv8 SEI", "GSIV interrupt", "software delegated exception"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("reserved type %d", t)
}

func parseNotify(b le, off int) HESTNotify {
	return HESTNotify{Type: b.u8(off), Length: b.u8(off + 1), ConfigWriteEnable: b.u16(off + 2),
		PollInterval: b.u32(off + 4), Vector: b.u32(off + 8), PollThreshold: b.u32(off + 12),
		PollThresholdWin: b.u32(off + 16), ErrorThreshold: b.u32(off + 20), ErrorThresholdWind: b.u32(off + 24)}
}

// HESTBank is an IA-32 machine check bank structure (ACPI 6.5
// §18.3.2.1.1).
type HESTBank struct {
	Number, ClearStatusOnInit, StatusFormat, Reserved uint8
	ControlMSR                                        uint32
	ControlInit                                       uint64
	StatusMSR, AddressMSR, MiscMSR                    uint32
}

// HESTSource is one error source structure. Which fields are set depends
// on Type; an error source of a reserved type has only Type and SourceID.
type HESTSource struct {
	Type     uint16
	SourceID uint16
	Offset   int
	Length   int
	// RelatedSourceID is a generic source's alternate-of field (0xFFFF
	// for none).
	RelatedSourceID uint16
	// Reserved holds the reserved bytes of the structure ORed together
	// (a generic source's flags byte among them).
	Reserved          uint64
	Flags, Enabled    uint8
	RecordsPrealloc   uint32
	MaxSections       uint32
	MaxRawDataLength  uint32
	HasNotify         bool
	Notify            HESTNotify
	Banks             []HESTBank
	BankCount         int
	ErrorStatus       GAS
	ErrorStatusLength uint32
	ReadAck           GAS
	ReadAckPreserve   uint64
	ReadAckWrite      uint64
	// PCIe AER sources: the device (Bus holds the segment in bits 23:8).
	Bus                 uint32
	Device, Function    uint16
	DeviceControl       uint16
	UncorrectableMask   uint32
	UncorrectableSev    uint32
	CorrectableMask     uint32
	AdvancedCaps        uint32
	RootErrorCommand    uint32
	SecondaryUncorrMask uint32
	SecondaryUncorrSev  uint32
	SecondaryAdvCaps    uint32
}

// HEST is the Hardware Error Source Table.
type HEST struct {
	Header      Header
	SourceCount uint32
	Sources     []HESTSource
	// Unread is the offset of the first error source not read (an
	// unknown type, whose length the table does not give), or 0.
	Unread int
}

// HESTError says why the walk of the error sources stopped before the
// end of the table.
type HESTError struct {
	Offset int
	Type   uint16
	Need   int // bytes the source needs; 0 for an unknown type
	End    int
}

func (e *HESTError) Error() string {
	if e.Need == 0 {
		return fmt.Sprintf("HEST error source at offset %d has reserved type %d, whose length the specification does not give", e.Offset, e.Type)
	}
	return fmt.Sprintf("HEST %s at offset %d needs %d bytes, runs past the end at %d", HESTTypeName(e.Type), e.Offset, e.Need, e.End)
}

// ParseHEST decodes a HEST. Error sources have no length field: each
// type's length is fixed by the specification (plus its machine check
// banks), so the walk stops at the first source of a reserved type,
// returning the sources before it with a *HESTError, as it does for a
// source that runs past the end. At most MaxSubtables sources are read.
func ParseHEST(t *Table) (*HEST, error) {
	body, err := sdtBody(t, SigHEST, HESTHeaderSize)
	if err != nil {
		return nil, err
	}
	h := &HEST{Header: t.Header, SourceCount: le(body).u32(36)}
	for off := HESTHeaderSize; off < len(body) && len(h.Sources) < MaxSubtables; {
		if off+4 > len(body) {
			return h, &HESTError{Offset: off, Type: le(body).u16(off), Need: 4, End: len(body)}
		}
		typ := le(body).u16(off)
		n := HESTFixedSize(typ)
		if n == 0 {
			h.Unread = off
			return h, &HESTError{Offset: off, Type: typ, End: len(body)}
		}
		if off+n > len(body) {
			return h, &HESTError{Offset: off, Type: typ, Need: n, End: len(body)}
		}
		banks := 0
		switch typ {
		case HESTIA32MCE:
			banks = int(body[off+32])
		case HESTIA32CMC, HESTIA32DeferredMC:
			banks = int(body[off+44])
		}
		if off+n+banks*HESTBankSize > len(body) {
			return h, &HESTError{Offset: off, Type: typ, Need: n + banks*HESTBankSize, End: len(body)}
		}
		n += banks * HESTBankSize
		h.Sources = append(h.Sources, parseHESTSource(le(body[off:off+n]), typ, off, banks))
		off += n
	}
	return h, nil
}

func parseHESTSource(b le, typ uint16, off, banks int) HESTSource {
	s := HESTSource{Type: typ, SourceID: b.u16(2), Offset: off, Length: len(b), BankCount: banks,
		Flags: b.u8(6), Enabled: b.u8(7), RecordsPrealloc: b.u32(8), MaxSections: b.u32(12)}
	switch typ {
	case HESTIA32MCE:
		s.Reserved = uint64(b.u16(4)) | b.u64(32)>>8
	case HESTIA32CMC, HESTIA32DeferredMC:
		s.Reserved = uint64(b.u16(4)) | uint64(b.u32(44)>>8)
		s.HasNotify, s.Notify = true, parseNotify(b, 16)
	case HESTIA32NMI:
		s.Reserved = uint64(b.u32(4))
		s.Flags, s.Enabled = 0, 1 // an NMI source has neither field
		s.MaxRawDataLength = b.u32(16)
	case HESTAERRootPort, HESTAEREndpoint, HESTAERBridge:
		s.Reserved = uint64(b.u16(4)) | uint64(b.u16(26))
		s.Bus, s.Device, s.Function, s.DeviceControl = b.u32(16), b.u16(20), b.u16(22), b.u16(24)
		s.UncorrectableMask, s.UncorrectableSev, s.CorrectableMask, s.AdvancedCaps = b.u32(28), b.u32(32), b.u32(36), b.u32(40)
		if typ == HESTAERRootPort {
			s.RootErrorCommand = b.u32(44)
		}
		if typ == HESTAERBridge {
			s.SecondaryUncorrMask, s.SecondaryUncorrSev, s.SecondaryAdvCaps = b.u32(44), b.u32(48), b.u32(52)
		}
	case HESTGHES, HESTGHESv2:
		s.RelatedSourceID = b.u16(4)
		s.Reserved, s.Flags = uint64(s.Flags), 0 // a generic source's flags byte is reserved
		s.MaxRawDataLength = b.u32(16)
		s.ErrorStatus = gasAt(b, 20)
		s.HasNotify, s.Notify = true, parseNotify(b, 32)
		s.ErrorStatusLength = b.u32(60)
		if typ == HESTGHESv2 {
			s.ReadAck = gasAt(b, 64)
			s.ReadAckPreserve, s.ReadAckWrite = b.u64(76), b.u64(84)
		}
	}
	fixed := HESTFixedSize(typ)
	for i := range banks {
		o := fixed + i*HESTBankSize
		s.Banks = append(s.Banks, HESTBank{Number: b.u8(o), ClearStatusOnInit: b.u8(o + 1), StatusFormat: b.u8(o + 2),
			Reserved: b.u8(o + 3), ControlMSR: b.u32(o + 4), ControlInit: b.u64(o + 8), StatusMSR: b.u32(o + 16),
			AddressMSR: b.u32(o + 20), MiscMSR: b.u32(o + 24)})
	}
	return s
}
