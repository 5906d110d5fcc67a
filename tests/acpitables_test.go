package tests

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
)

// acpiCheckIDs are the checks of the ACPI static-table suite.
var acpiCheckIDs = []string{"acpitables", "checksum", "fadt", "hpet", "madt", "mcfg", "mcfg-reserved"}

func acpiChecks(t testing.TB) []*Check {
	t.Helper()
	var cs []*Check
	for _, id := range acpiCheckIDs {
		c := Lookup(id)
		require.NotNil(t, c, id)
		cs = append(cs, c)
	}
	return cs
}

// dumpMachine builds a machine whose ACPI tables come from an acpidump
// file (or a directory of raw tables) and that has no other input.
func dumpMachine(path string) *input.Machine {
	return input.New(input.Empty(), input.Options{ACPIDump: path})
}

// qemuMachine copies one QEMU configuration (base tables plus a variant's
// overrides) into a directory and builds a machine over it.
func qemuMachine(t testing.TB, machine, variant string) *input.Machine {
	t.Helper()
	src := filepath.Join(corpus.Dir(t, "acpi", "qemu"), machine)
	ts, err := acpi.LoadQEMU(os.DirFS(src), ".", variant)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, acpi.WriteFiles(dir, ts.List))
	return dumpMachine(dir)
}

type goldenCase struct {
	name string // golden file name without .txt
	m    func(testing.TB) *input.Machine
}

func goldenCases(t *testing.T) []goldenCase {
	var cs []goldenCase
	for _, p := range corpus.Glob(t, "acpi/linuxhw/core/*.acpidump.txt") {
		p := p
		cs = append(cs, goldenCase{"core-" + strings.TrimSuffix(filepath.Base(p), ".acpidump.txt"), func(testing.TB) *input.Machine { return dumpMachine(p) }})
	}
	full, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "acpi", "linuxhw", "full"), "*.acpidump.txt.gz"))
	for _, p := range full {
		p := p
		cs = append(cs, goldenCase{"full-" + strings.TrimSuffix(filepath.Base(p), ".acpidump.txt.gz"), func(testing.TB) *input.Machine { return dumpMachine(p) }})
	}
	for _, q := range []string{"pc", "q35", "microvm", "virt"} {
		q := q
		cs = append(cs, goldenCase{"qemu-" + q, func(tb testing.TB) *input.Machine { return qemuMachine(tb, q, "") }})
	}
	return cs
}

// TestACPIGolden runs the ACPI checks over every corpus dump and the QEMU
// base configurations and compares the findings with
// testdata/acpi/golden/NAME.txt. Regenerate with -update (see updateGolden).
func TestACPIGolden(t *testing.T) {
	checks := acpiChecks(t)
	dir := filepath.Join("testdata", "acpi", "golden")
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			rs := RunChecks(c.m(t), checks)
			for _, r := range rs {
				assert.NotEqual(t, StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
			}
			checkGolden(t, dir, c.name, Render(rs))
		})
	}
}

// TestACPIGoldenHasNoStaleFiles fails when a golden file no longer has a
// corpus dump behind it.
func TestACPIGoldenHasNoStaleFiles(t *testing.T) {
	var names []string
	for _, c := range goldenCases(t) {
		names = append(names, c.name)
	}
	checkNoStaleGolden(t, filepath.Join("testdata", "acpi", "golden"), names)
}

// qemuSanitized are the failures QEMU's stored test tables have by
// construction: tests/qtest/bios-tables-test.c (test_acpi_fadt_table)
// zeroes FIRMWARE_CTRL, DSDT, X_FIRMWARE_CTRL and X_DSDT ("sanitize ... ptr")
// and fixes the checksum before writing the expected FACP files, because
// the addresses vary between runs. A live QEMU guest has the pointers; the
// stored files do not, and the checks rightly say so.
var qemuSanitized = map[string]bool{"FADTFACSMissing": true, "FADTDSDTMissing": true}

