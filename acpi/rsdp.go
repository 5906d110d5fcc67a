package acpi

import (
	"fmt"
)

// RSDP sizes: the ACPI 1.0 structure and the ACPI 2.0+ one (ACPI 6.5 §5.2.5.3).
const (
	RSDPv1Size = 20
	RSDPv2Size = 36
)

// RSDP is the Root System Description Pointer (ACPI 6.5 §5.2.5.3).
type RSDP struct {
	Checksum uint8
	OEMID    string
	// Revision is 0 for ACPI 1.0 (20-byte structure, RSDT only) and 2 for
	// ACPI 2.0 and later.
	Revision    uint8
	RSDTAddress uint32
	// The fields below are valid only when Revision >= 2.
	Length           uint32
	XSDTAddress      uint64
	ExtendedChecksum uint8
	Reserved         [3]byte
}

// ParseRSDP decodes an RSDP. A revision 2+ RSDP must hold at least 36
// bytes; a revision 0 one at least 20.
func ParseRSDP(b []byte) (*RSDP, error) {
	if len(b) < RSDPv1Size {
		return nil, fmt.Errorf("rsdp: %d bytes, need %d: %w", len(b), RSDPv1Size, ErrTruncated)
	}
	if string(b[:8]) != "RSD PTR " {
		return nil, fmt.Errorf("rsdp: signature is %q", b[:8])
	}
	r := &RSDP{
		Checksum:    b[8],
		OEMID:       string(b[9:15]),
		Revision:    b[15],
		RSDTAddress: le(b).u32(16),
	}
	if r.Revision < 2 {
		return r, nil
	}
	if len(b) < RSDPv2Size {
		return nil, fmt.Errorf("rsdp: revision %d needs %d bytes, have %d: %w", r.Revision, RSDPv2Size, len(b), ErrTruncated)
	}
	r.Length = le(b).u32(20)
	r.XSDTAddress = le(b).u64(24)
	r.ExtendedChecksum = b[32]
	copy(r.Reserved[:], b[33:36])
	return r, nil
}

// RSDP returns the parsed RSDP, or an error when the source had none (sysfs
// never exposes it) or it is malformed.
func (ts *Tables) RSDP() (*RSDP, error) {
	t := ts.First(SigRSDP)
	if t == nil {
		return nil, fmt.Errorf("rsdp: not in %s", ts.Source)
	}
	return ParseRSDP(t.Raw)
}

// RootTable is a parsed RSDT or XSDT (ACPI 6.5 §5.2.7, §5.2.8): the
// physical addresses of the other tables.
type RootTable struct {
	Header Header
	// Entries are the table addresses; 32-bit for the RSDT, 64-bit for the
	// XSDT.
	Entries []uint64
	// Trailing is the number of bytes after the last whole entry (a
	// length that is not a multiple of the entry size).
	Trailing int
}

// ParseRSDT decodes an RSDT.
func ParseRSDT(t *Table) (*RootTable, error) { return parseRoot(t, SigRSDT, 4) }

// ParseXSDT decodes an XSDT.
func ParseXSDT(t *Table) (*RootTable, error) { return parseRoot(t, SigXSDT, 8) }

func parseRoot(t *Table, sig string, size int) (*RootTable, error) {
	b, err := sdtBody(t, sig, HeaderSize)
	if err != nil {
		return nil, err
	}
	rt := &RootTable{Header: t.Header}
	body := b[HeaderSize:]
	for len(body) >= size {
		if size == 4 {
			rt.Entries = append(rt.Entries, uint64(le(body).u32(0)))
		} else {
			rt.Entries = append(rt.Entries, le(body).u64(0))
		}
		body = body[size:]
	}
	rt.Trailing = len(body)
	return rt, nil
}

// RSDT returns the parsed RSDT, or an error when the source had none.
func (ts *Tables) RSDT() (*RootTable, error) {
	t := ts.First(SigRSDT)
	if t == nil {
		return nil, fmt.Errorf("%s: not in %s", SigRSDT, ts.Source)
	}
	return ParseRSDT(t)
}

// XSDT returns the parsed XSDT, or an error when the source had none.
func (ts *Tables) XSDT() (*RootTable, error) {
	t := ts.First(SigXSDT)
	if t == nil {
		return nil, fmt.Errorf("%s: not in %s", SigXSDT, ts.Source)
	}
	return ParseXSDT(t)
}
