package all

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// amlChecks are the checks that read the AML namespace, taken from the
// list drivers run (see suites).
func amlChecks(t testing.TB) []*tests.Check {
	t.Helper()
	_, aml := suites(t)
	return aml
}

// amlGoldenCases are the corpus machines that carry AML: the 36 full
// linuxhw dumps (the core ones hold no DSDT/SSDT) and QEMU's base
// configurations.
func amlGoldenCases(t *testing.T) []goldenCase {
	var out []goldenCase
	for _, c := range goldenCases(t) {
		if !strings.HasPrefix(c.name, "core-") {
			out = append(out, c)
		}
	}
	return out
}

// TestAMLGolden runs the AML checks over the corpus machines and compares
// the findings with testdata/aml/golden/NAME.txt (regenerate with
// -update and review the diff).
func TestAMLGolden(t *testing.T) {
	checks := amlChecks(t)
	dir := filepath.Join("testdata", "aml", "golden")
	var names []string
	for _, c := range amlGoldenCases(t) {
		names = append(names, c.name)
		t.Run(c.name, func(t *testing.T) {
			rs := runAll(c.m(t), checks)
			for _, r := range rs {
				require.NotEqual(t, tests.StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
			}
			checktest.Golden(t, dir, c.name, tests.Render(rs))
		})
	}
	checktest.NoStaleGolden(t, dir, names)
}

// TestAMLFindingCounts prints how many machines carry each AML label and
// status (run with -v).
func TestAMLFindingCounts(t *testing.T) {
	checks := amlChecks(t)
	counts := map[string]int{}
	for _, c := range amlGoldenCases(t) {
		for _, r := range runAll(c.m(t), checks) {
			counts["status "+r.ID+" "+string(r.Status)]++
			seen := map[string]bool{}
			for _, f := range r.Findings {
				if f.Label != "" && !seen[f.Label] {
					seen[f.Label] = true
					counts[string(f.Kind)+" "+f.Label]++
				}
			}
		}
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%5d %s", counts[k], k)
	}
}

// FuzzAMLChecks runs the AML checks over a fuzzed DSDT (beside a clean
// FADT and HPET): a check must report, never abort or panic.
func FuzzAMLChecks(f *testing.F) {
	for _, p := range []string{"../hpetcrs/testdata/dsdt.aml", "../prw/testdata/dsdt.aml", "../uniqueid/testdata/dsdt.aml", "../../acpi/aml/testdata/eval.aml"} {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b[36:])
	}
	checks := amlChecks(f)
	f.Fuzz(func(t *testing.T, aml []byte) {
		m := checktest.Machine(t, nil, checktest.Table{Raw: checktest.FADT(nil)}, checktest.Table{Raw: checktest.HPET(nil)},
			checktest.Table{Raw: checktest.SDT("DSDT", 2, aml)})
		for _, r := range runAll(m, checks) {
			require.NotEqual(t, tests.StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
		}
	})
}
