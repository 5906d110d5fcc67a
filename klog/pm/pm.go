// Package pm extracts system suspend/resume cycles from kernel-log records:
// where each cycle begins and ends, its sleep mode, the kernel's resume
// time measured between two anchor lines, the kernel's own device-phase
// times, per-device callback times (pm_print_times / initcall_debug),
// device suspend and resume failures, aborted suspends, wakeup-reason
// lines, the fwcheck cycle markers, and the pm_trace "hash matches" report
// of the boot after a hang. It reports what the log says and judges
// nothing: which durations are too long, which failures matter and what a
// cycle's verdict is belong to the check that calls it. Hibernation
// (suspend to disk) cycles are found and timed with the same anchors, but
// the image write and read phases are not separated. Firmware-side times
// come from the FPDT (package acpi), not from the log.
//
// The wordings recognised were checked against kernel/power/suspend.c,
// kernel/power/suspend_test.c, kernel/power/process.c,
// drivers/base/power/main.c, drivers/base/power/wakeup.c,
// drivers/base/power/trace.c and drivers/acpi/sleep.c from Linux 3.x to
// 6.x, and against the captures in ../shared/corpus/suspend-*.
//
// The cycle markers (marker.go) are the s3 check's protocol: tests/s3
// writes them to the kernel log around each cycle and nothing else does.
// They are defined here rather than in tests/s3 because this package has to
// recognise them to split a log into cycles, and a library does not import
// a check; keeping the writer's format and the reader's parser in one file
// means they cannot drift apart.
package pm

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/klog"
)

// parseHarness reads the lines of the test program that recorded the
// QEMU captures in ../shared/corpus/suspend-qemu, which predates the
// fwcheck marker: "S3LOOP iter 2: suspending (wakealarm=…)" and
// "S3LOOP iter 2: resumed err=<nil> monotonic=0.11s boottime=0.11s …".
func parseHarness(text string) (cycle int, edge MarkerEdge, fields map[string]string, ok bool) {
	rest, found := strings.CutPrefix(text, "S3LOOP iter ")
	if !found {
		return 0, "", nil, false
	}
	num, rest, found := strings.Cut(rest, ": ")
	if !found {
		return 0, "", nil, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, "", nil, false
	}
	f := strings.Fields(rest)
	switch {
	case len(f) > 0 && f[0] == "suspending":
		return n, MarkerBegin, nil, true
	case len(f) > 0 && f[0] == "resumed":
		return n, MarkerEnd, kvFields(f[1:]), true
	}
	return 0, "", nil, false
}

// Phase is the side of a cycle a device callback or failure belongs to.
type Phase string

// The two sides of a cycle.
const (
	PhaseSuspend Phase = "suspend"
	PhaseResume  Phase = "resume"
)

// DeviceTime is one device PM callback's duration as pm_print_times (or
// initcall_debug) prints it: "call 0000:00:02.0+ returned 0 after 1234
// usecs" (Linux before 4.15), or "pci 0000:00:02.0: [PM: ]pci_pm_resume+0x0/0xe0
// returned 0 after 1234 usecs" (4.15 and later).
type DeviceTime struct {
	// Device names the device: "0000:00:02.0" in the old form, "pci
	// 0000:00:02.0" (bus or driver, then the device) in the new.
	Device string
	// Callback is the callback symbol, when the kernel printed it.
	Callback string
	Phase    Phase
	Duration time.Duration
	// Return is the callback's return value.
	Return int
	// Time is the record's timestamp, -1 when it had none.
	Time time.Duration
}

// DeviceFailure is a device PM callback that failed: "PM: Device 1-1
// failed to resume async: error -13" (before 4.x), "usb 1-1: PM: failed
// to resume async: error -13" (later), with the "dpm_run_callback(): … returns
// -13" line before it folded in, or standing alone when no device line
// followed.
type DeviceFailure struct {
	Device string // "" when only the dpm_run_callback line was logged
	// Verb is the kernel's PM verb ("suspend", "resume", "freeze", "thaw",
	// "restore", …) and Info its qualifier ("async", "noirq", "late",
	// "early").
	Verb  string
	Info  string
	Phase Phase
	Errno int
	// Callback is the callback symbol from the dpm_run_callback line.
	Callback string
	Text     string
	Time     time.Duration
	// Index is the record index of the failure line.
	Index int
}

