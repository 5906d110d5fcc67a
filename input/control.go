package input

import (
	"errors"
	"time"
)

// Control is the one seam to actions that change the machine: suspending
// it, resetting it, writing to its kernel log. The framework hands it only
// to checks flagged as acting on the machine, and only when the user asked
// for them; tests give those checks a fake. Reading the machine stays with
// Machine and its inputs.
type Control interface {
	// Mark writes msg, as it is, into the kernel log, so that the log can be cut
	// into the phases of a check (cycle N begins, cycle N ends).
	Mark(msg string) error
	// Suspend puts the machine to sleep as req asks and returns when it is
	// running again, with what the clocks saw.
	Suspend(req SuspendRequest) (SuspendResult, error)
	// Reboot resets the machine with the given method ("" for the
	// kernel's default). It returns only on failure.
	Reboot(method string) error
}

// SuspendRequest is one suspend as a check asks for it.
type SuspendRequest struct {
	// State is what /sys/power/state is given: "mem" (the kind then comes
	// from MemSleep), "freeze", "standby".
	State string
	// MemSleep, for State "mem", is the /sys/power/mem_sleep mode: "deep"
	// (S3), "s2idle" or "shallow"; empty leaves the kernel's choice.
	MemSleep string
	// Wake is when the RTC alarm wakes the machine, from the request.
	Wake time.Duration
	// PrintTimes makes the kernel log every device's suspend and resume
	// callback time (/sys/power/pm_print_times).
	PrintTimes bool
	// PMTest, when set, runs the suspend only up to that phase
	// (/sys/power/pm_test: freezer, devices, platform, processors, core).
	PMTest string
	// PMTrace stores the last device resumed in the RTC (/sys/power/pm_trace).
	PMTrace bool
}

// SuspendResult is what one suspend took.
type SuspendResult struct {
	// Asleep is how long the machine was suspended: CLOCK_BOOTTIME minus
	// CLOCK_MONOTONIC across the suspend (the monotonic clock stops
	// while suspended, the boot-time clock does not).
	Asleep time.Duration
	// Elapsed is the boot-time clock across the whole request.
	Elapsed time.Duration
	// Started is the wall-clock time of the request.
	Started time.Time
	// SinceArmed is the boot-time clock from arming the RTC wake alarm to
	// the machine running again: an upper bound on how long the alarm had
	// been running when the machine woke.
	SinceArmed time.Duration
	// Alarm is what became of the RTC wake alarm, and AlarmLeft, when it
	// was still pending, how long it still had to go.
	Alarm     AlarmState
	AlarmLeft time.Duration
}

// AlarmState is what the RTC wake alarm was when the machine was back.
type AlarmState int

const (
	// AlarmUnknown: no alarm was set, or it could not be read back.
	AlarmUnknown AlarmState = iota
	// AlarmFired: the alarm is no longer pending; it was what woke the
	// machine (or fired while it was waking).
	AlarmFired
	// AlarmPending: the alarm was still armed and in the future, so
	// something else woke the machine.
	AlarmPending
)

// ErrNoControl is returned by a Control that cannot act on this machine.
var ErrNoControl = errors.New("no control of this machine")

// Phased wraps c so that m's inputs are read afresh after every action:
// after a resume the kernel log, the devices and the counters have changed.
func Phased(c Control, m *Machine) Control {
	if c == nil {
		return nil
	}
	return phased{c, m}
}

type phased struct {
	c Control
	m *Machine
}

func (p phased) Mark(msg string) error { err := p.c.Mark(msg); p.m.NewPhase(); return err }

func (p phased) Suspend(req SuspendRequest) (SuspendResult, error) {
	r, err := p.c.Suspend(req)
	p.m.NewPhase()
	return r, err
}

func (p phased) Reboot(method string) error { err := p.c.Reboot(method); p.m.NewPhase(); return err }

// Adjuster is what a Control may also do: change a setting of the running
// machine for a moment and put it back. The framework hands it, through
// the Control, only to checks flagged as adjusting the machine (the RTC
// wake alarm, a CPU frequency policy), and only when the user named them.
// A Control that is not an Adjuster refuses these with ErrNoControl.
type Adjuster interface {
	// WakeAlarm arms the RTC wake alarm after ahead (rounded up to whole
	// seconds), waits until it fires or wait has passed, clears it, and
	// says what became of it.
	WakeAlarm(after, wait time.Duration) (AlarmTest, error)
	// RunAt holds the cpufreq policy (policy0) at khz with the userspace
	// governor, measures the effective speed of its first CPU under load,
	// and puts the governor and its limits back.
	RunAt(policy string, khz int64) (SpeedSample, error)
}

// AlarmTest is what became of one RTC wake alarm.
type AlarmTest struct {
	// RTC is the clock armed ("rtc0").
	RTC string
	// Armed is the alarm time read back from wakealarm after arming (zero
	// when it read back empty); Wanted the time asked for.
	Armed, Wanted time.Time
	// Fired: the alarm was seen to fire: wakealarm read empty (the RTC
	// class clears an alarm once it fired) within the wait. Waited is the
	// boot-time clock from arming until then (or until the wait ended).
	Fired  bool
	Waited time.Duration
	// Proc are /proc/driver/rtc's alarm lines ("alarm_IRQ", "alrm_pending")
	// before arming, while armed, and after the wait, where the driver
	// has them (rtc-cmos).
	ProcBefore, ProcArmed, ProcAfter map[string]string
	// IRQBefore and IRQAfter are the rtc0 interrupt's count over all CPUs
	// in /proc/interrupts (-1 when it has no line).
	IRQBefore, IRQAfter int64
	// Cleared: wakealarm read empty after the alarm was cleared.
	Cleared bool
}

// SpeedSample is one measurement of a CPU's effective speed under load.
type SpeedSample struct {
	CPU int
	// Wall is the time measured, TSC the time-stamp counter's ticks over
	// it, APERF and MPERF the actual- and maximum-performance counters'
	// increments (IA32_APERF 0xE8, IA32_MPERF 0xE7).
	Wall              time.Duration
	TSC, APERF, MPERF uint64
	// Err says why the counters could not be read ("" when they were).
	Err string
}

// MHz is the effective frequency the sample measured: the TSC rate scaled
// by APERF/MPERF; 0 when the counters were not read.
func (s SpeedSample) MHz() float64 {
	if s.Err != "" || s.Wall <= 0 || s.MPERF == 0 {
		return 0
	}
	return float64(s.TSC) / s.Wall.Seconds() / 1e6 * float64(s.APERF) / float64(s.MPERF)
}

// WakeAlarm asks c to test the RTC wake alarm, or says it cannot.
func WakeAlarm(c Control, after, wait time.Duration) (AlarmTest, error) {
	if a, ok := c.(Adjuster); ok {
		return a.WakeAlarm(after, wait)
	}
	return AlarmTest{}, ErrNoControl
}

// RunAt asks c to measure a CPU at a frequency, or says it cannot.
func RunAt(c Control, policy string, khz int64) (SpeedSample, error) {
	if a, ok := c.(Adjuster); ok {
		return a.RunAt(policy, khz)
	}
	return SpeedSample{}, ErrNoControl
}

func (p phased) WakeAlarm(after, wait time.Duration) (AlarmTest, error) {
	r, err := WakeAlarm(p.c, after, wait)
	p.m.NewPhase()
	return r, err
}

func (p phased) RunAt(policy string, khz int64) (SpeedSample, error) {
	r, err := RunAt(p.c, policy, khz)
	p.m.NewPhase()
	return r, err
}
