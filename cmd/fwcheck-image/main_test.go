package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image/mkimage"
)

func TestUsageErrorsAreOneLine(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frob"},
		{"build"},
		{"build", "-o", "x.cpio.gz"},
		{"build", "--kernel", "/boot/vmlinuz"},
		{"build", "-o", "x", "--kernel", "k", "extra"},
		{"build", "--bogus"},
		{"boot"},
		{"boot", "--kernel", "k", "--firmware", "coreboot"},
		{"build", "-o", "x.cpio.gz", "--kernel", "testdata/does-not-exist"},
		{"usb"},
		{"usb", "-o", "x.img"},
		{"usb", "--kernel", "k"},
		{"usb", "-o", "x.img", "--kernel", "k", "--config", "testdata/does-not-exist"},
		{"usb", "-o", "x.img", "--kernel", "k", "--initramfs", "testdata/does-not-exist"},
		{"usb", "-o", "x.img", "--kernel", "k", "--chain", "maybe"},
		{"lava"},
		{"lava", "--kernel", "http://x/k"},
		{"lava", "--kernel", "k", "--initramfs", "i", "--device-type", "arm"},
		{"lava", "--kernel", "k", "--initramfs", "i", "--boot", "grub"},
		{"lava", "--kernel", "k", "--initramfs", "i", "--device-type", "x86", "--boot", "pxelinux"},
		{"lava", "--kernel", "k", "--initramfs", "i", "--append", "fwcheck.s3=lots"},
	} {
		var out, errOut bytes.Buffer
		code := run(&out, &errOut, args)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Empty(t, out.String(), "%v", args)
		assert.Equal(t, 1, strings.Count(errOut.String(), "\n"), "%v: want one line, got %q", args, errOut.String())
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"build", "-h"}, {"usb", "-h"}, {"boot", "-h"}, {"lava", "-h"}} {
		var out, errOut bytes.Buffer
		assert.Equal(t, exitOK, run(&out, &errOut, args), "%v", args)
		assert.Contains(t, out.String(), "Usage: fwcheck-image", "%v", args)
	}
}

// usb says which UEFI boot chain it put on the stick, and why: a kernel
// that is not signed gets the unsigned one, and asking for the signed
// chain with it fails in one line.
func TestUSBSaysChain(t *testing.T) {
	if err := mkimage.USBToolsAvailable(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	kernel, initramfs := filepath.Join(dir, "vmlinuz"), filepath.Join(dir, "initrd")
	require.NoError(t, os.WriteFile(kernel, bytes.Repeat([]byte("K"), 1<<20), 0o644))
	require.NoError(t, os.WriteFile(initramfs, bytes.Repeat([]byte("I"), 1<<20), 0o644))
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run(&out, &errOut, []string{"usb", "-o", filepath.Join(dir, "a.img"), "--kernel", kernel, "--initramfs", initramfs}), errOut.String())
	assert.Contains(t, out.String(), "UEFI boot chain: unsigned (")
	if mkimage.SignedAvailable(mkimage.SignedFiles{}) == nil {
		assert.Contains(t, out.String(), kernel+" is not signed: machines with Secure Boot on will refuse the stick")
	}
	out.Reset()
	errOut.Reset()
	assert.Equal(t, exitUsage, run(&out, &errOut, []string{"usb", "-o", filepath.Join(dir, "b.img"), "--kernel", kernel, "--initramfs", initramfs, "--chain", "signed"}))
	assert.Equal(t, 1, strings.Count(errOut.String(), "\n"), errOut.String())
	assert.Contains(t, errOut.String(), "signed")
}

func TestLAVA(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(&out, &errOut, []string{"lava", "--device-type", "x86", "--boot", "grub", "--kernel", "http://lab/vmlinuz",
		"--initramfs", "http://lab/fwcheck.cpio.gz", "--append", "fwcheck.s3=10"})
	assert.Equal(t, exitOK, code, errOut.String())
	assert.Contains(t, out.String(), "device_type: x86\n")
	assert.Contains(t, out.String(), "method: grub\n")
	assert.Contains(t, out.String(), "extra_kernel_args: 'quiet iomem=relaxed cryptomgr.notests initcall_blacklist=crypto_kdf108_init fwcheck.s3=10 fwcheck.after=poweroff'")
	assert.Contains(t, out.String(), "    minutes: 40\n", "the job timeout")

	f := t.TempDir() + "/job.yaml"
	out.Reset()
	assert.Equal(t, exitOK, run(&out, &errOut, []string{"lava", "--kernel", "file:///k", "--initramfs", "file:///i", "-o", f}))
	b, err := os.ReadFile(f)
	assert.NoError(t, err)
	assert.Contains(t, string(b), "device_type: qemu\n")
	assert.Empty(t, out.String())
}
