package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The recorders read a machine's sysfs: built here as a fake root.
func TestRecordSecurityInputs(t *testing.T) {
	root := t.TempDir()
	put := func(p string, b []byte) {
		full := filepath.Join(root, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, b, 0o644))
	}
	put("sys/bus/thunderbolt/devices/domain0/security", []byte("user\n"))
	put("sys/bus/thunderbolt/devices/domain0/iommu_dma_protection", []byte("1\n"))
	put("sys/bus/thunderbolt/devices/0-0/security", []byte("x\n"))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/class/iommu/dmar0"), 0o755))
	put("proc/cmdline", []byte("quiet intel_iommu=on\x1b[2J\n"))

	b, err := recordDMAState(root)
	require.NoError(t, err)
	s, err := ParseDMAState(b)
	require.NoError(t, err)
	assert.Equal(t, []string{"dmar0"}, s.IOMMUs)
	assert.Equal(t, []ThunderboltDomain{{Name: "domain0", Security: "user", DMAProtection: "1"}}, s.Thunderbolt)
	assert.Equal(t, "quiet intel_iommu=on?[2J", s.Cmdline, "no control character is recorded")
}

func FuzzParseDMAState(f *testing.F) {
	f.Add([]byte("iommu dmar0\nthunderbolt domain0 security=user iommu_dma_protection=1\ncmdline quiet\n"))
	f.Add([]byte("thunderbolt\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseDMAState(b)
		if err == nil && len(s.IOMMUs)+len(s.Thunderbolt) > 4097 {
			t.Fatalf("%d records", len(s.IOMMUs)+len(s.Thunderbolt))
		}
	})
}

func TestParseMEI(t *testing.T) {
	s, err := ParseMEI([]byte("# fwcheck mei 1\nfw_status 90000245\nfw_status 89110136\nfw_ver 0:12.0.90.2072\n"))
	require.NoError(t, err)
	assert.Equal(t, []uint32{0x90000245, 0x89110136}, s.Status)
	assert.Equal(t, []string{"0:12.0.90.2072"}, s.Versions)
	for _, bad := range []string{"fw_status 9000024\n", "fw_status 9000024z\n", "status 1\n"} {
		_, err := ParseMEI([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func FuzzParseMEI(f *testing.F) {
	f.Add([]byte("fw_status 90000245\nfw_ver 0:12.0.90.2072\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseMEI(b)
		if err == nil && (len(s.Status) > 6 || len(s.Versions) > 8) {
			t.Fatalf("%d registers, %d versions", len(s.Status), len(s.Versions))
		}
	})
}
