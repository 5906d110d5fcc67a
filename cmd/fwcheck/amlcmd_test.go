package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAMLCommand prints the namespace of the aml package's fixture tables
// (a directory of raw tables) and evaluates objects in it.
func TestAMLCommand(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"dsdt.aml", "ssdt.aml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "acpi", "aml", "testdata", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, strings.ToUpper(f[:4])), b, 0o644))
	}
	code, out, errOut := fwcheck(t, "", "aml", "--acpidump", dir)
	require.Equal(t, exitOK, code, errOut)
	want, err := os.ReadFile(filepath.Join("..", "..", "acpi", "aml", "testdata", "fixture.dump"))
	require.NoError(t, err)
	assert.Equal(t, string(want), out, "the dump golden of acpi/aml")
	assert.Contains(t, errOut, "2 tables")

	code, out, _ = fwcheck(t, "", "aml", "--acpidump", dir, "--problems")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "unresolved")

	// Tables that load cleanly: --problems says so rather than nothing.
	clean := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "..", "tests", "deviceids", "testdata", "dsdt.aml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(clean, "DSDT"), b, 0o644))
	code, out, _ = fwcheck(t, "", "aml", "--acpidump", clean, "--problems")
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `^no problems loading 1 tables \(\d+ objects\)\n$`, out)

	code, out, _ = fwcheck(t, "", "aml", "--acpidump", dir, "--eval", `\_SB.PCI0._HID`)
	assert.Equal(t, exitOK, code)
	code, out, _ = fwcheck(t, "", "aml", "--acpidump", dir, "--eval", `\_SB.PCI0._HID`, "--eval", `\NOPE`)
	assert.Equal(t, exitFailing, code, "a missing object fails the command")
	assert.Contains(t, out, `\_SB.PCI0._HID = 0x`)
	assert.Contains(t, out, `\NOPE: unresolved`)

	code, _, errOut = fwcheck(t, "", "aml", "--acpidump", filepath.Join("testdata", "garbage.txt"))
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
}
