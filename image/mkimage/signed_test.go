package mkimage

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signedKernel returns an installed kernel that carries a signature (a
// distribution's), or skips.
func signedKernel(t *testing.T) string {
	t.Helper()
	ks, _ := filepath.Glob("/boot/vmlinuz-*")
	for _, k := range ks {
		if ok, err := PESigned(k); err == nil && ok {
			return k
		}
	}
	t.Skip("no signed kernel in /boot (apt-get install linux-image-amd64)")
	return ""
}

// Debian's own files tell a signed image from an unsigned one: shim-signed
// ships shim both ways, and the distribution's kernel is signed.
func TestPESigned(t *testing.T) {
	if err := SignedAvailable(SignedFiles{}); err != nil {
		t.Skip(err)
	}
	for f, want := range map[string]bool{ShimFile: true, SignedGRUBFile: true, "/usr/lib/shim/shimx64.efi": false} {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		got, err := PESigned(f)
		require.NoError(t, err, f)
		assert.Equal(t, want, got, f)
	}
	assert.True(t, must(PESigned(signedKernel(t))))
	notPE := filepath.Join(t.TempDir(), "k")
	require.NoError(t, os.WriteFile(notPE, []byte("not a kernel"), 0o644))
	_, err := PESigned(notPE)
	assert.ErrorContains(t, err, "not a PE/COFF image")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The signed chain: shim as BOOTX64.EFI, Debian's GRUB beside it and its
// grub.cfg where that GRUB looks (EFI/debian), the kernel as installed.
// A kernel that is not signed gets the unsigned chain, and asking for the
// signed one with it is an error naming the kernel.
func TestBuildUSBSigned(t *testing.T) {
	if err := USBToolsAvailable(""); err != nil {
		t.Skip(err)
	}
	if err := SignedAvailable(SignedFiles{}); err != nil {
		t.Skip(err)
	}
	kernel := signedKernel(t)
	dir := t.TempDir()
	initramfs := filepath.Join(dir, "initrd")
	require.NoError(t, os.WriteFile(initramfs, bytes.Repeat([]byte("I"), 1<<20), 0o644))
	out := filepath.Join(dir, "fwcheck.img")
	res, err := BuildUSB(USBOptions{Output: out, Kernel: kernel, Initramfs: initramfs})
	require.NoError(t, err)
	assert.Equal(t, ChainSigned, res.Chain)
	assert.Equal(t, "shim, GRUB and the kernel are signed", res.ChainWhy)

	mtype := func(p string) []byte {
		c := exec.Command("mtype", "-i", out+"@@"+strconv.Itoa(BootOffset), "::"+p)
		c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		b, err := c.Output()
		require.NoError(t, err, p)
		return b
	}
	for stick, host := range map[string]string{"/EFI/BOOT/BOOTX64.EFI": ShimFile, "/EFI/BOOT/grubx64.efi": SignedGRUBFile, "/fwcheck/vmlinuz": kernel} {
		want, err := os.ReadFile(host)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, mtype(stick)), "%s is %s", stick, host)
	}
	if _, err := os.Stat(MokManagerFile); err == nil {
		assert.True(t, bytes.HasPrefix(mtype("/EFI/BOOT/mmx64.efi"), []byte("MZ")))
	}
	assert.Equal(t, string(mtype("/boot/grub/grub.cfg")), string(mtype("/EFI/debian/grub.cfg")))
	c := exec.Command("mdir", "-b", "-i", out+"@@"+strconv.Itoa(BootOffset), "::/EFI/BOOT")
	c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	ls, err := c.Output()
	require.NoError(t, err)
	assert.NotContains(t, string(ls), "fbx64", "shim's fallback writes boot entries: not on the stick")

	plain := filepath.Join(dir, "vmlinuz")
	require.NoError(t, os.WriteFile(plain, bytes.Repeat([]byte("K"), 1<<20), 0o644))
	res, err = BuildUSB(USBOptions{Output: filepath.Join(dir, "2.img"), Kernel: plain, Initramfs: initramfs})
	require.NoError(t, err)
	assert.Equal(t, ChainUnsigned, res.Chain)
	assert.Contains(t, res.ChainWhy, plain+" is not signed")
	_, err = BuildUSB(USBOptions{Output: filepath.Join(dir, "3.img"), Kernel: plain, Initramfs: initramfs, Chain: ChainSigned})
	assert.ErrorContains(t, err, "needs a signed kernel; "+plain+" is not signed")

	res, err = BuildUSB(USBOptions{Output: filepath.Join(dir, "4.img"), Kernel: kernel, Initramfs: initramfs, Chain: ChainUnsigned})
	require.NoError(t, err)
	assert.Equal(t, ChainUnsigned, res.Chain)
	res, err = BuildUSB(USBOptions{Output: filepath.Join(dir, "5.img"), Kernel: kernel, Initramfs: initramfs,
		Signed: SignedFiles{Shim: filepath.Join(dir, "no-shim.efi")}})
	require.NoError(t, err)
	assert.Equal(t, ChainUnsigned, res.Chain)
	assert.Contains(t, res.ChainWhy, "needs shim-signed")
}
