package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// fwcheck runs the command line in-process and returns its exit code and
// output.
// TestMain runs the tests at the report's default width, whatever the
// COLUMNS of the shell that started them.
func TestMain(m *testing.M) {
	os.Unsetenv("COLUMNS")
	os.Exit(m.Run())
}

func fwcheck(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(&env{stdin: strings.NewReader(stdin), stdout: &o, stderr: &e}, args)
	return code, o.String(), e.String()
}

func TestUsageErrorsAreOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"run", "--no-such-flag"},
		{"run", "nosuchcheck"},
		{"run", "--category", "gpu"},
		{"run", "--fail-on", "catastrophic"},
		{"run", "--color", "purple"},
		{"run", "--acpidump", "testdata/does-not-exist.txt"},
		{"run", "--acpidump", "testdata/garbage.txt"},
		{"run", "--from", "testdata/garbage.txt"},
		{"snapshot"},
	} {
		code, out, errOut := fwcheck(t, "", args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Empty(t, out, "%v", args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: want one line, got %q", args, errOut)
		assert.NotContains(t, errOut, "goroutine", "%v", args)
	}
	_, _, errOut := fwcheck(t, "", "run", "--acpidump", "testdata/does-not-exist.txt")
	assert.Contains(t, errOut, "does-not-exist.txt", "the error names the file")
}

func TestHelp(t *testing.T) {
	code, out, _ := fwcheck(t, "", "help")
	assert.Equal(t, exitOK, code)
	for _, c := range []string{"run", "list", "snapshot", "version"} {
		assert.Contains(t, out, "fwcheck "+c)
	}
	for name, c := range commandTable() {
		code, out, _ := fwcheck(t, "", name, "-h")
		assert.Equal(t, exitOK, code, name)
		assert.Contains(t, out, "Usage: fwcheck "+name, name)
		assert.Contains(t, out, c.short, name)
	}
}

func TestExitCodesFollowFailOn(t *testing.T) {
	// The clean QEMU tables sum to zero; the dump has no RSDP, so the
	// check is incomplete, not passed, and says what it could not check.
	// No failure: exit 0.
	code, out, _ := fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/q35.acpidump.txt", "--color", "never")
	assert.Equal(t, exitOK, code, out)
	assert.Regexp(t, `INCOMPLETE\s+checksum`, out)
	assert.Contains(t, out, "NOT CHECKED RSDP checksums: RSDP is not in this table set")
	assert.Contains(t, out, "verdict: INCOMPLETE")

	// One flipped bit in the MADT breaks its checksum.
	code, out, _ = fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/badsum.acpidump.txt", "--color", "never")
	assert.Contains(t, out, "ACPITableChecksum")
	sev := tests.None
	labels, err := tests.Labels(all.Checks())
	require.NoError(t, err)
	for _, l := range labels {
		if l.Name == "ACPITableChecksum" {
			sev = l.Severity
		}
	}
	require.NotEqual(t, tests.None, sev)
	if sev >= tests.Medium {
		assert.Equal(t, exitFailing, code)
	}
	// A threshold above the failure's severity passes; one at it fails.
	above := map[tests.Severity]string{tests.Low: "medium", tests.Medium: "high", tests.High: "critical"}
	if s, ok := above[sev]; ok {
		code, _, _ = fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/badsum.acpidump.txt", "--fail-on", s)
		assert.Equal(t, exitOK, code)
	}
	code, _, _ = fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/badsum.acpidump.txt", "--fail-on", sev.String())
	assert.Equal(t, exitFailing, code)
}

func TestJSONAndJUnitOutput(t *testing.T) {
	dir := t.TempDir()
	jpath, xpath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	code, stdout, stderr := fwcheck(t, "", "run", "--acpidump", "testdata/badsum.acpidump.txt", "--json", "-", "--junit", xpath, "--fail-on", "critical")
	require.Contains(t, []int{exitOK, exitFailing}, code, stderr)
	d := reporttest.Check(t, []byte(stdout))
	assert.Contains(t, stderr, "checks:", "with --json -, the human report goes to stderr")
	assert.Equal(t, "fwcheck", d.Tool.Name)
	assert.Equal(t, len(d.Results), d.Totals.Checks)
	var sum *tests.Result
	for i := range d.Results {
		if d.Results[i].ID == "checksum" {
			sum = &d.Results[i].Result
		}
	}
	require.NotNil(t, sum, "checksum ran")
	assert.Equal(t, tests.StatusFailed, sum.Status)

	code, _, _ = fwcheck(t, "", "run", "--acpidump", "testdata/q35.acpidump.txt", "--json", jpath, "--quiet")
	require.Contains(t, []int{exitOK, exitFailing}, code)
	b, err := os.ReadFile(jpath)
	require.NoError(t, err)
	reporttest.Check(t, b)

	x, err := os.ReadFile(xpath)
	require.NoError(t, err)
	assert.Contains(t, string(x), `<testcase name="checksum" classname="fwcheck.acpi"`)
	// JUnit follows the verdict: with --fail-on critical the medium
	// checksum failure is not a <failure>, the critical FADT one is.
	assert.NotContains(t, string(x), `type="ACPITableChecksum"`)
	assert.Contains(t, string(x), `failure below --fail-on critical: ACPITableChecksum [medium]`)
	assert.Contains(t, string(x), `type="FADTDSDTMissing"`)
	require.NotNil(t, d.Verdict)
	assert.Equal(t, "critical", d.Verdict.FailOn)
	assert.Equal(t, "fail", d.Verdict.Result)
	assert.Equal(t, "testdata/badsum.acpidump.txt", d.Machine.Files["acpi-tables"])
}

func TestJUnitToStdout(t *testing.T) {
	code, stdout, stderr := fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/badsum.acpidump.txt", "--junit", "-")
	assert.Equal(t, exitFailing, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "<?xml"), stdout)
	assert.Contains(t, stdout, `type="ACPITableChecksum"`)
	assert.Contains(t, stderr, "verdict: FAIL", "the report goes to stderr")
	code, _, stderr = fwcheck(t, "", "run", "--acpidump", "testdata/badsum.acpidump.txt", "--junit", "-", "--json", "-")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "standard output")
}

