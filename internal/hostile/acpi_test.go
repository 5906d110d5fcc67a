//go:build linux

package hostile

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/acpitables"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// dumpOf writes tables as acpidump text.
func dumpOf(t *testing.T, raws ...[]byte) []byte {
	t.Helper()
	ts := &acpi.Tables{}
	for _, r := range raws {
		ts.Add(&acpi.Table{Signature: string(r[:4]), Raw: r})
	}
	var b bytes.Buffer
	require.NoError(t, acpi.WriteDump(&b, ts))
	return b.Bytes()
}

// An MCFG of 2,000 identical entries (32 KB) took 29 s, 5.4 GB and wrote
// 877 MB of JSON: one finding per overlapping pair.
func TestMCFGIdenticalEntries(t *testing.T) {
	skipShort(t)
	e := checktest.MCFGEntry(0xb0000000, 0, 0, 255)
	var es [][]byte
	for range 2000 {
		es = append(es, e)
	}
	in := file(t, "mcfg.dump", dumpOf(t, checktest.MCFG(es...)))
	out := file(t, "out.json", nil)
	r := run(t, "run", "mcfg", "--acpidump", in, "--json", out, "--color", "never")
	assert.Equal(t, 1, r.code, "the overlaps fail the run: %.300s", r.stderr)
	st, err := os.Stat(out)
	require.NoError(t, err)
	assert.Less(t, st.Size(), int64(1<<20), "results stay small")
	_, _, _, labels := readDoc(t, out).result(t, "mcfg")
	for l, n := range labels {
		assert.LessOrEqual(t, n, tests.MaxPerLabel+1, l)
	}
	assert.NotEmpty(t, labels)
	assert.Equal(t, 1, labels["MCFGOverlap"], "one finding for the one region")
}

// 200,000 distinct, mutually overlapping entries (a 3 MB MCFG): the
// pairwise comparison would take 2·10¹⁰ steps.
func TestMCFGManyOverlappingEntries(t *testing.T) {
	skipShort(t)
	var es [][]byte
	for i := range 200_000 {
		es = append(es, checktest.MCFGEntry(0xB0000000+uint64(i)<<20, 0, 0, 255))
	}
	in := file(t, "mcfg.dump", dumpOf(t, checktest.MCFG(es...)))
	out := file(t, "out.json", nil)
	r := run(t, "run", "mcfg", "--acpidump", in, "--json", out, "--color", "never")
	assert.Equal(t, 1, r.code, "%.300s", r.stderr)
	_, _, _, labels := readDoc(t, out).result(t, "mcfg")
	assert.Equal(t, tests.MaxPerLabel, labels["MCFGOverlap"], "capped; the rest are counted in results[].omitted")
}

// 5 million junk lines (11.7 KB gzipped) took 3.9 GB and exited 0.
func TestDumpOfJunkLines(t *testing.T) {
	in := gzFile(t, "junk.dump.gz", func(w io.Writer) {
		w.Write(dumpOf(t, checktest.SDT("HPET", 1, make([]byte, 20))))
		line := []byte("this is no acpidump line\n")
		for range 5_000_000 {
			w.Write(line)
		}
	})
	r := run(t, "run", "--acpidump", in, "--color", "never")
	oneLineError(t, r, "not acpidump text: 5000000 of its 5000004 lines are not table data")
}

// 200,000 tiny tables took 379 s (Tables.Add rescanned every table).
func TestDumpOfTinyTables(t *testing.T) {
	skipShort(t)
	var b bytes.Buffer
	for range 200_000 {
		b.WriteString("SSDT @ 0x0000000000000000\n    0000: 53 53 44 54 10 00 00 00 01 00 00 00 00 00 00 00  SSDT............\n\n")
	}
	r := run(t, "run", "--acpidump", file(t, "tiny.dump", b.Bytes()), "--color", "never")
	oneLineError(t, r, "more than 4096 tables")
}

// Hex rows compress well: a few MiB of gzip expand to over 32 MiB of tables.
func TestDumpGzipBomb(t *testing.T) {
	in := gzFile(t, "bomb.dump.gz", func(w io.Writer) {
		fmt.Fprint(w, "DSDT @ 0x0000000000000000\n")
		for off := 0; off <= acpi.MaxTableData; off += 16 {
			fmt.Fprintf(w, "    %04X: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n", off)
		}
	})
	r := run(t, "run", "--acpidump", in, "--color", "never")
	oneLineError(t, r, "more than 32 MiB of table data")
}

// A raw-table directory of 40,000 files is refused past the table limit.
func TestRawTableDirectoryOfManyFiles(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	hdr := checktest.SDT("SSDT", 2, nil)
	for i := range 5000 {
		require.NoError(t, os.WriteFile(fmt.Sprintf("%s/SSDT%d", dir, i), hdr, 0o644))
	}
	r := run(t, "run", "--acpidump", dir, "--color", "never")
	oneLineError(t, r, "more than 4096 tables")
	assert.False(t, strings.Contains(r.stderr, "\x1b"))
}

// Length fields are not believed beyond the data limit: 4,000 tables that
// each claim 32 MiB and hold one row.
func TestDumpOfTablesClaimingToBeHuge(t *testing.T) {
	skipShort(t)
	var b bytes.Buffer
	for range 4000 {
		b.WriteString("SSDT @ 0x0000000000000000\n    0000: 53 53 44 54 FF FF FF 01 01 00 00 00 00 00 00 00  SSDT............\n\n")
	}
	out := file(t, "out.json", nil)
	r := run(t, "run", "checksum", "--acpidump", file(t, "claims.dump", b.Bytes()), "--json", out, "--color", "never")
	assert.Contains(t, []int{0, 1, 3}, r.code, "%.300s", r.stderr)
	assert.Less(t, r.rss, int64(100<<20))
}

