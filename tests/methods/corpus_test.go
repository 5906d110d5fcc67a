package methods

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// corpusMachine is one machine of the shared corpus.
type corpusMachine struct {
	name string
	path string // an acpidump file or a directory of tables
}

func fullDumps(t testing.TB) []corpusMachine {
	var out []corpusMachine
	for _, p := range corpus.Glob(t, "acpi/linuxhw/full/*.acpidump.txt.gz") {
		out = append(out, corpusMachine{strings.TrimSuffix(filepath.Base(p), ".acpidump.txt.gz"), p})
	}
	return out
}

// qemuDumps writes each QEMU configuration's base tables into a directory.
func qemuDumps(t testing.TB) []corpusMachine {
	var out []corpusMachine
	root := corpus.Dir(t, "acpi", "qemu")
	for _, m := range []string{"pc", "q35", "microvm", "virt"} {
		src := filepath.Join(root, m)
		variants := map[string]bool{"": true}
		fs, _ := filepath.Glob(filepath.Join(src, "DSDT.*"))
		for _, f := range fs {
			variants[strings.TrimPrefix(filepath.Base(f), "DSDT.")] = true
		}
		for v := range variants {
			ts, err := acpi.LoadQEMU(os.DirFS(src), ".", v)
			if err != nil {
				continue
			}
			dir := t.TempDir()
			require.NoError(t, acpi.WriteFiles(dir, ts.List))
			name := "qemu-" + m
			if v != "" {
				name += "." + v
			}
			out = append(out, corpusMachine{name, dir})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// TestCorpusFindings runs the check over every full dump and QEMU DSDT:
// it never aborts, QEMU gets no failure of medium or above, and with -v
// it prints each label's machines (the table in README.md).
func TestCorpusFindings(t *testing.T) {
	byLabel := map[string][]string{}
	for _, m := range append(fullDumps(t), qemuDumps(t)...) {
		r := checktest.Run(t, Check, checktest.DumpMachine(m.path))
		require.NotEqual(t, tests.StatusAborted, r.Status, "%s: %s", m.name, r.Reason)
		seen := map[string]bool{}
		for _, f := range r.Findings {
			if f.Label == "" {
				continue
			}
			if testing.Verbose() && os.Getenv("FWCHECK_METHODS_ALL") != "" {
				t.Logf("%s: %s %s: %s", m.name, f.Kind, f.Label, f.Message)
			}
			k := string(f.Kind) + " " + f.Label
			if !seen[k] {
				seen[k] = true
				byLabel[k] = append(byLabel[k], m.name)
			}
			if strings.HasPrefix(m.name, "qemu-") && f.Kind == tests.KindFail && f.Severity >= tests.Medium {
				t.Errorf("%s: %s: %s", m.name, f.Label, f.Message)
			}
		}
		if testing.Verbose() {
			for _, u := range r.Unchecked {
				t.Logf("%s: NOT CHECKED %s: %s", m.name, u.What, u.Reason)
			}
		}
	}
	var keys []string
	for k := range byLabel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Log(fmt.Sprintf("%-40s %2d %s", k, len(byLabel[k]), strings.Join(byLabel[k], " ")))
	}
}
