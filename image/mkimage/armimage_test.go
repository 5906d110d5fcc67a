package mkimage

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeArm64 writes a file with an arm64 Image header and a Linux banner.
func fakeArm64(t *testing.T, dir, banner string) string {
	b := make([]byte, 4096)
	binary.LittleEndian.PutUint32(b[arm64MagicOff:], arm64Magic)
	copy(b[1024:], "Linux version %s (format, not the banner)\x00"+banner+"\x00")
	p := filepath.Join(dir, "vmlinuz")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

func TestArm64KernelRelease(t *testing.T) {
	k := fakeArm64(t, t.TempDir(), "Linux version 6.1.0-57-arm64 (debian-kernel@lists.debian.org) (aarch64-linux-gnu-gcc-12) #1 SMP Debian 6.1.192-3")
	rel, err := KernelRelease(k)
	require.NoError(t, err)
	assert.Equal(t, "6.1.0-57-arm64", rel)
	a, err := KernelArch(k)
	require.NoError(t, err)
	assert.Equal(t, "arm64", a)

	_, err = KernelRelease(fakeArm64(t, t.TempDir(), "no banner here"))
	assert.ErrorContains(t, err, "Linux version")

	// Debian's own arm64 kernel, when make deps-arm64 fetched it.
	if ks, _ := filepath.Glob("../../out/arm64/root/boot/vmlinuz-*"); len(ks) > 0 {
		rel, err := KernelRelease(ks[0])
		require.NoError(t, err)
		assert.Equal(t, strings.TrimPrefix(filepath.Base(ks[0]), "vmlinuz-"), rel)
	}
}

func TestBuildArm64Mismatch(t *testing.T) {
	k := fakeArm64(t, t.TempDir(), "Linux version 6.1.0-57-arm64 (x) #1")
	_, err := Build(Options{Output: filepath.Join(t.TempDir(), "x.cpio.gz"), Kernel: k, Source: "../.."})
	assert.ErrorContains(t, err, "is an arm64 kernel, not amd64 (pass --arch arm64")
	_, err = Build(Options{Output: "x.cpio.zst", Kernel: k, Arch: "mips", Source: "../.."})
	assert.ErrorContains(t, err, `unknown architecture "mips"`)
}

func FuzzBannerRelease(f *testing.F) {
	f.Add([]byte("xx Linux version 6.1.0-57-arm64 (builder) #1"))
	f.Add([]byte("Linux version Linux version 1 ("))
	f.Fuzz(func(t *testing.T, b []byte) {
		rel := bannerRelease(b)
		if rel != "" && !bytes.Contains(b, []byte("Linux version "+rel+" (")) {
			t.Fatalf("release %q is not in the input", rel)
		}
	})
}

// TestBuildUSBArm64 builds the arm64 stick around a stand-in Image and
// checks the boot partition holds GRUB's arm64 EFI image as BOOTAA64.EFI,
// its grub.cfg, the kernel and the initramfs, and no BIOS boot code.
// image/arm64usb_e2e_test.go boots a real one on QEMU virt with AAVMF.
func TestBuildUSBArm64(t *testing.T) {
	if err := USBToolsAvailableArm64(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	kernel := fakeArm64(t, dir, "Linux version 6.1.0-57-arm64 (x) #1")
	initramfs := filepath.Join(dir, "initrd")
	require.NoError(t, os.WriteFile(initramfs, bytes.Repeat([]byte("I"), 1<<20), 0o644))
	out := filepath.Join(dir, "arm64.img")
	res, err := BuildUSBArm64(USBOptions{Output: out, Kernel: kernel, Initramfs: initramfs})
	require.NoError(t, err)
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, int64(StickSizeArm64), fi.Size())
	mbr := make([]byte, 512)
	f, err := os.Open(out)
	require.NoError(t, err)
	_, err = f.ReadAt(mbr, 0)
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, make([]byte, 440), mbr[:440], "no boot code")
	assert.Equal(t, []byte{0x55, 0xaa}, mbr[510:])
	efi := filepath.Join(dir, "BOOTAA64.EFI")
	c := exec.Command("mcopy", "-n", "-i", out+"@@1M", "::/EFI/BOOT/BOOTAA64.EFI", efi)
	c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	b, err := c.CombinedOutput()
	require.NoError(t, err, "%s", b)
	pe, err := os.ReadFile(efi)
	require.NoError(t, err)
	require.Greater(t, len(pe), 0x100)
	peOff := binary.LittleEndian.Uint32(pe[0x3c:])
	assert.Equal(t, "PE\x00\x00", string(pe[peOff:peOff+4]))
	assert.Equal(t, uint16(0xaa64), binary.LittleEndian.Uint16(pe[peOff+4:]), "an arm64 EFI application")
	for _, p := range []string{"/boot/grub/grub.cfg", stickKernel, stickInitramfs, "/fwcheck.cfg"} {
		c := exec.Command("mtype", "-i", out+"@@1M", "::"+p)
		c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		b, err := c.Output()
		require.NoError(t, err, p)
		assert.NotEmpty(t, b, p)
	}
	c = exec.Command("mdir", "-i", out+"@@"+strconv.Itoa(ResultsOffsetArm64), "::")
	c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	b, err = c.CombinedOutput()
	require.NoError(t, err, "%s", b)
	assert.Contains(t, string(b), "FWCHECK")
	assert.NotEmpty(t, res.BootSerial)
}
