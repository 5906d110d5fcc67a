package acpi

import "fmt"

// This file holds the walker the tables with a list of typed, length-
// prefixed structures share (DMAR, IVRS, LPIT, SRAT, the device scopes
// inside DMAR structures, …), so each parser states only where a
// structure's type and length fields sit. ACPICA's acpi_table_walk and
// Linux's acpi_parse_entries_array do the same job in C; there is no Go
// library for it, and the job is twenty lines.

// MaxSubtables bounds the structures read from one table or list. Real
// tables hold a few hundred at most (a large server's SRAT); a table
// claiming more is hostile or corrupt, and the rest is reported as not
// read.
const MaxSubtables = 65536

// Subtable is one typed, length-prefixed structure of a table.
type Subtable struct {
	Type   uint32
	Length int
	// Offset is where the structure starts in the bytes walked (for a
	// table, from the start of its header).
	Offset int
	// Raw holds the structure's Length bytes.
	Raw []byte
}

// subtableLayout says where a structure's type and length fields are and
// how wide they are (1, 2 or 4 bytes).
type subtableLayout struct {
	typeOff, typeSize int
	lenOff, lenSize   int
}

// header is the size of the fields the walker must read.
func (l subtableLayout) header() int {
	return max(l.typeOff+l.typeSize, l.lenOff+l.lenSize)
}

func (l subtableLayout) field(b le, off, size int) uint32 {
	switch size {
	case 1:
		return uint32(b.u8(off))
	case 2:
		return uint32(b.u16(off))
	}
	return b.u32(off)
}

// WalkError says why a walk of structures stopped early.
type WalkError struct {
	What   string // "DMAR remapping structure", …
	Offset int
	Type   uint32
	Length int // the structure's length field; -1 when not readable
	End    int // where the walked bytes end
}

func (e *WalkError) Error() string {
	switch {
	case e.Length < 0:
		return fmt.Sprintf("%s: %d stray bytes at offset %d, too few for a structure header", e.What, e.End-e.Offset, e.Offset)
	case e.Offset+e.Length > e.End:
		return fmt.Sprintf("%s type %d at offset %d, length %d, runs past the end at %d", e.What, e.Type, e.Offset, e.Length, e.End)
	}
	return fmt.Sprintf("%s type %d at offset %d has length %d, shorter than its own header", e.What, e.Type, e.Offset, e.Length)
}

// walkSubtables splits b[off:] into structures. It stops at the first
// structure whose length is shorter than the type/length fields (a zero
// length would loop forever) or runs past the end, returning the
// structures before it and a *WalkError; notRead counts the bytes left
// when MaxSubtables was reached.
func walkSubtables(what string, b []byte, off int, l subtableLayout) (out []Subtable, notRead int, err error) {
	r := le(b)
	for off < len(b) {
		if len(out) == MaxSubtables {
			return out, len(b) - off, nil
		}
		if off+l.header() > len(b) {
			return out, 0, &WalkError{What: what, Offset: off, Length: -1, End: len(b)}
		}
		typ, n := l.field(r, off+l.typeOff, l.typeSize), int(l.field(r, off+l.lenOff, l.lenSize))
		if n < l.header() || off+n > len(b) {
			return out, 0, &WalkError{What: what, Offset: off, Type: typ, Length: n, End: len(b)}
		}
		out = append(out, Subtable{Type: typ, Length: n, Offset: off, Raw: b[off : off+n]})
		off += n
	}
	return out, 0, nil
}

// cString returns b up to its first NUL, and whether a NUL was found.
func cString(b []byte) (string, bool) {
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), true
		}
	}
	return string(b), false
}

// StructureLayout says where a table's list of typed, length-prefixed
// structures starts and where each structure's type and length fields
// are (sizes 1, 2 or 4 bytes): what a table whose structures fwcheck only
// walks needs described.
type StructureLayout struct {
	Start             int
	TypeOff, TypeSize int
	LenOff, LenSize   int
}

// WalkStructures splits t's bytes from l.Start into structures, as the
// parsers of the tables with typed structure lists do (see walkSubtables:
// at most MaxSubtables, the structures before a fault kept with a
// *WalkError, notRead counting the bytes after the last one read).
func WalkStructures(what string, t *Table, l StructureLayout) (out []Subtable, notRead int, err error) {
	body, err := sdtBody(t, t.Signature, max(HeaderSize, l.Start))
	if err != nil {
		return nil, 0, err
	}
	return walkSubtables(what, body, l.Start, subtableLayout{typeOff: l.TypeOff, typeSize: l.TypeSize, lenOff: l.LenOff, lenSize: l.LenSize})
}