func TestSmallCLIThings(t *testing.T) {
	code, stdout, _ := fwcheck(t, "", "--version")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "fwcheck "+version+"\n", stdout)

	code, _, stderr := fwcheck(t, "", "run", "fatd", "--acpidump", "testdata/q35.acpidump.txt")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "did you mean fadt?")
	_, _, stderr = fwcheck(t, "", "run", "zzzzzz", "--acpidump", "testdata/q35.acpidump.txt")
	assert.NotContains(t, stderr, "did you mean")

	code, stdout, stderr = fwcheck(t, "", "run", "fadt,hpet", "--acpidump", "testdata/q35.acpidump.txt")
	assert.Equal(t, exitFailing, code, stderr)
	assert.Contains(t, stdout, "2 checks:")
	assert.Regexp(t, `FAILED +fadt`, stdout)
	assert.Regexp(t, `FAILED +hpet`, stdout)

	_, stdout, _ = fwcheck(t, "", "run", "-h")
	assert.NotContains(t, stdout, "-root")
	assert.Contains(t, stdout, "-klog-db")
	assert.NotContains(t, stdout, "-klog.db")
	assert.Contains(t, stdout, "-s3.cycles")
	assert.Contains(t, stdout, "-waivers")
	_, stdout, _ = fwcheck(t, "", "snapshot", "-h")
	assert.NotContains(t, stdout, "-root")
}

