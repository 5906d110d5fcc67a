package acpitables

import (
	"encoding/binary"
	"testing"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// acpiCheckIDs are the checks of the ACPI static-table suite.

func TestACPITablesHeaders(t *testing.T) {
	clean := checktest.SDT("SSDT", 2, []byte{1})
	short := append(checktest.SDT("SSDT", 2, nil), 0)[:20]
	lenSmall := checktest.SDT("SSDT", 2, []byte{1})
	binary.LittleEndian.PutUint32(lenSmall[4:], 20)
	truncated := checktest.SDT("SSDT", 2, []byte{1})
	binary.LittleEndian.PutUint32(truncated[4:], 100)
	extra := append(checktest.SDT("SSDT", 2, []byte{1}), 0, 0)
	oem := checktest.SDT("SSDT", 2, []byte{1})
	oem[12] = 0x07
	nulPad := checktest.SDT("SSDT", 2, []byte{1})
	copy(nulPad[10:16], "AB\x00\x00\x00\x00")
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", clean, nil},
		{"shorter than a header", short, []string{"ACPITableTooShort"}},
		{"length below header", lenSmall, []string{"ACPIHeaderLength"}},
		{"length beyond bytes", truncated, []string{"ACPITableTruncated"}},
		{"bytes beyond length", extra, []string{"ACPITableExtraBytes"}},
		{"control byte in OEM ID", oem, []string{"ACPIOEMFieldNotASCII"}},
		{"NUL padding is fine", nulPad, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, checktest.FADT(nil), c.raw)
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}
}

