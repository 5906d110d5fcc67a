// Package platformtest builds machines from the offline sysfs fixtures of
// the platform checks (testdata/README.md says where each value comes from).
package platformtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// Fixture is a machine over the fixture tree testdata/name (see
// testdata/README.md): its sysfs classes read as the live recorder reads
// them, its other files copied, plus extra files.
func Fixture(tb testing.TB, name string, extra map[string][]byte) *input.Machine {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "testdata", name)
	fsys := os.DirFS(root)
	files := map[string][]byte{}
	for rec, dir := range map[string]string{input.ThermalFile: sysdev.ThermalDir, input.PowerSupplyFile: sysdev.PowerSupplyDir} {
		want := sysdev.WantThermal
		if dir == sysdev.PowerSupplyDir {
			want = sysdev.WantPower
		}
		d, err := sysdev.ReadTree(fsys, dir, want)
		if err != nil {
			d = sysdev.NewDump()
		}
		files[input.RecordedDir+"/"+rec] = d.Marshal()
	}
	// The cpuidle states, sampled twice: the tree's counters, then those
	// of cpuidle-after (the same CPU directories, usage and time only).
	idle := sysdev.ReadCPUIdle(fsys)
	if _, err := fs.Stat(fsys, "cpuidle-after"); err == nil {
		idle.AddAfter(sysdev.ReadCPUIdleAt(fsys, "cpuidle-after"))
		idle.Attrs["sample/seconds"] = "2"
	}
	files[input.RecordedDir+"/"+input.CPUIdleFile] = idle.Marshal()
	// Plain files (no links in these trees): the lid, the cpufreq policies,
	// recorded values (fwcheck/cpu-speed.txt).
	copyTree := func(root string) error {
		return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			b, err := fs.ReadFile(fsys, p)
			require.NoError(tb, err)
			files[p] = b
			return nil
		})
	}
	require.NoError(tb, copyTree("proc"))
	require.NoError(tb, copyTree("sys/devices"))
	if _, err := fs.Stat(fsys, input.RecordedDir); err == nil {
		require.NoError(tb, copyTree(input.RecordedDir))
	}
	for k, v := range extra {
		files[k] = v
	}
	return checktest.FilesMachine(tb, files)
}
