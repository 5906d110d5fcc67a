package s3

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Cycle numbers out of range are damaged lines: a start cycle of MaxInt64
// counted the next cycles from −9.2e18 and suspended without end; a run of
// 2³¹ cycles overrode the user's --cycles.
func TestJournalCyclesOutOfRangeAreDamaged(t *testing.T) {
	in := strings.Join([]string{
		`{"event":"run","cycles":2147483648,"time":"2026-01-01T00:00:00Z"}`,
		`{"event":"run","cycles":5,"time":"2026-01-01T00:00:00Z"}`,
		`{"event":"start","cycle":9223372036854775807,"time":"2026-01-01T00:00:00Z"}`,
		`{"event":"outcome","cycle":1,"time":"2026-01-01T00:00:00Z","outcome":{"cycle":-4,"status":"passed"}}`,
		`{"event":"start","cycle":2,"time":"2026-01-01T00:00:00Z"}`,
	}, "\n")
	recs, damaged, err := ReadJournal(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, 3, damaged)
	hung, _, cycles, finished := Unfinished(recs)
	assert.Equal(t, []int{2}, hung)
	assert.Equal(t, 5, cycles)
	assert.False(t, finished)
}
