package acpi

import "fmt"

// SigBGRT is the Boot Graphics Resource Table's signature.
const SigBGRT = "BGRT"

// BGRTSize is the BGRT's length (ACPI 6.5 §5.2.23 Table 5.103).
const BGRTSize = 56

// BGRT is the Boot Graphics Resource Table: where the firmware left the
// logo it drew during boot.
type BGRT struct {
	Header Header
	// Version is 1 in every revision so far.
	Version uint16
	// Status: bit 0 Displayed, bits 2:1 the orientation offset (0, 90,
	// 180, 270 degrees clockwise), bits 7:3 reserved.
	Status uint8
	// ImageType is 0 for a bitmap; other values are reserved.
	ImageType    uint8
	ImageAddress uint64
	OffsetX      uint32
	OffsetY      uint32
}

// Displayed reports Status bit 0: the image is on the screen now.
func (b *BGRT) Displayed() bool { return b.Status&1 != 0 }

// Orientation is the offset Status bits 2:1 give, in degrees clockwise.
func (b *BGRT) Orientation() int { return int(b.Status>>1&3) * 90 }

// ParseBGRT decodes a BGRT. A table shorter than BGRTSize is an error.
func ParseBGRT(t *Table) (*BGRT, error) {
	body, err := sdtBody(t, SigBGRT, BGRTSize)
	if err != nil {
		return nil, err
	}
	b := le(body)
	return &BGRT{Header: t.Header, Version: b.u16(36), Status: b.u8(38), ImageType: b.u8(39),
		ImageAddress: b.u64(40), OffsetX: b.u32(48), OffsetY: b.u32(52)}, nil
}

// SigWSMT is the Windows SMM Security Mitigations Table's signature.
const SigWSMT = "WSMT"

// WSMTSize is the WSMT's length (Microsoft, Windows SMM Security
// Mitigations Table, version 1.0, §3.2).
const WSMTSize = 40

// WSMT protection flags.
const (
	WSMTFixedCommBuffers          = 1 << 0 // FIXED_COMM_BUFFERS
	WSMTCommBufferNestedPtrProtec = 1 << 1 // COMM_BUFFER_NESTED_PTR_PROTECTION
	WSMTSystemResourceProtection  = 1 << 2 // SYSTEM_RESOURCE_PROTECTION
	WSMTDefinedFlags              = WSMTFixedCommBuffers | WSMTCommBufferNestedPtrProtec | WSMTSystemResourceProtection
)

// WSMT is the Windows SMM Security Mitigations Table: the protections the
// firmware's SMI handlers say they implement.
type WSMT struct {
	Header          Header
	ProtectionFlags uint32
}

// ParseWSMT decodes a WSMT.
func ParseWSMT(t *Table) (*WSMT, error) {
	body, err := sdtBody(t, SigWSMT, WSMTSize)
	if err != nil {
		return nil, err
	}
	return &WSMT{Header: t.Header, ProtectionFlags: le(body).u32(36)}, nil
}

// WSMTFlagNames names the set protection flags of f.
func WSMTFlagNames(f uint32) []string {
	var out []string
	for _, x := range []struct {
		bit  uint32
		name string
	}{{WSMTFixedCommBuffers, "FIXED_COMM_BUFFERS"}, {WSMTCommBufferNestedPtrProtec, "COMM_BUFFER_NESTED_PTR_PROTECTION"},
		{WSMTSystemResourceProtection, "SYSTEM_RESOURCE_PROTECTION"}} {
		if f&x.bit != 0 {
			out = append(out, x.name)
		}
	}
	if r := f &^ WSMTDefinedFlags; r != 0 {
		out = append(out, fmt.Sprintf("reserved 0x%x", r))
	}
	return out
}
