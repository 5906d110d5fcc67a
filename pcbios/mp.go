package pcbios

import (
	"bytes"
	"fmt"
)

// MPFloating is the MP Floating Pointer Structure (Intel MultiProcessor
// Specification 1.4 §4.1): 16 bytes, "_MP_", the configuration table's
// physical address, the length in paragraphs (1), the specification
// revision (1 for 1.1, 4 for 1.4), a checksum and five feature bytes.
type MPFloating struct {
	Addr       uint64
	ConfigAddr uint32
	Paragraphs uint8
	Revision   uint8
	ChecksumOK bool
	// Features[0] non-zero names a default configuration (MP spec §5) and
	// means there is no configuration table; Features[1] bit 7 is IMCRP.
	Features [5]byte
}

// MPFloatingSize is the floating pointer's length.
const MPFloatingSize = 16

// ParseMPFloating decodes the floating pointer at b.
func ParseMPFloating(b []byte, addr uint64) (*MPFloating, error) {
	if len(b) < MPFloatingSize || !bytes.HasPrefix(b, []byte("_MP_")) {
		return nil, fmt.Errorf("not an MP floating pointer")
	}
	s := &MPFloating{Addr: addr, ConfigAddr: le32(b, 4), Paragraphs: b[8], Revision: b[9]}
	n := int(s.Paragraphs) * 16
	if n == 0 || n > len(b) {
		n = MPFloatingSize
	}
	s.ChecksumOK = Sum(b[:n]) == 0
	copy(s.Features[:], b[11:16])
	return s, nil
}

// DefaultConfig reports whether the pointer names one of the MP
// specification's default configurations instead of a table.
func (f *MPFloating) DefaultConfig() bool { return f.Features[0] != 0 }

// MP configuration table entry types (MP spec §4.3, §5.x extended).
const (
	MPProcessorEntry = 0
	MPBusEntry       = 1
	MPIOAPICEntry    = 2
	MPIOIntEntry     = 3
	MPLocalIntEntry  = 4
)

// MPConfigHeaderSize is the configuration table header's length.
const MPConfigHeaderSize = 44

// MPConfig is the MP Configuration Table (MP spec §4.2–4.4).
type MPConfig struct {
	Length      uint16 // base table length, header included
	Revision    uint8
	ChecksumOK  bool
	OEM         string
	Product     string
	OEMTable    uint32
	OEMTableLen uint16
	Count       uint16 // the base entry count the header states
	LAPICAddr   uint32
	ExtLength   uint16
	// ExtChecksumOK: the extended entries' bytes plus the header's
	// extended checksum sum to zero (true when there are none).
	ExtChecksumOK bool

	Processors []MPProcessor
	Buses      []MPBus
	IOAPICs    []MPIOAPIC
	IOInts     []MPInterrupt
	LocalInts  []MPInterrupt
	// Extended are the extended entries' types, in order.
	Extended []uint8
	// Entries counts the base entries decoded.
	Entries int
	// Problems are structural defects: a truncated table, an unknown
	// entry type (which ends the walk: its length is unknown), an entry
	// count that disagrees with the entries.
	Problems []string
}

// MP processor entry CPU flags.
const (
	MPCPUEnabled = 1 << 0
	MPCPUBSP     = 1 << 1
)

// MPProcessor is a processor entry (type 0, 20 bytes).
type MPProcessor struct {
	LAPICID, LAPICVersion, Flags uint8
	Signature, Features          uint32
}

// MPBus is a bus entry (type 1, 8 bytes).
type MPBus struct {
	ID   uint8
	Type string // "ISA   ", trimmed: "ISA", "PCI", "EISA"
}

// MPIOAPIC is an I/O APIC entry (type 2, 8 bytes); Flags bit 0 is EN.
type MPIOAPIC struct {
	ID, Version, Flags uint8
	Address            uint32
}

// MPInterrupt is an I/O or local interrupt assignment entry (types 3 and
// 4, 8 bytes). Flags bits 0–1 are the polarity, bits 2–3 the trigger mode
// (0 conforms to the bus, 1 edge, 3 level).
type MPInterrupt struct {
	IntType        uint8
	Flags          uint16
	SrcBus, SrcIRQ uint8
	DstID, DstPin  uint8 // I/O APIC ID (0xFF: all) and INTIN, or LAPIC ID and LINTIN
}

