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