func TestACPITablesRevisionsAndDuplicates(t *testing.T) {
	fadt2 := checktest.FADT(func(b []byte) { b[8] = 3; binary.LittleEndian.PutUint32(b[4:], 244) })[:244]
	cases := []struct {
		name string
		raws [][]byte
		want []string
	}{
		{"MADT 6 with an ACPI 6.5 FADT", [][]byte{checktest.FADT(nil), checktest.MADT(6, checktest.LAPIC(0, 0, 1))}, nil},
		{"MADT 5 with an ACPI 2.0 FADT", [][]byte{fadt2, checktest.MADT(5, checktest.LAPIC(0, 0, 1))}, []string{"ACPITableRevisionNewerThanFADT"}},
		{"DSDT revision 3 means 64-bit AML", [][]byte{checktest.FADT(nil), checktest.SDT("DSDT", 3, nil)}, nil},
		{"XSDT revision 2", [][]byte{checktest.FADT(nil), checktest.SDT("XSDT", 2, nil)}, []string{"ACPITableRevisionUnknown"}},
		{"MCFG revision 2", [][]byte{checktest.FADT(nil), checktest.SDT("MCFG", 2, append(make([]byte, 8), checktest.MCFGEntry(0xE0000000, 0, 0, 255)...))}, []string{"ACPITableRevisionUnknown"}},
		{"two MADTs", [][]byte{checktest.FADT(nil), checktest.MADT(3), checktest.MADT(3)}, []string{"ACPITableDuplicate"}},
		{"two SSDTs are normal", [][]byte{checktest.FADT(nil), checktest.SDT("SSDT", 2, nil), checktest.SDT("SSDT", 2, nil)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raws...)
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}
}

func TestACPITablesRoots(t *testing.T) {
	fadt := checktest.Table{Raw: checktest.FADT(nil), Addr: 0x7FD00000}
	madt := checktest.Table{Raw: checktest.MADT(3, checktest.LAPIC(0, 0, 1)), Addr: 0x7FD10000}
	high := checktest.Table{Raw: checktest.SDT("SSDT", 2, nil), Addr: 0x1_7FD20000}
	rsdp := func(rev uint8) checktest.Table {
		return checktest.Table{Raw: checktest.RSDP(rev, 0x7FC00000, 0x7FC10000), Addr: 0xF0000}
	}
	xsdt := func(addrs ...uint64) checktest.Table {
		return checktest.Table{Raw: checktest.SDT("XSDT", 1, checktest.XSDTBody(addrs...)), Addr: 0x7FC10000}
	}
	rsdt := func(addrs ...uint32) checktest.Table {
		return checktest.Table{Raw: checktest.SDT("RSDT", 1, checktest.RSDTBody(addrs...)), Addr: 0x7FC00000}
	}
	badLen := checktest.RSDP(2, 0x7FC00000, 0x7FC10000)
	binary.LittleEndian.PutUint32(badLen[20:], 20)
	cases := []struct {
		name   string
		tables []checktest.Table
		want   []string
	}{
		{"consistent", []checktest.Table{rsdp(2), xsdt(0x7FD00000, 0x7FD10000), rsdt(0x7FD00000, 0x7FD10000), fadt, madt}, nil},
		{"RSDP length", []checktest.Table{{Raw: badLen, Addr: 0xF0000}, xsdt(0x7FD00000), rsdt(0x7FD00000), fadt}, []string{"RSDPLength"}},
		{"RSDP revision 1", []checktest.Table{{Raw: checktest.RSDP(1, 0x7FC00000, 0), Addr: 0xF0000}, rsdt(0x7FD00000), fadt}, []string{"RSDPRevision"}},
		{"RSDP without roots", []checktest.Table{{Raw: checktest.RSDP(2, 0, 0), Addr: 0xF0000}, fadt}, []string{"RSDPNoRootTable"}},
		{"RSDP points elsewhere", []checktest.Table{{Raw: checktest.RSDP(2, 0x7FC00000, 0x7FC20000), Addr: 0xF0000}, xsdt(0x7FD00000), rsdt(0x7FD00000), fadt}, []string{"RSDPRootAddressMismatch"}},
		{"truncated pointer", []checktest.Table{rsdp(2), xsdt(0x7FD00000, 0x1_7FD20000), rsdt(0x7FD00000, 0x7FD20000), fadt, high}, []string{"ACPIRSDTPointerTruncated"}},
		{"table above 4G left out of the RSDT", []checktest.Table{rsdp(2), xsdt(0x7FD00000, 0x1_7FD20000), rsdt(0x7FD00000), fadt, high}, nil},
		{"RSDT lacks a table", []checktest.Table{rsdp(2), xsdt(0x7FD00000, 0x7FD10000), rsdt(0x7FD00000), fadt, madt}, []string{"ACPIRootTablesMismatch"}},
		{"null entry", []checktest.Table{rsdp(2), xsdt(0x7FD00000, 0), fadt}, []string{"ACPIRootTableNullEntry"}},
		{"repeated entry", []checktest.Table{rsdp(2), xsdt(0x7FD00000, 0x7FD00000), fadt}, []string{"ACPIRootTableDuplicateEntry"}},
		{"partial entry", []checktest.Table{rsdp(2), {Raw: checktest.SDT("XSDT", 1, append(checktest.XSDTBody(0x7FD00000), 0, 0, 0, 0)), Addr: 0x7FC10000}, fadt}, []string{"ACPIRootTableLength"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.Machine(t, nil, c.tables...))
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}
}

func TestACPITablesWithoutRootsSaySo(t *testing.T) {
	r := checktest.RunTables(t, Check, checktest.FADT(nil))
	assert.Equal(t, tests.StatusIncomplete, r.Status, "the root tables were not checked")
	require.Len(t, r.Unchecked, 2)
	assert.Equal(t, "RSDP", r.Unchecked[0].What)
	assert.Contains(t, r.Unchecked[0].Reason, "not in this table set")
	assert.Contains(t, r.Unchecked[0].Remedy, "fwcheck snapshot")
	assert.Equal(t, "XSDT and RSDT", r.Unchecked[1].What)
}

// RSDPReserved and RSDPOEMIDNotASCII are warnings until a corpus RSDP
// shows them.
func TestRSDPReservedAndOEMID(t *testing.T) {
	xsdt := checktest.Table{Raw: checktest.SDT("XSDT", 1, checktest.XSDTBody(0x7FD00000)), Addr: 0x7FC10000}
	rsdt := checktest.Table{Raw: checktest.SDT("RSDT", 1, checktest.RSDTBody(0x7FD00000)), Addr: 0x7FC00000}
	fadt := checktest.Table{Raw: checktest.FADT(nil), Addr: 0x7FD00000}
	warnings := func(raw []byte) []string {
		r := checktest.Run(t, Check, checktest.Machine(t, nil, checktest.Table{Raw: raw, Addr: 0xF0000}, xsdt, rsdt, fadt))
		var out []string
		for _, f := range r.Findings {
			if f.Kind == tests.KindWarning || f.Kind == tests.KindFail {
				out = append(out, f.Label)
			}
		}
		return out
	}
	assert.Empty(t, warnings(checktest.RSDP(2, 0x7FC00000, 0x7FC10000)))
	b := checktest.RSDP(2, 0x7FC00000, 0x7FC10000)
	b[34] = 1
	assert.Equal(t, []string{"RSDPReserved"}, warnings(b))
	b = checktest.RSDP(2, 0x7FC00000, 0x7FC10000)
	b[10] = 0x07
	assert.Equal(t, []string{"RSDPOEMIDNotASCII"}, warnings(b))
}

// ACPIRootTableBadEntry, from an acpidump's addresses: an entry at the
// FACS, or inside another table, is no table; an entry no dumped table
// covers proves nothing (a dump may leave tables out).
func TestRootTableBadEntryFromDump(t *testing.T) {
	rsdp := checktest.Table{Raw: checktest.RSDP(2, 0, 0x7FC10000), Addr: 0xF0000}
	fadt := checktest.Table{Raw: checktest.FADT(nil), Addr: 0x7FD00000}
	facs := make([]byte, 64)
	copy(facs, "FACS")
	binary.LittleEndian.PutUint32(facs[4:], 64)
	facsT := checktest.Table{Raw: facs, Addr: 0x7FE00000}
	xsdt := func(addrs ...uint64) checktest.Table {
		return checktest.Table{Raw: checktest.SDT("XSDT", 1, checktest.XSDTBody(addrs...)), Addr: 0x7FC10000}
	}
	warned := func(tables ...checktest.Table) (labels, msgs []string) {
		r := checktest.Run(t, Check, checktest.Machine(t, nil, tables...))
		for _, f := range r.Findings {
			if f.Kind == tests.KindWarning || f.Kind == tests.KindFail {
				labels = append(labels, f.Label)
				msgs = append(msgs, f.Message)
			}
		}
		return labels, msgs
	}
	l, _ := warned(rsdp, xsdt(0x7FD00000, 0x7FF00000), fadt, facsT)
	assert.Empty(t, l, "an entry whose table the dump lacks")
	l, m := warned(rsdp, xsdt(0x7FD00000, 0x7FE00000), fadt, facsT)
	assert.Equal(t, []string{"ACPIRootTableBadEntry"}, l)
	assert.Contains(t, m[0], "XSDT entry 1 (0x7fe00000) points at the FACS")
	l, m = warned(rsdp, xsdt(0x7FD00000, 0x7FD00010), fadt, facsT)
	assert.Equal(t, []string{"ACPIRootTableBadEntry"}, l)
	assert.Contains(t, m[0], "byte 16 of FACP (at 0x7fd00000)")
}

// ACPIRootTableBadEntry, from what a snapshot recorded at each entry's
// address (fwcheck/acpi/ENTRIES, read through /dev/mem).
func TestRootTableBadEntryFromSnapshot(t *testing.T) {
	xsdt := checktest.SDT("XSDT", 1, checktest.XSDTBody(0x7FD00000, 0x7FD10000, 0x7FD20000))
	probes := []acpi.EntryProbe{
		{Root: acpi.SigXSDT, Index: 0, Address: 0x7FD00000, Head: []byte("FACP\x14\x01\x00\x00")},
		{Root: acpi.SigXSDT, Index: 1, Address: 0x7FD10000, Head: []byte("\x00\x00\x00\x00\x00\x00\x00\x00")},
		{Root: acpi.SigXSDT, Index: 2, Address: 0x7FD20000},
	}
	m := checktest.FilesMachine(t, map[string][]byte{
		acpi.SysfsDir + "/FACP":     checktest.FADT(nil),
		"fwcheck/acpi/RSDP":         checktest.RSDP(2, 0, 0x7FC10000),
		"fwcheck/acpi/XSDT":         xsdt,
		"fwcheck/acpi/" + "ENTRIES": acpi.FormatProbes(probes),
	})
	r := checktest.Run(t, Check, m)
	var got []string
	for _, f := range r.Findings {
		if f.Label == "ACPIRootTableBadEntry" {
			assert.Equal(t, tests.KindWarning, f.Kind)
			got = append(got, f.Message)
		}
	}
	require.Len(t, got, 1, "%+v", r.Findings)
	assert.Contains(t, got[0], "XSDT entry 1 (0x7fd10000) points at no table signature (bytes 00 00")
}