// ParseMPConfig decodes the configuration table at b (its base and
// extended tables, as read from the floating pointer's address).
func ParseMPConfig(b []byte) (*MPConfig, error) {
	if len(b) < MPConfigHeaderSize || !bytes.HasPrefix(b, []byte("PCMP")) {
		return nil, fmt.Errorf("no MP configuration table (no \"PCMP\" signature)")
	}
	c := &MPConfig{Length: le16(b, 4), Revision: b[6], OEM: cstr(b[8:16]), Product: cstr(b[16:28]),
		OEMTable: le32(b, 28), OEMTableLen: le16(b, 32), Count: le16(b, 34), LAPICAddr: le32(b, 36),
		ExtLength: le16(b, 40)}
	base := int(c.Length)
	switch {
	case base < MPConfigHeaderSize:
		c.Problems = append(c.Problems, fmt.Sprintf("base table length %d is shorter than the %d-byte header", base, MPConfigHeaderSize))
		base = MPConfigHeaderSize
	case base > len(b):
		c.Problems = append(c.Problems, fmt.Sprintf("base table length %d runs past the %d bytes read", base, len(b)))
		base = len(b)
	}
	c.ChecksumOK = Sum(b[:base]) == 0
	c.walkBase(b[MPConfigHeaderSize:base])
	if int(c.Count) != c.Entries {
		c.Problems = append(c.Problems, fmt.Sprintf("the header states %d entries, the table holds %d", c.Count, c.Entries))
	}
	ext := b[base:]
	if int(c.ExtLength) > len(ext) {
		c.Problems = append(c.Problems, fmt.Sprintf("extended table length %d runs past the %d bytes read", c.ExtLength, len(ext)))
	} else {
		ext = ext[:c.ExtLength]
	}
	c.ExtChecksumOK = Sum(ext)+b[42] == 0
	c.walkExtended(ext)
	return c, nil
}

var mpEntryLen = map[uint8]int{MPProcessorEntry: 20, MPBusEntry: 8, MPIOAPICEntry: 8, MPIOIntEntry: 8, MPLocalIntEntry: 8}

func (c *MPConfig) walkBase(b []byte) {
	for off := 0; off < len(b) && c.Entries < MaxEntries; {
		t := b[off]
		n, ok := mpEntryLen[t]
		if !ok {
			c.Problems = append(c.Problems, fmt.Sprintf("entry at offset %d has unknown type %d; the rest of the base table is not read", MPConfigHeaderSize+off, t))
			return
		}
		if off+n > len(b) {
			c.Problems = append(c.Problems, fmt.Sprintf("type %d entry at offset %d is cut off by the base table's end", t, MPConfigHeaderSize+off))
			return
		}
		e := b[off : off+n]
		switch t {
		case MPProcessorEntry:
			c.Processors = append(c.Processors, MPProcessor{LAPICID: e[1], LAPICVersion: e[2], Flags: e[3], Signature: le32(e, 4), Features: le32(e, 8)})
		case MPBusEntry:
			c.Buses = append(c.Buses, MPBus{ID: e[1], Type: cstr(e[2:8])})
		case MPIOAPICEntry:
			c.IOAPICs = append(c.IOAPICs, MPIOAPIC{ID: e[1], Version: e[2], Flags: e[3], Address: le32(e, 4)})
		case MPIOIntEntry, MPLocalIntEntry:
			i := MPInterrupt{IntType: e[1], Flags: le16(e, 2), SrcBus: e[4], SrcIRQ: e[5], DstID: e[6], DstPin: e[7]}
			if t == MPIOIntEntry {
				c.IOInts = append(c.IOInts, i)
			} else {
				c.LocalInts = append(c.LocalInts, i)
			}
		}
		c.Entries++
		off += n
	}
}

func (c *MPConfig) walkExtended(b []byte) {
	for off := 0; off+2 <= len(b) && len(c.Extended) < MaxEntries; {
		n := int(b[off+1])
		if n < 2 || off+n > len(b) {
			c.Problems = append(c.Problems, fmt.Sprintf("extended entry at extended offset %d has length %d", off, n))
			return
		}
		c.Extended = append(c.Extended, b[off])
		off += n
	}
}

// Bus returns the bus entry with id, or nil.
func (c *MPConfig) Bus(id uint8) *MPBus {
	for i := range c.Buses {
		if c.Buses[i].ID == id {
			return &c.Buses[i]
		}
	}
	return nil
}

// ConfigLength returns the table's full length (base plus extended) from
// its header, for a reader that first fetched the header; 0 when b is not
// a configuration table header.
func ConfigLength(b []byte) int {
	if len(b) < MPConfigHeaderSize || !bytes.HasPrefix(b, []byte("PCMP")) {
		return 0
	}
	return int(le16(b, 4)) + int(le16(b, 40))
}
