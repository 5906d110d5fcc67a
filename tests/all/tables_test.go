package all

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/acpistruct"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// tableCheckIDs are the checks of the optional description tables (issue
// 25), golden-tested apart from the core ACPI suite so that each has its
// own files: testdata/acpi/tables/NAME.txt.
var tableCheckIDs = []string{"fpdt", "bgrt", "wsmt", "dmar", "lpit", "ivrs", "dbg2", "dbgp", "spcr", "ecdt", "bert",
	"hest", "erst", "einj", "srat", "slit", "msct", "hmat", "crat", "cdit", "acpi-structure",
	"gtdt", "iort", "pptt", "phat", "nfit", "pcct", "sdev", "mpst"}

// tableSigs are the signatures those checks read, with the tables they
// consult across (FADT, MADT, HPET, DSDT).
var tableSigs = append([]string{"FPDT", "BGRT", "WSMT", "DMAR", "LPIT", "IVRS", "DBG2", "DBGP", "SPCR", "ECDT", "BERT",
	"HEST", "ERST", "EINJ", "SRAT", "SLIT", "MSCT", "HMAT", "CRAT", "CDIT",
	"GTDT", "IORT", "PPTT", "PHAT", "NFIT", "PCCT", "SDEV", "MPST"}, acpistruct.Signatures()...)

func tableChecks(t testing.TB) []*tests.Check {
	t.Helper()
	var cs []*tests.Check
	for _, id := range tableCheckIDs {
		c := tests.Lookup(Checks(), id)
		require.NotNil(t, c, id)
		cs = append(cs, c)
	}
	return cs
}

// The table checks' goldens are TestACPIGolden's: its check list comes
// from tests/all, so every table check is in it.

// TestTableLabelMachines keeps the label → corpus machines table in each
// table check's package doc true, and holds the rule that a label no real
// machine has is reported as a warning: a label seen in the corpus must be
// a failure (after its occurrence was read against the specification),
// and a failure label must have been seen. -update rewrites the doc
// tables.
func TestTableLabelMachines(t *testing.T) {
	checks := tableChecks(t)
	seen := map[string][]string{}    // label → machines
	kinds := map[string]tests.Kind{} // label → kind it was reported with
	for _, c := range goldenCases(t) {
		if strings.HasPrefix(c.name, "qemu-") {
			continue
		}
		for _, r := range runAll(c.m(t), checks) {
			got := map[string]bool{}
			for _, f := range r.Findings {
				if f.Label == "" || (f.Kind != tests.KindFail && f.Kind != tests.KindWarning) || got[f.Label] {
					continue
				}
				got[f.Label] = true
				seen[f.Label] = append(seen[f.Label], c.name)
				kinds[f.Label] = f.Kind
			}
		}
	}
	// One table per package doc, with the labels of every check the
	// package holds (dbg2 holds dbg2 and dbgp).
	var files []string
	labelsOf := map[string][]*tests.Label{}
	for _, c := range checks {
		pkg := c.ID
		if p, ok := checkPackage[c.ID]; ok {
			pkg = p
		}
		path := filepath.Join("..", pkg, pkg+".go")
		if labelsOf[path] == nil {
			files = append(files, path)
		}
		labelsOf[path] = append(labelsOf[path], c.Labels...)
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		var rows []string
		width := 0
		for _, l := range labelsOf[path] {
			width = max(width, len(l.Name))
		}
		for _, l := range labelsOf[path] {
			rows = append(rows, fmt.Sprintf("//\t%-*s  %s", width, l.Name, machines(seen[l.Name])))
			if len(seen[l.Name]) > 0 {
				assert.Equal(t, tests.KindFail, kinds[l.Name], "%s is seen in the corpus (%s): read an occurrence against the spec and make it a failure", l.Name, seen[l.Name][0])
			}
		}
		block := regexp.MustCompile(`(?m)^// Labels and the corpus machines[^\n]*\n(//[^\n]*\n)*?//\n((//\t[^\n]*\n)+)`)
		m := block.FindSubmatchIndex(src)
		require.NotNil(t, m, "%s: no label table in the package doc", path)
		want := strings.Join(rows, "\n") + "\n"
		got := string(src[m[4]:m[5]])
		if *checktest.Update {
			out := string(src[:m[4]]) + want + string(src[m[5]:])
			require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
			continue
		}
		assert.Equal(t, want, got, "%s: the label table is stale (go test ./tests/all -run TestTableLabelMachines -update)", path)
	}
}

// checkPackage names the package of the checks that share one with
// another check (its doc holds both label tables).
var checkPackage = map[string]string{"dbgp": "dbg2", "einj": "erst", "slit": "srat", "msct": "srat", "hmat": "srat", "cdit": "crat", "acpi-structure": "acpistruct"}

