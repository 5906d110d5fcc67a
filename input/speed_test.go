package input

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpeedRoundTrip(t *testing.T) {
	in := []SpeedSample{
		{CPU: 0, Wall: 300 * time.Millisecond, TSC: 780_000_000, APERF: 960_000_000, MPERF: 780_000_000},
		{CPU: 3, Err: "IA32_MPERF (0xE7): input/output error"},
	}
	out, err := ParseSpeed(FormatSpeed(in))
	require.NoError(t, err)
	assert.Equal(t, in, out)
	assert.InDelta(t, 3200, out[0].MHz(), 0.01, "2.6 GHz TSC × 960/780")
	assert.Zero(t, out[1].MHz())
	for _, bad := range []string{"x 1 2 3 4", "0 1 2 3", "0 0 1 1 1", "0 error", "0 error \"\"", "0 5 -1 2 3"} {
		_, err := ParseSpeed([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestParseProcRTC(t *testing.T) {
	// rtc-cmos's /proc/driver/rtc (drivers/rtc/proc.c and rtc-cmos.c).
	m := ParseProcRTC([]byte("rtc_time\t: 01:02:03\nrtc_date\t: 2026-12-02\nalrm_time\t: 01:02:05\nalrm_date\t: 2026-12-02\nalarm_IRQ\t: yes\nalrm_pending\t: no\n"))
	assert.Equal(t, map[string]string{"alrm_time": "01:02:05", "alrm_date": "2026-12-02", "alarm_IRQ": "yes", "alrm_pending": "no"}, m)
}

func FuzzParseSpeed(f *testing.F) {
	f.Add(FormatSpeed([]SpeedSample{{CPU: 1, Wall: time.Second, TSC: 1, APERF: 2, MPERF: 3}, {CPU: 2, Err: "e"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ss, err := ParseSpeed(b)
		if err != nil {
			return
		}
		again, err := ParseSpeed(FormatSpeed(ss))
		require.NoError(t, err)
		assert.Equal(t, ss, again)
	})
}