// TestQEMUNoFailureAboveLow: QEMU's own pc and q35 tables, in every test
// configuration, must not fail any check above Low, apart from the
// pointers the QEMU test harness zeroes (qemuSanitized).
func TestQEMUNoFailureAboveLow(t *testing.T) {
	checks := acpiChecks(t)
	for _, machine := range []string{"pc", "q35"} {
		src := filepath.Join(corpus.Dir(t, "acpi", "qemu"), machine)
		variants, err := acpi.QEMUVariants(os.DirFS(src), ".")
		require.NoError(t, err)
		for _, v := range append([]string{""}, variants...) {
			ts, err := acpi.LoadQEMU(os.DirFS(src), ".", v)
			require.NoError(t, err)
			fadt, err := ts.FADT()
			require.NoError(t, err)
			sanitized := fadt.FirmwareCtrl == 0 && fadt.XFirmwareCtrl == 0 && fadt.DSDT == 0 && fadt.XDSDT == 0
			rs := RunChecks(qemuMachine(t, machine, v), checks)
			for _, r := range rs {
				require.NotEqual(t, StatusAborted, r.Status, r.Reason)
				for _, f := range r.Findings {
					if f.Kind == KindFail && !(sanitized && qemuSanitized[f.Label]) {
						assert.LessOrEqual(t, f.Severity, Low, "%s/%s %s: %s %s", machine, v, r.ID, f.Label, f.Message)
					}
				}
			}
		}
	}
}

// findingLabels returns the labels of every finding in rs, by check ID.
func findingLabels(rs []Result) map[string]bool {
	out := map[string]bool{}
	for _, r := range rs {
		for _, f := range r.Findings {
			if f.Label != "" {
				out[f.Label] = true
			}
		}
	}
	return out
}

