package input

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
)

// needRoot skips a test of what root is told: the live source's privilege
// is the process's own.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("what root is told: run as root")
	}
}

// Root on a machine whose kernel has no /dev/mem: the BDA's remedy says
// so, and never "run as root".
func TestRemedyRootWithoutDevMem(t *testing.T) {
	needRoot(t)
	root := t.TempDir() // a machine root with no dev/mem
	m := New(Live(root), Options{})
	_, err := BDA.Get(m)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dev/mem: no such file or directory")
	r := m.Remedy(err, "run as root on the machine: the BDA is read through /dev/mem")
	assert.Contains(t, r, "this kernel has no /dev/mem")
	assert.Contains(t, r, "CONFIG_DEVMEM")
	assert.NotContains(t, r, "run as root")
}

// Root where the msr module cannot be loaded: modprobe's own words are
// kept and the remedy names the module and the kernel option.
func TestRemedyRootWithoutMSRModule(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "dev/cpu/0"), 0o755)) // CPUs, no msr devices
	m := New(Live(root), Options{})
	_, err := MSRs.Get(m)
	require.Error(t, err)
	r := m.Remedy(err, "run as root with the msr module")
	assert.Equal(t, "load the msr module (modprobe msr); the kernel needs CONFIG_X86_MSR", r)

	// What modprobe really says of a module the kernel does not have.
	if _, err := exec.LookPath("modprobe"); err != nil {
		t.Skip("no modprobe")
	}
	said := loadModule("fwcheck_no_such_module")
	require.Contains(t, said, "modprobe: FATAL: Module fwcheck_no_such_module not found")
	said = strings.ReplaceAll(said, "fwcheck_no_such_module", "msr")
	reason := "msrs unavailable: no /dev/cpu/N/msr device (is the msr module available?); " + said
	r = remedyFor(Live(root), "msrs", reason, "run as root with the msr module")
	assert.Contains(t, r, "this kernel has no msr driver (modprobe: FATAL: Module msr not found")
	assert.Contains(t, r, "CONFIG_X86_MSR")
	assert.NotContains(t, r, "run as root")
}

// A snapshot taken as root on a machine without /dev/mem: run --from it,
// the RSDP's remedy names the snapshot and the cause recorded where it was
// taken, not root.
func TestRemedySnapshotTakenAsRoot(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	tables := filepath.Join(root, "sys/firmware/acpi/tables")
	require.NoError(t, os.MkdirAll(tables, 0o755))
	facp := make([]byte, 36)
	copy(facp, "FACP")
	facp[4] = 36
	require.NoError(t, os.WriteFile(filepath.Join(tables, "FACP"), facp, 0o644))
	snap := filepath.Join(t.TempDir(), "snap.tar.gz")
	f, err := os.Create(snap)
	require.NoError(t, err)
	res, err := CaptureReport(f, Live(root), []Decl{ACPITables, BDA}, CaptureOptions{})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	var bda *NotCaptured
	for i := range res.Missing {
		if res.Missing[i].Input == "bda" {
			bda = &res.Missing[i]
		}
	}
	require.NotNil(t, bda, "%+v", res.Missing)
	assert.False(t, bda.Absent, "a device that could not be read is not an absent feature")

	src, err := Open(snap)
	require.NoError(t, err)
	m := New(src, Options{})
	ts, err := ACPITables.Get(m)
	require.NoError(t, err)
	reason, remedy := ts.RootAbsence(acpi.SigRSDP)
	assert.Contains(t, reason, "RSDP")
	assert.Contains(t, remedy, "the snapshot "+snap)
	assert.Contains(t, remedy, "this kernel has no /dev/mem")
	assert.NotContains(t, remedy, "run as root")

	_, err = BDA.Get(m)
	require.Error(t, err)
	r := m.Remedy(err, "run as root on the machine: the BDA is read through /dev/mem")
	assert.Contains(t, r, "the snapshot "+snap)
	assert.Contains(t, r, "/dev/mem")
	assert.NotContains(t, r, "run as root")
}

// Without root on the live machine, or with only files given, the check's
// own words stand.
func TestRemedyElsewhere(t *testing.T) {
	assert.Equal(t, "run as root", New(Empty(), Options{}).Remedy(&Unavailable{"bda", "x"}, "run as root"))
	var m *Machine
	assert.Equal(t, "run as root", m.Remedy(&Unavailable{"bda", "x"}, "run as root"))
	if os.Geteuid() != 0 {
		assert.Equal(t, "run as root", New(Live(t.TempDir()), Options{}).Remedy(&Unavailable{"bda", "open /dev/mem: permission denied"}, "run as root"))
	}
	// Root, a restricted /dev/mem and no lockdown.
	assert.Contains(t, rootCause(Empty(), "open /dev/mem: operation not permitted"), "iomem=relaxed")
	assert.Contains(t, rootCause(Empty(), "read /dev/mem at 0x400: bad address"), "iomem=relaxed")
	arm := rootCause(Empty(), "read /dev/mem at 0x7bca0018: bad address ("+arm64DevMem+")")
	assert.Contains(t, arm, "no boot option lets an arm64 kernel read RAM")
	assert.NotContains(t, arm, "iomem=relaxed", "the remedy that does not work on arm64")
	// Locked down.
	lock, err := newMemFS(map[string]*memFile{"sys/kernel/security/lockdown": {data: []byte("none [integrity] confidentiality\n")}})
	require.NoError(t, err)
	assert.Contains(t, rootCause(snapshot{name: "x", fsys: lock}, "open /dev/mem: operation not permitted"), "/dev/mem refused: kernel lockdown (integrity): run again with Secure Boot off")
}

// TestMemoryMapX86Only: an arm64 machine has no /sys/firmware/memmap by
// design, and the reason says so instead of blaming the kernel's build.
func TestMemoryMapX86Only(t *testing.T) {
	arm := fstest.MapFS{"fwcheck/arch.txt": {Data: []byte("arm64\n")}, "proc/version": {Data: []byte("Linux")}}
	_, err := MemoryMap.Get(New(snapshot{name: "s", fsys: arm}, Options{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x86 only: Linux fills it from the e820 map, and this is an arm64 machine, says the snapshot")
	x86 := fstest.MapFS{"fwcheck/arch.txt": {Data: []byte("amd64\n")}, "proc/version": {Data: []byte("Linux")}}
	_, err = MemoryMap.Get(New(snapshot{name: "s", fsys: x86}, Options{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not hold the firmware memory map", "x86: the usual reason")
}
