package input

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
)

// TestMSRsCaptureAndReopen reads MSRs from a live root whose
// /dev/cpu/N/msr are plain files (8 bytes at each register's offset),
// captures a snapshot and reads the same values back from it; the PCI
// resources and SMBIOS tables go the same way.
func TestMSRsCaptureAndReopen(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/bus/pci/devices/0000:00:02.0/resource":  "0x00000000fd000000 0x00000000fdffffff 0x0000000000042208\n0x0000000000000000 0x0000000000000000 0x0000000000000000\n",
		"sys/firmware/dmi/tables/smbios_entry_point": "_SM3_",
		"sys/firmware/dmi/tables/DMI":                "\x7f\x04\x00\x00\x00\x00",
		"proc/cpuinfo":                               "processor : 0\nvendor_id : GenuineIntel\n\nprocessor : 1\nvendor_id : GenuineIntel\n",
		"dev/cpu/0/cpuid":                            strings.Repeat("\x01", 32),
	})
	for cpu, def := range map[int]uint64{0: 0xC06, 1: 0x0} {
		dev := filepath.Join(root, "dev/cpu", string(rune('0'+cpu)), "msr")
		require.NoError(t, os.MkdirAll(filepath.Dir(dev), 0o755))
		f, err := os.Create(dev)
		require.NoError(t, err)
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], def)
		_, err = f.WriteAt(b[:], 0x2FF)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	live := &liveSource{root: root, fsys: os.DirFS(root), recorders: liveRecorders()}
	var buf bytes.Buffer
	_, err := Capture(&buf, live, []Decl{MSRs, PCIBARs, SMBIOS, CPUInfo, CPUID})
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "s.tar.gz")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o600))
	src, err := Open(p)
	require.NoError(t, err)
	m := New(src, Options{})
	d, err := MSRs.Get(m)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, d.CPUs())
	v, ok := d.Get(1, 0x2FF)
	assert.True(t, ok)
	assert.Equal(t, uint64(0), v)
	v, _ = d.Get(0, 0x2FF)
	assert.Equal(t, uint64(0xC06), v)
	assert.Contains(t, d.Errors[0], uint32(0xC0010010), "registers past the file's end fail as missing MSRs do")
	bars, err := PCIBARs.Get(m)
	require.NoError(t, err)
	require.Len(t, bars, 1)
	assert.True(t, bars[0].Prefetchable)
	sm, err := SMBIOS.Get(m)
	require.NoError(t, err)
	assert.Equal(t, []byte("_SM3_"), sm.EntryPoint)
	ids, err := CPUID.Get(m)
	require.NoError(t, err)
	r, ok := ids.Get(0, cpuinfo.Leaf{Leaf: 1})
	assert.True(t, ok, "leaf 1 is within the 32-byte file")
	assert.Equal(t, uint32(0x01010101), r[0])
	_, ok = ids.Get(0, cpuinfo.Leaf{Leaf: 0x80000000})
	assert.False(t, ok, "leaf 0x80000000 is past the file: a failed read ends the CPU's leaves")
	cpus, err := CPUInfo.Get(m)
	require.NoError(t, err)
	assert.Len(t, cpus, 2)
}

func FuzzParsePCIBARs(f *testing.F) {
	f.Add([]byte("0000:00:02.0 0x00000000fd000000 0x00000000fdffffff 0x0000000000042208\n"))
	f.Fuzz(func(t *testing.T, b []byte) { ParsePCIBARs(b) })
}

// TestEachCPU: the one per-CPU loop visits CPUs in numeric order (10 after
// 2), goes on past a CPU whose device is missing, and says which device
// was missing when no CPU gave anything.
func TestEachCPU(t *testing.T) {
	root := writeTree(t, map[string]string{
		"dev/cpu/0/cpuid":  strings.Repeat("\x02", 16),
		"dev/cpu/2/cpuid":  strings.Repeat("\x03", 16),
		"dev/cpu/10/cpuid": strings.Repeat("\x04", 16),
		"dev/cpu/1/other":  "",
	})
	var seen []int
	n := 0
	err := eachCPU(root, "cpuid", func(cpu int, dev string) error {
		seen = append(seen, cpu)
		f, err := os.Open(dev)
		if err != nil {
			return err
		}
		n++
		return f.Close()
	}, func() bool { return n > 0 })
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 10}, seen)
	assert.Equal(t, 3, n)

	b, err := recordCPUID(root)
	require.NoError(t, err)
	c, err := cpuinfo.ParseCPUID(b)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2, 10}, c.CPUs())

	empty := writeTree(t, map[string]string{"dev/cpu/0/other": ""})
	_, err = recordMSRs(empty)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dev/cpu/0/msr: no such file or directory")
	_, err = recordCPUID(writeTree(t, map[string]string{"dev/cpu/.keep": ""}))
	require.EqualError(t, err, "no /dev/cpu/N/cpuid device (is the cpuid module available?)")
}