// TestFADTResetAgainstManifest cross-checks the reset findings with the
// reset columns of the corpus manifest (written by a different tool).
func TestFADTResetAgainstManifest(t *testing.T) {
	root := corpus.Dir(t, "acpi", "linuxhw")
	b, err := os.ReadFile(filepath.Join(root, "MANIFEST.tsv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	cols := strings.Split(lines[0], "\t")
	col := func(row []string, name string) string {
		for i, c := range cols {
			if c == name && i < len(row) {
				return row[i]
			}
		}
		t.Fatalf("manifest has no column %s", name)
		return ""
	}
	fadt := []*Check{Lookup("fadt")}
	counts := map[string]int{}
	for _, l := range lines[1:] {
		row := strings.Split(l, "\t")
		hwid := col(row, "hwid")
		rs := RunChecks(dumpMachine(filepath.Join(root, "core", hwid+".acpidump.txt")), fadt)
		got := findingLabels(rs)
		sup, addr, val := col(row, "reset_sup"), col(row, "reset_addr"), col(row, "reset_val")
		cf9Single := sup == "1" && col(row, "reset_space") == "1" && addr == "0xcf9" && (val == "0x6" || val == "0xe" || val == "0xf")
		assert.Equal(t, cf9Single, got["FADTResetCF9SingleWrite"], "%s: reset %s %s %s", hwid, sup, addr, val)
		// 0xB0 is the SMI_CMD port of the machines that reset through it.
		assert.Equal(t, sup == "1" && (addr == "0xb2" || addr == "0xb0"), got["FADTResetViaSMI"], "%s: reset %s %s", hwid, sup, addr)
		assert.Equal(t, sup == "1" && addr == "0x64", got["FADTResetViaKBC"], "%s: reset %s %s", hwid, sup, addr)
		assert.Equal(t, sup == "0" && addr != "0x0", got["FADTResetRegisterUnflagged"], "%s: reset %s %s", hwid, sup, addr)
		for k, v := range got {
			if v {
				counts[k]++
			}
		}
	}
	// About half of the 120 machines: 48 write 0x06 and 4 write 0x0E with
	// RESET_REG_SUP set, as the manifest lists.
	assert.Equal(t, 52, counts["FADTResetCF9SingleWrite"])
	assert.Equal(t, 2, counts["FADTResetViaKBC"])
}

// TestACPIFindingCounts prints how many dumps carry each label (run with
// -v); it fails if a check aborts anywhere.
func TestACPIFindingCounts(t *testing.T) {
	checks := acpiChecks(t)
	counts := map[string]int{}
	n := 0
	for _, c := range goldenCases(t) {
		if strings.HasPrefix(c.name, "qemu-") {
			continue
		}
		n++
		for _, r := range RunChecks(c.m(t), checks) {
			require.NotEqual(t, StatusAborted, r.Status, "%s %s: %s", c.name, r.ID, r.Reason)
			for _, f := range r.Findings {
				if f.Label != "" {
					counts[string(f.Kind)+" "+f.Label]++
				}
			}
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%5d %s", counts[k], k)
	}
	t.Logf("%d dumps", n)
}

// BenchmarkACPIChecksCorpus loads every corpus dump and runs the ACPI
// checks over it.
func BenchmarkACPIChecksCorpus(b *testing.B) {
	checks := acpiChecks(b)
	paths := corpus.Glob(b, "acpi/linuxhw/core/*.acpidump.txt")
	full, _ := filepath.Glob(filepath.Join(corpus.Dir(b, "acpi", "linuxhw", "full"), "*.acpidump.txt.gz"))
	paths = append(paths, full...)
	for b.Loop() {
		for _, p := range paths {
			RunChecks(dumpMachine(p), checks)
		}
	}
	b.ReportMetric(float64(b.N*len(paths))/b.Elapsed().Seconds(), "dumps/s")
}

// ---- helpers for the synthetic-table tests of the ACPI checks ----

// sdtRaw builds a table with a valid header and checksum around body.
func sdtRaw(sig string, rev uint8, body []byte) []byte {
	b := make([]byte, acpi.HeaderSize+len(body))
	copy(b, sig)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
	b[8] = rev
	copy(b[10:], "FWCHK ")
	copy(b[16:], "SYNTHTAB")
	copy(b[28:], "FWCK")
	copy(b[acpi.HeaderSize:], body)
	fixSum(b)
	return b
}

// fixSum recomputes an SDT's checksum.
func fixSum(b []byte) {
	b[9] = 0
	b[9] = -acpi.Sum(b)
}

// synthTable is a table for a synthetic machine, with an optional address.
type synthTable struct {
	raw  []byte
	addr uint64
}

// synthMachine writes the tables as acpidump text and builds a machine
// over it; memmap, when not nil, becomes the firmware memory map.
func synthMachine(t *testing.T, memmap []input.MemoryRange, tables ...synthTable) *input.Machine {
	t.Helper()
	ts := &acpi.Tables{}
	for _, st := range tables {
		sig := string(st.raw[:4])
		if len(st.raw) >= 8 && string(st.raw[:8]) == "RSD PTR " {
			sig = acpi.SigRSDP
		}
		ts.Add(&acpi.Table{Signature: sig, Raw: st.raw, Address: st.addr})
	}
	// acpidump writes whole tables, and the loader takes a last table that
	// is shorter than its Length for a cut-off file. Close the dump with a
	// well-formed OEM table so that a deliberately malformed table under
	// test is judged as the firmware's.
	ts.Add(&acpi.Table{Signature: "OEMT", Raw: sdtRaw("OEMT", 1, nil)})
	dir := t.TempDir()
	dump := filepath.Join(dir, "dump.txt")
	f, err := os.Create(dump)
	require.NoError(t, err)
	require.NoError(t, acpi.WriteDump(f, ts))
	require.NoError(t, f.Close())
	src := input.Empty()
	if memmap != nil {
		root := filepath.Join(dir, "root")
		for i, r := range memmap {
			d := filepath.Join(root, "sys", "firmware", "memmap", fmt.Sprint(i))
			require.NoError(t, os.MkdirAll(d, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, "start"), []byte(fmt.Sprintf("0x%x\n", r.Start)), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, "end"), []byte(fmt.Sprintf("0x%x\n", r.End)), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, "type"), []byte(r.Type+"\n"), 0o644))
		}
		src, err = input.Open(root)
		require.NoError(t, err)
	}
	return input.New(src, input.Options{ACPIDump: dump})
}

