//go:build !fwcheck_live

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
)

func TestImageUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"image"},
		{"image", "frob"},
		{"image", "build"},
		{"image", "build", "-o", "x.cpio.gz"},
		{"image", "build", "--kernel", "/boot/vmlinuz"},
		{"image", "build", "-o", "x", "--kernel", "k", "extra"},
		{"image", "build", "--bogus"},
		{"image", "boot"},
		{"image", "boot", "--kernel", "k", "--firmware", "coreboot"},
		{"image", "build", "-o", "x.cpio.gz", "--kernel", "testdata/does-not-exist"},
	} {
		code, out, errOut := fwcheck(t, "", args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Empty(t, out, "%v", args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: want one line, got %q", args, errOut)
	}
}

func TestImageHelp(t *testing.T) {
	for _, args := range [][]string{{"image", "-h"}, {"image", "build", "-h"}, {"image", "boot", "-h"}} {
		code, out, _ := fwcheck(t, "", args...)
		assert.Equal(t, exitOK, code, "%v", args)
		assert.Contains(t, out, "Usage: fwcheck image", "%v", args)
	}
}

func TestBootIsHidden(t *testing.T) {
	_, out, _ := fwcheck(t, "", "help")
	assert.NotContains(t, out, "fwcheck boot")
	assert.Contains(t, out, "fwcheck image")
}

func TestWithS3(t *testing.T) {
	has := false
	for _, c := range tests.All() {
		has = has || c.ID == S3CheckID
	}
	ids, err := withS3([]string{"checksum"}, 3)
	if !has {
		assert.ErrorContains(t, err, "no \"s3\" check")
		return
	}
	assert.NoError(t, err)
	assert.Equal(t, []string{"checksum", S3CheckID}, ids)
	ids, err = withS3(nil, 3)
	assert.NoError(t, err)
	assert.Contains(t, ids, S3CheckID)
	assert.Contains(t, ids, "checksum")
}