// list --json and list --labels --json use one key style: snake_case.
func TestListJSONKeyStyle(t *testing.T) {
	key := regexp.MustCompile(`"([^"]+)":`)
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	for _, args := range [][]string{{"list", "--json"}, {"list", "--labels", "--json"}} {
		code, stdout, _ := fwcheck(t, "", args...)
		require.Equal(t, exitOK, code)
		for _, m := range key.FindAllStringSubmatch(stdout, -1) {
			assert.Regexp(t, snake, m[1], "%v", args)
		}
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	// A fake machine root with sysfs-style tables, DMI and a kernel version.
	root := t.TempDir()
	write := func(p string, b []byte) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), b, 0o644))
	}
	for _, sig := range []string{"FACP", "APIC", "HPET", "MCFG", "FACS"} {
		b, err := os.ReadFile(filepath.Join("testdata", "raw", sig))
		if err != nil {
			t.Skip("no raw tables fixture")
		}
		write("sys/firmware/acpi/tables/"+sig, b)
	}
	write("sys/class/dmi/id/sys_vendor", []byte("QEMU\n"))
	write("sys/class/dmi/id/bios_version", []byte("1.16.3\n"))
	write("proc/version", []byte("Linux version 6.1.0-test\n"))

	snap := filepath.Join(t.TempDir(), "snap.tar.gz")
	code, _, stderr := fwcheck(t, "", "snapshot", "-o", snap, "--root", root)
	require.Equal(t, exitOK, code, stderr)
	// What the fake machine lacks (EFI, a TPM, /proc/mtrr, …) is one line
	// naming the inputs; what exists but could not be read (/dev/mem for
	// the root tables and the BDA) is said once per input and cause.
	absent := regexp.MustCompile(`(?m)^fwcheck snapshot: (\d+) inputs absent on this machine: (.*) \(--verbose lists the paths\)$`).FindStringSubmatch(stderr)
	require.NotNil(t, absent, stderr)
	assert.Contains(t, absent[2], "efi-vars")
	assert.Equal(t, len(strings.Split(absent[2], ", ")), mustAtoi(t, absent[1]))
	assert.Equal(t, 1, strings.Count(stderr, "not captured: acpi-tables: "), stderr)
	assert.Equal(t, 1, strings.Count(stderr, "not captured: bda: "), stderr)
	assert.NotContains(t, stderr, "sys/firmware/efi", "paths only with --verbose")
	code, _, verbose := fwcheck(t, "", "snapshot", "-o", filepath.Join(t.TempDir(), "v.tar.gz"), "--root", root, "--verbose")
	require.Equal(t, exitOK, code, verbose)
	assert.Regexp(t, `(?m)^fwcheck snapshot:   no /sys/firmware/efi\S* \(efi-vars\)$`, verbose)
	assert.Regexp(t, `(?m)^fwcheck snapshot: \d+ inputs absent on this machine: [^(]*$`, verbose)

	code, stdout, stderr := fwcheck(t, "", "run", "checksum", "--from", snap, "--json", "-")
	require.Equal(t, exitOK, code, stderr)
	d := reporttest.Check(t, []byte(stdout))
	require.NotNil(t, d.Machine.DMI)
	assert.Equal(t, "QEMU", d.Machine.DMI.SysVendor)
	assert.Equal(t, "1.16.3", d.Machine.DMI.BIOSVersion)
	assert.Equal(t, "Linux version 6.1.0-test", d.Machine.Kernel)
	require.Len(t, d.Results, 1)
	// The tables sum to zero; the fake root has no /dev/mem, so the RSDP
	// was not captured and says so.
	assert.Equal(t, tests.StatusIncomplete, d.Results[0].Status)
	require.Len(t, d.Results[0].Unchecked, 1)
	assert.Contains(t, d.Results[0].Unchecked[0].Reason, "RSDP could not be read")
}

func TestListJSON(t *testing.T) {
	code, out, _ := fwcheck(t, "", "list", "--json")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, `"id": "checksum"`)
	code, out, _ = fwcheck(t, "", "list", "--labels")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "ACPITableChecksum")
}

