// Package smbios validates raw SMBIOS data as Linux exports it
// (/sys/firmware/dmi/tables/smbios_entry_point and DMI): the entry point
// (anchor, length, checksums, version, the table length it states) and the
// structure table (header lengths, string sets, handles, the End-of-Table
// structure), tolerating and describing every defect instead of stopping
// at the first.
//
// Walk is fwcheck's one walk of an SMBIOS structure table: the smbios
// check judges its structures, the few fields fwcheck decodes (the system
// UUID, memory device sizes) are read from them, and the snapshot's
// redaction overwrites strings in place through Structure.StringBytes.
// github.com/u-root/u-root's pkg/smbios was weighed and is not used: it
// stops at the first malformed structure and treats a bad checksum as a
// parse error, so it cannot say what is wrong with a broken table (what a
// firmware test needs), and it decodes structures into values, where
// redaction has to change a table's bytes and nothing else; a second walk
// for the two fields it would decode was the duplication this replaces.
package smbios

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Entry is a decoded entry point, 32-bit ("_SM_") or 64-bit ("_SM3_").
type Entry struct {
	Bits                int // 32 or 64
	Major, Minor, DocRv uint8
	Length              int // the entry point's length field
	// ChecksumOK is the entry point checksum; IntChecksumOK the 32-bit
	// form's intermediate ("_DMI_") checksum, true for 64-bit.
	ChecksumOK, IntChecksumOK bool
	IntAnchorOK               bool
	// TableLength is the structure table length (32-bit) or its maximum
	// size (64-bit); TableAddr its physical address; Count the number of
	// structures the 32-bit form states.
	TableLength uint32
	TableAddr   uint64
	Count       uint16
}

// Version returns major*100+minor (2.8 → 208, 3.4 → 304).
func (e *Entry) Version() int { return int(e.Major)*100 + int(e.Minor) }

func sum(b []byte) byte {
	var s byte
	for _, x := range b {
		s += x
	}
	return s
}

// ParseEntry decodes an entry point. It fails only when the data is not
// an entry point at all (no anchor, or too short to hold the fields);
// checksum and length defects are reported in the Entry.
func ParseEntry(b []byte) (*Entry, error) {
	switch {
	case len(b) >= 0x18 && bytes.HasPrefix(b, []byte("_SM3_")):
		e := &Entry{Bits: 64, Length: int(b[6]), Major: b[7], Minor: b[8], DocRv: b[9],
			IntChecksumOK: true, IntAnchorOK: true,
			TableLength: binary.LittleEndian.Uint32(b[0xC:]), TableAddr: binary.LittleEndian.Uint64(b[0x10:])}
		n := e.Length
		if n > len(b) || n < 0x18 {
			n = min(len(b), 0x18)
		}
		e.ChecksumOK = sum(b[:n]) == 0
		return e, nil
	case len(b) >= 0x1F && bytes.HasPrefix(b, []byte("_SM_")):
		e := &Entry{Bits: 32, Length: int(b[5]), Major: b[6], Minor: b[7],
			TableLength: uint32(binary.LittleEndian.Uint16(b[0x16:])), TableAddr: uint64(binary.LittleEndian.Uint32(b[0x18:])),
			Count: binary.LittleEndian.Uint16(b[0x1C:])}
		n := e.Length
		if n > len(b) || n < 0x1E {
			n = min(len(b), 0x1F)
		}
		e.ChecksumOK = sum(b[:n]) == 0
		e.IntAnchorOK = bytes.Equal(b[0x10:0x15], []byte("_DMI_"))
		e.IntChecksumOK = sum(b[0x10:0x1F]) == 0
		return e, nil
	}
	return nil, fmt.Errorf("not an SMBIOS entry point (no _SM_ or _SM3_ anchor, or %d bytes is too short)", len(b))
}

// Structure is one structure of the table.
type Structure struct {
	Type   uint8
	Length uint8 // the formatted area's length from the header
	Handle uint16
	Offset int      // of the structure in the table
	Data   []byte   // the formatted area (header included)
	Raw    []byte   // the whole structure, strings and terminator included
	Str    []string // the string set, in order (index 1 is Str[0])
}

// String returns the structure's string number i (1-based) and whether it
// exists; 0 means "no string" and gives "", true.
func (s *Structure) String(i byte) (string, bool) {
	if i == 0 {
		return "", true
	}
	if int(i) > len(s.Str) {
		return "", false
	}
	return s.Str[i-1], true
}

// StringBytes returns the bytes of the structure's string number i
// (1-based) inside Raw, sharing its memory, or nil when there is no such
// string.
func (s *Structure) StringBytes(i byte) []byte {
	if i == 0 || int(i) > len(s.Str) {
		return nil
	}
	p := int(s.Length)
	for _, str := range s.Str[:i-1] {
		p += len(str) + 1
	}
	return s.Raw[p : p+len(s.Str[i-1])]
}

// UUID is a system UUID as SMBIOS stores it (DSP0134 §7.2.1): the first
// three fields little-endian, the rest in network order.
type UUID [16]byte

// String formats u as 8-4-4-4-12 hex digits, the first three fields
// byte-swapped as SMBIOS 2.6 and later store them (as dmidecode does for
// those versions).
func (u UUID) String() string {
	return fmt.Sprintf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15])
}