// runCheck runs one check over raw tables and returns its result.
func runCheck(t *testing.T, id string, raws ...[]byte) Result {
	t.Helper()
	var st []synthTable
	for _, r := range raws {
		st = append(st, synthTable{raw: r})
	}
	return runCheckOn(t, id, synthMachine(t, nil, st...))
}

func runCheckOn(t *testing.T, id string, m *input.Machine) Result {
	t.Helper()
	c := Lookup(id)
	require.NotNil(t, c, id)
	r := RunCheck(m, c)
	require.NotEqual(t, StatusAborted, r.Status, r.Reason)
	return r
}

// failLabels lists the labels of r's failures, in order.
func failLabels(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Kind == KindFail {
			out = append(out, f.Label)
		}
	}
	return out
}

// findingWith returns the first finding with label l, or nil.
func findingWith(r Result, l string) *Finding {
	for i := range r.Findings {
		if r.Findings[i].Label == l {
			return &r.Findings[i]
		}
	}
	return nil
}

// synthFADT builds a clean revision 6 FADT; mod may change its bytes (the
// checksum is fixed afterwards).
func synthFADT(mod func(b []byte)) []byte {
	b := make([]byte, acpi.FADTLenRev6)
	copy(b, "FACP")
	binary.LittleEndian.PutUint32(b[4:], acpi.FADTLenRev6)
	b[8] = 6
	copy(b[10:], "FWCHK ")
	copy(b[16:], "SYNTHTAB")
	copy(b[28:], "FWCK")
	le32 := func(off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	le32(36, 0x7FF00000) // FIRMWARE_CTRL
	le32(40, 0x7FE00000) // DSDT
	b[45] = 2            // mobile
	binary.LittleEndian.PutUint16(b[46:], 9)
	le32(48, 0xB2)
	b[52], b[53] = 0xA0, 0xA1
	le32(56, 0x1800)
	le32(64, 0x1804)
	le32(76, 0x1808)
	le32(80, 0x1820)
	b[88], b[89], b[91], b[92] = 4, 2, 4, 16
	le32(112, acpi.FADTFlagResetRegSup|acpi.FADTFlagWBINVD)
	copy(b[116:], []byte{1, 8, 0, 1, 0xF9, 0x0C, 0, 0, 0, 0, 0, 0})
	b[128] = 0x04
	b[131] = 5 // ACPI 6.5
	binary.LittleEndian.PutUint64(b[140:], 0x7FE00000)
	copy(b[148:], []byte{1, 32, 0, 3, 0x00, 0x18})
	copy(b[172:], []byte{1, 16, 0, 2, 0x04, 0x18})
	copy(b[208:], []byte{1, 32, 0, 3, 0x08, 0x18})
	copy(b[220:], []byte{1, 128, 0, 1, 0x20, 0x18})
	if mod != nil {
		mod(b)
	}
	fixSum(b)
	return b
}

func TestACPITablesHeaders(t *testing.T) {
	clean := sdtRaw("SSDT", 2, []byte{1})
	short := append(sdtRaw("SSDT", 2, nil), 0)[:20]
	lenSmall := sdtRaw("SSDT", 2, []byte{1})
	binary.LittleEndian.PutUint32(lenSmall[4:], 20)
	truncated := sdtRaw("SSDT", 2, []byte{1})
	binary.LittleEndian.PutUint32(truncated[4:], 100)
	extra := append(sdtRaw("SSDT", 2, []byte{1}), 0, 0)
	oem := sdtRaw("SSDT", 2, []byte{1})
	oem[12] = 0x07
	nulPad := sdtRaw("SSDT", 2, []byte{1})
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
			r := runCheck(t, "acpitables", synthFADT(nil), c.raw)
			assert.Equal(t, c.want, failLabels(r), "%+v", r.Findings)
		})
	}
}

