package input

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fwcheck/fwcheck/irq"
)

// WakeAlarm arms rtc0's wake alarm, polls it every 100 ms until it clears
// (the RTC class disarms an alarm once it fired) or wait has passed, then
// clears it.
func (c *liveControl) WakeAlarm(after, wait time.Duration) (AlarmTest, error) {
	r := AlarmTest{RTC: "rtc0", IRQBefore: -1, IRQAfter: -1}
	alarm := "sys/class/rtc/" + r.RTC + "/wakealarm"
	if _, err := os.Stat(c.path(alarm)); err != nil {
		return r, fmt.Errorf("no RTC wake alarm: %w", err)
	}
	r.ProcBefore = procRTC(c.path("proc/driver/rtc"))
	r.IRQBefore = rtcIRQ(c.path("proc/interrupts"), r.RTC)
	// A pending alarm must be cleared first: the kernel refuses a new one over it.
	if err := c.write(alarm, "0"); err != nil {
		return r, err
	}
	secs := int64((after + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	armed := clock(unix.CLOCK_BOOTTIME)
	r.Wanted = time.Now().Add(time.Duration(secs) * time.Second).Truncate(time.Second)
	if err := c.write(alarm, fmt.Sprintf("+%d", secs)); err != nil {
		return r, err
	}
	at, set := readAlarmTime(c.path(alarm))
	if set {
		r.Armed = at
	}
	r.ProcArmed = procRTC(c.path("proc/driver/rtc"))
	for set {
		time.Sleep(100 * time.Millisecond)
		r.Waited = clock(unix.CLOCK_BOOTTIME) - armed
		if _, still := readAlarmTime(c.path(alarm)); !still {
			r.Fired = true
			break
		}
		if r.Waited > wait {
			break
		}
	}
	r.ProcAfter = procRTC(c.path("proc/driver/rtc"))
	r.IRQAfter = rtcIRQ(c.path("proc/interrupts"), r.RTC)
	if err := c.write(alarm, "0"); err != nil {
		return r, fmt.Errorf("clearing the alarm: %w", err)
	}
	_, still := readAlarmTime(c.path(alarm))
	r.Cleared = !still
	return r, nil
}

// readAlarmTime reads a wakealarm attribute: the alarm time, and whether
// one is armed (the attribute is empty otherwise).
func readAlarmTime(p string) (time.Time, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// procRTC returns the alarm lines of /proc/driver/rtc, or nil.
func procRTC(p string) map[string]string {
	b, err := os.ReadFile(p)
	if err != nil || len(b) > 1<<16 {
		return nil
	}
	return ParseProcRTC(b)
}

// rtcIRQ is the total count of the interrupt whose device is rtc, or -1.
func rtcIRQ(p, rtc string) int64 {
	b, err := os.ReadFile(p)
	if err != nil {
		return -1
	}
	t, err := irq.Parse(b)
	if err != nil {
		return -1
	}
	for _, l := range t.Lines {
		if strings.Contains(" "+strings.ReplaceAll(l.Devices, ",", " ")+" ", " "+rtc+" ") {
			return int64(l.Total())
		}
	}
	return -1
}
