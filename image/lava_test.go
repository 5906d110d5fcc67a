package image_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/report/lines"
)

func lavaJobs() map[string]image.LAVAJob {
	k, i := "http://lab.example/fwcheck/vmlinuz", "http://lab.example/fwcheck/fwcheck.cpio.gz"
	return map[string]image.LAVAJob{
		"qemu":      {DeviceType: "qemu", Kernel: k, Initramfs: i, Options: "fwcheck.s3=3 fwcheck.s3.sleep=5s"},
		"x86-ipxe":  {DeviceType: "x86", Boot: "ipxe", Kernel: k, Initramfs: i, Options: "fwcheck.reboot=2"},
		"x86-grub":  {DeviceType: "x86", Boot: "grub", Kernel: k, Initramfs: i},
		"x86-named": {DeviceType: "x86", Kernel: k, Initramfs: i, Name: "it's mine", Timeout: 90 * time.Minute},
	}
}

func TestLAVAJob(t *testing.T) {
	jobs := lavaJobs()
	q, err := jobs["qemu"].YAML()
	require.NoError(t, err)
	s := string(q)
	assert.Contains(t, s, "device_type: qemu\n")
	assert.Contains(t, s, `-append "console=ttyS0,115200 quiet iomem=relaxed cryptomgr.notests initcall_blacklist=crypto_kdf108_init fwcheck.s3=3 fwcheck.s3.sleep=5s fwcheck.after=poweroff fwcheck.s3.journal=none"`)
	assert.Contains(t, s, "PIIX4_PM.disable_s3=0", "QEMU's pc offers S3")
	assert.Contains(t, s, "  job:\n    minutes: 26\n", "job timeout: 20 min + 2 per S3 cycle")
	assert.Contains(t, s, "      pattern: '"+lines.MonitorPattern+"'")
	assert.Contains(t, s, "      start: '"+lines.MonitorStart+"'")
	assert.Contains(t, s, "      end: '"+lines.MonitorEnd+"'")

	x, err := jobs["x86-ipxe"].YAML()
	require.NoError(t, err)
	s = string(x)
	assert.Contains(t, s, "extra_kernel_args: 'quiet iomem=relaxed cryptomgr.notests initcall_blacklist=crypto_kdf108_init fwcheck.reboot=2 fwcheck.after=poweroff'", "no journal=none for a lab machine with its disk")
	assert.Contains(t, s, "method: ipxe\n    commands: ramdisk\n")
	assert.Contains(t, s, "  job:\n    minutes: 30\n", "job timeout: 20 min + 5 per reboot")

	g, err := jobs["x86-grub"].YAML()
	require.NoError(t, err)
	assert.Contains(t, string(g), "method: grub\n")
	n, err := jobs["x86-named"].YAML()
	require.NoError(t, err)
	assert.Contains(t, string(n), "job_name: 'it''s mine'\n")
	assert.Contains(t, string(n), "  job:\n    minutes: 90\n")

	for name, j := range map[string]image.LAVAJob{
		"device type": {DeviceType: "arm", Kernel: "k", Initramfs: "i"},
		"boot":        {DeviceType: "x86", Boot: "uboot", Kernel: "k", Initramfs: "i"},
		"no kernel":   {DeviceType: "qemu", Initramfs: "i"},
		"bad option":  {DeviceType: "qemu", Kernel: "k", Initramfs: "i", Options: "fwcheck.s3=many"},
		"quote":       {DeviceType: "qemu", Kernel: "k", Initramfs: "i", Options: `fwcheck.s3.journal="a b"`},
		"space URL":   {DeviceType: "qemu", Kernel: "k k", Initramfs: "i"},
	} {
		_, err := j.YAML()
		assert.Error(t, err, name)
	}
}

// TestLAVAJobSchema validates every kind of job with LAVA's own job
// schema (lava_common, from Debian's lava-dispatcher or lava-server).
// Without it the test skips, unless FWCHECK_LAVA says LAVA is there.
func TestLAVAJobSchema(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import lava_common.schemas, yaml").Run(); err != nil {
		if os.Getenv("FWCHECK_LAVA") != "" {
			t.Fatalf("FWCHECK_LAVA is set and LAVA's lava_common does not import: %v", err)
		}
		t.Skip("no lava_common (Debian's lava-dispatcher): make lava-deps")
	}
	dir := t.TempDir()
	var files []string
	for name, j := range lavaJobs() {
		b, err := j.YAML()
		require.NoError(t, err)
		f := filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(f, b, 0o644))
		files = append(files, f)
	}
	out, err := exec.Command(py, append([]string{"-c", `
import sys, yaml
from lava_common.schemas import validate
for f in sys.argv[1:]:
    validate(yaml.safe_load(open(f)), strict=True)
    print("valid", f)
`}, files...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, len(files), strings.Count(string(out), "valid "))
}
