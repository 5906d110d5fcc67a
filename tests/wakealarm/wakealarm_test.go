package wakealarm

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

// rtc answers the check as the live Control would have found the RTC.
type rtc struct {
	res input.AlarmTest
	err error
}

func (rtc) Mark(string) error { return nil }
func (rtc) Suspend(input.SuspendRequest) (input.SuspendResult, error) {
	return input.SuspendResult{}, nil
}
func (rtc) Reboot(string) error { return errors.New("no") }
func (r rtc) WakeAlarm(after, wait time.Duration) (input.AlarmTest, error) {
	if after != Ahead || wait != Ahead+Wait {
		return input.AlarmTest{}, fmt.Errorf("asked %v, %v", after, wait)
	}
	return r.res, r.err
}
func (rtc) RunAt(string, int64) (input.SpeedSample, error) { return input.SpeedSample{}, nil }

func TestOutcomes(t *testing.T) {
	armed := time.Date(2026, 12, 2, 1, 2, 5, 0, time.UTC)
	fired := input.AlarmTest{RTC: "rtc0", Armed: armed, Fired: true, Waited: 1700 * time.Millisecond, Cleared: true,
		ProcArmed: map[string]string{"alarm_IRQ": "yes"}, ProcAfter: map[string]string{"alarm_IRQ": "no", "alrm_pending": "no"},
		IRQBefore: 0, IRQAfter: 1}
	pending := fired
	pending.Fired, pending.Waited = false, 10*time.Second
	pending.ProcAfter = map[string]string{"alarm_IRQ": "yes", "alrm_pending": "no"}
	stuck := fired
	stuck.Cleared = false
	for _, c := range []struct {
		name   string
		r      rtc
		status tests.Status
		want   []string
	}{
		{"fires", rtc{res: fired}, tests.StatusPassed, []string{
			"rtc0's alarm, armed for 01:02:05 (RTC time), fired 1.7 s after it was armed (wakealarm cleared itself; /proc/driver/rtc alarm_IRQ yes while armed, no after; rtc0 interrupts 0 -> 1)",
			"rtc0's alarm reads empty once cleared"}},
		{"pending", rtc{res: pending}, tests.StatusWarning, []string{
			`WakeAlarmNotFired: rtc0's alarm, armed for 01:02:05 (RTC time) 2s ahead, was still pending 10.0 s later (alarm_IRQ "yes", alrm_pending "no")`,
			"rtc0's alarm reads empty once cleared"}},
		{"not cleared", rtc{res: stuck}, tests.StatusWarning, []string{"rtc0's alarm, armed for 01:02:05 (RTC time), fired", "WakeAlarmNotCleared: rtc0's wakealarm still shows an alarm after writing 0 to it"}},
		{"not armed", rtc{res: input.AlarmTest{RTC: "rtc0"}}, tests.StatusWarning, []string{"WakeAlarmNotArmed: rtc0's wakealarm read back empty"}},
		{"refused", rtc{res: input.AlarmTest{RTC: "rtc0"}, err: errors.New(`writing "+2" to /sys/class/rtc/rtc0/wakealarm: invalid argument`)}, tests.StatusWarning,
			[]string{"WakeAlarmRefused: arming rtc0's alarm 2s ahead: writing"}},
		{"no rtc", rtc{err: fmt.Errorf("no RTC wake alarm: %w", fs.ErrNotExist)}, tests.StatusNotApplicable, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := tests.RunOne(&tests.Env{Machine: input.New(input.Empty(), input.Options{}), Control: c.r}, Check)
			assert.Equal(t, c.status, r.Status, tests.Render([]tests.Result{r}))
			var got []string
			for _, f := range r.Findings {
				if f.Label != "" {
					got = append(got, f.Label+": "+f.Message)
				} else if f.Kind == tests.KindPass {
					got = append(got, f.Message)
				}
			}
			assert.Len(t, got, len(c.want), "%q", got)
			for i := range min(len(got), len(c.want)) {
				assert.Contains(t, got[i], c.want[i])
			}
		})
	}
	// Offline there is no Control: skipped.
	r := tests.RunOne(&tests.Env{Machine: input.New(input.Empty(), input.Options{})}, Check)
	assert.Equal(t, tests.StatusSkipped, r.Status)
}
