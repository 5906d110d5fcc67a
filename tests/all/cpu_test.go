package all

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// cpuCheckIDs are the CPU, memory-map and SMBIOS checks.
var cpuCheckIDs = []string{"cpu-features", "e820", "msr-consistency", "mtrr", "smbios"}

// TestQEMUSnapshotsGolden runs the CPU, memory-map and SMBIOS checks on
// snapshots taken by `fwcheck snapshot` inside QEMU guests (pc/SeaBIOS
// and q35/OVMF, two vCPUs under TCG, booted with clearcpuid=mtrr so that
// the kernel leaves the firmware's MTRRs as they were; see
// image.TestBootCPUChecks) and compares with testdata/snapshots/golden.
// The application vCPU's MTRRs are unset, the SMBIOS tables lack cache and
// slot structures and the UUID is zero: all explained by the virtual
// machine, none failing.
func TestQEMUSnapshotsGolden(t *testing.T) {
	var cs []*tests.Check
	for _, id := range cpuCheckIDs {
		cs = append(cs, tests.Lookup(Checks(), id))
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "snapshots", "*.tar.gz"))
	require.NotEmpty(t, paths)
	var names []string
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".tar.gz")
		names = append(names, name)
		t.Run(name, func(t *testing.T) {
			src, err := input.Open(p)
			require.NoError(t, err)
			rs := tests.Run(&tests.Env{Machine: input.New(src, input.Options{})}, cs)
			for _, r := range rs {
				assert.NotEqual(t, tests.StatusFailed, r.Status, "%s: %s", r.ID, tests.Render([]tests.Result{r}))
				assert.NotEqual(t, tests.StatusSkipped, r.Status, "%s: %s", r.ID, r.Reason)
			}
			checktest.Golden(t, filepath.Join("testdata", "snapshots", "golden"), name, tests.Render(rs))
		})
	}
	checktest.NoStaleGolden(t, filepath.Join("testdata", "snapshots", "golden"), names)
}
