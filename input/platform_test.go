package input

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPCIConfigAndCPUIdleRecorded records the PCI configuration spaces and
// the cpuidle states from a sysfs-shaped tree (device links into
// sys/devices, as the kernel lays them out), takes a snapshot, and reads
// them back from it.
func TestPCIConfigAndCPUIdleRecorded(t *testing.T) {
	cfg := make([]byte, 256)
	cfg[0], cfg[1] = 0x86, 0x80
	root := writeTree(t, map[string]string{
		"sys/devices/pci0000:00/0000:00:1c.0/config":              string(cfg),
		"sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/config": string(cfg[:64]),
		"sys/module/pcie_aspm/parameters/policy":                  "[default] performance powersave powersupersave\n",
		"sys/devices/system/cpu/cpuidle/current_driver":           "acpi_idle\n",
		"sys/devices/system/cpu/cpu0/cpuidle/state0/name":         "POLL\n",
		"sys/devices/system/cpu/cpu0/cpuidle/state0/usage":        "3\n",
		"sys/devices/system/cpu/cpu0/cpuidle/state1/name":         "C1\n",
		"sys/devices/system/cpu/cpu0/cpuidle/state1/desc":         "ACPI HLT\n",
		"sys/devices/system/cpu/cpu0/cpuidle/state1/usage":        "100\n",
		"sys/devices/system/cpu/cpu0/cpuidle/state1/time":         "5000\n",
		"proc/cmdline": "console=ttyS0 quiet\n",
	})
	bus := filepath.Join(root, "sys/bus/pci/devices")
	require.NoError(t, os.MkdirAll(bus, 0o755))
	require.NoError(t, os.Symlink("../../../devices/pci0000:00/0000:00:1c.0", filepath.Join(bus, "0000:00:1c.0")))
	require.NoError(t, os.Symlink("../../../devices/pci0000:00/0000:00:1c.0/0000:01:00.0", filepath.Join(bus, "0000:01:00.0")))

	live := &liveSource{root: root, fsys: os.DirFS(root), recorders: liveRecorders()}
	var buf bytes.Buffer
	_, err := Capture(&buf, live, []Decl{PCIConfig, CPUIdle})
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "s.tar.gz")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o600))
	src, err := Open(p)
	require.NoError(t, err)
	m := New(src, Options{})

	pci, err := PCIConfig.Get(m)
	require.NoError(t, err)
	require.Len(t, pci.Devices, 2)
	assert.Equal(t, "0000:00:1c.0", pci.Devices[0].Addr)
	assert.Equal(t, "", pci.Devices[0].Parent)
	assert.Equal(t, cfg, pci.Devices[0].Config)
	assert.Equal(t, "0000:00:1c.0", pci.Devices[1].Parent, "the parent comes from the device link")
	assert.Len(t, pci.Devices[1].Config, 64)
	assert.Equal(t, "[default] performance powersave powersupersave", pci.ASPMPolicy)

	idle, err := CPUIdle.Get(m)
	require.NoError(t, err)
	assert.Equal(t, "acpi_idle", idle.Driver)
	assert.Equal(t, "console=ttyS0 quiet", idle.Cmdline)
	assert.Equal(t, strings.TrimSuffix(IdleSpan.String(), "s"), idle.Span)
	require.Len(t, idle.CPUs, 1)
	st := idle.CPUs[0].States
	require.Len(t, st, 2)
	assert.Equal(t, "C1", st[1].Name)
	assert.Equal(t, int64(100), st[1].Usage)
	assert.Equal(t, int64(100), st[1].UsageAfter, "the second sample of a tree that did not change")
	assert.Equal(t, int64(5000), st[1].TimeAfter)
}
