package all

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
)

// qemuArtefacts are the medium-or-above findings every ACPI static check
// has on QEMU's stored tables that are not QEMU's firmware at fault, by
// label, with why. QEMU's test tooling zeroes the FADT's DSDT and FACS
// pointers before it stores the expected tables (the shared corpus's
// README says so), so the FADT there points at neither: on a booted QEMU
// guest both are set.
var qemuArtefacts = map[string]string{
	"FADTDSDTMissing": "QEMU's test tooling zeroes the FADT's DSDT pointers in the stored tables",
	"FADTFACSMissing": "QEMU's test tooling zeroes the FADT's FACS pointers in the stored tables",
}

// TestACPIQEMUNoFinding: every check of the ACPI static-table suite (the
// table checks of issue 25 among them; TestTableQEMUNoFinding holds those
// alone) finds nothing of medium or above on QEMU's tables, in every
// stored configuration, apart from the artefacts of QEMU's test tooling
// (qemuArtefacts) and QEMU's known deviations (qemuDeviations).
func TestACPIQEMUNoFinding(t *testing.T) {
	checks := acpiChecks(t)
	seen := map[string]int{}
	sets := 0
	for _, machine := range []string{"pc", "q35", "microvm", "virt"} {
		src := filepath.Join(corpus.Dir(t, "acpi", "qemu"), machine)
		variants, err := acpi.QEMUVariants(os.DirFS(src), ".")
		require.NoError(t, err)
		for _, v := range append([]string{""}, variants...) {
			sets++
			for _, r := range runAll(qemuMachine(t, machine, v), checks) {
				require.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
				for _, f := range r.Findings {
					if f.Kind != tests.KindFail && f.Kind != tests.KindWarning || f.Severity <= tests.Low {
						continue
					}
					if qemuArtefacts[f.Label] != "" || qemuDeviations[f.Label] == machine {
						seen[f.Label]++
						continue
					}
					assert.Fail(t, "finding on QEMU's tables", "%s/%s %s: %s [%s] %s", machine, v, r.ID, f.Label, f.Severity, f.Message)
				}
			}
		}
	}
	t.Logf("%d QEMU table sets; only the named artefacts and deviations: %v", sets, seen)
}
