//go:build linux

package hostile

import (
	"archive/tar"
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
)

// longLog is a kernel log with a 3 MiB line between two a check reports.
func longLog() []byte {
	return []byte("[    0.100000] DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.3 04/01/2014\n" +
		"[    1.000000] ACPI: " + strings.Repeat("A", 3<<20) + "\n" +
		"[    3.082295] ACPI Error: Could not disable RealTimeClock events (20220331/evxfevnt-243)\n" +
		"[    4.000000] BUG: kernel NULL pointer dereference, address: 0000000000000000\n")
}

// assertLongLineChecked: the log checks ran on the rest of the log and say
// what they could not check.
func assertLongLineChecked(t *testing.T, d *doc) {
	t.Helper()
	status, _, unchecked, labels := d.result(t, "klog")
	assert.Equal(t, "failed", status)
	assert.Equal(t, 1, labels["ACPIFixedEventDisableFailed"], "the line after the long one is checked")
	require.Len(t, unchecked, 1)
	assert.Contains(t, unchecked[0], "the end of the kernel-log line at [1.000000]")
	status, _, unchecked, labels = d.result(t, "oops")
	assert.Equal(t, "failed", status)
	assert.Equal(t, 1, labels["KernelBUG"])
	assert.Len(t, unchecked, 1)
}

// One line over 1 MiB made the klog and oops checks SKIPPED (and the
// verdict PASS), and made --klog FILE reject the whole log.
func TestOverlongKernelLogLine(t *testing.T) {
	in := file(t, "dmesg.txt", longLog())
	out := file(t, "out.json", nil)
	r := run(t, "run", "klog", "oops", "--klog", in, "--json", out, "--color", "never")
	assert.Equal(t, 1, r.code, "%.300s", r.stderr)
	assertLongLineChecked(t, readDoc(t, out))

	r = run(t, "klog", in, "--json", out, "--color", "never")
	assert.Equal(t, 1, r.code, "%.300s", r.stderr)
	assertLongLineChecked(t, readDoc(t, out))

	snap := tarGz(t, "long.tar.gz", func(tw *tar.Writer) {
		addFile(t, tw, input.RecordedDir+"/"+input.KlogFile, longLog())
	})
	r = run(t, "run", "klog", "oops", "--from", snap, "--json", out, "--color", "never")
	assert.Equal(t, 1, r.code, "%.300s", r.stderr)
	assertLongLineChecked(t, readDoc(t, out))
}

// A log named on the command line that never ends: refused as a device
// at once (it was read up to the 64 MiB limit before); a log that never
// ends on standard input stops at the limit.
func TestKernelLogFromDevZero(t *testing.T) {
	r := run(t, "run", "--klog", "/dev/zero", "--color", "never")
	oneLineError(t, r, "/dev/zero: not a regular file or a pipe but a character device (it may never end)")
}

// No label or advice from an imported database may break the results.
func TestBadAdviceDatabase(t *testing.T) {
	db := file(t, "klog.json", []byte(`{"klog_error_check": [
		{"compare_mode": "string", "log_level": "LOG_LEVEL_HIGH", "pattern": "ACPI", "advice": "Fix it.", "label": "GoodLabel"},
		{"compare_mode": "string", "log_level": "LOG_LEVEL_HIGH", "pattern": "ACPI Error", "advice": "Fix it.", "label": "bad label\n\u001b[2J"}]}`))
	log := file(t, "dmesg.txt", []byte("[    1.000000] ACPI Error: x\n"))
	r := run(t, "klog", log, "--klog-db", db, "--color", "never")
	oneLineError(t, r, `entry 2 (label "bad label\n\x1b[2J", pattern "ACPI Error"): label "bad label\n\x1b[2J" is not CamelCase`)
	assert.NotContains(t, r.stderr, "\x1b")

	r = run(t, "klog", log, "--klog-db", "/dev/zero", "--color", "never")
	oneLineError(t, r, "larger than 16 MiB, not a klog.json")
}

// A 60 MiB log of 4 million tiny lines took 1.1 GB and 3 s: the log checks
// stream it now, so every line is checked in memory that does not grow
// with the log.
func TestKernelLogOfMillionsOfTinyLines(t *testing.T) {
	skipShort(t)
	p := filepath.Join(t.TempDir(), "tiny.log")
	f, err := os.Create(p)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	for i := range 4_000_000 {
		fmt.Fprintf(w, "[1.0] a%d\n", i)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	out := file(t, "out.json", nil)
	r := run(t, "run", "klog", "oops", "--klog", p, "--json", out, "--color", "never")
	assert.Equal(t, 0, r.code, "%.300s", r.stderr)
	status, _, unchecked, _ := readDoc(t, out).result(t, "klog")
	assert.Equal(t, "passed", status, "every line was read")
	assert.Empty(t, unchecked)
}

// Logs of 150,000 lines that each report something (oops, warning, a
// database match) took 3–6 s and up to 300 MB: the log checks stream the
// log, group repeated messages, and count findings past tests.MaxPerLabel
// without formatting them; every line is checked.
func TestKernelLogOfReports(t *testing.T) {
	skipShort(t)
	for _, line := range []string{
		"BUG: kernel NULL pointer dereference, address: 0000000000000000 %d",
		"WARNING: CPU: 0 PID: %d at drivers/acpi/x.c:1 f+0x1/0x2",
		`ACPI Error: AE_NOT_FOUND, While resolving a named reference package element - \_SB.X%d (20220331/dspkginit-438)`,
		"[Firmware Bug]: TSC_DEADLINE disabled due to Errata %d",
	} {
		p := filepath.Join(t.TempDir(), "log")
		f, err := os.Create(p)
		require.NoError(t, err)
		w := bufio.NewWriter(f)
		for i := range 150_000 {
			fmt.Fprintf(w, "[%d.000000] "+line+"\n", i, i)
		}
		require.NoError(t, w.Flush())
		require.NoError(t, f.Close())
		out := file(t, "out.json", nil)
		r := run(t, "run", "--klog", p, "--json", out, "--color", "never")
		assert.Equal(t, 1, r.code, "%.300s", r.stderr)
		_, _, unchecked, _ := readDoc(t, out).result(t, "klog")
		assert.NotContains(t, strings.Join(unchecked, "\n"), "lines of the kernel log", line)
	}
}
