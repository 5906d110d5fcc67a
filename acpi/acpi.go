// Package acpi reads ACPI tables from the places firmware data is found
// (sysfs, acpidump text, directories of raw tables, recorded snapshots) and
// parses them into typed values. It knows nothing of checks or reports.
package acpi

import (
	"encoding/binary"
	"fmt"
)

// HeaderSize is the length of the common System Description Table header.
const HeaderSize = 36

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
	// Signature is the four-character table signature ("FACP", "SSDT", "RSD PTR").
	Signature string
	// Instance numbers tables that share a signature, from 1, in the
	// order they were found (SSDT1, SSDT2, …). It is 0 for unique tables.
	Instance int
	// Address is the physical address the table was found at, 0 if unknown.
	Address uint64
	// Raw holds the table's bytes as found (not truncated to Header.Length).
	Raw []byte
	// Header is the parsed common header; zero for the RSDP and FACS.
	Header Header
	// Origin says where the table came from (a file name or "sysfs").
	Origin string
}

// Name is the table's signature with its instance number, as sysfs names it
// ("SSDT2", "FACP").
func (t *Table) Name() string {
	if t.Instance > 0 {
		return fmt.Sprintf("%s%d", t.Signature, t.Instance)
	}
	return t.Signature
}

// HasHeader reports whether the table carries the common SDT header.
func (t *Table) HasHeader() bool {
	return t.Signature != SigRSDP && t.Signature != SigFACS
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
		return Header{}, fmt.Errorf("table header: %d bytes, need %d", len(b), HeaderSize)
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

// Tables is the set of ACPI tables of one machine.
type Tables struct {
	// List holds every table in the order found, the RSDP/XSDT/RSDT included
	// when the source had them.
	List []*Table
	// Source describes where the set was loaded from.
	Source string
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

// add appends t, parsing its header and numbering instances of repeated
// signatures.
func (ts *Tables) add(t *Table) {
	if t.HasHeader() && len(t.Raw) >= HeaderSize {
		t.Header, _ = ParseHeader(t.Raw)
	}
	n := 0
	for _, o := range ts.List {
		if o.Signature == t.Signature {
			n++
			if o.Instance == 0 {
				o.Instance = 1
			}
		}
	}
	if n > 0 {
		t.Instance = n + 1
	}
	ts.List = append(ts.List, t)
}
