package input

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadAlarm(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p := filepath.Join(t.TempDir(), "wakealarm")
	for _, c := range []struct {
		content string
		state   AlarmState
		left    time.Duration
	}{
		{"\n", AlarmFired, 0},                           // the RTC class cleared it when it fired
		{"1800000000\n", AlarmFired, 0},                 // due now: fired, or firing
		{"1800000007\n", AlarmPending, 7 * time.Second}, // something else woke the machine
		{"garbage\n", AlarmUnknown, 0},
	} {
		require.NoError(t, os.WriteFile(p, []byte(c.content), 0o644))
		state, left := readAlarm(p, now)
		assert.Equal(t, c.state, state, "%q", c.content)
		assert.Equal(t, c.left, left, "%q", c.content)
	}
	state, _ := readAlarm(filepath.Join(t.TempDir(), "absent"), now)
	assert.Equal(t, AlarmUnknown, state)
}
