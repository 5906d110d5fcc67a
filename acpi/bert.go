package acpi

import "fmt"

// SigBERT is the Boot Error Record Table's signature (ACPI 6.5 §18.3.1).
const SigBERT = "BERT"

// BERTSize is the BERT's length.
const BERTSize = 48

// BERTDataPath is where Linux exposes the boot error region's bytes,
// relative to "/" (drivers/acpi/sysfs.c, the tables' data/ directory).
const BERTDataPath = SysfsDir + "/data/BERT"

// BERT is the Boot Error Record Table: where the firmware left the errors
// of the previous boot.
type BERT struct {
	Header       Header
	RegionLength uint32
	Region       uint64
}

// ParseBERT decodes a BERT.
func ParseBERT(t *Table) (*BERT, error) {
	body, err := sdtBody(t, SigBERT, BERTSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	return &BERT{Header: t.Header, RegionLength: r.u32(36), Region: r.u64(40)}, nil
}

// ErrorStatusBlockSize is a Generic Error Status Block's fixed part
// (ACPI 6.5 §18.3.2.7.1 Table 18.11).
const ErrorStatusBlockSize = 20

// ErrorStatusBlock is a Generic Error Status Block with its error data
// entries.
type ErrorStatusBlock struct {
	// BlockStatus: bit 0 uncorrectable error valid, 1 correctable error
	// valid, 2 multiple uncorrectable, 3 multiple correctable, bits 13:4
	// the error data entry count.
	BlockStatus   uint32
	RawDataOffset uint32
	RawDataLength uint32
	DataLength    uint32
	Severity      uint32
	Entries       []ErrorDataEntry
}

// EntryCount is the count Block Status bits 13:4 give.
func (b *ErrorStatusBlock) EntryCount() int { return int(b.BlockStatus >> 4 & 0x3FF) }

// ErrorDataEntry is one Generic Error Data Entry's header.
type ErrorDataEntry struct {
	SectionType GUIDBytes
	Severity    uint32
	Revision    uint16
	Length      uint32 // of the error data that follows the header
	FRUText     string
}

// GUIDBytes is a GUID as stored (mixed-endian).
type GUIDBytes [16]byte

func (g GUIDBytes) String() string {
	le32 := uint32(g[0]) | uint32(g[1])<<8 | uint32(g[2])<<16 | uint32(g[3])<<24
	return fmt.Sprintf("%08x-%02x%02x-%02x%02x-%02x%02x-%x", le32, g[5], g[4], g[7], g[6], g[8], g[9], g[10:])
}

// ErrorSeverityName names a generic error severity.
func ErrorSeverityName(s uint32) string {
	switch s {
	case 0:
		return "recoverable"
	case 1:
		return "fatal"
	case 2:
		return "corrected"
	case 3:
		return "none"
	}
	return fmt.Sprintf("reserved (%d)", s)
}

// ParseErrorStatusBlock decodes a Generic Error Status Block and its
// entries from b. Entries that do not fit the Data Length or b end the
// list with an error; the entries before are returned.
func ParseErrorStatusBlock(b []byte) (*ErrorStatusBlock, error) {
	if len(b) < ErrorStatusBlockSize {
		return nil, fmt.Errorf("generic error status block: %d bytes, need %d: %w", len(b), ErrorStatusBlockSize, ErrTruncated)
	}
	r := le(b)
	s := &ErrorStatusBlock{BlockStatus: r.u32(0), RawDataOffset: r.u32(4), RawDataLength: r.u32(8), DataLength: r.u32(12), Severity: r.u32(16)}
	end := int64(ErrorStatusBlockSize) + int64(s.DataLength)
	if end > int64(len(b)) {
		return s, fmt.Errorf("generic error status block: data length %d runs past the %d-byte region", s.DataLength, len(b))
	}
	off := int64(ErrorStatusBlockSize)
	for off < end && len(s.Entries) < MaxSubtables {
		hdr := int64(64)
		if off+hdr > end {
			return s, fmt.Errorf("generic error data entry at offset %d: %d bytes left, the header needs 64", off, end-off)
		}
		e := ErrorDataEntry{Severity: r.u32(int(off) + 16), Revision: r.u16(int(off) + 20), Length: r.u32(int(off) + 24)}
		copy(e.SectionType[:], b[off:off+16])
		e.FRUText, _ = cString(b[off+44 : off+64])
		if e.Revision >= 0x300 {
			hdr = 72
		}
		if off+hdr+int64(e.Length) > end {
			return s, fmt.Errorf("generic error data entry at offset %d: %d bytes of data run past the data length %d", off, e.Length, s.DataLength)
		}
		s.Entries = append(s.Entries, e)
		off += hdr + int64(e.Length)
	}
	return s, nil
}
