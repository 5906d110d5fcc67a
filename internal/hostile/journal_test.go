//go:build linux

package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRoot is a machine root for the s3 command (its hidden --root): a
// sleep state to write, no RTC. Every write lands in the directory, so
// the command's cycles end at once, each failing to arm the wake alarm,
// and the machine running the test is never suspended.
func fakeRoot(t *testing.T) string {
	t.Helper()
	skipShort(t)
	root := t.TempDir()
	for p, c := range map[string]string{"sys/power/state": "freeze mem\n", "sys/power/mem_sleep": "s2idle [deep]\n",
		"sys/power/pm_print_times": "0\n", "sys/power/pm_test": "none\n", "dev/kmsg": ""} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(c), 0o644))
	}
	return root
}

// Journals: a start cycle of MaxInt64 counted cycles from −9.2e18 and
// suspended without end; a `cycles` of 2³¹ overrode the user's --cycles; a
// line over 1 MiB aborted the s3 check; a journal was read whole, however
// large (358 MB); a FIFO as --resume blocked forever.
func TestJournalsAsHostileInput(t *testing.T) {
	root := fakeRoot(t)
	dir := t.TempDir()
	j := filepath.Join(dir, "s3.jsonl")
	lines := []string{
		`{"event":"run","cycles":2147483648,"time":"2026-01-01T00:00:00Z"}`,
		`{"event":"start","cycle":9223372036854775807,"time":"2026-01-01T00:00:00Z"}`,
		`{"event":"start","cycle":1,"note":"` + strings.Repeat("A", 3<<20) + `"}`,
	}
	require.NoError(t, os.WriteFile(j, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	out := filepath.Join(dir, "out.json")
	r := run(t, "s3", "--root", root, "--resume", j, "--cycles", "2", "--sleep", "2s", "--json", out, "--color", "never")
	// The fake root has no RTC wake alarm, so no cycle is run: the check
	// says so (incomplete, exit 0) after reading the journal.
	assert.Equal(t, 0, r.code, "%.300s", r.stderr)
	flat := strings.Join(strings.Fields(r.stdout), " ")
	assert.Contains(t, flat, "3 damaged lines skipped")
	assert.Contains(t, flat, "no RTC wake alarm")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	var d struct {
		Results []struct{ Status string }
	}
	require.NoError(t, json.Unmarshal(b, &d))
	require.Len(t, d.Results, 1)
	assert.Equal(t, "incomplete", d.Results[0].Status)
	// The journal's damaged run record did not set the run's length: the
	// run record the check appended holds the user's --cycles.
	jb, err := os.ReadFile(j)
	require.NoError(t, err)
	var last struct {
		Event  string
		Cycles int
	}
	for _, l := range strings.Split(strings.TrimSpace(string(jb)), "\n") {
		var rec struct {
			Event  string
			Cycles int
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Event == "run" {
			last = rec
		}
	}
	assert.Equal(t, 2, last.Cycles, "the user's --cycles stands")

	// over the size limit, or not a regular file: a one-line error
	// before any cycle
	big := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(big)
	require.NoError(t, err)
	line := []byte(`{"event":"start","cycle":1,"time":"2026-01-01T00:00:00Z"}` + "\n")
	for range (65<<20)/len(line) + 1 {
		f.Write(line)
	}
	require.NoError(t, f.Close())
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"s3", "--resume", big}, "larger than 64 MiB"},
		{[]string{"s3", "--resume", fifo}, "not a regular file but a FIFO"},
		{[]string{"reboot", "--journal", fifo}, "not a regular file but a FIFO"},
		{[]string{"s3", "--json", dir}, "not a regular file (a directory)"},
	} {
		r := run(t, append(c.args, "--root", root, "--cycles", "2")...)
		oneLineError(t, r, c.want)
		assert.Empty(t, r.stdout, "%v: no cycle ran", c.args)
	}
}
