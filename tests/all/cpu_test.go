package all

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

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

// FuzzCPUChecks runs the CPU, memory-map and SMBIOS checks on hostile
// recorded inputs (MSR dump, cpuinfo, kernel log, SMBIOS entry point and
// table, BDA): none may abort.
func FuzzCPUChecks(f *testing.F) {
	f.Add([]byte("cpu 0 0xfe 0x508\ncpu 0 0x2ff 0xc06\ncpu 1 0x2ff 0x0\ncpu 0 0x3a 0x1\ncpu 0 0xc0010114 0x18\n"),
		[]byte("processor : 0\nvendor_id : GenuineIntel\nflags : lm\nmicrocode : 0x1\n\nprocessor : 1\nmicrocode : 0x2\n"),
		[]byte("[    0.0] BIOS-e820: [mem 0x0000000000000000-0x00000000000fffff] usable\n[    0.1] MTRR default type: write-back\n[    0.2] mtrr: your CPUs had inconsistent fixed MTRR settings\n"),
		[]byte("_SM_\x00\x1f\x02\x08"), []byte{0, 4, 0, 0, 0, 0}, make([]byte, 256))
	var cs []*tests.Check
	for _, id := range cpuCheckIDs {
		cs = append(cs, tests.Lookup(Checks(), id))
	}
	f.Fuzz(func(t *testing.T, msrs, cpuinfo, klog, ep, dmi, bda []byte) {
		fs := fstest.MapFS{
			"fwcheck/msr.txt": {Data: msrs}, "proc/cpuinfo": {Data: cpuinfo}, "fwcheck/klog.txt": {Data: klog},
			"sys/firmware/dmi/tables/smbios_entry_point": {Data: ep}, "sys/firmware/dmi/tables/DMI": {Data: dmi},
			"fwcheck/bda.bin": {Data: bda},
		}
		for _, r := range tests.Run(&tests.Env{Machine: input.New(checktest.Snapshot{FS: fs}, input.Options{})}, cs) {
			if r.Status == tests.StatusAborted {
				t.Fatalf("%s aborted: %s", r.ID, r.Reason)
			}
		}
	})
}
