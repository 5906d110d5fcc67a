package journal

import (
	"os"
	"path/filepath"
	"strings"
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

func TestOverlongLineIsAnError(t *testing.T) {
	_, _, err := Read(strings.NewReader(strings.Repeat("x", MaxLine+10)), func(*rec) bool { return true })
	assert.Error(t, err)
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"event\":\"run\"}\n{\"ev"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, damaged, _ := Read(strings.NewReader(string(b)), func(r *rec) bool { return r.Event != "" })
		if len(recs)+damaged > strings.Count(string(b), "\n")+1 {
			t.Fatalf("%d records and %d damaged from %d lines", len(recs), damaged, strings.Count(string(b), "\n")+1)
		}
	})
}
