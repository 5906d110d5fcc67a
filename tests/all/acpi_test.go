package all

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
)

// acpiChecks are the checks of the ACPI static-table suite, taken from
// the list drivers run (see suites): a new ACPI table check joins its
// goldens without an edit here.
func acpiChecks(t testing.TB) []*tests.Check {
	t.Helper()
	static, _ := suites(t)
	return static
}

// suites splits the ACPI checks of Checks() that read nothing but the ACPI
// tables and the memory map into those that read the AML namespace and
// those that read only the static tables. Which is which is seen, not
// listed: each check runs on a machine with a DSDT (declaring one device)
// and an HPET, and those that had the namespace derived are the AML ones.
func suites(t testing.TB) (static, aml []*tests.Check) {
	t.Helper()
	dsdt := checktest.Table{Raw: checktest.SDT("DSDT", 2, []byte{0x5B, 0x82, 0x05, 'D', 'E', 'V', '0'})}
	hpet := checktest.Table{Raw: checktest.HPET(nil)}
	for _, c := range Checks() {
		if c.Category != tests.ACPI || slices.ContainsFunc(c.Inputs, func(d input.Decl) bool { return d != input.ACPITables && d != input.MemoryMap }) {
			continue
		}
		m := checktest.Machine(t, nil, dsdt, hpet)
		tests.RunOne(&tests.Env{Machine: m}, c)
		if m.Loaded(amlcheck.Namespace) {
			aml = append(aml, c)
		} else {
			static = append(static, c)
		}
	}
	require.NotEmpty(t, static)
	require.NotEmpty(t, aml)
	return static, aml
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
	return checktest.DumpMachine(dir)
}

type goldenCase struct {
	name string // golden file name without .txt
	m    func(testing.TB) *input.Machine
}

func goldenCases(t *testing.T) []goldenCase {
	var cs []goldenCase
	for _, p := range corpus.Glob(t, "acpi/linuxhw/core/*.acpidump.txt") {
		p := p
		cs = append(cs, goldenCase{"core-" + strings.TrimSuffix(filepath.Base(p), ".acpidump.txt"), func(testing.TB) *input.Machine { return checktest.DumpMachine(p) }})
	}
	full, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "acpi", "linuxhw", "full"), "*.acpidump.txt.gz"))
	for _, p := range full {
		p := p
		cs = append(cs, goldenCase{"full-" + strings.TrimSuffix(filepath.Base(p), ".acpidump.txt.gz"), func(testing.TB) *input.Machine { return checktest.DumpMachine(p) }})
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
			rs := runAll(c.m(t), checks)
			for _, r := range rs {
				assert.NotEqual(t, tests.StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
			}
			checktest.Golden(t, dir, c.name, tests.Render(rs))
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
	checktest.NoStaleGolden(t, filepath.Join("testdata", "acpi", "golden"), names)
}

// qemuSanitized are the failures QEMU's stored test tables have by
// construction: tests/qtest/bios-tables-test.c (test_acpi_fadt_table)
// zeroes FIRMWARE_CTRL, DSDT, X_FIRMWARE_CTRL and X_DSDT ("sanitize ... ptr")
// and fixes the checksum before writing the expected FACP files, because
// the addresses vary between runs. A live QEMU guest has the pointers; the
// stored files do not, and the checks rightly say so.
var qemuSanitized = map[string]bool{"FADTFACSMissing": true, "FADTDSDTMissing": true}

// TestQEMUNoFailureAboveLow: QEMU's own pc and q35 tables, in every test
// configuration, must not fail any check above tests.Low, apart from the
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
			rs := runAll(qemuMachine(t, machine, v), checks)
			for _, r := range rs {
				require.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
				for _, f := range r.Findings {
					if f.Kind == tests.KindFail && !(sanitized && qemuSanitized[f.Label]) {
						assert.LessOrEqual(t, f.Severity, tests.Low, "%s/%s %s: %s %s", machine, v, r.ID, f.Label, f.Message)
					}
				}
			}
		}
	}
}

