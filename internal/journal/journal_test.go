package journal

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type rec struct {
	Event string `json:"event"`
	N     int    `json:"n,omitempty"`
}

func TestTornLineIsSkippedAndTheNextRecordKept(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(p)
	require.NoError(t, err)
	require.NoError(t, j.Append(rec{"run", 0}))
	require.NoError(t, j.Append(rec{"start", 1}))
	require.NoError(t, j.Close())
	// A reset cut the next write short.
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	f.WriteString(`{"event":"outc`)
	f.Close()

	j, err = Open(p)
	require.NoError(t, err)
	require.NoError(t, j.Close(), "closed before a reset")
	require.NoError(t, j.Append(rec{"start", 2}), "and opened again to append")
	require.NoError(t, j.Close())
	require.NoError(t, j.Close())

	recs, damaged, err := ReadFile(p, func(r *rec) bool { return r.Event != "" })
	require.NoError(t, err)
	assert.Equal(t, 1, damaged)
	assert.Equal(t, []rec{{"run", 0}, {"start", 1}, {"start", 2}}, recs)
}

// A line over MaxLine aborted the whole s3 check; it is skipped and
// counted now, and the records around it are kept.
func TestOverlongLineIsSkipped(t *testing.T) {
	in := `{"event":"run"}` + "\n" + strings.Repeat("x", 3*MaxLine) + "\n" + `{"event":"start","n":1}` + "\n" +
		`{"event":"start","n":2,"pad":"` + strings.Repeat("y", MaxLine-200) + `"}` + "\n"
	recs, damaged, err := Read(strings.NewReader(in), func(r *rec) bool { return r.Event != "" })
	require.NoError(t, err)
	assert.Equal(t, 1, damaged)
	assert.Equal(t, []rec{{"run", 0}, {"start", 1}, {"start", 2}}, recs, "a line just under the limit is kept")
	_, damaged, err = Read(strings.NewReader(strings.Repeat("x", MaxLine+10)), func(*rec) bool { return true })
	assert.NoError(t, err)
	assert.Equal(t, 1, damaged, "a last line without its newline too")
}

// A journal is read up to MaxSize: past it, an error, not 358 MB in memory.
func TestJournalSizeBounded(t *testing.T) {
	line := `{"event":"start","n":1}` + "\n"
	r := io.MultiReader(strings.NewReader(strings.Repeat(line, MaxSize/len(line)+1)))
	_, _, err := Read(r, func(r *rec) bool { return r.Event != "" })
	assert.ErrorContains(t, err, "larger than 64 MiB")
}

func TestJournalIsARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, _, err := ReadFile(fifo, func(r *rec) bool { return true })
	assert.ErrorContains(t, err, "not a regular file but a FIFO")
	_, err = Open(fifo)
	assert.ErrorContains(t, err, "not a regular file but a FIFO")

	p := filepath.Join(t.TempDir(), "j")
	j, err := Open(p)
	require.NoError(t, err)
	require.NoError(t, j.Append(rec{"run", 0}))
	j.Close()
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "machine data: the owner's only")
}

func TestCycleOK(t *testing.T) {
	assert.True(t, CycleOK(0, 300))
	assert.True(t, CycleOK(300, 300))
	assert.False(t, CycleOK(301, 300))
	assert.False(t, CycleOK(-1, 300))
	assert.False(t, CycleOK(math.MaxInt64, math.MaxInt))
	assert.False(t, CycleOK(1<<31, math.MaxInt))
}

// FuzzRead: whatever the bytes, every line is a record or counted
// damaged, never more than the lines there are.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"event\":\"run\"}\n{\"ev"))
	f.Add([]byte("{\"event\":\"start\",\"n\":9223372036854775807}\n\n\n{}\n"))
	f.Add([]byte(strings.Repeat("z", 70000) + "\n{\"event\":\"done\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, damaged, _ := Read(strings.NewReader(string(b)), func(r *rec) bool { return r.Event != "" })
		if len(recs)+damaged > strings.Count(string(b), "\n")+1 {
			t.Fatalf("%d records and %d damaged from %d lines", len(recs), damaged, strings.Count(string(b), "\n")+1)
		}
	})
}