func TestKlogCommand(t *testing.T) {
	log := filepath.Join("..", "..", "tests", "klog", "testdata", "levels.txt")
	code, stdout, stderr := fwcheck(t, "", "klog", log, "--json", "-", "--fail-on", "critical")
	require.Equal(t, exitOK, code, stderr)
	d := reporttest.Check(t, []byte(stdout))
	require.Len(t, d.Results, 2)
	assert.Equal(t, "klog", d.Results[0].ID, "log checks run in ID order")
	assert.Equal(t, "oops", d.Results[1].ID)
	assert.Equal(t, tests.StatusFailed, d.Results[0].Status, "levels.txt holds firmware errors")
	assert.Equal(t, "snapshot:none", d.Machine.Source, "a log file describes another machine")

	// The same log on standard input gives the same findings.
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	_, stdout2, _ := fwcheck(t, string(b), "klog", "-", "--json", "-", "--fail-on", "critical")
	d2 := reporttest.Check(t, []byte(stdout2))
	assert.Equal(t, d.Results[0].Findings, d2.Results[0].Findings)

	code, _, stderr = fwcheck(t, "", "klog", log, "--klog-db", "testdata/does-not-exist.json")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "does-not-exist.json")

	code, _, _ = fwcheck(t, "", "klog", "a", "b")
	assert.Equal(t, exitUsage, code)
}

// An output file that cannot be written is refused before any check runs
// (a long s3 run learned it only at its end, and lost its results).
func TestUnwritableResultFileIsRefusedFirst(t *testing.T) {
	code, stdout, stderr := fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/q35.acpidump.txt",
		"--json", filepath.Join(t.TempDir(), "no", "such", "dir", "r.json"))
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout, "no check ran")
	assert.Contains(t, stderr, "r.json")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
}

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	q35, bad := filepath.Join(dir, "q35.json"), filepath.Join(dir, "bad.json")
	fwcheck(t, "", "run", "--acpidump", "testdata/q35.acpidump.txt", "--json", q35)
	fwcheck(t, "", "run", "--acpidump", "testdata/badsum.acpidump.txt", "--json", bad)
	code, stdout, stderr := fwcheck(t, "", "diff", q35, bad)
	assert.Equal(t, exitFailing, code, stderr)
	assert.Regexp(t, `New failures:\n  medium\s+ACPITableChecksum  checksum  1 finding`, stdout)
	code, stdout, _ = fwcheck(t, "", "diff", bad, q35)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "Failures gone:")
	code, _, _ = fwcheck(t, "", "diff", bad, q35, "--fail-on", "critical")
	assert.Equal(t, exitOK, code)

	for _, args := range [][]string{{"diff", q35}, {"diff", q35, filepath.Join(dir, "nope.json")}, {"diff", q35, "testdata/garbage.txt"}} {
		code, _, stderr := fwcheck(t, "", args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
}

func TestWaiversFlag(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "waivers.json")
	require.NoError(t, os.WriteFile(w, []byte(`{"waivers": [
		{"label": "ACPITableChecksum", "check": "checksum", "reason": "known bad APIC checksum, ticket 7", "expires": "2999-12-31"},
		{"label": "FADTDSDTMissing", "reason": "old", "expires": "2001-01-01"}]}`), 0o644))
	code, stdout, stderr := fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/badsum.acpidump.txt", "--waivers", w, "--json", filepath.Join(dir, "r.json"))
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "WAIVED ACPITableChecksum [medium]")
	assert.Contains(t, stdout, "waived: known bad APIC checksum, ticket 7 (waiver until 2999-12-31)")
	assert.Contains(t, stdout, "expired waiver: FADTDSDTMissing, expired 2001-01-01 (old)")
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	d := reporttest.Check(t, b)
	assert.Equal(t, 1, d.Totals.Waived)
	assert.Len(t, d.ExpiredWaivers, 1)

	require.NoError(t, os.WriteFile(w, []byte(`{"waivers": [{"label": "ACPITableChecksum"}]}`), 0o644))
	code, _, stderr = fwcheck(t, "", "run", "checksum", "--acpidump", "testdata/badsum.acpidump.txt", "--waivers", w)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "entry 1 (ACPITableChecksum): no reason")
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	j, h := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	fwcheck(t, "", "run", "--acpidump", "testdata/badsum.acpidump.txt", "--json", j)
	code, _, stderr := fwcheck(t, "", "report", j, "-o", h)
	require.Equal(t, exitOK, code, stderr)
	b, err := os.ReadFile(h)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<!DOCTYPE html>")
	assert.Contains(t, string(b), "ACPITableChecksum")
	assert.Contains(t, string(b), "FAIL — ")

	for _, args := range [][]string{{"report", j}, {"report", "-o", h}, {"report", "testdata/garbage.txt", "-o", h}, {"report", j, "-o", dir}} {
		code, _, stderr := fwcheck(t, "", args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
	b2, err := os.ReadFile(h)
	require.NoError(t, err)
	assert.Equal(t, b, b2, "a failed report leaves the earlier file as it was")
}

// Every command's help leaves out test-only flags and shows each setting
// once, under one name.
func TestHelpShowsNoTestFlags(t *testing.T) {
	for name := range commandTable() {
		_, stdout, _ := fwcheck(t, "", name, "-h")
		assert.NotRegexp(t, `(?m)^\s+-root\b`, stdout, name)
		assert.NotContains(t, stdout, "(hidden)", name)
		assert.NotContains(t, stdout, "-klog.db", name)
		assert.NotContains(t, stdout, "(default [])", name)
	}
	_, stdout, _ := fwcheck(t, "", "klog", "-h")
	assert.NotContains(t, stdout, "-s3.", "klog shows the settings of its own checks only")
}

// An error that quotes hostile input (here a file name carrying escape
// sequences) reaches the terminal escaped, on one line.
func TestErrorsAreSanitised(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dump\x1b]0;pwned\x07\nx.txt")
	code, _, stderr := fwcheck(t, "", "run", "--acpidump", p)
	assert.Equal(t, exitUsage, code)
	assert.NotContains(t, stderr, "\x1b")
	assert.Contains(t, stderr, `dump^[]0;pwned\x07\x0ax.txt`)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "%q", stderr)
}