// Event is a log line of interest, kept as it was logged.
type Event struct {
	Text  string
	Time  time.Duration
	Index int
}

// Cycle is one suspend/resume cycle found in the log.
type Cycle struct {
	// Number is the cycle number from its marker, else its position
	// (from 1) among the cycles found.
	Number int
	// Marker is "fwcheck" or "s3loop" when a marker delimits the cycle, ""
	// when kernel lines alone do.
	Marker string
	// Fields holds the key=value fields of the cycle's markers (the end
	// marker's win).
	Fields map[string]string
	// Start and End delimit the cycle's records: recs[Start:End].
	Start, End int
	// Begin and Finish are the first and last timestamps in the cycle, -1
	// when none of its records had one.
	Begin, Finish time.Duration
	// Mode is the sleep mode the kernel named: "deep", "s2idle",
	// "shallow" (Linux 4.15+), "mem", "freeze", "standby" (earlier), "disk"
	// (hibernation); "" when no line named it.
	Mode string
	// SleepState is the ACPI state named by "Preparing to enter" or
	// "Waking up from system sleep state" ("S3"), or "".
	SleepState string
	// Entered reports that the kernel logged reaching the platform sleep
	// step (an ACPI sleep state, suspend-to-idle, non-boot CPUs taken
	// down, or the noirq suspend phase completed).
	Entered bool
	// Resumed reports a resume end: "Restarting tasks", "PM: suspend exit"
	// or an end marker.
	Resumed bool
	// KernelResume is the kernel's resume time, ResumeEnd-ResumeStart,
	// -1 when either anchor is missing (see Suspends for the anchors).
	KernelResume           time.Duration
	ResumeStart, ResumeEnd time.Duration
	// ResumeStartAnchor and ResumeEndAnchor are the texts of the anchor
	// lines used.
	ResumeStartAnchor, ResumeEndAnchor string
	// SuspendDevices and ResumeDevices are the kernel's own totals for the
	// device suspend and resume phases ("PM: suspend devices took 0.075
	// seconds", "PM: resume of devices complete after 181.100 msecs"), -1
	// when not logged.
	SuspendDevices, ResumeDevices time.Duration
	// PhaseTimes holds every "X of devices complete after N msecs" and
	// "X devices took N seconds" time by its X ("late suspend", "noirq
	// resume", "resume devices", …).
	PhaseTimes map[string]time.Duration
	// Devices lists the device callback times in log order.
	Devices []DeviceTime
	// Unreturned lists devices whose callback was logged as called but
	// never as returned within the cycle: where a hang stopped the log.
	Unreturned []string
	// Failures lists failed device callbacks.
	Failures []DeviceFailure
	// Aborts lists the lines saying the suspend was given up ("Some
	// devices failed to suspend", "Freezing of tasks failed", "Wakeup
	// pending, aborting suspend", a device failing to suspend).
	Aborts []Event
	// Wakeups lists wakeup-reason lines ("PM: Triggering wakeup from IRQ
	// 9", "ACPI: PM: Waking up from system sleep state S3", "PM: Wakeup
	// pending", "last active wakeup source").
	Wakeups []Event
}

// Aborted reports whether the kernel gave the suspend up.
func (c *Cycle) Aborted() bool { return len(c.Aborts) > 0 }

// Slept returns the time asleep recorded in the cycle's end marker: its
// "slept" field (a Go duration), else "boottime" minus "monotonic" (the
// QEMU capture harness's fields, CLOCK_BOOTTIME and CLOCK_MONOTONIC
// elapsed across the suspend). ok is false when the markers hold neither.
func (c *Cycle) Slept() (d time.Duration, ok bool) {
	if s, found := c.Fields["slept"]; found {
		d, err := time.ParseDuration(s)
		return d, err == nil
	}
	bt, ok1 := c.Fields["boottime"]
	mt, ok2 := c.Fields["monotonic"]
	if !ok1 || !ok2 {
		return 0, false
	}
	b, err1 := time.ParseDuration(bt)
	m, err2 := time.ParseDuration(mt)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return b - m, true
}

