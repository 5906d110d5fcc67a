package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LiveControl returns the Control of the running machine, with its sysfs
// and /dev under root ("/" normally; tests use a directory).
func LiveControl(root string) Control { return &liveControl{root: root} }

type liveControl struct{ root string }

func (c *liveControl) path(p string) string { return filepath.Join(c.root, p) }

// write writes v to a sysfs attribute, as `echo v > file` does.
func (c *liveControl) write(p, v string) error {
	f, err := os.OpenFile(c.path(p), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(v); err != nil {
		f.Close()
		return fmt.Errorf("writing %q to /%s: %w", v, p, err)
	}
	return f.Close()
}

func (c *liveControl) Mark(msg string) error {
	// One write is one record; the kernel stamps and levels it.
	return c.write("dev/kmsg", "<5>"+strings.ReplaceAll(msg, "\n", " ")+"\n")
}

func (c *liveControl) Suspend(req SuspendRequest) (SuspendResult, error) {
	var res SuspendResult
	if req.State == "" {
		req.State = "mem"
	}
	if req.MemSleep != "" {
		if err := c.write("sys/power/mem_sleep", req.MemSleep); err != nil {
			return res, err
		}
	}
	if err := c.write("sys/power/pm_print_times", boolAttr(req.PrintTimes)); err != nil && req.PrintTimes {
		return res, err
	}
	test := req.PMTest
	if test == "" {
		test = "none"
	}
	if err := c.write("sys/power/pm_test", test); err != nil && req.PMTest != "" {
		return res, fmt.Errorf("%w (pm_test needs CONFIG_PM_DEBUG)", err)
	}
	if req.PMTrace {
		if err := c.write("sys/power/pm_trace", "1"); err != nil {
			return res, fmt.Errorf("%w (pm_trace needs CONFIG_PM_TRACE_RTC)", err)
		}
	}
	const alarm = "sys/class/rtc/rtc0/wakealarm"
	var armed time.Duration
	if req.Wake > 0 {
		// Clear a pending alarm first: the kernel refuses a new one over it.
		if err := c.write(alarm, "0"); err != nil {
			return res, fmt.Errorf("RTC wake alarm: %w", err)
		}
		secs := int64((req.Wake + time.Second - 1) / time.Second)
		armed = clock(unix.CLOCK_BOOTTIME)
		if err := c.write(alarm, fmt.Sprintf("+%d", secs)); err != nil {
			return res, fmt.Errorf("RTC wake alarm: %w", err)
		}
	}
	res.Started = time.Now()
	b0, m0 := clock(unix.CLOCK_BOOTTIME), clock(unix.CLOCK_MONOTONIC)
	err := c.write("sys/power/state", req.State)
	b1, m1 := clock(unix.CLOCK_BOOTTIME), clock(unix.CLOCK_MONOTONIC)
	res.Elapsed = b1 - b0
	res.Asleep = (b1 - b0) - (m1 - m0)
	if req.Wake > 0 {
		res.SinceArmed = b1 - armed
		// The RTC class clears an alarm once it fires; one still armed
		// and in the future means something else woke the machine.
		res.Alarm, res.AlarmLeft = readAlarm(c.path(alarm), time.Now())
		_ = c.write(alarm, "0")
	}
	return res, err
}

// readAlarm reads the RTC wakealarm attribute (seconds since the epoch, or
// empty when none is armed) against now.
func readAlarm(path string, now time.Time) (AlarmState, time.Duration) {
	b, err := os.ReadFile(path)
	if err != nil {
		return AlarmUnknown, 0
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return AlarmFired, 0
	}
	at, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return AlarmUnknown, 0
	}
	if left := time.Unix(at, 0).Sub(now); left > 0 {
		return AlarmPending, left
	}
	return AlarmFired, 0
}

func (c *liveControl) Reboot(method string) error {
	if method != "" {
		if err := c.write("sys/kernel/reboot/type", method); err != nil {
			return fmt.Errorf("selecting reboot method %q: %w (the kernel offers a choice from 5.11 on)", method, err)
		}
	}
	unix.Sync()
	return unix.Reboot(unix.LINUX_REBOOT_CMD_RESTART)
}

func boolAttr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// clock reads a POSIX clock; Go's own clock readings stop during suspend.
func clock(id int32) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
