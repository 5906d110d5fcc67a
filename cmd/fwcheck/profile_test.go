package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
)

// TestProfileNotApplicable: the sbbr profile on an x86 dump says first,
// in one line, that it does not apply and why.
func TestProfileNotApplicable(t *testing.T) {
	code, out, errOut := fwcheck(t, "", "run", "--profile", "sbbr", "--acpidump", "testdata/q35.acpidump.txt", "--color", "never")
	assert.Contains(t, []int{exitOK, exitFailing}, code, out+errOut)
	assert.Contains(t, errOut, "fwcheck: profile sbbr: the SBBR profile does not apply: these are an x86 machine's tables (FADT not hardware-reduced")
	assert.Contains(t, out, "N/A        sbbr")

	code, _, errOut = fwcheck(t, "", "run", "--profile", "sbrr", "--acpidump", "testdata/q35.acpidump.txt")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown profile "sbrr" (known: sbbr)`)
}

// TestProfileOnQEMUVirt: QEMU's arm64 virt tables under the profile: the
// sbbr check runs, and the profile's severity reaches the results
// document (GTDTNoWatchdog medium, low without the profile).
func TestProfileOnQEMUVirt(t *testing.T) {
	src := filepath.Join(corpus.Dir(t, "acpi", "qemu"), "virt")
	dir := t.TempDir()
	for _, sig := range []string{"APIC", "DBG2", "DSDT", "FACP", "GTDT", "IORT", "MCFG", "PPTT", "SPCR"} {
		b, err := os.ReadFile(filepath.Join(src, sig))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, sig+".dat"), b, 0o644))
	}
	sev := func(args ...string) (tests.Severity, map[string]tests.Status) {
		_, stdout, errOut := fwcheck(t, "", append([]string{"run", "--category", "acpi", "--acpidump", dir, "--json", "-"}, args...)...)
		d := reporttest.Check(t, []byte(stdout))
		st := map[string]tests.Status{}
		s := tests.None
		for _, r := range d.Results {
			st[r.ID] = r.Status
			for _, f := range r.Findings {
				if f.Label == "GTDTNoWatchdog" {
					s = f.Severity
				}
			}
		}
		assert.NotContains(t, errOut, "does not apply")
		return s, st
	}
	s, st := sev()
	assert.Equal(t, tests.Low, s)
	_, ran := st["sbbr"]
	assert.False(t, ran, "the sbbr check runs only under its profile")
	s, st = sev("--profile", "sbbr")
	assert.Equal(t, tests.Medium, s)
	assert.Equal(t, tests.StatusIncomplete, st["sbbr"], "checked, with the RSDP and SMBIOS not in the run")

	_, out, _ := fwcheck(t, "", "list", "--profile", "sbbr")
	assert.Contains(t, out, "profile sbbr: Arm Server Base Boot Requirements")
	assert.Contains(t, out, "SMBIOSMissingSlots")
}
