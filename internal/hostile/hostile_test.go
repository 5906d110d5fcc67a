//go:build linux

package hostile

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Limits every case must stay within.
const (
	rssLimit  = 300 << 20
	hangLimit = time.Minute
)

var (
	bin     string // the fwcheck binary under test
	workDir string // generated inputs shared by cases
)

func TestMain(m *testing.M) {
	if os.Getenv(spawnEnv) != "" {
		os.Exit(spawn(os.Args[1:]))
	}
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run()) // every case skips: they build and run the binary
	}
	code := func() int {
		dir, err := os.MkdirTemp("", "fwcheck-hostile-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		// Reachable by the unprivileged user of the snapshot -o test.
		os.Chmod(dir, 0o755)
		workDir = dir
		bin = filepath.Join(dir, "fwcheck")
		build := exec.Command("go", "build", "-o", bin, "github.com/fwcheck/fwcheck/cmd/fwcheck")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building fwcheck: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// skipShort skips a case under -short (make test-short): the cases build
// the binary and generate large inputs, several minutes in all (the documents near 256 MiB most).
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds fwcheck and generates large inputs")
	}
}

// result is one run of fwcheck.
type result struct {
	code           int
	stdout, stderr string
	cpu, wall      time.Duration
	rss            int64 // bytes
}

// Linux counts the parent's peak resident memory at a fork (go's
// os/exec forks with CLONE_VM) into the child's maximum RSS, and this test
// process grows while it generates inputs. So fwcheck is started by a
// fresh, small copy of the test binary (the spawner), which reports the
// child's resource usage back: the figure is then fwcheck's own, overstated
// at most by the spawner's few megabytes.
const (
	spawnEnv = "FWCHECK_HOSTILE_SPAWN" // set: this process is the spawner; its value is the usage file
	uidEnv   = "FWCHECK_HOSTILE_UID"   // the spawner runs fwcheck as this uid and gid
)

// usage is what the spawner reports.
type usage struct {
	Code          int
	Signaled      bool
	CPUNs, MaxRSS int64
	Hung          bool
}

// spawn runs args as a child with the spawner's standard streams and writes
// its usage to the file named by spawnEnv.
func spawn(args []string) int {
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if u := os.Getenv(uidEnv); u != "" {
		var id uint32
		fmt.Sscan(u, &id)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: id, Gid: id}}
	}
	cmd.Env = slices.DeleteFunc(os.Environ(), func(e string) bool {
		return strings.HasPrefix(e, spawnEnv+"=") || strings.HasPrefix(e, uidEnv+"=")
	})
	err := cmd.Run()
	var u usage
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		u.Code = exit.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "spawner:", err)
		return 125
	}
	u.Hung = ctx.Err() != nil
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	u.Signaled = ws.Signaled()
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	u.MaxRSS = ru.Maxrss << 10 // kilobytes on Linux
	u.CPUNs = ru.Utime.Nano() + ru.Stime.Nano()
	b, _ := json.Marshal(u)
	if err := os.WriteFile(os.Getenv(spawnEnv), b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "spawner:", err)
		return 125
	}
	return 0
}

// runAs is run as user uid (-1: as the test's own user).
func runAs(t *testing.T, uid int, args ...string) result {
	t.Helper()
	skipShort(t)
	uf := filepath.Join(t.TempDir(), "usage.json")
	cmd := exec.Command(os.Args[0], append([]string{bin}, args...)...)
	cmd.Dir = workDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", spawnEnv+"="+uf)
	if uid >= 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", uidEnv, uid))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), wall: time.Since(start)}
	require.NoError(t, err, "spawner: %s", r.stderr)
	b, err := os.ReadFile(uf)
	require.NoError(t, err)
	var u usage
	require.NoError(t, json.Unmarshal(b, &u))
	require.False(t, u.Hung, "fwcheck %s: still running after %s: a hang", strings.Join(args, " "), hangLimit)
	require.False(t, u.Signaled, "killed by a signal: %s", r.stderr)
	r.code, r.rss, r.cpu = u.Code, u.MaxRSS, time.Duration(u.CPUNs)
	return r
}

// run runs fwcheck and asserts the limits every case must keep.
func run(t *testing.T, args ...string) result {
	t.Helper()
	r := runAs(t, -1, args...)
	bounded(t, r)
	return r
}

func bounded(t *testing.T, r result) {
	t.Helper()
	t.Logf("exit %d, cpu %v, wall %v, max RSS %.1f MB", r.code, r.cpu.Round(time.Millisecond), r.wall.Round(time.Millisecond), float64(r.rss)/1e6)
	assert.Less(t, r.rss, int64(rssLimit), "peak memory")
	assert.NotContains(t, r.stderr, "panic:")
	assert.NotContains(t, r.stderr, "goroutine ")
}

// oneLineError asserts exit status 2 and exactly one line on stderr
// containing want.
func oneLineError(t *testing.T, r result, want string) {
	t.Helper()
	assert.Equal(t, 2, r.code, "exit status; stderr: %.300s", r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %.500q", r.stderr)
	assert.Contains(t, r.stderr, want)
	assert.Less(t, len(r.stderr), 400, "a short line")
}

// doc is the part of the results document the cases look at.
type doc struct {
	Results []struct {
		ID, Status, Reason string
		Unchecked          []struct{ What, Reason string }
		Findings           []struct{ Label, Message string }
	}
}

func (d *doc) result(t *testing.T, id string) (status, reason string, unchecked []string, labels map[string]int) {
	t.Helper()
	for _, r := range d.Results {
		if r.ID == id {
			labels = map[string]int{}
			for _, f := range r.Findings {
				labels[f.Label]++
			}
			for _, u := range r.Unchecked {
				unchecked = append(unchecked, u.What+": "+u.Reason)
			}
			return r.Status, r.Reason, unchecked, labels
		}
	}
	t.Fatalf("no result for %s", id)
	return
}

func readDoc(t *testing.T, p string) *doc {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var d doc
	require.NoError(t, json.Unmarshal(b, &d))
	return &d
}

// file writes b to a new file in the test's directory.
func file(t *testing.T, name string, b []byte) string {
	t.Helper()
	skipShort(t)
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// gzFile writes what fill writes, gzip-compressed, to a new file.
func gzFile(t *testing.T, name string, fill func(w io.Writer)) string {
	t.Helper()
	skipShort(t)
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	require.NoError(t, err)
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	fill(zw)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return p
}

// tarGz writes a snapshot archive; add writes its entries.
func tarGz(t *testing.T, name string, add func(tw *tar.Writer)) string {
	t.Helper()
	return gzFile(t, name, func(w io.Writer) {
		tw := tar.NewWriter(w)
		add(tw)
		require.NoError(t, tw.Close())
	})
}

func addFile(t *testing.T, tw *tar.Writer, name string, data []byte) {
	t.Helper()
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o444, Size: int64(len(data)), Typeflag: tar.TypeReg}))
	_, err := tw.Write(data)
	require.NoError(t, err)
}
