package acpi

// SigPCCT is the Platform Communications Channel Table's signature (ACPI
// 6.5 §14.1).
const SigPCCT = "PCCT"

// PCCTHeaderSize is the PCCT's fixed part: the table header, the global
// flags (4) and 8 reserved bytes.
const PCCTHeaderSize = HeaderSize + 12

// PCCT subspace types (ACPI 6.5 §14.1.3-§14.1.8) and the global flag.
const (
	PCCTGeneric         = 0 // generic communications subspace
	PCCTHWReduced       = 1 // HW-reduced communications subspace
	PCCTHWReduced2      = 2 // HW-reduced communications subspace type 2
	PCCTExtendedMaster  = 3 // extended PCC initiator (master) subspace
	PCCTExtendedSlave   = 4 // extended PCC responder (slave) subspace
	PCCTHWRegisters     = 5 // HW registers based communications subspace
	PCCTPlatformIntFlag = 1 // global flags bit 0: the platform interrupts on command completion
	// PCCTIntModeEdge is the platform interrupt flags' mode bit (1 edge,
	// 0 level); bit 0 is the polarity.
	PCCTIntModeEdge = 1 << 1
)

// pcctSizes are each subspace type's length.
var pcctSizes = map[uint32]int{PCCTGeneric: 62, PCCTHWReduced: 62, PCCTHWReduced2: 90, PCCTExtendedMaster: 164, PCCTExtendedSlave: 164, PCCTHWRegisters: 96}

// PCCTSubspaceSize returns the length of a subspace of type typ, 0 for a
// type ACPI 6.5 does not define.
func PCCTSubspaceSize(typ uint32) int { return pcctSizes[typ] }

// PCCTSubspace is one subspace. Fields past Type and Length are decoded
// only for a defined type at least its length (Short is clear).
type PCCTSubspace struct {
	Subtable
	Short bool
	// Interrupt is the platform interrupt's GSIV and IntFlags its flags
	// (types 1 to 4).
	Interrupt uint32
	IntFlags  uint8
	// Reserved holds the reserved bytes' values ORed together.
	Reserved uint64
	// Base and Size are the shared memory range (Size is 4 bytes in
	// types 3 and 4).
	Base, Size uint64
	Doorbell   GAS
	// Ack is the platform interrupt acknowledge register (types 2 to 4).
	Ack GAS
}

// PCCT is the Platform Communications Channel Table.
type PCCT struct {
	Header    Header
	Flags     uint32
	Reserved  uint64
	Subspaces []PCCTSubspace
	NotRead   int
}

// ParsePCCT decodes a PCCT. When the subspace list is malformed it
// returns the subspaces before the fault with a *WalkError.
func ParsePCCT(t *Table) (*PCCT, error) {
	body, err := sdtBody(t, SigPCCT, PCCTHeaderSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	p := &PCCT{Header: t.Header, Flags: r.u32(HeaderSize), Reserved: r.u64(HeaderSize + 4)}
	subs, notRead, err := walkSubtables("PCCT subspace", body, PCCTHeaderSize, subtableLayout{typeSize: 1, lenOff: 1, lenSize: 1})
	p.NotRead = notRead
	for _, s := range subs {
		p.Subspaces = append(p.Subspaces, decodePCCT(s))
	}
	return p, err
}

func decodePCCT(s Subtable) PCCTSubspace {
	e := PCCTSubspace{Subtable: s}
	size, known := pcctSizes[s.Type]
	if !known {
		return e
	}
	if s.Length < size {
		e.Short = true
		return e
	}
	r := le(s.Raw)
	switch s.Type {
	case PCCTGeneric:
		for _, b := range s.Raw[2:8] {
			e.Reserved |= uint64(b)
		}
		e.Base, e.Size = r.u64(8), r.u64(16)
		e.Doorbell, _ = ParseGAS(s.Raw[24:])
	case PCCTHWReduced, PCCTHWReduced2:
		e.Interrupt, e.IntFlags, e.Reserved = r.u32(2), s.Raw[6], uint64(s.Raw[7])
		e.Base, e.Size = r.u64(8), r.u64(16)
		e.Doorbell, _ = ParseGAS(s.Raw[24:])
		if s.Type == PCCTHWReduced2 {
			e.Ack, _ = ParseGAS(s.Raw[62:])
		}
	case PCCTExtendedMaster, PCCTExtendedSlave:
		e.Interrupt, e.IntFlags, e.Reserved = r.u32(2), s.Raw[6], uint64(s.Raw[7])|r.u64(88)
		e.Base, e.Size = r.u64(8), uint64(r.u32(16))
		e.Doorbell, _ = ParseGAS(s.Raw[20:])
		e.Ack, _ = ParseGAS(s.Raw[60:])
	case PCCTHWRegisters:
		e.Base, e.Size = r.u64(4), r.u64(12)
		e.Doorbell, _ = ParseGAS(s.Raw[20:])
	}
	return e
}
