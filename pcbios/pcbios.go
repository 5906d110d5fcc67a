// Package pcbios parses the tables a legacy PC BIOS (or a UEFI firmware's
// compatibility support module) leaves in low memory for operating systems
// that predate ACPI: the Intel MultiProcessor table (the "_MP_" floating
// pointer and the "PCMP" configuration table), the PCI IRQ routing table
// ("$PIR"), the BIOS32 service directory ("_32_"), the Plug and Play BIOS
// installation structure ("$PnP") and the legacy DMI entry point
// ("_DMI_"). SMBIOS "_SM_" and "_SM3_" entry points are decoded by package
// smbios; Scan only finds them.
//
// Every parser works on bytes already read (the BIOS area 0xE0000–0xFFFFF,
// the EBDA, the MP configuration table) and reports defects as values or
// Problems rather than stopping: a firmware test must say what is wrong
// with a broken table. Loops are bounded by the data's length and by the
// Max* limits. The layouts are short and fixed, so they are decoded with
// encoding/binary here; no maintained Go library parses these tables
// (u-root's pkg/smbios handles only SMBIOS, and treats a bad checksum as
// an error).
package pcbios

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// The physical addresses of the areas the tables are searched in.
const (
	// AreaBase is the start of the BIOS area that Scan expects; AreaSize
	// its length (0xE0000–0xFFFFF).
	AreaBase = 0xE0000
	AreaSize = 0x20000
	// FSegment is where the MP floating pointer, $PIR, $PnP and SMBIOS
	// entry points live (0xF0000–0xFFFFF); BIOS32 may also be in the
	// E segment.
	FSegment = 0xF0000
	// BaseMemoryEnd is the end of conventional memory (640 KiB), the
	// EBDA's upper bound.
	BaseMemoryEnd = 0xA0000
	// EBDAMin is the lowest address an EBDA is expected at (512 KiB).
	EBDAMin = 0x80000
)

// Bounds on what a parse keeps from hostile data.
const (
	// MaxFound bounds the structures of one kind Scan records.
	MaxFound = 16
	// MaxEntries bounds the MP configuration and $PIR entries decoded.
	MaxEntries = 4096
	// MaxMPTable bounds the MP configuration table read: the base table's
	// 16-bit length plus the extended table's.
	MaxMPTable = 2 * 0x10000
)

// Sum is the byte sum modulo 256; a structure's checksum holds when the sum
// of its bytes is zero.
func Sum(b []byte) byte {
	var s byte
	for _, x := range b {
		s += x
	}
	return s
}

// Found is one structure's anchor found by Scan.
type Found struct {
	Addr uint64 // physical address
	Data []byte // the bytes from the anchor to the end of the area
}

// Area is what Scan found in the BIOS area.
type Area struct {
	MP     []*MPFloating
	PIR    []*PIR
	BIOS32 []*BIOS32
	PnP    []*PnP
	// SMBIOS are "_SM_" and "_SM3_" anchors (decode with smbios.ParseEntry);
	// DMI are legacy "_DMI_" entry points that are not the intermediate
	// anchor of an "_SM_" entry point.
	SMBIOS []Found
	DMI    []*DMI
}

// Empty reports whether the area holds none of the structures.
func (a *Area) Empty() bool {
	return len(a.MP)+len(a.PIR)+len(a.BIOS32)+len(a.PnP)+len(a.SMBIOS)+len(a.DMI) == 0
}

// Scan searches b, physical memory from base, for the structures' anchors
// on 16-byte boundaries. Anchors in the E segment (0xE0000–0xEFFFF) are
// recorded only for BIOS32: the others belong in the F segment (or, the MP
// floating pointer, in the EBDA) by their specifications.
func Scan(b []byte, base uint64) *Area {
	a := &Area{}
	start := 0
	if r := base % 16; r != 0 {
		start = int(16 - r)
	}
	for off := start; off+4 <= len(b); off += 16 {
		addr := base + uint64(off)
		rest := b[off:]
		eseg := addr >= AreaBase && addr < FSegment
		switch {
		case bytes.HasPrefix(rest, []byte("_32_")):
			if s, err := ParseBIOS32(rest, addr); err == nil && len(a.BIOS32) < MaxFound {
				a.BIOS32 = append(a.BIOS32, s)
			}
		case eseg:
		case bytes.HasPrefix(rest, []byte("_MP_")):
			if s, err := ParseMPFloating(rest, addr); err == nil && len(a.MP) < MaxFound {
				a.MP = append(a.MP, s)
			}
		case bytes.HasPrefix(rest, []byte("$PIR")):
			if s, err := ParsePIR(rest, addr); err == nil && len(a.PIR) < MaxFound {
				a.PIR = append(a.PIR, s)
			}
		case bytes.HasPrefix(rest, []byte("$PnP")):
			if s, err := ParsePnP(rest, addr); err == nil && len(a.PnP) < MaxFound {
				a.PnP = append(a.PnP, s)
			}
		case bytes.HasPrefix(rest, []byte("_SM_")), bytes.HasPrefix(rest, []byte("_SM3_")):
			if len(a.SMBIOS) < MaxFound {
				a.SMBIOS = append(a.SMBIOS, Found{Addr: addr, Data: rest})
			}
		case bytes.HasPrefix(rest, []byte("_DMI_")):
			// The intermediate anchor of an "_SM_" entry point 16 bytes
			// before is part of that entry point.
			if off >= 16 && bytes.HasPrefix(b[off-16:], []byte("_SM_")) {
				continue
			}
			if s, err := ParseDMI(rest, addr); err == nil && len(a.DMI) < MaxFound {
				a.DMI = append(a.DMI, s)
			}
		}
	}
	return a
}