func TestACPITablesRevisionsAndDuplicates(t *testing.T) {
	fadt2 := synthFADT(func(b []byte) { b[8] = 3; binary.LittleEndian.PutUint32(b[4:], 244) })[:244]
	cases := []struct {
		name string
		raws [][]byte
		want []string
	}{
		{"MADT 6 with an ACPI 6.5 FADT", [][]byte{synthFADT(nil), synthMADT(6, lapic(0, 0, 1))}, nil},
		{"MADT 5 with an ACPI 2.0 FADT", [][]byte{fadt2, synthMADT(5, lapic(0, 0, 1))}, []string{"ACPITableRevisionNewerThanFADT"}},
		{"DSDT revision 3 means 64-bit AML", [][]byte{synthFADT(nil), sdtRaw("DSDT", 3, nil)}, nil},
		{"XSDT revision 2", [][]byte{synthFADT(nil), sdtRaw("XSDT", 2, nil)}, []string{"ACPITableRevisionUnknown"}},
		{"MCFG revision 2", [][]byte{synthFADT(nil), sdtRaw("MCFG", 2, append(make([]byte, 8), mcfgEntry(0xE0000000, 0, 0, 255)...))}, []string{"ACPITableRevisionUnknown"}},
		{"two MADTs", [][]byte{synthFADT(nil), synthMADT(3), synthMADT(3)}, []string{"ACPITableDuplicate"}},
		{"two SSDTs are normal", [][]byte{synthFADT(nil), sdtRaw("SSDT", 2, nil), sdtRaw("SSDT", 2, nil)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCheck(t, "acpitables", c.raws...)
			assert.Equal(t, c.want, failLabels(r), "%+v", r.Findings)
		})
	}
}

func xsdtBody(addrs ...uint64) []byte {
	b := make([]byte, 8*len(addrs))
	for i, a := range addrs {
		binary.LittleEndian.PutUint64(b[8*i:], a)
	}
	return b
}

func rsdtBody(addrs ...uint32) []byte {
	b := make([]byte, 4*len(addrs))
	for i, a := range addrs {
		binary.LittleEndian.PutUint32(b[4*i:], a)
	}
	return b
}

func TestACPITablesRoots(t *testing.T) {
	fadt := synthTable{synthFADT(nil), 0x7FD00000}
	madt := synthTable{synthMADT(3, lapic(0, 0, 1)), 0x7FD10000}
	high := synthTable{sdtRaw("SSDT", 2, nil), 0x1_7FD20000}
	rsdp := func(rev uint8) synthTable { return synthTable{synthRSDP(rev, 0x7FC00000, 0x7FC10000), 0xF0000} }
	xsdt := func(addrs ...uint64) synthTable { return synthTable{sdtRaw("XSDT", 1, xsdtBody(addrs...)), 0x7FC10000} }
	rsdt := func(addrs ...uint32) synthTable { return synthTable{sdtRaw("RSDT", 1, rsdtBody(addrs...)), 0x7FC00000} }
	badLen := synthRSDP(2, 0x7FC00000, 0x7FC10000)
	binary.LittleEndian.PutUint32(badLen[20:], 20)
	cases := []struct {
		name   string
		tables []synthTable
		want   []string
	}{
		{"consistent", []synthTable{rsdp(2), xsdt(0x7FD00000, 0x7FD10000), rsdt(0x7FD00000, 0x7FD10000), fadt, madt}, nil},
		{"RSDP length", []synthTable{{badLen, 0xF0000}, xsdt(0x7FD00000), rsdt(0x7FD00000), fadt}, []string{"RSDPLength"}},
		{"RSDP revision 1", []synthTable{{synthRSDP(1, 0x7FC00000, 0), 0xF0000}, rsdt(0x7FD00000), fadt}, []string{"RSDPRevision"}},
		{"RSDP without roots", []synthTable{{synthRSDP(2, 0, 0), 0xF0000}, fadt}, []string{"RSDPNoRootTable"}},
		{"RSDP points elsewhere", []synthTable{{synthRSDP(2, 0x7FC00000, 0x7FC20000), 0xF0000}, xsdt(0x7FD00000), rsdt(0x7FD00000), fadt}, []string{"RSDPRootAddressMismatch"}},
		{"truncated pointer", []synthTable{rsdp(2), xsdt(0x7FD00000, 0x1_7FD20000), rsdt(0x7FD00000, 0x7FD20000), fadt, high}, []string{"ACPIRSDTPointerTruncated"}},
		{"table above 4G left out of the RSDT", []synthTable{rsdp(2), xsdt(0x7FD00000, 0x1_7FD20000), rsdt(0x7FD00000), fadt, high}, nil},
		{"RSDT lacks a table", []synthTable{rsdp(2), xsdt(0x7FD00000, 0x7FD10000), rsdt(0x7FD00000), fadt, madt}, []string{"ACPIRootTablesMismatch"}},
		{"null entry", []synthTable{rsdp(2), xsdt(0x7FD00000, 0), fadt}, []string{"ACPIRootTableNullEntry"}},
		{"repeated entry", []synthTable{rsdp(2), xsdt(0x7FD00000, 0x7FD00000), fadt}, []string{"ACPIRootTableDuplicateEntry"}},
		{"partial entry", []synthTable{rsdp(2), {sdtRaw("XSDT", 1, append(xsdtBody(0x7FD00000), 0, 0, 0, 0)), 0x7FC10000}, fadt}, []string{"ACPIRootTableLength"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCheckOn(t, "acpitables", synthMachine(t, nil, c.tables...))
			assert.Equal(t, c.want, failLabels(r), "%+v", r.Findings)
		})
	}
}

