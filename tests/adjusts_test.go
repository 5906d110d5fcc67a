package tests

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
)

// adjuster is a Control that can also adjust (input.Adjuster).
type adjuster struct {
	fakeControl
	alarms, runs int
}

func (a *adjuster) WakeAlarm(after, wait time.Duration) (input.AlarmTest, error) {
	a.alarms++
	return input.AlarmTest{RTC: "rtc0", Fired: true}, nil
}

func (a *adjuster) RunAt(policy string, khz int64) (input.SpeedSample, error) {
	a.runs++
	return input.SpeedSample{}, nil
}

func TestAdjustsFlag(t *testing.T) {
	alarm := &Check{ID: "alarm", Title: "a", Category: Power, Flags: Adjusts, Run: func(p *Pass) error {
		r, err := input.WakeAlarm(p.Control(), time.Second, time.Second)
		if err != nil {
			return err
		}
		_, err = input.RunAt(p.Control(), "policy0", 1000)
		p.Passed("fired %v", r.Fired)
		return err
	}}
	plain := &Check{ID: "plain", Title: "p", Category: ACPI, Run: func(p *Pass) error { return nil }}

	// Not selected by default, selected when named.
	sel, err := Select([]*Check{alarm, plain}, Selection{})
	assert.NoError(t, err)
	assert.Equal(t, []*Check{plain}, sel)
	sel, err = Select([]*Check{alarm, plain}, Selection{IDs: []string{"alarm"}})
	assert.NoError(t, err)
	assert.Equal(t, []*Check{alarm}, sel)
	assert.Equal(t, []string{"adjusts"}, Adjusts.Strings())

	// The Control's Adjuster reaches the check through the framework's
	// wrappers, and the machine is read afresh after each action.
	a := &adjuster{}
	r := RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: a}, alarm)
	assert.Equal(t, StatusPassed, r.Status, r.Reason)
	assert.Equal(t, 1, a.alarms)
	assert.Equal(t, 1, a.runs)

	// A Control that cannot adjust refuses.
	r = RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: &fakeControl{}}, alarm)
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, input.ErrNoControl.Error())

	// A power-state check may test the wake alarm, not set a frequency.
	sleepy := &Check{ID: "sleepy", Title: "s", Category: Power, Flags: PowerState, Run: func(p *Pass) error {
		if _, err := input.WakeAlarm(p.Control(), time.Second, time.Second); err != nil {
			return err
		}
		_, err := input.RunAt(p.Control(), "policy0", 1000)
		return err
	}}
	a = &adjuster{}
	r = RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: a}, sleepy)
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, "without the adjusts flag")
	assert.Equal(t, 1, a.alarms)
	assert.Zero(t, a.runs)
}
