package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
)

// Every status a check can end in on real data, through the command line,
// on one real machine's dump: the JSON carries it and validates.
func TestStatusesThroughCLI(t *testing.T) {
	dump := filepath.Join(corpus.Dir(t, "acpi", "linuxhw"), "core", "04DDF3A09383.acpidump.txt")
	code, stdout, stderr := fwcheck(t, "", "run", "--acpidump", dump, "--json", "-", "--color", "never")
	require.Contains(t, []int{exitOK, exitFailing}, code, stderr)
	d := reporttest.Check(t, []byte(stdout))
	got := map[string]tests.Status{}
	for _, r := range d.Results {
		got[r.ID] = r.Status
	}
	assert.Equal(t, tests.StatusNotApplicable, got["hpet"], "this machine has no HPET table, which is legal")
	assert.Equal(t, tests.StatusIncomplete, got["checksum"], "tables summed, the RSDP is not in the dump")
	assert.Equal(t, tests.StatusSkipped, got["mcfg-reserved"], "no memory map comes with a dump")
	assert.Equal(t, tests.StatusSkipped, got["klog"], "no kernel log comes with a dump")
	assert.Equal(t, tests.StatusPassed, got["madt"])
	assert.Contains(t, stderr, "N/A        hpet")
	assert.Contains(t, stderr, "NOT CHECKED RSDP checksums")

	// A dump with a wrong checksum: failed.
	code, stdout, _ = fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/badsum.acpidump.txt", "--json", "-")
	assert.Equal(t, exitFailing, code)
	d = reporttest.Check(t, []byte(stdout))
	assert.Equal(t, tests.StatusFailed, d.Results[0].Status)
	assert.NotEmpty(t, d.Results[0].Unchecked, "a failed check still lists what it could not check")
}

// A run in which nothing was checked exits 3 with its own verdict, whatever
// the reason; it never blames root when root is not the reason.
func TestNothingCheckedExits3(t *testing.T) {
	for _, args := range [][]string{
		{"run", "madt", "--skip", "madt", "--acpidump", "testdata/q35.acpidump.txt"},
		{"run", "--category", "bios", "--acpidump", "testdata/q35.acpidump.txt"},
		{"run", "klog", "--acpidump", "testdata/q35.acpidump.txt"},
	} {
		code, out, errOut := fwcheck(t, "", append(args, "--color", "never")...)
		assert.Equal(t, exitNothing, code, "%v: %s%s", args, out, errOut)
		assert.Contains(t, out, "verdict: NOTHING CHECKED", "%v", args)
	}
	_, out, _ := fwcheck(t, "", "run", "--category", "bios", "--acpidump", "testdata/q35.acpidump.txt")
	assert.NotContains(t, out, "needs root")
}

// Input that is not what its flag expects is an error naming the file, not
// a finding against the firmware.
func TestWrongInputIsAnError(t *testing.T) {
	logs := t.TempDir()
	for _, n := range []string{"boot.dmesg.txt", "resume.dmesg.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(logs, n), []byte("[    0.000000] Linux version 6.1.0\n[    0.1] ACPI: RSDP 0x00000000000F52A0 000014 (v00 BOCHS )\n"), 0o644))
	}
	junk := filepath.Join(t.TempDir(), "passwd")
	require.NoError(t, os.WriteFile(junk, []byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--acpidump", logs}, "is not an ACPI table"},
		{[]string{"run", "--acpidump", filepath.Join(logs, "boot.dmesg.txt")}, "no tables found"},
		{[]string{"run", "--acpidump", junk}, "no tables found"},
		{[]string{"klog", junk}, "not a kernel log"},
		{[]string{"run", "--klog", junk}, "not a kernel log"},
	} {
		code, out, errOut := fwcheck(t, "", c.args...)
		assert.Equal(t, exitUsage, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: %q", c.args, errOut)
		assert.Contains(t, errOut, c.want, "%v", c.args)
		assert.Contains(t, errOut, filepath.Base(c.args[len(c.args)-1]), "%v: names the file", c.args)
	}
}

// fwcheck s3 takes the check's settings as its own flags and refuses bad
// values in one line; on a root with no sleep states it skips, checking
// nothing.
func TestS3Command(t *testing.T) {
	code, _, errOut := fwcheck(t, "", "s3", "--cycles", "0")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	assert.Contains(t, errOut, "outside 1…10000")
	code, _, errOut = fwcheck(t, "", "s3", "--mode", "hibernate")
	assert.Equal(t, exitUsage, code, errOut)

	root := t.TempDir()
	code, out, _ := fwcheck(t, "", "s3", "--root", root, "--cycles", "2", "--color", "never")
	assert.Equal(t, exitNothing, code, out)
	assert.Regexp(t, `SKIPPED\s+s3`, out)

	code, out, _ = fwcheck(t, "", "list")
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `s3\s+power .*\[power-state\] \(runs only when named\)`, out)
}
