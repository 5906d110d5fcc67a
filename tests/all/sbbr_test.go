package all

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/sbbr"
)

// sbbrCases are the table sets the sbbr profile's goldens cover: QEMU's
// arm64 virt machine in every configuration its test data has, and one
// x86 machine (q35), on which the profile must say it does not apply.
func sbbrCases(t *testing.T) []goldenCase {
	src := filepath.Join(corpus.Dir(t, "acpi", "qemu"), "virt")
	variants, err := acpi.QEMUVariants(os.DirFS(src), ".")
	require.NoError(t, err)
	var cs []goldenCase
	for _, v := range append([]string{""}, variants...) {
		v, name := v, "qemu-virt"
		if v != "" {
			name += "-" + v
		}
		cs = append(cs, goldenCase{name, func(tb testing.TB) *input.Machine { return qemuMachine(tb, "virt", v) }})
	}
	return append(cs, goldenCase{"qemu-q35", func(tb testing.TB) *input.Machine { return qemuMachine(tb, "q35", "") }})
}

// TestACPIGoldenSBBR runs the ACPI checks (static tables and AML) under
// the sbbr profile (its own check added, its severities applied) and compares the
// findings with testdata/acpi/sbbr/NAME.txt; -update rewrites them.
func TestACPIGoldenSBBR(t *testing.T) {
	pr, err := Profile("sbbr")
	require.NoError(t, err)
	static, aml := suites(t)
	checks, err := pr.Select(append(static, aml...), tests.Selection{})
	require.NoError(t, err)
	require.NotNil(t, tests.Lookup(checks, sbbr.Check.ID))
	dir := filepath.Join("testdata", "acpi", "sbbr")
	var names []string
	for _, c := range sbbrCases(t) {
		names = append(names, c.name)
		t.Run(c.name, func(t *testing.T) {
			rs := tests.Run(&tests.Env{Machine: c.m(t), Profile: pr}, checks)
			for _, r := range rs {
				assert.NotEqual(t, tests.StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
				if r.ID == sbbr.Check.ID && c.name == "qemu-q35" {
					assert.Equal(t, tests.StatusNotApplicable, r.Status)
					assert.Contains(t, r.Reason, "does not apply")
				}
			}
			checktest.Golden(t, dir, c.name, tests.Render(rs))
		})
	}
	checktest.NoStaleGolden(t, dir, names)
}

// TestSBBRProfileSeverity: the same finding (no SBSA watchdog in QEMU
// virt's GTDT) has the label's own severity without a profile and the
// one the sbbr profile gives it under the profile.
func TestSBBRProfileSeverity(t *testing.T) {
	pr, err := Profile("sbbr")
	require.NoError(t, err)
	c := tests.Lookup(Checks(), "gtdt")
	find := func(p *tests.Profile) tests.Finding {
		r := tests.RunOne(&tests.Env{Machine: qemuMachine(t, "virt", ""), Profile: p}, c)
		for _, f := range r.Findings {
			if f.Label == "GTDTNoWatchdog" {
				return f
			}
		}
		t.Fatal("no GTDTNoWatchdog finding on QEMU virt")
		return tests.Finding{}
	}
	assert.Equal(t, tests.Low, find(nil).Severity)
	assert.Equal(t, tests.Medium, find(pr).Severity)
	assert.Equal(t, tests.KindWarning, find(pr).Kind, "an unconfirmed label stays a warning under any profile")
}

// FuzzArmChecks: QEMU virt's tables with one Arm table (GTDT, IORT,
// PPTT or the MADT) replaced by fuzzed bytes; the Arm checks and the
// sbbr check never abort.
func FuzzArmChecks(f *testing.F) {
	dir := filepath.Join(corpus.Root(), "acpi", "qemu", "virt")
	sigs := []string{"GTDT", "IORT", "PPTT", "APIC"}
	base := map[string][]byte{}
	for _, sig := range append(sigs, "FACP", "SPCR", "DBG2", "MCFG") {
		if b, err := os.ReadFile(filepath.Join(dir, sig)); err == nil {
			base[sig] = b
		}
	}
	if len(base) < 8 {
		f.Skip("shared corpus absent")
	}
	for i, sig := range sigs {
		f.Add(uint8(i), base[sig])
	}
	var checks []*tests.Check
	for _, id := range []string{"gtdt", "iort", "pptt", "madt"} {
		checks = append(checks, tests.Lookup(Checks(), id))
	}
	checks = append(checks, sbbr.Check)
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		sig := sigs[int(which)%len(sigs)]
		if len(b) < 8 {
			return
		}
		b = append([]byte(sig), b[4:]...)
		fs := fstest.MapFS{}
		for s, raw := range base {
			if s == sig {
				raw = b
			}
			fs["sys/firmware/acpi/tables/"+s] = &fstest.MapFile{Data: raw}
		}
		m := input.New(checktest.Snapshot{FS: fs}, input.Options{})
		for _, r := range tests.Run(&tests.Env{Machine: m}, checks) {
			require.NotEqual(t, tests.StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
		}
	})
}