// SystemUUID returns the UUID of the table's first System Information
// (type 1) structure, false when there is none or it is too short to hold
// one (SMBIOS 2.0's 8-byte form).
func (t *Table) SystemUUID() (UUID, bool) {
	var u UUID
	sys := t.Of(1)
	if len(sys) == 0 || sys[0].Length < 0x19 {
		return u, false
	}
	copy(u[:], sys[0].Data[0x08:0x18])
	return u, true
}

// MemoryDeviceSize returns the size a Memory Device (type 17) structure
// states, in bytes (DSP0134 §7.18: Size at 0x0C in MiB, or KiB with bit
// 15 set; 0x7FFF defers to Extended Size at 0x1C, in MiB). 0 means no
// device is installed; ok is false when the structure is no memory
// device, too short for its size field, or says the size is unknown
// (0xFFFF, or 0x7FFF without Extended Size).
func (s *Structure) MemoryDeviceSize() (size uint64, ok bool) {
	if s.Type != 17 || s.Length < 0x0E {
		return 0, false
	}
	v := binary.LittleEndian.Uint16(s.Data[0x0C:])
	switch {
	case v == 0xFFFF:
		return 0, false
	case v == 0x7FFF:
		if s.Length < 0x20 {
			return 0, false
		}
		return uint64(binary.LittleEndian.Uint32(s.Data[0x1C:])&0x7FFFFFFF) << 20, true
	case v&0x8000 != 0:
		return uint64(v&0x7FFF) << 10, true
	}
	return uint64(v) << 20, true
}

// Problem is a defect found while walking the table.
type Problem struct {
	Kind   string // "length", "strings", "handle", "end"
	Offset int
	Msg    string
}

// Table is a walked structure table.
type Table struct {
	Structures []Structure
	// EndOfTable is set when a type-127 structure ended the walk; Trailing
	// counts the bytes after it.
	EndOfTable bool
	Trailing   int
	Problems   []Problem
}

// maxStructures bounds the walk.
const maxStructures = 1 << 16

// Walk splits the structure table into structures. A structure whose
// header runs past the end, or whose string set has no double-NUL
// terminator, ends the walk with a problem; a header length below 4 too.
func Walk(b []byte) *Table {
	t := &Table{}
	handles := map[uint16]int{}
	off := 0
	for off < len(b) {
		if len(t.Structures) >= maxStructures {
			t.Problems = append(t.Problems, Problem{"length", off, fmt.Sprintf("more than %d structures", maxStructures)})
			break
		}
		if len(b)-off < 4 {
			t.Problems = append(t.Problems, Problem{"length", off, fmt.Sprintf("%d stray bytes at the end of the table, too short for a structure header", len(b)-off)})
			break
		}
		typ, ln, h := b[off], int(b[off+1]), binary.LittleEndian.Uint16(b[off+2:])
		if ln < 4 {
			t.Problems = append(t.Problems, Problem{"length", off, fmt.Sprintf("type %d structure (handle 0x%04x) has length %d, less than its 4-byte header", typ, h, ln)})
			break
		}
		if off+ln > len(b) {
			t.Problems = append(t.Problems, Problem{"length", off, fmt.Sprintf("type %d structure (handle 0x%04x) of length %d runs %d bytes past the end of the table", typ, h, ln, off+ln-len(b))})
			break
		}
		// The string set: NUL-terminated strings, ended by an extra NUL
		// (a structure without strings has two NULs).
		end := -1
		var strs []string
		p := off + ln
		if p+1 < len(b) && b[p] == 0 && b[p+1] == 0 {
			end = p + 2
		} else {
			for p < len(b) {
				z := bytes.IndexByte(b[p:], 0)
				if z < 0 {
					break
				}
				strs = append(strs, string(b[p:p+z]))
				p += z + 1
				if p < len(b) && b[p] == 0 {
					end = p + 1
					break
				}
			}
		}
		if end < 0 {
			t.Problems = append(t.Problems, Problem{"strings", off, fmt.Sprintf("type %d structure (handle 0x%04x): its string set has no double-NUL terminator before the end of the table", typ, h)})
			break
		}
		if prev, dup := handles[h]; dup {
			t.Problems = append(t.Problems, Problem{"handle", off, fmt.Sprintf("handle 0x%04x is used by the type %d structure at offset 0x%x and the type %d structure at offset 0x%x", h, b[prev], prev, typ, off)})
		} else {
			handles[h] = off
		}
		t.Structures = append(t.Structures, Structure{Type: typ, Length: uint8(ln), Handle: h, Offset: off,
			Data: b[off : off+ln], Raw: b[off:end], Str: strs})
		off = end
		if typ == 127 {
			t.EndOfTable = true
			t.Trailing = len(b) - off
			break
		}
	}
	return t
}

// Of returns the structures of type typ.
func (t *Table) Of(typ uint8) []*Structure {
	var out []*Structure
	for i := range t.Structures {
		if t.Structures[i].Type == typ {
			out = append(out, &t.Structures[i])
		}
	}
	return out
}

// MinLength is the smallest formatted-area length the SMBIOS
// specification (DSP0134) gives each structure type in its first version
// that defines it; a shorter structure is malformed whatever its version.
var MinLength = map[uint8]int{
	0: 0x12, 1: 0x08, 2: 0x08, 3: 0x09, 4: 0x1A, 7: 0x0F, 9: 0x0C, 16: 0x0F, 17: 0x15, 19: 0x0F, 32: 0x0B, 127: 0x04,
}
