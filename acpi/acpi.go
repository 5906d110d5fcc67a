// Package acpi reads ACPI tables from the places firmware data is found
// (sysfs, acpidump text, directories of raw tables, physical memory through
// /dev/mem, recorded snapshots) and parses them into typed values: the RSDP,
// RSDT/XSDT, FADT, FACS, MADT, HPET and MCFG. Every other table keeps its
// common header and raw bytes. It knows nothing of checks or reports, and it
// never fabricates a table the source did not hold.
package acpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// HeaderSize is the length of the common System Description Table header.
const HeaderSize = 36

// ErrTruncated is wrapped by parse errors caused by input shorter than the
// structure being decoded.
var ErrTruncated = errors.New("truncated")

// Header is the common header every System Description Table starts with
// (ACPI 6.5 §5.2.6). The RSDP and FACS have no such header.
type Header struct {
	Signature       string
	Length          uint32
	Revision        uint8
	Checksum        uint8
	OEMID           string
	OEMTableID      string
	OEMRevision     uint32
	CreatorID       string
	CreatorRevision uint32
}

// Table is one ACPI table as it was found: its raw bytes, where it came
// from, and its parsed common header.
type Table struct {
	// Signature is the four-character table signature ("FACP", "SSDT"), or
	// "RSD PTR" for the RSDP.
	Signature string
	// Instance numbers tables that share a signature, from 1, in the
	// order they were found (SSDT1, SSDT2, …). It is 0 for unique tables.
	Instance int
	// Address is the physical address the table was found at, 0 if unknown.
	Address uint64
	// Raw holds the table's bytes as found (not truncated to Header.Length).
	Raw []byte
	// Header is the parsed common header; zero for the RSDP and FACS, and
	// for tables shorter than HeaderSize.
	Header Header
	// Origin says where the table came from (a file name, "acpidump",
	// "mem").
	Origin string
}

// Name is the table's signature with its instance number, as sysfs names it
// ("SSDT2", "FACP"); the RSDP is named "RSDP".
func (t *Table) Name() string {
	sig := t.Signature
	if sig == SigRSDP {
		sig = "RSDP"
	}
	if t.Instance > 0 {
		return fmt.Sprintf("%s%d", sig, t.Instance)
	}
	return sig
}

// HasHeader reports whether the table carries the common SDT header.
func (t *Table) HasHeader() bool {
	return t.Signature != SigRSDP && t.Signature != SigFACS
}

// PlausibleHeader reports whether the bytes look like an ACPI table: an
// RSDP, or a four-character signature of capitals, digits or '_' with a
// length field that covers at least a header (the FACS: its own 64 bytes).
// It tells a directory of raw tables from a directory of something else.
func (t *Table) PlausibleHeader() bool {
	if len(t.Raw) >= 8 && string(t.Raw[:8]) == "RSD PTR " {
		return true
	}
	if len(t.Raw) < 8 || !isSig(t.Raw[:4]) || t.Raw[0] == ' ' {
		return false
	}
	n := binary.LittleEndian.Uint32(t.Raw[4:8])
	if string(t.Raw[:4]) == SigFACS {
		return n >= 64
	}
	return n >= HeaderSize && len(t.Raw) >= HeaderSize
}

// Data returns the table's bytes cut to the length its header (or, for the
// RSDP and FACS, its length field) declares, or all of Raw when that length
// is larger than Raw or unknown.
func (t *Table) Data() []byte {
	n := t.DeclaredLength()
	if n > 0 && int(n) <= len(t.Raw) {
		return t.Raw[:n]
	}
	return t.Raw
}

// DeclaredLength is the length the table says it has: Header.Length for SDTs,
// the length field for the FACS and a v2 RSDP, 20 for a v1 RSDP; 0 if the
// table is too short to say.
func (t *Table) DeclaredLength() uint32 {
	switch t.Signature {
	case SigRSDP:
		if len(t.Raw) < RSDPv1Size {
			return 0
		}
		if t.Raw[15] >= 2 && len(t.Raw) >= 24 {
			return binary.LittleEndian.Uint32(t.Raw[20:24])
		}
		return RSDPv1Size
	case SigFACS:
		if len(t.Raw) < 8 {
			return 0
		}
		return binary.LittleEndian.Uint32(t.Raw[4:8])
	}
	if len(t.Raw) < HeaderSize {
		return 0
	}
	return t.Header.Length
}