func TestTermWidth(t *testing.T) {
	var b bytes.Buffer
	assert.Equal(t, 80, termWidth(&b), "not a terminal, no COLUMNS")
	t.Setenv("COLUMNS", "120")
	assert.Equal(t, 120, termWidth(&b))
	t.Setenv("COLUMNS", "junk")
	assert.Equal(t, 80, termWidth(&b))
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// TestFormerCheckIDs: a renamed check runs by its former ID, and a
// document written under the former ID diffs against one written under
// the new as the same check (no check appears gone or new).
func TestFormerCheckIDs(t *testing.T) {
	dir := t.TempDir()
	old, cur := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	code, _, stderr := fwcheck(t, "", "run", "acpitables", "--acpidump", "testdata/q35.acpidump.txt", "--json", cur)
	require.NotEqual(t, exitUsage, code, stderr)
	b, err := os.ReadFile(cur)
	require.NoError(t, err)
	require.Contains(t, string(b), `"id": "acpi-tables"`)
	require.NoError(t, os.WriteFile(old, []byte(strings.ReplaceAll(string(b), `"id": "acpi-tables"`, `"id": "acpitables"`)), 0o600))
	code, stdout, stderr := fwcheck(t, "", "diff", old, cur)
	assert.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stdout, "acpitables", stdout)
	_, list, _ := fwcheck(t, "", "list")
	assert.Regexp(t, `(?m)^acpi-tables .*\(formerly acpitables\)$`, list)
}