// findingLabels returns the labels of every finding in rs, by check ID.
func findingLabels(rs []tests.Result) map[string]bool {
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
	fadt := []*tests.Check{tests.Lookup(Checks(), "fadt")}
	counts := map[string]int{}
	for _, l := range lines[1:] {
		row := strings.Split(l, "\t")
		hwid := col(row, "hwid")
		rs := runAll(checktest.DumpMachine(filepath.Join(root, "core", hwid+".acpidump.txt")), fadt)
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
		for _, r := range runAll(c.m(t), checks) {
			require.NotEqual(t, tests.StatusAborted, r.Status, "%s %s: %s", c.name, r.ID, r.Reason)
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
			runAll(checktest.DumpMachine(p), checks)
		}
	}
	b.ReportMetric(float64(b.N*len(paths))/b.Elapsed().Seconds(), "dumps/s")
}

// FuzzACPIChecks runs every ACPI check over fuzzed FADT, MADT, HPET, MCFG,
// RSDP and XSDT bytes, laid out as a snapshot (sysfs tables plus recorded
// roots): a check must report, never abort or panic.
func FuzzACPIChecks(f *testing.F) {
	f.Add(checktest.FADT(nil), checktest.MADT(5, checktest.LAPIC(0, 0, 1), checktest.IOAPIC(2, 0xFEC00000)), checktest.HPET(nil),
		checktest.MCFG(checktest.MCFGEntry(0xE0000000, 0, 0, 255)), checktest.RSDP(2, 0x1000, 0x2000), checktest.SDT("XSDT", 1, checktest.XSDTBody(0x3000)))
	f.Add(checktest.FADT(func(b []byte) { b[8] = 1 })[:130], checktest.MADT(3, []byte{0, 0}), []byte("HPET"), []byte("MCFG"), checktest.RSDP(0, 1, 0), []byte{})
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
		// What a live capture records at each XSDT entry: the first bytes
		// of the fuzzed tables in turn.
		var x *acpi.RootTable
		if f := fsys[input.RecordedDir+"/acpi/XSDT"]; f != nil {
			x, _ = acpi.ParseXSDT(&acpi.Table{Signature: acpi.SigXSDT, Raw: f.Data})
		}
		if x != nil {
			heads := [][]byte{fadt, madt, hpet, mcfg, rsdp}
			var ps []acpi.EntryProbe
			for i, a := range x.Entries[:min(len(x.Entries), 64)] {
				p := acpi.EntryProbe{Root: acpi.SigXSDT, Index: i, Address: a}
				if h := heads[i%len(heads)]; len(h) >= acpi.ProbeSize {
					p.Head = h[:acpi.ProbeSize]
				}
				ps = append(ps, p)
			}
			fsys[input.RecordedDir+"/acpi/"+input.EntriesFile] = &fstest.MapFile{Data: acpi.FormatProbes(ps)}
		}
		m := input.New(checktest.Snapshot{FS: fsys}, input.Options{})
		for _, r := range runAll(m, checks) {
			require.NotEqual(t, tests.StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
		}
	})
}

// runAll runs checks on m with no settings and no machine control.
func runAll(m *input.Machine, checks []*tests.Check) []tests.Result {
	return tests.Run(&tests.Env{Machine: m}, checks)
}

// TestSuitesAreSeen: the split of the ACPI checks into the static and AML
// goldens follows what each check reads.
func TestSuitesAreSeen(t *testing.T) {
	static, aml := suites(t)
	ids := func(cs []*tests.Check) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	t.Logf("static: %v; aml: %v", ids(static), ids(aml))
	assert.Subset(t, ids(static), []string{"acpi-tables", "checksum", "fadt", "hpet", "madt", "mcfg", "mcfg-reserved"})
	assert.Subset(t, ids(aml), []string{"aml-parse", "device-ids", "hpet-crs", "osi", "prw", "resources", "sleep-states", "unique-id"})
	for _, id := range ids(static) {
		assert.NotContains(t, ids(aml), id)
	}
}
