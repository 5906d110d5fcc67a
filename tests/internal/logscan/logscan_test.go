package logscan_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/logscan"
	klogcheck "github.com/fwcheck/fwcheck/tests/klog"
	"github.com/fwcheck/fwcheck/tests/oops"
)

// readBytes returns how many bytes this process has read (rchar of
// /proc/self/io), or skips the test where that is unknown.
func readBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Skip("no rchar in /proc/self/io")
	return 0
}

// The klog and oops checks of one run read the log's text once between
// them (it was once each), and report what each reports alone.
func TestKlogAndOopsReadTheLogOnce(t *testing.T) {
	var all []byte
	for _, p := range append(corpus.Glob(t, "klog/*.txt"), corpus.Glob(t, "klog/linuxhw/*.dmesg.txt")...) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		all = append(all, data...)
	}
	f := filepath.Join(t.TempDir(), "all.txt")
	require.NoError(t, os.WriteFile(f, all, 0o600))
	checks := []*tests.Check{klogcheck.Check, oops.Check}

	before := readBytes(t)
	both := tests.Run(&tests.Env{Machine: checktest.LogMachine(f)}, checks)
	read := readBytes(t) - before
	t.Logf("%d bytes of log, %d read by the two checks", len(all), read)
	// Once, plus the log's head (the machine's identity lines) and the
	// input's recognition of the file: well under twice.
	assert.Less(t, read, int64(len(all))*3/2, "the log is read once")
	assert.GreaterOrEqual(t, read, int64(len(all)))

	for i, c := range checks {
		alone := tests.RunOne(&tests.Env{Machine: checktest.LogMachine(f)}, c)
		alone.Duration, both[i].Duration = 0, 0
		assert.Equal(t, alone, both[i], c.ID)
	}
	assert.Equal(t, tests.StatusFailed, both[0].Status, "the corpus holds firmware failures")
	assert.NotEmpty(t, both[0].Findings)
}

// Crash reports over a kind's cap are counted, not kept; the oops check
// counts them as the framework does reports over a label's cap.
func TestOopsOverTheCapAreCounted(t *testing.T) {
	var b strings.Builder
	n := tests.MaxPerLabel + 5
	for i := range n {
		fmt.Fprintf(&b, "[%5d.000000] WARNING: CPU: 0 PID: 1 at drivers/x.c:%d f+0x1/0x2\n[%5d.000001] ---[ end trace %04x ]---\n", i+1, i, i+1, i)
	}
	b.WriteString("[99999.000000] Kernel panic - not syncing: Attempted to kill init!\n")
	res := logscan.ScanLog(klog.LogBytes([]byte(b.String())))
	require.NoError(t, res.Err)
	assert.Len(t, res.Oops.Found, tests.MaxPerLabel+1)
	assert.Equal(t, []logscan.KindCount{{Kind: klog.KindWarning, N: 5}}, res.Oops.Omitted)
	assert.Equal(t, n+1, res.Oops.Total())
	assert.Equal(t, klog.KindPanic, res.Oops.Found[len(res.Oops.Found)-1].Kind, "kept in log order")

	f := filepath.Join(t.TempDir(), "oopses.txt")
	require.NoError(t, os.WriteFile(f, []byte(b.String()), 0o600))
	r := tests.RunOne(&tests.Env{Machine: checktest.LogMachine(f)}, oops.Check)
	assert.Equal(t, tests.StatusFailed, r.Status)
	assert.Len(t, r.Findings, tests.MaxPerLabel+1)
	require.Len(t, r.Omitted, 1)
	assert.Equal(t, "KernelWarning", r.Omitted[0].Label)
	assert.Equal(t, 5, r.Omitted[0].Count)
}

// An empty log is read, matched against nothing, and has no reports.
func TestEmptyLog(t *testing.T) {
	res := logscan.ScanLog(klog.LogBytes(nil))
	require.NoError(t, res.Err)
	require.NoError(t, res.KlogErr)
	assert.Zero(t, res.Klog.Lines)
	assert.Zero(t, res.Oops.Records)
	assert.Zero(t, res.Oops.Total())
}

// BenchmarkScanLog is the klog and oops checks' one pass over every corpus
// boot log concatenated (1.8 MB), streamed from a file: the database's
// automaton built, every message matched, every record scanned for crash
// reports.
func BenchmarkScanLog(b *testing.B) {
	var all []byte
	for _, p := range append(corpus.Glob(b, "klog/*.txt"), corpus.Glob(b, "klog/linuxhw/*.dmesg.txt")...) {
		data, err := os.ReadFile(p)
		require.NoError(b, err)
		all = append(all, data...)
	}
	f := filepath.Join(b.TempDir(), "all.txt")
	require.NoError(b, os.WriteFile(f, all, 0o600))
	b.SetBytes(int64(len(all)))
	for b.Loop() {
		if res := logscan.ScanLog(klog.LogFile(f)); res.Err != nil || res.Klog.Lines == 0 {
			b.Fatal(res.Err)
		}
	}
}

// NamesErrors looks only at the bytes notErrorPhrases start with.
func TestNotErrorPhrasesStart(t *testing.T) {
	for _, p := range logscan.NotErrorPhrases() {
		assert.Contains(t, "esm", p[:1], p)
		assert.Equal(t, strings.ToLower(p), p, "lower case, as NamesErrors compares")
		assert.True(t, logscan.NamesErrors("x "+strings.ToUpper(p)+" y"), p)
		assert.False(t, logscan.NamesErrors(p[:len(p)-1]), p)
	}
}