// Table signatures with special handling.
const (
	SigRSDP = "RSD PTR"
	SigFACS = "FACS"
	SigFADT = "FACP"
	SigDSDT = "DSDT"
	SigSSDT = "SSDT"
	SigXSDT = "XSDT"
	SigRSDT = "RSDT"
	SigMADT = "APIC"
	SigHPET = "HPET"
	SigMCFG = "MCFG"
)

// ParseHeader decodes the common SDT header from the start of b.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("table header: %d bytes, need %d: %w", len(b), HeaderSize, ErrTruncated)
	}
	return Header{
		Signature:       string(b[0:4]),
		Length:          binary.LittleEndian.Uint32(b[4:8]),
		Revision:        b[8],
		Checksum:        b[9],
		OEMID:           string(b[10:16]),
		OEMTableID:      string(b[16:24]),
		OEMRevision:     binary.LittleEndian.Uint32(b[24:28]),
		CreatorID:       string(b[28:32]),
		CreatorRevision: binary.LittleEndian.Uint32(b[32:36]),
	}, nil
}

// Sum returns the 8-bit sum of b; a table with a correct checksum sums to 0.
func Sum(b []byte) uint8 {
	var s uint8
	for _, c := range b {
		s += c
	}
	return s
}

// Limits on what a table set may hold, so that hostile input (a dump of
// 200,000 tiny tables, a gzip bomb of hex rows) is an error rather than
// minutes and gigabytes. Real machines have under 100 tables (large servers
// a few hundred SSDTs) and a few megabytes of table data.
const (
	// MaxTables bounds the tables a loader reads.
	MaxTables = 4096
	// MaxTableData bounds the table bytes read from acpidump text.
	MaxTableData = 32 << 20
)

// Tables is the set of ACPI tables of one machine.
type Tables struct {
	// List holds every table in the order found, the RSDP/XSDT/RSDT included
	// when the source had them.
	List []*Table
	// Source describes where the set was loaded from.
	Source string
	// Warnings lists things the loader skipped or tolerated (stray lines
	// in acpidump text, unreadable pointers in memory).
	Warnings []string
	// RootsMissing says, by signature, for each root table (RSDP, XSDT, RSDT) the live
	// loader could not read, why: checks report those parts as not checked.
	RootsMissing map[string]string
	// Probes are what lay at each XSDT and RSDT entry's address when the
	// source could look there (a live machine's /dev/mem, or a snapshot
	// that recorded it): see ProbeEntries.
	Probes []EntryProbe
	// RootsRemedy, where the loader knows better than the reason's words
	// (a snapshot, a root user), says by signature what would let a
	// reader have the root table.
	RootsRemedy map[string]string
	// SkippedLines and TableLines count, for acpidump text, the lines that
	// were not table data and those that were.
	SkippedLines, TableLines int

	firstOf map[string]*Table // the first table of each signature
	count   map[string]int    // tables per signature
}

// Get returns every table with the signature sig, in order.
func (ts *Tables) Get(sig string) []*Table {
	var out []*Table
	for _, t := range ts.List {
		if t.Signature == sig {
			out = append(out, t)
		}
	}
	return out
}

// First returns the first table with signature sig, or nil.
func (ts *Tables) First(sig string) *Table {
	for _, t := range ts.List {
		if t.Signature == sig {
			return t
		}
	}
	return nil
}

// Add appends t, parsing its header and numbering instances of repeated
// signatures.
func (ts *Tables) Add(t *Table) {
	if t.HasHeader() && len(t.Raw) >= HeaderSize {
		t.Header, _ = ParseHeader(t.Raw)
	}
	if ts.count == nil {
		ts.count, ts.firstOf = map[string]int{}, map[string]*Table{}
		for _, o := range ts.List { // a set built as a literal
			ts.count[o.Signature]++
			if ts.firstOf[o.Signature] == nil {
				ts.firstOf[o.Signature] = o
			}
		}
	}
	if n := ts.count[t.Signature]; n > 0 {
		if f := ts.firstOf[t.Signature]; f.Instance == 0 {
			f.Instance = 1
		}
		t.Instance = n + 1
	} else {
		ts.firstOf[t.Signature] = t
	}
	ts.count[t.Signature]++
	ts.List = append(ts.List, t)
}

