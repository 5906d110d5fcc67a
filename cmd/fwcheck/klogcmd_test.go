package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
)

// buildFwcheck builds this command into a temporary directory, for tests
// that measure it as a whole process.
func buildFwcheck(tb testing.TB) string {
	tb.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("no go command to build fwcheck with")
	}
	bin := filepath.Join(tb.TempDir(), "fwcheck")
	out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(tb, err, "%s", out)
	return bin
}

// corpusLog writes every corpus boot log, concatenated copies times, to a
// temporary file and returns its name and size.
func corpusLog(tb testing.TB, copies int) (string, int64) {
	tb.Helper()
	var one []byte
	files := append(corpus.Glob(tb, "klog/*.txt"), corpus.Glob(tb, "klog/linuxhw/*.dmesg.txt")...)
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(tb, err)
		one = append(one, data...)
	}
	name := filepath.Join(tb.TempDir(), "klog.txt")
	f, err := os.Create(name)
	require.NoError(tb, err)
	for range copies {
		_, err := f.Write(one)
		require.NoError(tb, err)
	}
	require.NoError(tb, f.Close())
	return name, int64(len(one) * copies)
}

// runKlogProcess runs `fwcheck klog FILE --json /dev/null` and returns its
// resource usage (ru.Maxrss: peak resident memory in KiB).
func runKlogProcess(tb testing.TB, bin, log string) *syscall.Rusage {
	tb.Helper()
	cmd := exec.Command(bin, "klog", log, "--json", os.DevNull)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == exitFailing {
		err = nil // the corpus holds firmware failures
	}
	require.NoError(tb, err)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		tb.Skip("no rusage on this system")
	}
	return ru
}

// The kernel log is streamed: twenty times the log takes no more memory
// than once (a margin of 24 MiB for the garbage collector's slack; holding
// the records took over 150 MiB more).
func TestKlogCommandMemoryIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs fwcheck on 35 MB")
	}
	bin := buildFwcheck(t)
	small, _ := corpusLog(t, 1)
	big, size := corpusLog(t, 20)
	rssSmall := runKlogProcess(t, bin, small).Maxrss
	rssBig := runKlogProcess(t, bin, big).Maxrss
	t.Logf("peak RSS: %d KiB on the corpus once, %d KiB on %d MB", rssSmall, rssBig, size>>20)
	require.Less(t, rssBig, rssSmall+24<<10)
}

// BenchmarkKlogCommand measures `fwcheck klog FILE --json /dev/null` as a
// whole process (start, database load, both log checks, the JSON
// document) on the corpus boot logs concatenated 20 times (35 MB). Besides
// wall-clock MB/s it reports MB per CPU second (user and system time of the
// process), which other load on the machine does not skew:
//
//	go test ./cmd/fwcheck -run XXX -bench KlogCommand -benchtime 5x
func BenchmarkKlogCommand(b *testing.B) {
	bin := buildFwcheck(b)
	log, size := corpusLog(b, 20)
	b.SetBytes(size)
	var rss int64
	var cpu time.Duration
	for b.Loop() {
		ru := runKlogProcess(b, bin, log)
		rss = max(rss, ru.Maxrss)
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ReportMetric(float64(rss), "maxRSS-KiB")
	b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
}

// --follow prints each known firmware message once as it is logged, with
// what the environment explains, and counts repeats; a regular file stands
// in for /dev/kmsg (it ends, the device would block).
func TestKlogFollow(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "dev"), 0o755))
	kmsg := "6,0,0,-;Linux version 6.1.0-9-amd64 (debian-kernel@lists.debian.org) #1 SMP\n" +
		"6,1,0,-;DMI: Example Corp Board/Board, BIOS 1.0 01/01/2024\n" +
		"4,2,1500000,-;ACPI BIOS Warning (bug): 32/64X length mismatch in FADT/Gpe0Block: 64/32 (20220331/tbfadt-564)\n" +
		" SUBSYSTEM=acpi\n" +
		"6,3,1600000,-;an ordinary line\n" +
		"4,4,1700000,-;ACPI BIOS Warning (bug): 32/64X length mismatch in FADT/Gpe0Block: 64/32 (20220331/tbfadt-564)\n" +
		"6,5,1800000,-;tsc: Marking TSC unstable due to TSC halts in idle\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "dev", "kmsg"), []byte(kmsg), 0o600))
	var o, e bytes.Buffer
	m := input.New(input.Live(root), input.Options{})
	code := followKlog(context.Background(), &env{stdout: &o, stderr: &e}, commandTable()["klog"], m)
	assert.Equal(t, exitFailing, code)
	out := o.String()
	assert.Equal(t, 1, strings.Count(out, "FAIL FADTLengthMismatch [medium]: [    1.500000] ACPI BIOS Warning (bug): 32/64X length mismatch"), out)
	assert.Contains(t, out, "INFO TSCHaltsInIdle [low]: not a firmware fault (cpu): [    1.800000] tsc: Marking TSC unstable")
	assert.NotContains(t, out, "ordinary")
	assert.Contains(t, e.String(), "2 firmware findings (1 failures), 1 repeated messages not shown again")

	// A snapshot has no live log to follow.
	code = followKlog(context.Background(), &env{stdout: &o, stderr: &e}, commandTable()["klog"], input.New(input.Empty(), input.Options{}))
	assert.Equal(t, exitUsage, code)
	code, _, stderr := fwcheck(t, "", "klog", "--follow", "x.txt")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "takes no FILE")
}

// `fwcheck klog FILE` collects at 4x the live heap while it runs, and puts
// the collector's setting back when it returns: runMain runs in this
// process, and the other tests must not inherit it.
func TestKlogRestoresGCPercent(t *testing.T) {
	t.Setenv("GOGC", "")
	old := debug.SetGCPercent(77)
	defer debug.SetGCPercent(old)
	log := filepath.Join("..", "..", "tests", "klog", "testdata", "levels.txt")
	code, _, stderr := fwcheck(t, "", "klog", log, "--json", os.DevNull)
	require.NotEqual(t, exitUsage, code, stderr)
	require.Equal(t, 77, debug.SetGCPercent(old))
}