// Slowest returns the n longest device callbacks of the given phase ("" for
// both), longest first; ties keep log order.
func (c *Cycle) Slowest(n int, phase Phase) []DeviceTime {
	var out []DeviceTime
	for _, d := range c.Devices {
		if phase == "" || d.Phase == phase {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b DeviceTime) int {
		switch {
		case a.Duration > b.Duration:
			return -1
		case a.Duration < b.Duration:
			return 1
		}
		return 0
	})
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// PMTrace is the report the kernel logs at boot when it was built with
// PM_TRACE_RTC: the magic number read back from the RTC and the source
// locations and devices whose hash matches it. It names the device a
// resume hung in only on the boot right after such a hang with
// /sys/power/pm_trace set; on any other boot the RTC holds the time and
// the matches are noise.
type PMTrace struct {
	// Magic is "user:file:device" as logged.
	Magic string
	// Files lists "file:line" matches; Devices the matching devices as
	// dev_info names them ("pci 0000:00:1f.3").
	Files   []string
	Devices []string
	Index   int
}

// SuspendLog is what Suspends found in a log.
type SuspendLog struct {
	Cycles []Cycle
	// PMTrace is the pm_trace report, nil when the log has none.
	PMTrace *PMTrace
}

// Suspends extracts the suspend/resume cycles from recs.
//
// Cycle boundaries. A marker (Marker's "begin", or the QEMU harness's
// "S3LOOP iter N: suspending") always opens a cycle, and its "end" closes
// it. Without markers, the kernel's first line of a suspend opens one:
// "PM: suspend entry (deep)" (Linux 4.15+), "PM: hibernation entry",
// "PM: Syncing filesystems", "PM: Preparing system for mem sleep" or
// "PM: Entering mem sleep" (older), unless the open cycle is still before
// its resume; "PM: suspend exit" closes it, and otherwise it runs until the
// next cycle opens (so that "Restarting tasks ... done." and the lines
// after it stay in the cycle they follow).
//
// Kernel resume time. It is measured from the first resume-side anchor to
// the last, each chosen by preference, not by position:
//   - start: "Low-level resume complete" (drivers/acpi/sleep.c, the
//     first line the kernel prints after the firmware jumps to the waking
//     vector on ACPI S3, so the firmware's own resume time is outside the
//     measurement); else "Enabling non-boot CPUs" (the first line of the
//     resume path on S1/standby and non-ACPI platforms); else "resume
//     from suspend-to-idle"; else the first line after the last
//     suspend-side line of the cycle ("noirq suspend of devices complete",
//     "suspend-to-idle", "Preparing to enter system sleep state"), which is
//     the first thing logged after an s2idle wake on kernels that say
//     nothing else. The printk clock does not run while the machine is in
//     S3, so no sleep time leaks in; for s2idle it does run, and this
//     fallback is what keeps the sleep out.
//   - end: "Restarting tasks" (kernel/power/process.c, every version:
//     user space runs again, which is when a user sees the machine back);
//     else "PM: suspend exit"; else "resume of devices complete after" or
//     "resume devices took" (the end of the device resume phase).
//
// A log with several boots is read as one sequence, but no cycle spans a
// boot: a timestamp going back to under 10 s, or "Linux version", ends the
// open cycle.
func Suspends(recs []klog.Record) *SuspendLog {
	x := &extractor{recs: recs, log: &SuspendLog{}}
	for i := range recs {
		x.line(i)
	}
	x.close(len(recs))
	for i := range x.log.Cycles {
		if x.log.Cycles[i].Number == 0 {
			x.log.Cycles[i].Number = i + 1
		}
	}
	return x.log
}

// newBootWithin: a timestamp that goes back to below this starts a new
// boot. (Going back a little happens inside one boot: a hibernation image
// restored resumes the clock of the kernel that wrote it.)
const newBootWithin = 10 * time.Second

// cycleState is a cycle being built.
type cycleState struct {
	Cycle
	kernelStart   bool // saw a kernel suspend-start line
	startKinds    uint32
	resumeSide    bool // past the suspend-side end: callbacks are resume callbacks
	lastSuspendAt int  // index of the last suspend-side end anchor, -1
	startPref     int  // preference of the resume-start anchor held (lower wins), 99 none
	endPref       int
	pending       []pendingCall
	callback      *DeviceFailure // a dpm_run_callback line awaiting its device line
	lastTime      time.Duration
}

type pendingCall struct {
	dev string
	at  int
}

type extractor struct {
	recs []klog.Record
	log  *SuspendLog
	cur  *cycleState
}

func (x *extractor) open(i int, marker string, number int, fields map[string]string) {
	x.close(i)
	x.cur = &cycleState{
		Cycle: Cycle{Number: number, Marker: marker, Fields: fields, Start: i, Begin: -1, Finish: -1,
			KernelResume: -1, ResumeStart: -1, ResumeEnd: -1, SuspendDevices: -1, ResumeDevices: -1},
		lastSuspendAt: -1, startPref: 99, endPref: 99, lastTime: -1,
	}
}

func (x *extractor) close(end int) {
	c := x.cur
	if c == nil {
		return
	}
	x.cur = nil
	c.End = end
	if c.callback != nil {
		c.Failures = append(c.Failures, *c.callback)
	}
	for _, p := range c.pending {
		c.Unreturned = append(c.Unreturned, p.dev)
	}
	if c.startPref == 99 && c.lastSuspendAt >= 0 {
		// Fallback start: the first timed record after the last
		// suspend-side anchor.
		for j := c.lastSuspendAt + 1; j < end; j++ {
			if t := x.recs[j].Time; t >= 0 {
				c.ResumeStart, c.ResumeStartAnchor = t, x.recs[j].Text
				break
			}
		}
	}
	if c.ResumeStart >= 0 && c.ResumeEnd >= c.ResumeStart {
		c.KernelResume = c.ResumeEnd - c.ResumeStart
	}
	x.log.Cycles = append(x.log.Cycles, c.Cycle)
}

// Kinds of kernel suspend-start lines, so that a repeat of one kind opens
// a new cycle.
const (
	startEntry = 1 << iota
	startSync
	startPrepare
	startEntering
	startHibernate
)

func (x *extractor) line(i int) {
	r := &x.recs[i]
	text := strings.TrimSpace(r.Text)
	if text == "" {
		return
	}
	if c := x.cur; c != nil && r.Time >= 0 {
		if c.lastTime >= 0 && r.Time < c.lastTime && (r.Time < newBootWithin || strings.HasPrefix(r.Text, "Linux version ")) {
			x.close(i) // a new boot: no cycle spans one
		} else {
			c.lastTime = r.Time
		}
	}

	// Device callback times: the bulk of a pm_print_times log, so first.
	if x.callbackLine(i, text) {
		return
	}
	if n, edge, fields, ok := ParseMarker(text); ok {
		x.marker(i, "fwcheck", n, edge, fields)
		return
	}
	if n, edge, fields, ok := parseHarness(text); ok {
		x.marker(i, "s3loop", n, edge, fields)
		return
	}
	if strings.Contains(text, "hash matches") || strings.Contains(text, "Magic number:") {
		x.pmTrace(i, text)
		return
	}
	if kind, mode := suspendStart(text); kind != 0 {
		// A marker-opened cycle awaiting its kernel lines keeps them; a
		// cycle past its resume, or one that already had this kind of
		// line, is over.
		if c := x.cur; c == nil || c.Resumed || c.resumeSide || c.startKinds&kind != 0 {
			x.open(i, "", 0, nil)
		}
		c := x.cur
		c.kernelStart = true
		c.startKinds |= kind
		if mode != "" && (c.Mode == "" || kind == startEntry) {
			c.Mode = mode
		}
		x.stamp(r)
		return
	}
	c := x.cur
	if c == nil {
		if !strings.Contains(text, "PM: ") && !strings.Contains(text, "Restarting tasks") {
			return
		}
		// Resume-side lines with no start seen (the log begins mid-cycle):
		// only the ones that prove a cycle open one.
		if !strings.Contains(text, "suspend exit") && !strings.Contains(text, "failed to suspend") &&
			!strings.Contains(text, "of devices complete") && !strings.Contains(text, "devices took") {
			return
		}
		x.open(i, "", 0, nil)
		c = x.cur
	}
	x.stamp(r)
	x.kernelLine(c, i, text)
}

// stamp extends the current cycle's time span over r.
func (x *extractor) stamp(r *klog.Record) {
	c := x.cur
	if c == nil || r.Time < 0 {
		return
	}
	if c.Begin < 0 {
		c.Begin = r.Time
	}
	c.Finish = r.Time
}

func (x *extractor) marker(i int, kind string, n int, edge MarkerEdge, fields map[string]string) {
	if edge == MarkerBegin {
		x.open(i, kind, n, fields)
		x.stamp(&x.recs[i])
		return
	}
	c := x.cur
	if c == nil || c.Marker != kind || c.Number != n {
		// An end with no begin: the cycle's lines before it were lost.
		x.open(i, kind, n, nil)
		c = x.cur
	}
	if len(fields) > 0 && c.Fields == nil {
		c.Fields = map[string]string{}
	}
	for k, v := range fields {
		c.Fields[k] = v
	}
	c.Resumed = true
	x.stamp(&x.recs[i])
	x.close(i + 1)
}

// suspendStart recognises the kernel's first lines of a suspend and the
// mode they name.
func suspendStart(text string) (kind uint32, mode string) {
	if !strings.HasPrefix(text, "PM: ") {
		return 0, ""
	}
	t := text[4:]
	switch {
	case strings.HasPrefix(t, "suspend entry ("):
		m, _, _ := strings.Cut(t[len("suspend entry ("):], ")")
		return startEntry, m
	case strings.HasPrefix(t, "hibernation entry"), strings.HasPrefix(t, "hibernation: hibernation entry"):
		return startHibernate, "disk"
	case strings.HasPrefix(t, "Syncing filesystems"):
		return startSync, ""
	case strings.HasPrefix(t, "Preparing system for "):
		// "mem sleep" (old) or "sleep (deep)" (4.15+)
		rest := t[len("Preparing system for "):]
		if m, ok := strings.CutPrefix(rest, "sleep ("); ok {
			m, _, _ = strings.Cut(m, ")")
			return startPrepare, m
		}
		m, _, _ := strings.Cut(rest, " ")
		return startPrepare, m
	case strings.HasPrefix(t, "Entering ") && strings.HasSuffix(t, " sleep"):
		return startEntering, strings.TrimSuffix(t[len("Entering "):], " sleep")
	}
	return 0, ""
}

// Resume anchors by preference (lower wins).
const (
	prefLowLevel = iota
	prefEnableCPUs
	prefS2idleResume
)

const (
	prefRestarting = iota
	prefSuspendExit
	prefDevicesDone
)

func (x *extractor) kernelLine(c *cycleState, i int, text string) {
	r := &x.recs[i]
	setStart := func(pref int) {
		c.resumeSide = true
		if pref < c.startPref && r.Time >= 0 {
			c.startPref, c.ResumeStart, c.ResumeStartAnchor = pref, r.Time, text
		}
	}
	setEnd := func(pref int) {
		if pref < c.endPref && r.Time >= 0 {
			c.endPref, c.ResumeEnd, c.ResumeEndAnchor = pref, r.Time, text
		}
	}
	suspendSide := func() {
		c.Entered = true
		if !c.resumeSide {
			c.lastSuspendAt = i
		}
	}

	// Failures and aborts.
	if strings.Contains(text, "dpm_run_callback(): ") {
		x.runCallback(c, i, text)
		return
	}
	if strings.Contains(text, "failed to ") && strings.Contains(text, ": error ") {
		if x.deviceFailure(c, i, text) {
			return
		}
	}
	if strings.Contains(text, "Some devices failed to") ||
		(strings.Contains(text, "Freezing") && strings.Contains(text, "failed")) ||
		(strings.Contains(text, "of devices ") && (strings.Contains(text, " failed") || strings.Contains(text, " aborted after"))) ||
		strings.Contains(text, "not prepared for power transition") {
		c.Aborts = append(c.Aborts, Event{Text: text, Time: r.Time, Index: i})
	}
	if isWakeup(text) {
		ev := Event{Text: text, Time: r.Time, Index: i}
		c.Wakeups = append(c.Wakeups, ev)
		if strings.Contains(text, "aborting suspend") || strings.Contains(text, "Abort CPU freeze") {
			c.Aborts = append(c.Aborts, ev)
		}
	}

	switch {
	case strings.Contains(text, "Low-level resume complete"):
		setStart(prefLowLevel)
	case strings.HasPrefix(text, "Enabling non-boot CPUs"):
		setStart(prefEnableCPUs)
	case strings.Contains(text, "resume from suspend-to-idle"):
		setStart(prefS2idleResume)
	case strings.Contains(text, "Waking up from system sleep state "):
		c.resumeSide = true
		c.Entered = true
		c.SleepState = lastWord(text)
	case strings.Contains(text, "Preparing to enter system sleep state "):
		c.SleepState = lastWord(text)
		suspendSide()
	case strings.HasSuffix(text, "suspend-to-idle"), strings.HasPrefix(text, "Disabling non-boot CPUs"):
		if c.Mode == "" && strings.HasSuffix(text, "suspend-to-idle") {
			c.Mode = "s2idle"
		}
		suspendSide()
	case strings.HasPrefix(text, "Restarting tasks"):
		c.Resumed = true
		c.resumeSide = true
		setEnd(prefRestarting)
	case text == "PM: suspend exit":
		c.Resumed = true
		c.resumeSide = true
		setEnd(prefSuspendExit)
		if c.Marker == "" {
			x.close(i + 1)
		}
		return
	case strings.Contains(text, "PM: Image restored successfully"), strings.Contains(text, "PM: Creating hibernation image"):
		if c.Mode == "" {
			c.Mode = "disk"
		}
	}
	if name, d, ok := phaseTime(text); ok {
		if c.PhaseTimes == nil {
			c.PhaseTimes = map[string]time.Duration{}
		}
		c.PhaseTimes[name] = d
		switch name {
		case "suspend", "suspend devices", "freeze", "freeze devices":
			c.SuspendDevices = d
		case "resume", "resume devices", "restore", "restore devices":
			c.ResumeDevices = d
			c.resumeSide = true
			setEnd(prefDevicesDone)
		case "noirq suspend", "noirq freeze":
			suspendSide()
		case "noirq resume", "early resume", "noirq restore", "early restore":
			c.resumeSide = true
		}
	}
}

// phaseTime reads "PM: noirq suspend of devices complete after 16.111
// msecs" and "PM: suspend devices took 0.075 seconds".
func phaseTime(text string) (name string, d time.Duration, ok bool) {
	t := strings.TrimPrefix(text, "PM: ")
	if name, rest, found := strings.Cut(t, " of devices complete after "); found {
		num, unit, _ := strings.Cut(rest, " ")
		if unit != "msecs" {
			return "", 0, false
		}
		d, ok := decimal(num, time.Millisecond)
		return name, d, ok
	}
	if name, rest, found := strings.Cut(t, " took "); found && strings.HasSuffix(rest, " seconds") &&
		strings.HasSuffix(name, " devices") {
		d, ok := decimal(strings.TrimSuffix(rest, " seconds"), time.Second)
		return name, d, ok
	}
	return "", 0, false
}

// decimal parses "181.100" in the given unit.
func decimal(s string, unit time.Duration) (time.Duration, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1e9 {
		return 0, false
	}
	return time.Duration(v * float64(unit)), true
}

func lastWord(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return s
}

// isWakeup recognises the wakeup-reason lines.
func isWakeup(text string) bool {
	if !strings.Contains(text, "ak") { // wake, Wake, Waking, woke: all have "ak" or "oke"
		return strings.Contains(text, "Woke up")
	}
	for _, s := range wakeupLines {
		if strings.Contains(text, s) {
			return true
		}
	}
	return strings.Contains(strings.ToLower(text), "wakeup irq")
}

var wakeupLines = []string{
	"Wakeup pending",              // PM: Wakeup pending, aborting suspend / Wakeup pending. Abort CPU freeze
	"Triggering wakeup from IRQ",  // PM: (5.x+, with pm_debug_messages)
	"last active wakeup source",   // PM: last active wakeup source: …
	"Waking up from system sleep", // ACPI: [PM: ]Waking up from system sleep state S3
	"non-EC GPE wakeup",           // ACPI: PM: ACPI non-EC GPE wakeup
	"Wakeup after ACPI Notify",    // ACPI: PM: Wakeup after ACPI Notify sync
	"Wakeup unrelated to ACPI SCI",
	"Resume caused by", // Android-style wakeup reasons
}

// callbackLine handles pm_print_times lines; it reports whether text was
// one.
func (x *extractor) callbackLine(i int, text string) bool {
	r := &x.recs[i]
	// Linux before 4.15: "calling  0000:00:02.0+ @ 123, parent: pci0000:00"
	// and "call 0000:00:02.0+ returned 0 after 1234 usecs".
	if rest, ok := strings.CutPrefix(text, "calling  "); ok {
		dev, _, found := strings.Cut(rest, "+ @ ")
		if !found {
			return false // a boot-time initcall
		}
		x.called(i, dev)
		return true
	}
	if rest, ok := strings.CutPrefix(text, "call "); ok {
		dev, tail, found := strings.Cut(rest, "+ returned ")
		if !found {
			return false
		}
		ret, d, ok := returnedAfter(tail)
		if !ok {
			return false
		}
		x.returned(i, dev, "", ret, d, r.Time)
		return true
	}
	// 4.15 and later: "pci 0000:00:02.0: [PM: ]calling pci_pm_resume+0x0/0xe0 @
	// 1234, parent: pci0000:00" and "pci 0000:00:02.0: [PM: ]pci_pm_resume+0x0/0xe0
	// returned 0 after 1234 usecs".
	if strings.HasPrefix(text, "initcall ") {
		return false
	}
	if j := strings.Index(text, ": calling "); j > 0 && strings.Contains(text[j:], ", parent: ") {
		dev := strings.TrimSuffix(text[:j], ": PM")
		x.called(i, dev)
		return true
	}
	if j := strings.Index(text, " returned "); j > 0 && strings.HasSuffix(text, " usecs") {
		head := text[:j]
		k := strings.LastIndex(head, ": ")
		if k <= 0 {
			return false
		}
		dev, cb := strings.TrimSuffix(head[:k], ": PM"), head[k+2:]
		ret, d, ok := returnedAfter(text[j+len(" returned "):])
		if !ok {
			return false
		}
		x.returned(i, dev, cb, ret, d, r.Time)
		return true
	}
	return false
}

// returnedAfter parses "0 after 1234 usecs".
func returnedAfter(s string) (ret int, d time.Duration, ok bool) {
	rv, rest, found := strings.Cut(s, " after ")
	if !found {
		return 0, 0, false
	}
	us, unit, _ := strings.Cut(rest, " ")
	if unit != "usecs" {
		return 0, 0, false
	}
	n, err1 := strconv.Atoi(rv)
	u, err2 := strconv.ParseInt(us, 10, 64)
	if err1 != nil || err2 != nil || u < 0 || u > 1<<40 {
		return 0, 0, false
	}
	return n, time.Duration(u) * time.Microsecond, true
}

func (x *extractor) called(i int, dev string) {
	c := x.cur
	if c == nil {
		return // a device callback outside any suspend (runtime PM, boot)
	}
	x.stamp(&x.recs[i])
	if len(c.pending) > 4096 {
		return // hostile input: keep the bookkeeping bounded
	}
	c.pending = append(c.pending, pendingCall{dev: dev, at: i})
}

func (x *extractor) returned(i int, dev, cb string, ret int, d time.Duration, at time.Duration) {
	c := x.cur
	if c == nil {
		return
	}
	x.stamp(&x.recs[i])
	for k := len(c.pending) - 1; k >= 0; k-- {
		if c.pending[k].dev == dev {
			c.pending = slices.Delete(c.pending, k, k+1)
			break
		}
	}
	ph := PhaseSuspend
	if c.resumeSide {
		ph = PhaseResume
	}
	c.Devices = append(c.Devices, DeviceTime{Device: dev, Callback: cb, Phase: ph, Duration: d, Return: ret, Time: at})
}

// runCallback handles "[PM: ]dpm_run_callback(): usb_dev_resume+0x0/0x20
// returns -13".
func (x *extractor) runCallback(c *cycleState, i int, text string) {
	if c.callback != nil {
		c.Failures = append(c.Failures, *c.callback)
	}
	rest := text[strings.Index(text, "dpm_run_callback(): ")+len("dpm_run_callback(): "):]
	cb, errno, _ := strings.Cut(rest, " returns ")
	n, _ := strconv.Atoi(strings.TrimSpace(errno))
	r := &x.recs[i]
	f := DeviceFailure{Callback: cb, Errno: n, Text: text, Time: r.Time, Index: i, Phase: PhaseSuspend}
	if c.resumeSide || strings.Contains(cb, "resume") || strings.Contains(cb, "restore") || strings.Contains(cb, "thaw") {
		f.Phase = PhaseResume
	}
	c.callback = &f
}

// deviceFailure handles "PM: Device 1-1 failed to resume async: error -13"
// and "usb 1-1: PM: failed to resume async: error -13".
func (x *extractor) deviceFailure(c *cycleState, i int, text string) bool {
	var dev, rest string
	if t, ok := strings.CutPrefix(text, "PM: Device "); ok {
		d, r, found := strings.Cut(t, " failed to ")
		if !found {
			return false
		}
		dev, rest = d, r
	} else if j := strings.Index(text, ": PM: failed to "); j > 0 {
		dev, rest = text[:j], text[j+len(": PM: failed to "):]
	} else if j := strings.Index(text, ": failed to "); j > 0 {
		dev, rest = text[:j], text[j+len(": failed to "):]
	} else {
		return false
	}
	what, errno, found := strings.Cut(rest, ": error ")
	if !found {
		return false
	}
	n, err := strconv.Atoi(strings.TrimSpace(errno))
	if err != nil {
		return false
	}
	words := strings.Fields(what)
	if len(words) == 0 {
		return false
	}
	verb := words[0]
	ph, known := pmVerbs[verb]
	if !known {
		return false
	}
	r := &x.recs[i]
	f := DeviceFailure{Device: dev, Verb: verb, Info: strings.Join(words[1:], " "), Phase: ph, Errno: n, Text: text, Time: r.Time, Index: i}
	if cb := c.callback; cb != nil {
		c.callback = nil
		if cb.Errno == n {
			f.Callback = cb.Callback
		} else {
			c.Failures = append(c.Failures, *cb)
		}
	}
	c.Failures = append(c.Failures, f)
	if ph == PhaseSuspend {
		c.Aborts = append(c.Aborts, Event{Text: text, Time: r.Time, Index: i})
	}
	return true
}

// pmVerbs are the kernel's pm_verb() words and the side of the cycle each
// belongs to.
var pmVerbs = map[string]Phase{
	"suspend": PhaseSuspend, "freeze": PhaseSuspend, "hibernate": PhaseSuspend, "quiesce": PhaseSuspend,
	"poweroff": PhaseSuspend, "prepare": PhaseSuspend,
	"resume": PhaseResume, "thaw": PhaseResume, "restore": PhaseResume, "recover": PhaseResume,
}

// pmTrace handles "  Magic number: 1:234:567", "  hash matches
// drivers/base/power/main.c:1234" and "pci 0000:00:1f.3: hash matches".
func (x *extractor) pmTrace(i int, text string) {
	t := strings.TrimSpace(strings.TrimPrefix(text, "PM:"))
	p := x.log.PMTrace
	if m, ok := strings.CutPrefix(t, "Magic number: "); ok {
		x.log.PMTrace = &PMTrace{Magic: strings.TrimSpace(m), Index: i}
		return
	}
	if p == nil {
		p = &PMTrace{Index: i}
		x.log.PMTrace = p
	}
	if f, ok := strings.CutPrefix(t, "hash matches "); ok {
		p.Files = append(p.Files, strings.TrimSpace(f))
		return
	}
	if dev, ok := strings.CutSuffix(t, ": hash matches"); ok {
		p.Devices = append(p.Devices, dev)
	}
}