func (ts *Tables) add(t *Table) { ts.Add(t) }

func (ts *Tables) warnf(format string, args ...any) {
	ts.Warnings = append(ts.Warnings, fmt.Sprintf(format, args...))
}

// MergeRoots adds the RSDP, XSDT and RSDT of other that ts lacks. The live
// loader uses it to join the root tables read from /dev/mem (or recorded in
// a snapshot) with the tables sysfs exposes, which never include them.
func (ts *Tables) MergeRoots(other *Tables) {
	if other == nil {
		return
	}
	for _, sig := range []string{SigRSDP, SigXSDT, SigRSDT} {
		if ts.First(sig) != nil {
			continue
		}
		for _, t := range other.Get(sig) {
			c := *t
			c.Instance = 0
			ts.Add(&c)
		}
	}
}

// String summarises the set: its source and table names.
func (ts *Tables) String() string {
	names := make([]string, len(ts.List))
	for i, t := range ts.List {
		names[i] = t.Name()
	}
	return fmt.Sprintf("%s: %s", ts.Source, strings.Join(names, " "))
}

// le is a bounds-checked little-endian reader over a table's bytes.
type le []byte

func (b le) u8(off int) uint8 {
	if off < 0 || off >= len(b) {
		return 0
	}
	return b[off]
}

func (b le) u16(off int) uint16 {
	if off < 0 || off+2 > len(b) {
		return 0
	}
	return binary.LittleEndian.Uint16(b[off:])
}

func (b le) u32(off int) uint32 {
	if off < 0 || off+4 > len(b) {
		return 0
	}
	return binary.LittleEndian.Uint32(b[off:])
}

func (b le) u64(off int) uint64 {
	if off < 0 || off+8 > len(b) {
		return 0
	}
	return binary.LittleEndian.Uint64(b[off:])
}

// sdtBody checks t has signature sig and a header and returns its bytes cut
// to the declared length.
func sdtBody(t *Table, sig string, min int) ([]byte, error) {
	if t == nil {
		return nil, fmt.Errorf("%s: table absent", sig)
	}
	if len(t.Raw) < HeaderSize {
		return nil, fmt.Errorf("%s: %d bytes, shorter than the %d-byte header: %w", sig, len(t.Raw), HeaderSize, ErrTruncated)
	}
	if string(t.Raw[:4]) != sig {
		return nil, fmt.Errorf("%s: signature is %q", sig, t.Raw[:4])
	}
	n := int(t.Header.Length)
	if t.Header.Length == 0 {
		n = int(binary.LittleEndian.Uint32(t.Raw[4:8]))
	}
	if n < HeaderSize {
		return nil, fmt.Errorf("%s: header length %d is shorter than the header", sig, n)
	}
	if n > len(t.Raw) {
		return nil, fmt.Errorf("%s: header length %d but only %d bytes present: %w", sig, n, len(t.Raw), ErrTruncated)
	}
	if n < min {
		return nil, fmt.Errorf("%s: length %d, need at least %d: %w", sig, n, min, ErrTruncated)
	}
	return t.Raw[:n], nil
}

// RootAbsence explains why the set holds no root table sig (SigRSDP,
// SigXSDT, SigRSDT): the reason, and what would let a reader have it.
func (ts *Tables) RootAbsence(sig string) (reason, remedy string) {
	name := sig
	if sig == SigRSDP {
		name = "RSDP"
	}
	if m, ok := ts.RootsMissing[sig]; ok {
		if r, ok := ts.RootsRemedy[sig]; ok {
			return m, r
		}
		switch {
		case strings.Contains(m, "iomem=relaxed"):
			remedy = "boot with iomem=relaxed"
		case strings.Contains(m, "no such file"):
			remedy = "this kernel has no /dev/mem: run on a kernel built with CONFIG_DEVMEM, or give an acpidump that includes it"
		default:
			remedy = "run as root"
		}
		return m, remedy
	}
	return name + " is not in this table set (sysfs never exposes it, and acpidump text may leave it out)",
		"capture with 'fwcheck snapshot' as root, or give an acpidump that includes it"
}