// FindMP returns the MP floating pointer's address by the MP
// specification's search order (§4): the first KiB of the EBDA, then the
// BIOS ROM area 0xF0000–0xFFFFF. ebda is the EBDA's bytes from ebdaAddr
// (nil if none); area is the BIOS area from AreaBase. It returns the
// structure and true when one is found.
func FindMP(ebda []byte, ebdaAddr uint64, area []byte) (*MPFloating, bool) {
	if len(ebda) > 1024 {
		ebda = ebda[:1024]
	}
	if a := Scan(ebda, ebdaAddr); len(a.MP) > 0 {
		return a.MP[0], true
	}
	if len(area) > FSegment-AreaBase {
		if a := Scan(area[FSegment-AreaBase:], FSegment); len(a.MP) > 0 {
			return a.MP[0], true
		}
	}
	return nil, false
}

func le16(b []byte, off int) uint16 { return binary.LittleEndian.Uint16(b[off:]) }
func le32(b []byte, off int) uint32 { return binary.LittleEndian.Uint32(b[off:]) }

// cstr returns b up to its first NUL, without trailing spaces, with bytes
// outside printable ASCII escaped.
func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	b = bytes.TrimRight(b, " ")
	var s []byte
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			s = fmt.Appendf(s, "\\x%02x", c)
		} else {
			s = append(s, c)
		}
	}
	return string(s)
}

// BIOS32 is the BIOS32 Service Directory header (Standard BIOS 32-bit
// Service Directory Proposal 0.4): "_32_", the 32-bit entry point, the
// revision (0), the length in 16-byte paragraphs (1) and a checksum over
// those paragraphs.
type BIOS32 struct {
	Addr       uint64
	Entry      uint32
	Revision   uint8
	Paragraphs uint8
	// ChecksumOK: the sum of Paragraphs×16 bytes (16 if that is 0 or runs
	// past the data) is zero.
	ChecksumOK bool
}

// ParseBIOS32 decodes the BIOS32 header at b (physical address addr).
func ParseBIOS32(b []byte, addr uint64) (*BIOS32, error) {
	if len(b) < 16 || !bytes.HasPrefix(b, []byte("_32_")) {
		return nil, fmt.Errorf("not a BIOS32 header")
	}
	s := &BIOS32{Addr: addr, Entry: le32(b, 4), Revision: b[8], Paragraphs: b[9]}
	n := int(s.Paragraphs) * 16
	if n == 0 || n > len(b) {
		n = 16
	}
	s.ChecksumOK = Sum(b[:n]) == 0
	return s, nil
}

// PnP is the Plug and Play BIOS installation check structure (Plug and
// Play BIOS Specification 1.0A §4.4): "$PnP", version 0x10, length 0x21,
// and a checksum over Length bytes.
type PnP struct {
	Addr       uint64
	Version    uint8
	Length     uint8
	Control    uint16
	ChecksumOK bool
	// The real-mode entry point (segment:offset) and the 16-bit protected
	// mode entry (code segment base, offset).
	RealSeg, RealOff uint16
	PMBase           uint32
	PMOff            uint16
	// OEMID is the compressed EISA ID of the system board, 0 if none.
	OEMID uint32
}

// PnPLength is the installation structure's length for version 1.0.
const PnPLength = 0x21

// ParsePnP decodes the PnP installation check structure at b.
func ParsePnP(b []byte, addr uint64) (*PnP, error) {
	if len(b) < PnPLength || !bytes.HasPrefix(b, []byte("$PnP")) {
		return nil, fmt.Errorf("not a PnP installation structure")
	}
	s := &PnP{Addr: addr, Version: b[4], Length: b[5], Control: le16(b, 6),
		RealOff: le16(b, 0x0D), RealSeg: le16(b, 0x0F), PMOff: le16(b, 0x11), PMBase: le32(b, 0x13), OEMID: le32(b, 0x17)}
	n := int(s.Length)
	if n < 9 || n > len(b) {
		n = PnPLength
	}
	s.ChecksumOK = Sum(b[:n]) == 0
	return s, nil
}

// DMI is a legacy DMI 2.0 entry point ("_DMI_", 15 bytes), as found on its
// own on a pre-SMBIOS-2.1 BIOS.
type DMI struct {
	Addr        uint64
	ChecksumOK  bool
	TableLength uint16
	TableAddr   uint32
	Count       uint16
	BCDRevision uint8
}

// ParseDMI decodes a legacy "_DMI_" entry point.
func ParseDMI(b []byte, addr uint64) (*DMI, error) {
	if len(b) < 15 || !bytes.HasPrefix(b, []byte("_DMI_")) {
		return nil, fmt.Errorf("not a DMI entry point")
	}
	return &DMI{Addr: addr, ChecksumOK: Sum(b[:15]) == 0, TableLength: le16(b, 6),
		TableAddr: le32(b, 8), Count: le16(b, 12), BCDRevision: b[14]}, nil
}
