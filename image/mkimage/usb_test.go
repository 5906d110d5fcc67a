package mkimage

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
)

// TestBuildUSB builds a stick image around stand-in kernel and initramfs
// files and checks its layout with the tools a user would read it with:
// the MBR as sfdisk reads it, GRUB's boot code, both FAT file systems (by
// label and serial number) and the files on the boot partition. Booting
// the real thing is image/usb_e2e_test.go's job.
func TestBuildUSB(t *testing.T) {
	if err := USBToolsAvailable(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	kernel, initramfs := filepath.Join(dir, "vmlinuz"), filepath.Join(dir, "initrd")
	require.NoError(t, os.WriteFile(kernel, bytes.Repeat([]byte("K"), 3<<20), 0o644))
	require.NoError(t, os.WriteFile(initramfs, bytes.Repeat([]byte("I"), 2<<20), 0o644))
	out := filepath.Join(dir, "out", "fwcheck.img")
	res, err := BuildUSB(USBOptions{Output: out, Kernel: kernel, Initramfs: initramfs, Config: []byte("run = fadt\n")})
	require.NoError(t, err)

	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	assert.Equal(t, int64(StickSize), fi.Size())
	assert.LessOrEqual(t, fi.Size(), int64(64<<20), "the issue's size budget")

	mbr := make([]byte, 512)
	_, err = f.ReadAt(mbr, 0)
	require.NoError(t, err)
	assert.Equal(t, []byte{0x55, 0xaa}, mbr[510:])
	assert.Equal(t, res.DiskID, binary.LittleEndian.Uint32(mbr[440:]))
	bootImg, err := os.ReadFile(filepath.Join(GRUBDir, "i386-pc", "boot.img"))
	require.NoError(t, err)
	assert.Equal(t, bootImg[:440], mbr[:440], "GRUB's boot code in the MBR")
	core := make([]byte, 512)
	_, err = f.ReadAt(core, 512)
	require.NoError(t, err)
	assert.NotEqual(t, make([]byte, 512), core, "GRUB's core image at sector 1")

	// The partition table as sfdisk reads it back.
	sf, err := lookTool("sfdisk")
	require.NoError(t, err)
	dump, err := exec.Command(sf, "-d", out).Output()
	require.NoError(t, err)
	assert.Regexp(t, `start=\s*2048, size=\s*69632, type=c, bootable`, string(dump))
	assert.Regexp(t, `start=\s*71680, size=\s*59392, type=e\n`, string(dump))

	for _, p := range []struct {
		off           int64
		label, serial string
	}{{BootOffset, BootLabel, res.BootSerial}, {ResultsOffset, image.ResultsLabel, res.ResultsSerial}} {
		v, err := image.ReadFATVolume(io.NewSectionReader(f, p.off, 512))
		require.NoError(t, err)
		assert.Equal(t, image.FATVolume{Label: p.label, Serial: p.serial}, v)
	}
	assert.NotEqual(t, res.BootSerial, res.ResultsSerial)

	// The files on the boot partition.
	mtype := func(p string) string {
		c := exec.Command("mtype", "-i", out+"@@"+strconv.Itoa(BootOffset), "::"+p)
		c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		b, err := c.Output()
		require.NoError(t, err, p)
		return string(b)
	}
	assert.Equal(t, "run = fadt\n", mtype("/fwcheck.cfg"))
	grubCfg := mtype("/boot/grub/grub.cfg")
	assert.Contains(t, grubCfg, "linux /fwcheck/vmlinuz console=ttyS0,115200 console=tty0 iomem=relaxed cryptomgr.notests initcall_blacklist=crypto_kdf108_init fwcheck.esp=$fwcheck_esp")
	assert.Contains(t, grubCfg, "initrd /fwcheck/initramfs")
	assert.True(t, strings.HasPrefix(mtype("/EFI/BOOT/BOOTX64.EFI"), "MZ"), "a PE image")
	assert.Equal(t, 3<<20, len(mtype("/fwcheck/vmlinuz")))
	assert.Equal(t, 2<<20, len(mtype("/fwcheck/initramfs")))
	assert.Greater(t, res.Free, int64(25<<20), "room left for a bigger kernel and initramfs")

	// A second build gets its own serial numbers: two sticks in one
	// machine are told apart.
	res2, err := BuildUSB(USBOptions{Output: filepath.Join(dir, "2.img"), Kernel: kernel, Initramfs: initramfs})
	require.NoError(t, err)
	assert.NotEqual(t, res.BootSerial, res2.BootSerial)
}
