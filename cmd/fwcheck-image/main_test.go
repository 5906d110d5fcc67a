package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
	} {
		var out, errOut bytes.Buffer
		code := run(&out, &errOut, args)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Empty(t, out.String(), "%v", args)
		assert.Equal(t, 1, strings.Count(errOut.String(), "\n"), "%v: want one line, got %q", args, errOut.String())
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"build", "-h"}, {"usb", "-h"}, {"boot", "-h"}} {
		var out, errOut bytes.Buffer
		assert.Equal(t, exitOK, run(&out, &errOut, args), "%v", args)
		assert.Contains(t, out.String(), "Usage: fwcheck-image", "%v", args)
	}
}