func machines(ms []string) string {
	if len(ms) == 0 {
		return "none"
	}
	sort.Strings(ms)
	short := make([]string, 0, 4)
	for _, m := range ms[:min(len(ms), 4)] {
		short = append(short, strings.Replace(m, "-", "/", 1))
	}
	s := fmt.Sprintf("%d: %s", len(ms), strings.Join(short, " "))
	if len(ms) > 4 {
		s += " …"
	}
	return s
}

// qemuDeviations are findings QEMU's stored tables really have, by label
// and machine: each is a deviation of QEMU's, not a false finding.
//
// IORTITSUnknown on virt: every stored virt configuration has a GICv2
// (the MADT has a GIC MSI frame and no GIC ITS structure), yet its IORT
// carries an ITS group naming ITS 0, the ID the root complex's mapping
// points at: the ITS the IORT routes PCIe MSIs to does not exist in that
// configuration.
var qemuDeviations = map[string]string{"IORTITSUnknown": "virt"}

// TestTableQEMUNoFinding: QEMU's tables, in every test configuration, have
// no failure or warning of medium or above from the table checks, apart
// from QEMU's known deviations (qemuDeviations).
func TestTableQEMUNoFinding(t *testing.T) {
	checks := tableChecks(t)
	for _, machine := range []string{"pc", "q35", "microvm", "virt"} {
		src := filepath.Join(corpus.Dir(t, "acpi", "qemu"), machine)
		variants, err := acpi.QEMUVariants(os.DirFS(src), ".")
		require.NoError(t, err)
		for _, v := range append([]string{""}, variants...) {
			for _, r := range runAll(qemuMachine(t, machine, v), checks) {
				require.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
				for _, f := range r.Findings {
					if (f.Kind == tests.KindFail || f.Kind == tests.KindWarning) && qemuDeviations[f.Label] != machine {
						assert.LessOrEqual(t, f.Severity, tests.Low, "%s/%s %s: %s %s", machine, v, r.ID, f.Label, f.Message)
					}
				}
			}
		}
	}
}

// TestTableBitFlips loads every corpus dump's tables of tableSigs with
// bits flipped (64 variants of each table, the checksum left wrong as a
// corrupted table would be) and runs the table checks: none may abort.
// The AML tables are left out (each set would load its namespace again);
// TestACPIGolden runs the checks that read them over the whole dumps.
func TestTableBitFlips(t *testing.T) {
	checks := tableChecks(t)
	rng := rand.New(rand.NewPCG(25, 25))
	runs := 0
	for _, c := range goldenCases(t) {
		if strings.HasPrefix(c.name, "qemu-") {
			continue
		}
		ts := loadCase(t, c.name)
		for _, sig := range tableSigs {
			for _, tab := range ts.Get(sig) {
				for range 64 {
					raw := append([]byte(nil), tab.Raw...)
					for range 1 + rng.IntN(4) {
						i := rng.IntN(len(raw))
						raw[i] ^= 1 << rng.IntN(8)
					}
					fsys := fstest.MapFS{}
					for _, o := range ts.List {
						if o.Signature == acpi.SigRSDP || o.Signature == acpi.SigXSDT || o.Signature == acpi.SigRSDT || o.Signature == acpi.SigSSDT || o.Signature == acpi.SigDSDT {
							continue
						}
						b := o.Raw
						if o == tab {
							b = raw
						}
						fsys[acpi.SysfsDir+"/"+o.Name()] = &fstest.MapFile{Data: b}
					}
					m := input.New(checktest.Snapshot{FS: fsys}, input.Options{})
					for _, r := range runAll(m, checks) {
						require.NotEqual(t, tests.StatusAborted, r.Status, "%s %s %s: %s", c.name, tab.Name(), r.ID, r.Reason)
					}
					runs++
				}
			}
		}
	}
	t.Logf("%d bit-flipped table sets, no check aborted", runs)
}

func loadCase(t *testing.T, name string) *acpi.Tables {
	t.Helper()
	var p string
	if rest, ok := strings.CutPrefix(name, "core-"); ok {
		p = filepath.Join(corpus.Dir(t, "acpi", "linuxhw", "core"), rest+".acpidump.txt")
	} else {
		p = filepath.Join(corpus.Dir(t, "acpi", "linuxhw", "full"), strings.TrimPrefix(name, "full-")+".acpidump.txt.gz")
	}
	ts, err := acpi.LoadDumpFile(p)
	require.NoError(t, err)
	return ts
}

// BenchmarkAllACPIChecksCorpus loads every corpus dump and runs every ACPI
// check over it in one process: the ones that read only the tables (the
// description-table checks among them) and the AML checks, methods
// included.
func BenchmarkAllACPIChecksCorpus(b *testing.B) {
	static, aml := suites(b) // every ACPI check: the table checks are among the static ones
	checks := append(static, aml...)
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