func TestACPITablesWithoutRootsSaySo(t *testing.T) {
	r := runCheck(t, "acpitables", synthFADT(nil))
	assert.Equal(t, StatusPassed, r.Status)
	var infos []string
	for _, f := range r.Findings {
		infos = append(infos, f.Message)
	}
	assert.Contains(t, strings.Join(infos, "\n"), "no RSDP")
	assert.Contains(t, strings.Join(infos, "\n"), "no XSDT or RSDT")
}

// memSource is an in-memory snapshot: a file tree with the sysfs table
// directory and the recorded root tables, as a real snapshot holds them.
type memSource struct{ fstest.MapFS }

func (memSource) Live() bool       { return false }
func (memSource) Privileged() bool { return true }
func (memSource) String() string   { return "memory" }

// FuzzACPIChecks runs every ACPI check over fuzzed FADT, MADT, HPET, MCFG,
// RSDP and XSDT bytes, laid out as a snapshot (sysfs tables plus recorded
// roots): a check must report, never abort or panic.
func FuzzACPIChecks(f *testing.F) {
	f.Add(synthFADT(nil), synthMADT(5, lapic(0, 0, 1), ioapic(2, 0xFEC00000)), synthHPET(nil),
		synthMCFG(mcfgEntry(0xE0000000, 0, 0, 255)), synthRSDP(2, 0x1000, 0x2000), sdtRaw("XSDT", 1, xsdtBody(0x3000)))
	f.Add(synthFADT(func(b []byte) { b[8] = 1 })[:130], synthMADT(3, []byte{0, 0}), []byte("HPET"), []byte("MCFG"), synthRSDP(0, 1, 0), []byte{})
	checks := acpiChecks(f)
	f.Fuzz(func(t *testing.T, fadt, madt, hpet, mcfg, rsdp, xsdt []byte) {
		fsys := fstest.MapFS{}
		for _, c := range []struct {
			path, sig string
			b         []byte
		}{
			{acpi.SysfsDir + "/FACP", "FACP", fadt},
			{acpi.SysfsDir + "/APIC", "APIC", madt},
			{acpi.SysfsDir + "/HPET", "HPET", hpet},
			{acpi.SysfsDir + "/MCFG", "MCFG", mcfg},
			{input.RecordedDir + "/acpi/RSDP", "RSD PTR ", rsdp},
			{input.RecordedDir + "/acpi/XSDT", "XSDT", xsdt},
		} {
			if len(c.b) >= len(c.sig) {
				fsys[c.path] = &fstest.MapFile{Data: append([]byte(c.sig), c.b[len(c.sig):]...)}
			}
		}
		m := input.New(memSource{fsys}, input.Options{})
		for _, r := range RunChecks(m, checks) {
			require.NotEqual(t, StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
		}
	})
}