// Root tables of millions of entries (a 24 MB XSDT, an 8 MB RSDT, none of
// them matching) took 4.5 s and 346 MB: entries past acpi.MaxTables are
// reported not checked.
func TestHugeRootTables(t *testing.T) {
	skipShort(t)
	var addrs []uint64
	var raddrs []uint32
	for i := range 3_000_000 {
		addrs = append(addrs, 0x100000+uint64(i)*64)
		if i < 2_000_000 {
			raddrs = append(raddrs, 0x100000+uint32(i)*64+8)
		}
	}
	in := file(t, "roots.dump", dumpOf(t, checktest.SDT("XSDT", 1, checktest.XSDTBody(addrs...)), checktest.SDT("RSDT", 1, checktest.RSDTBody(raddrs...))))
	out := file(t, "out.json", nil)
	r := run(t, "run", "--acpidump", in, "--json", out, "--color", "never")
	assert.Equal(t, 1, r.code, "%.300s", r.stderr)
	_, _, unchecked, labels := readDoc(t, out).result(t, "acpi-tables")
	assert.Contains(t, unchecked, "XSDT entries 4096 to 2999999: the XSDT lists 3000000 tables, more than the 4096 fwcheck reads (real machines have under 100)")
	assert.Equal(t, tests.MaxPerLabel, labels["ACPIRootTablesMismatch"], "capped; the rest are counted in results[].omitted")
}

// A 24 MB MADT of 3 million local APICs took 1.7 s and 760 MB.
func TestHugeMADT(t *testing.T) {
	skipShort(t)
	var ents [][]byte
	for i := range 3_000_000 {
		ents = append(ents, checktest.LAPIC(byte(i), byte(i>>3), 1))
	}
	in := file(t, "madt.dump", dumpOf(t, checktest.FADT(nil), checktest.MADT(4, ents...)))
	out := file(t, "out.json", nil)
	r := run(t, "run", "madt", "--acpidump", in, "--json", out, "--color", "never")
	assert.Equal(t, 1, r.code, "%.300s", r.stderr)
	_, _, unchecked, _ := readDoc(t, out).result(t, "madt")
	assert.Contains(t, strings.Join(unchecked, "\n"), "APIC: the 23475712 bytes after its first 65536 subtables")
}

// Large tables of noise through every ACPI check: a 24 MiB DSDT of random
// bytes, and an FPDT of a million records.
func TestLargeNoiseTables(t *testing.T) {
	skipShort(t)
	noise := make([]byte, 24<<20)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	var fpdt []byte
	for range 1_000_000 {
		fpdt = append(fpdt, 0, 0, 16, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	for name, tab := range map[string][]byte{"dsdt": checktest.SDT("DSDT", 2, noise), "fpdt": checktest.SDT("FPDT", 1, fpdt)} {
		r := run(t, "run", "--acpidump", file(t, name+".dump", dumpOf(t, checktest.FADT(nil), tab)), "--json", "/dev/null", "--color", "never")
		assert.Contains(t, []int{0, 1}, r.code, "%s: %.300s", name, r.stderr)
	}
}

// A snapshot's record of what lies at each root table entry
// (fwcheck/acpi/ENTRIES) of a million lines, and an acpidump of 4,096
// tables whose XSDT points into the middle of each: the loader refuses the
// record past 8,192 entries, and the check judges the dump's entries in
// bounded time.
func TestHugeRootEntryRecords(t *testing.T) {
	skipShort(t)
	var rec bytes.Buffer
	for i := range 1_000_000 {
		fmt.Fprintf(&rec, "XSDT %d 0x%x 0000000000000000\n", i%4096, 0x100000+i*64)
	}
	m := checktest.FilesMachine(t, map[string][]byte{
		acpi.SysfsDir + "/FACP": checktest.FADT(nil),
		"fwcheck/acpi/RSDP":     checktest.RSDP(2, 0, 0x7FC10000),
		"fwcheck/acpi/XSDT":     checktest.SDT("XSDT", 1, checktest.XSDTBody(0x7FD00000)),
		"fwcheck/acpi/ENTRIES":  rec.Bytes(),
	})
	c := tests.Lookup([]*tests.Check{acpitables.Check}, "acpi-tables")
	r := tests.RunOne(&tests.Env{Machine: m}, c)
	assert.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
	refused := false
	for _, f := range r.Findings {
		refused = refused || strings.Contains(f.Message, "ENTRIES: line 8193: more than 8192 entries")
	}
	assert.True(t, refused, "the loader refuses the record past 8,192 entries: %+v", r.Findings)

	ts := &acpi.Tables{}
	var addrs []uint64
	for i := range acpi.MaxTables - 2 {
		a := 0x10000000 + uint64(i)*0x1000
		ts.Add(&acpi.Table{Signature: "SSDT", Raw: checktest.SDT("SSDT", 2, make([]byte, 64)), Address: a})
		addrs = append(addrs, a+8)
	}
	ts.Add(&acpi.Table{Signature: acpi.SigXSDT, Raw: checktest.SDT("XSDT", 1, checktest.XSDTBody(addrs...)), Address: 0x7FC10000})
	var b bytes.Buffer
	require.NoError(t, acpi.WriteDump(&b, ts))
	in := file(t, "entries.dump", b.Bytes())
	out := file(t, "out.json", nil)
	res := run(t, "run", "acpi-tables", "--acpidump", in, "--json", out, "--color", "never")
	assert.Equal(t, 0, res.code, "warnings only: %.300s", res.stderr)
	_, _, _, labels := readDoc(t, out).result(t, "acpi-tables")
	assert.Equal(t, tests.MaxPerLabel, labels["ACPIRootTableBadEntry"], "capped")
}
