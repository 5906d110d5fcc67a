// Package wakealarm checks the RTC wake alarm the way a suspend check
// relies on it: it arms rtc0's alarm two seconds ahead through the
// machine's Control (sys/class/rtc/rtc0/wakealarm), waits for the RTC
// class to clear it once it fired (with rtc-cmos, /proc/driver/rtc's
// alarm_IRQ goes from yes to no, and the rtc0 interrupt counts one more),
// then clears it and checks that it reads empty.
//
// Arming the alarm writes the RTC, so the check is flagged Adjusts: it
// runs only when named (fwcheck run wakealarm), never on a snapshot. It
// does not suspend the machine; the s3 check does that.
//
// Its findings are warnings (WakeAlarmRefused, WakeAlarmNotArmed,
// WakeAlarmNotFired, WakeAlarmNotCleared): no machine in the corpus shows
// them yet, so none fails a run until one is confirmed.
package wakealarm

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const spec = "ACPI 6.5 §4.8 (fixed hardware features: Real Time Clock Alarm, RTC_STS/RTC_EN); FADT flags FIX_RTC, RTC_S4"

var (
	labelRefused = tests.NewLabel("WakeAlarmRefused", tests.Medium, spec,
		"The kernel could not arm the RTC alarm: the RTC driver refused the time or the alarm registers. Without a "+
			"working alarm, automated suspend tests cannot wake the machine; check that the CMOS RTC's alarm "+
			"registers (and the FADT's DAY_ALRM/MON_ALRM indices, when given) are implemented.")
	labelNotArmed = tests.NewLabel("WakeAlarmNotArmed", tests.Medium, spec,
		"The alarm was written without an error, but the RTC did not keep it: wakealarm reads back empty. The "+
			"alarm-enable bit or the alarm registers do not hold what the OS writes.")
	labelNotFired = tests.NewLabel("WakeAlarmNotFired", tests.Medium, spec,
		"The RTC alarm stayed pending past its time: its interrupt never reached the OS. A machine whose alarm "+
			"does not fire while running will not wake from suspend on it either; the RTC interrupt (IRQ 8, or the "+
			"ACPI RTC fixed event when FIX_RTC is clear) must be routed and delivered.")
	labelNotCleared = tests.NewLabel("WakeAlarmNotCleared", tests.Low, spec,
		"After the alarm was cleared, wakealarm still shows an alarm time: the alarm-enable bit does not stay "+
			"cleared, so a stale alarm may wake the machine later.")
)

// Ahead is how far ahead the alarm is armed; Wait how long the check waits
// past that for it to fire.
const (
	Ahead = 2 * time.Second
	Wait  = 8 * time.Second
)

// Check is the wakealarm check.
var Check = &tests.Check{
	ID: "wakealarm", Title: "RTC wake alarm: armed 2 s ahead, it fires and clears",
	Category: tests.Power,
	Flags:    tests.Adjusts,
	Spec:     spec,
	Labels:   []*tests.Label{labelRefused, labelNotArmed, labelNotFired, labelNotCleared},
	Run:      run,
}

func run(p *tests.Pass) error {
	p.Progress("arming the RTC wake alarm %v ahead", Ahead)
	r, err := input.WakeAlarm(p.Control(), Ahead, Ahead+Wait)
	switch {
	case errors.Is(err, input.ErrNoControl):
		p.Skip("no control of this machine: the RTC alarm can only be tested live")
		return nil
	case errors.Is(err, fs.ErrNotExist):
		p.NotApplicable("no RTC wake alarm: %v (no RTC driver bound, or an RTC without alarm support)", err)
		return nil
	case err != nil && r.Armed.IsZero() && !r.Fired:
		p.Warn(labelRefused, "arming %s's alarm %v ahead: %v", r.RTC, Ahead, err)
		return nil
	}
	Judge(p, r, err)
	return nil
}

// Judge reports an alarm test's outcome; clearErr is an error from
// clearing the alarm (the alarm itself was armed).
func Judge(p *tests.Pass, r input.AlarmTest, clearErr error) {
	if r.Armed.IsZero() {
		p.Warn(labelNotArmed, "%s's wakealarm read back empty right after it was armed %v ahead", r.RTC, Ahead)
		return
	}
	evidence := []string{"wakealarm cleared itself"}
	if b, a := r.ProcArmed["alarm_IRQ"], r.ProcAfter["alarm_IRQ"]; b != "" && a != "" {
		evidence = append(evidence, fmt.Sprintf("/proc/driver/rtc alarm_IRQ %s while armed, %s after", b, a))
	}
	if r.IRQBefore >= 0 && r.IRQAfter >= 0 {
		evidence = append(evidence, fmt.Sprintf("%s interrupts %d -> %d", r.RTC, r.IRQBefore, r.IRQAfter))
	}
	if r.Fired {
		p.Passed("%s's alarm, armed for %s (RTC time), fired %.1f s after it was armed (%s)", r.RTC,
			r.Armed.UTC().Format("15:04:05"), r.Waited.Seconds(), strings.Join(evidence, "; "))
	} else {
		p.Warn(labelNotFired, "%s's alarm, armed for %s (RTC time) %v ahead, was still pending %.1f s later (alarm_IRQ %q, alrm_pending %q)",
			r.RTC, r.Armed.UTC().Format("15:04:05"), Ahead, r.Waited.Seconds(), r.ProcAfter["alarm_IRQ"], r.ProcAfter["alrm_pending"])
	}
	switch {
	case clearErr != nil:
		p.Warn(labelNotCleared, "clearing %s's alarm: %v", r.RTC, clearErr)
	case !r.Cleared:
		p.Warn(labelNotCleared, "%s's wakealarm still shows an alarm after writing 0 to it", r.RTC)
	default:
		p.Passed("%s's alarm reads empty once cleared", r.RTC)
	}
}
