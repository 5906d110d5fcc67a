//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

// buildRelease builds fwcheck as `make build` does (static, stripped,
// trimmed paths), so that start-up is measured on the binary users run.
func buildRelease(tb testing.TB) string {
	tb.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("no go command to build fwcheck with")
	}
	bin := filepath.Join(tb.TempDir(), "fwcheck")
	cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(tb, err, "%s", out)
	return bin
}

// buildFloor builds a static Go program that only prints a line: the
// machine's floor for starting a Go process, against which fwcheck's own
// start-up is read (under load both grow alike).
func buildFloor(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	require.NoError(tb, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module floor\n\ngo 1.22\n"), 0o600))
	require.NoError(tb, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"floor\\n\") }\n"), 0o600))
	bin := filepath.Join(dir, "floor")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	require.NoError(tb, err, "%s", out)
	return bin
}

// startupCase is one whole-process measurement: fwcheck with args, and the
// exit statuses that count as a normal run.
type startupCase struct {
	name  string
	args  []string
	codes []int
	bytes int64 // input size, for MB/s
}

func startupCases(tb testing.TB) []startupCase {
	tb.Helper()
	empty := filepath.Join(tb.TempDir(), "empty.log")
	require.NoError(tb, os.WriteFile(empty, nil, 0o600))
	cs := []startupCase{
		{name: "version", args: []string{"version"}, codes: []int{exitOK}},
		{name: "klog-empty", args: []string{"klog", empty, "--json", os.DevNull}, codes: []int{exitNothing}},
	}
	if corpus.Root() == "" {
		return cs
	}
	log, size := corpusLog(tb, 1)
	cs = append(cs, startupCase{name: "klog-corpus", args: []string{"klog", log, "--json", os.DevNull}, codes: []int{exitOK, exitFailing}, bytes: size})
	dumps := corpus.Glob(tb, "acpi/linuxhw/core/*.acpidump.txt")
	sort.Strings(dumps)
	cs = append(cs, startupCase{name: "acpi-core", args: []string{"run", "--category", "acpi", "--acpidump", dumps[0], "--json", os.DevNull, "--quiet"}, codes: []int{exitOK, exitFailing, exitNothing}})
	return cs
}

// BenchmarkStartup execs the built binary, one process per iteration, as a
// lab's scripts run it: `fwcheck version`; `fwcheck klog` on an empty log
// and on the corpus's real boot logs (1.8 MB, one file); and every ACPI
// check on one small corpus dump (no DSDT). Besides wall time per process
// it reports CPU time (user+system) per process, which other load on the
// machine skews less, and the 1-minute load average when the benchmark
// ended (the figures mean little on a busy machine):
//
//	go test ./cmd/fwcheck -run XXX -bench Startup -benchtime 50x
func BenchmarkStartup(b *testing.B) {
	bin := buildRelease(b)
	floor := buildFloor(b)
	cases := append([]startupCase{{name: "floor-hello", args: nil, codes: []int{exitOK}}}, startupCases(b)...)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			bin := bin
			if c.args == nil {
				bin = floor
			}
			if c.bytes > 0 {
				b.SetBytes(c.bytes)
			}
			var cpu time.Duration
			var walls []time.Duration
			for b.Loop() {
				t0 := time.Now()
				cmd := exec.Command(bin, c.args...)
				err := cmd.Run()
				walls = append(walls, time.Since(t0))
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					b.Fatal(err)
				}
				require.Contains(b, c.codes, code, "%s: exit status", c.name)
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
				}
			}
			sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
			b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(walls[0].Microseconds())/1000, "min-ms")
			b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(loadAverage(), "loadavg")
		})
	}
}

// loadAverage returns the 1-minute load average, or -1 when unknown.
func loadAverage() float64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return -1
	}
	return float64(si.Loads[0]) / 65536
}
