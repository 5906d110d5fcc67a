// Package s3 is the suspend/resume cycling check: it suspends the machine
// (S3 or s2idle) again and again, each time woken by the RTC alarm, and
// after every resume reads what changed: how long it really slept, the
// kernel log since the cycle's marker (device callbacks that failed, the
// slowest devices, messages of the advice database), the kernel's
// suspend_stats, the device inventory (a device lost or added), and the
// firmware's own resume time from the FPDT. Every cycle is appended to a
// journal before the machine sleeps, so a hang loses nothing: the next run
// on the same journal records the cycle as hung and goes on.
//
// It acts on the machine only through the framework's Control and reads
// it only through inputs; a fake Control drives it in tests. Nothing here
// opens /sys or /dev.
package s3

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/journal"
	"github.com/fwcheck/fwcheck/internal/stats"
	"github.com/fwcheck/fwcheck/klog/pm"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
	klogcheck "github.com/fwcheck/fwcheck/tests/klog"
)

const spec = "ACPI 6.5 §7.4.2 (sleeping states), §16 (waking and sleeping); Linux Documentation/admin-guide/pm/sleep-states.rst"

// The check's settings (--s3.NAME, fwcheck.s3.NAME=).
var (
	Cycles      = tests.IntOpt("cycles", "number of suspend/resume `cycles`", 3, 1, maxCycles)
	Sleep       = tests.DurationOpt("sleep", "how long each suspend lasts: the RTC wake alarm", 10*time.Second, 2*time.Second, 24*time.Hour)
	Awake       = tests.DurationOpt("awake", "how long the machine stays awake between cycles", 5*time.Second, 0, 24*time.Hour)
	AwakeRandom = tests.StringOpt("awake-random", "stay awake a random time in `MIN..MAX` between cycles (e.g. 1s..30s) instead of --s3.awake, to shake out timing-dependent faults", "")
	Mode        = tests.StringOpt("mode", "suspend `mode`: deep (S3), s2idle, shallow, or empty for the kernel's default", "", "", "deep", "s2idle", "shallow")
	MaxFailures = tests.IntOpt("max-failures", "stop after this many failed cycles (0: never)", 0, 0, 10000)
	MaxResume   = tests.DurationOpt("max-resume", "a kernel resume slower than this fails the cycle", 5*time.Second, 10*time.Millisecond, 10*time.Minute)
	JournalPath = tests.StringOpt("journal", "append every cycle to this JSON-lines `FILE` (fsync'd); a run left unfinished in it is resumed; none runs without one, with the results on the console only", "")
	// RequireJournal refuses to cycle without a journal: the live image
	// sets it when it found no results disk to keep one on.
	RequireJournal = tests.BoolOpt("require-journal", "refuse to suspend without a journal (--s3.journal FILE, or none to go without one knowingly)", false)
	PMTest         = tests.StringOpt("pm-test", "run each cycle only up to this phase (/sys/power/pm_test): freezer, devices, platform, processors, core", "", "", "freezer", "devices", "platform", "processors", "core")
	PMTrace        = tests.BoolOpt("pm-trace", "store the last device resumed in the RTC, to name the device a hang stopped in (costs the RTC's time)", false)
)

var (
	labelSuspendFailed = tests.NewLabel("S3SuspendFailed", tests.High, spec,
		"The kernel refused or aborted the suspend: a driver or the platform failed a suspend step, or a wakeup "+
			"event arrived while suspending. The message names the step and, where the kernel said, the device. "+
			"Repeat with --s3.pm-test to find the phase that fails; a platform failure points at _PTS or the SLP_TYP/SLP_EN sequence.")
	labelNoSleep = tests.NewLabel("S3NoSleep", tests.Critical, spec,
		"The machine came back at once without sleeping: the request to enter the sleep state returned as if the "+
			"cycle had happened. On a first cycle this is a wake event that fired immediately; when a first cycle "+
			"works and later ones do not, the firmware's resume path left the chipset in a state its next suspend cannot "+
			"leave (a real fault of the firmware's S3 resume code). Check that the wake vector, the PM1 registers and the "+
			"sleep-type values are restored on resume.")
	labelEarlyWake = tests.NewLabel("S3EarlyWake", tests.Medium, spec,
		"The machine woke before its RTC alarm. The wakeup IRQ and the wakeup sources whose counts moved are named "+
			"where the kernel recorded them. A GPE or device enabled for wake that fires spuriously is the usual cause: "+
			"fix its _PRW/_DSW or the GPE's wake enable in firmware.")
	labelLateWake = tests.NewLabel("S3LateWake", tests.Medium, spec,
		"The machine slept much longer than its RTC alarm: the alarm did not wake it, or the firmware took long to "+
			"resume. Check that the RTC alarm is a wake source in S3 (FADT RTC_S4 and the fixed RTC event) and that "+
			"resume does not stall in firmware.")
	labelDeviceFailed = tests.NewLabel("S3DeviceCallbackFailed", tests.High, spec,
		"A device's suspend or resume callback failed, so that device may not work after resume. Check the device's "+
			"power resources and _PSx methods in firmware, then the driver.")
	labelDeviceLost = tests.NewLabel("S3DeviceLost", tests.High, spec,
		"A device present before the suspend is gone after resume: it did not come back from D3 or its link did not "+
			"retrain. Check its power resources and _PS0/_ON in firmware, and the slot's power and reset sequencing.")
	labelDeviceAdded = tests.NewLabel("S3DeviceAdded", tests.Low, spec,
		"A device appeared that was not there before the suspend, often a device that re-enumerated (lost and "+
			"found again under another name). Check why it re-enumerated.")
	labelSlowResume = tests.NewLabel("S3SlowResume", tests.Medium, spec,
		"The kernel took longer to resume than the limit (--s3.max-resume). The slowest device callbacks are "+
			"named; long waits usually sit in a device's _PS0 or in firmware re-initialising a controller.")
	labelStatsFailure = tests.NewLabel("S3KernelCountedFailure", tests.Medium, spec,
		"The kernel's suspend_stats counted a failed suspend or resume step in this cycle that its log did not "+
			"name otherwise. last_failed_dev and last_failed_step say where.")
	labelHung = tests.NewLabel("S3Hung", tests.Critical, spec,
		"The machine did not come back from this cycle: the journal has the cycle's start and no outcome, so it hung "+
			"in suspend or resume and was reset. Run again with --s3.pm-trace to have the next boot name the device "+
			"the resume stopped in, and with --s3.pm-test to find the phase.")
	labelNoLowPowerIdle = tests.NewLabel("S2IdleNoLowPowerResidency", tests.High, spec+"; Intel Low Power S0 Idle (LPIT) specification",
		"The machine went through an s2idle cycle but its low-power idle residency counter did not move: the platform "+
			"never reached its deepest idle state (S0ix), so it drew nearly full power while 'asleep'. A device that "+
			"keeps the platform awake (no D3 for a PCIe device, an unconfigured LTR, a GPIO left as an interrupt) "+
			"or firmware that does not let the SoC enter S0ix is the usual cause; the kernel's "+
			"/sys/kernel/debug/pmc_core files name the blocker on Intel machines.")
	labelDrift = tests.NewLabel("S3ResumeDrift", tests.Low, spec,
		"The kernel's resume time grows from cycle to cycle, significantly by a least-squares fit: something "+
			"accumulates across resumes (a leak in firmware or a driver, a growing table). Watch the slowest devices per cycle.")
)

// labels are the check's own labels.
var labels = []*tests.Label{labelSuspendFailed, labelNoSleep, labelEarlyWake, labelLateWake, labelDeviceFailed,
	labelDeviceLost, labelDeviceAdded, labelSlowResume, labelStatsFailure, labelHung, labelDrift, labelNoLowPowerIdle}

// Check is the s3 check.
var Check = &tests.Check{
	ID:         "s3",
	Title:      "Suspend/resume cycling: every cycle sleeps, wakes on time and brings every device back",
	Category:   tests.Power,
	Flags:      tests.PowerState,
	Inputs:     []input.Decl{input.PowerStates, input.KernelLog},
	Optional:   []input.Decl{input.SuspendStats, input.Devices, input.WakeupSources, input.RTCWakeSource, input.RTCWakeEvent, input.ACPITables, input.FPDT, input.Pstore, input.IdleResidency, input.DMI},
	Spec:       spec,
	Labels:     labels,
	DataLabels: klogcheck.DataLabels,
	Settings:   []tests.Setting{Cycles, Sleep, Awake, AwakeRandom, Mode, MaxFailures, MaxResume, JournalPath, RequireJournal, PMTest, PMTrace},
	Run:        run,
}

// Outcome is one cycle's result, as the journal and the summary hold it:
// the framework's per-cycle record, whose s3 fields this check fills.
type Outcome = tests.CycleRecord

func run(p *tests.Pass) error {
	states := tests.Input(p, input.PowerStates)
	req, err := request(p, states)
	if err != nil {
		p.Skip("%v", err)
		return nil
	}
	var j *journal.Journal
	first, cycles := 1, Cycles.Get(p)
	var outcomes []Outcome
	path := JournalPath.Get(p)
	switch {
	case path == "" && RequireJournal.Get(p):
		p.NotChecked("suspend/resume cycles", "not suspending: there is no journal on persistent storage to record a cycle that hangs",
			"give --s3.journal FILE on storage that survives a reset (the live image keeps it on a FAT file system labelled FWCHECK), or --s3.journal none to cycle without one")
		return nil
	case path == JournalOff:
		p.Info(nil, "journal off (journal=%s): the cycles are recorded only in these results; a cycle that hangs leaves no record", JournalOff)
	case path == "":
		p.Info(nil, "no journal (--s3.journal FILE): a cycle that hangs leaves no record")
	}
	if path != "" && path != JournalOff {
		prev, err := resumeFrom(p, path)
		if err != nil {
			return err
		}
		if prev != nil {
			outcomes = prev.outcomes
			first = prev.next
			if prev.cycles > cycles {
				p.Info(nil, "resuming the journal's run of %d cycles: more than --s3.cycles %d, which applies to a new run", prev.cycles, cycles)
			}
			cycles = max(cycles, prev.cycles)
		}
		if j, err = p.OpenJournal(path); err != nil {
			return err
		}
		defer j.Close()
		if prev == nil {
			if err := j.Append(Record{Event: "run", Time: p.Now(), Cycles: cycles, Mode: req.MemSleep}); err != nil {
				return err
			}
		}
	}
	failed := 0
	for _, o := range outcomes {
		if o.Status != "passed" {
			failed++
		}
	}
	adv := klogcheck.NewAdvisor(p)
	ctl := p.Control()
	awake, err := newAwake(p)
	if err != nil {
		p.Skip("%v", err)
		return nil
	}
	// The alarm that is to wake each cycle is tested first, while the
	// machine runs (the wakealarm check's test; a Control that cannot
	// adjust leaves it out).
	a, aerr := input.WakeAlarm(ctl, 2*time.Second, 10*time.Second)
	if errors.Is(aerr, fs.ErrNotExist) && req.Wake > 0 {
		// Nothing would wake a cycle: say so, rather than fail each.
		p.NotChecked("suspend/resume cycles", fmt.Sprintf("the platform offers %s but no RTC wake alarm to wake the machine unattended (%v; rtc-efi on firmware without SetWakeupTime has none)", sleepOffer(states), aerr),
			"boot with an RTC driver that has an alarm (rtc-cmos, rtc-pl031), or wake it another way with --s3.sleep 0")
		return nil
	}
	if err := aerr; err == nil && !a.Armed.IsZero() && !a.Fired {
		p.Skip("the RTC wake alarm, armed 2 s ahead while the machine ran, had not fired %.1f s later: no cycle would be woken by it (the wakealarm check says more)", a.Waited.Seconds())
		return nil
	}
	runStart, done := p.Now().Round(0), 0 // wall clock: it runs on through suspend
	// What makes the RTC's wakeup source's count evidence, read before
	// the first suspend; an alarm wake it counts makes it so later.
	rtcCounts := rtcBaseline(p, outcomes)
	fallbackSaid := false
	for n := first; n <= cycles; n++ {
		if m := MaxFailures.Get(p); m > 0 && failed >= m {
			p.NotChecked(fmt.Sprintf("cycles %d–%d", n, cycles), fmt.Sprintf("the run stopped after %d failed cycles (max-failures)", failed), "raise --s3.max-failures")
			break
		}
		if n > first {
			if d := awake.next(); d > 0 {
				p.Sleep(d)
			}
		}
		p.Progress("%s", progressLine(n, cycles, outcomes, failed, req.Wake, done, p.Now().Round(0).Sub(runStart)))
		o, err := cycle(p, ctl, adv, j, n, req, &rtcCounts, &fallbackSaid)
		if err != nil {
			return err
		}
		outcomes = append(outcomes, o)
		done++
		if o.Status != "passed" {
			failed++
		}
	}
	if awake.seed != 0 {
		p.Info(nil, "awake times drawn from %v..%v with seed %d", awake.min, awake.max, awake.seed)
	}
	if err := j.Append(Record{Event: "done", Time: p.Now()}); err != nil {
		p.Warn(nil, "journal: %v", err)
	}
	p.RecordCycles(outcomes)
	summarize(p, outcomes)
	return nil
}

// request builds the suspend request from the settings and what the kernel
// offers; a mode it does not offer is an error saying so.
func request(p *tests.Pass, states map[string]string) (input.SuspendRequest, error) {
	req := input.SuspendRequest{State: "mem", MemSleep: Mode.Get(p), Wake: Sleep.Get(p), PrintTimes: true,
		PMTest: PMTest.Get(p), PMTrace: PMTrace.Get(p)}
	if !slices.Contains(strings.Fields(states["state"]), "mem") {
		// s2idle alone (freeze): what an Arm machine whose firmware has no
		// PSCI SYSTEM_SUSPEND offers; the default mode takes it.
		if (req.MemSleep == "s2idle" || req.MemSleep == "") && slices.Contains(strings.Fields(states["state"]), "freeze") {
			req.State, req.MemSleep = "freeze", ""
			return req, nil
		}
		return req, fmt.Errorf("the kernel offers no suspend to RAM (/sys/power/state: %q)", states["state"])
	}
	if m := req.MemSleep; m != "" {
		offered := strings.NewReplacer("[", "", "]", "").Replace(states["mem_sleep"])
		if !slices.Contains(strings.Fields(offered), m) {
			return req, fmt.Errorf("the kernel offers no %s sleep (/sys/power/mem_sleep: %q)", m, states["mem_sleep"])
		}
	}
	return req, nil
}

// previous is what an unfinished run left in the journal.
type previous struct {
	outcomes []Outcome
	next     int
	cycles   int
}

// resumeFrom reads the journal at path; when its last run is unfinished, it
// records the cycles that hung and returns where to go on. A journal that
// does not exist yet starts a new run (nil).
func resumeFrom(p *tests.Pass, path string) (*previous, error) {
	f, err := p.ReadJournal(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	recs, damaged, err := ReadJournal(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	if damaged > 0 {
		p.Warn(nil, "journal %s: %d damaged lines skipped (a write cut off by a reset)", path, damaged)
	}
	hung, outcomes, cycles, finished := Unfinished(recs)
	if finished || cycles == 0 {
		return nil, nil
	}
	j, err := p.OpenJournal(path)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	sort.Ints(hung)
	last := 0
	for _, o := range outcomes {
		last = max(last, o.Cycle)
	}
	evidence := hungEvidence(p)
	for _, n := range hung {
		o := Outcome{Cycle: n, Status: "hung", Problems: append([]string{"hung in suspend/resume: the journal has its start and no outcome"}, evidence...)}
		if err := j.Append(Record{Event: "hung", Cycle: n, Time: p.Now(), Outcome: &o}); err != nil {
			return nil, err
		}
		p.CycleEnded(o)
		outcomes = append(outcomes, o)
		last = max(last, n)
	}
	sort.Slice(outcomes, func(a, b int) bool { return outcomes[a].Cycle < outcomes[b].Cycle })
	p.Info(nil, "journal %s: resuming a run of %d cycles after cycle %d (%d hung)", path, cycles, last, len(hung))
	// Every earlier cycle's findings go into this result too.
	for _, o := range outcomes {
		switch o.Status {
		case "hung":
			msg := "did not come back (the machine was reset); the journal has its start and no outcome"
			if len(o.Problems) > 1 {
				msg += "; " + strings.Join(o.Problems[1:], "; ")
			}
			p.Fail(labelHung, "cycle %d: %s", o.Cycle, msg)
		case "failed":
			for _, pr := range o.Problems {
				name, msg, _ := strings.Cut(pr, ": ")
				if i := slices.IndexFunc(labels, func(l *tests.Label) bool { return l.Name == name }); i >= 0 {
					l := labels[i]
					p.Fail(l, "cycle %d: %s", o.Cycle, msg)
				}
			}
		}
	}
	return &previous{outcomes: outcomes, next: last + 1, cycles: cycles}, nil
}

// cycle runs one suspend/resume cycle and reports its findings.
func cycle(p *tests.Pass, ctl input.Control, adv *klogcheck.Advisor, j *journal.Journal, n int, req input.SuspendRequest, rtcCounts *string, fallbackSaid *bool) (Outcome, error) {
	o := Outcome{Cycle: n, RequestedMS: ms(req.Wake)}
	devBefore, _ := tests.Load(p, input.Devices)
	statsBefore, _ := tests.Load(p, input.SuspendStats)
	wakeBefore, _ := tests.Load(p, input.WakeupSources)
	idleBefore, _ := tests.Load(p, input.IdleResidency)
	if err := j.Append(Record{Event: "start", Cycle: n, Time: p.Now()}); err != nil {
		return o, err
	}
	failures := p.Failures()
	fail := func(l *tests.Label, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		o.Problems = append(o.Problems, l.Name+": "+msg)
		p.Fail(l, "cycle %d: %s", n, msg)
	}
	markErr := ctl.Mark(pm.Marker(n, pm.MarkerBegin))
	res, serr := ctl.Suspend(req)
	_ = ctl.Mark(pm.Marker(n, pm.MarkerEnd, fmt.Sprintf("slept=%.3fs", res.Asleep.Seconds())))
	o.AsleepMS = ms(res.Asleep)

	// The machine as it is after the resume (Control started a new phase).
	// Advice matches the environment explains (a virtual machine's lost
	// timer ticks) are shown but do not fail the cycle: Failures does not
	// count them.
	recs, _ := tests.KernelRecords(p)
	c := findCycle(pm.Suspends(recs), n, markErr == nil)
	states, _ := tests.Load(p, input.PowerStates)

	wakeAfter, _ := tests.Load(p, input.WakeupSources)
	ev := gatherEvidence(p, states, wakeBefore, wakeAfter, *rtcCounts)
	w := judgeWake(res, req.Wake, ev)
	o.WokenBy = w.by
	if w.by == "alarm" && ev.rtcRead && *rtcCounts == "" {
		*rtcCounts = "it counted this run's alarm wakes"
	}
	late := res.Asleep > req.Wake+max(10*time.Second, req.Wake/2)
	vmWhy := ""
	if late && !w.early {
		dmi, _ := tests.Load(p, input.DMI)
		vmWhy = vm.Evidence(dmi, recs, nil)
	}
	switch {
	case serr != nil:
		why := serr.Error()
		if c != nil && len(c.Aborts) > 0 {
			why += "; the kernel logged: " + c.Aborts[0].Text
		}
		fail(labelSuspendFailed, "%s", why)
	case res.Asleep < max(req.Wake/10, 500*time.Millisecond) && w.by != "alarm":
		fail(labelNoSleep, "returned after %v asleep (%v in all) although the alarm was %v away%s", round(res.Asleep), round(res.Elapsed), req.Wake, ev.cause())
	case w.early && late:
		fail(labelLateWake, "woke after %v; the alarm was %v and did not wake it: %s%s", round(res.Asleep), req.Wake, w.basis, ev.cause())
	case w.early:
		fail(labelEarlyWake, "woke after %v of %v: %s%s", round(res.Asleep), req.Wake, w.basis, ev.cause())
	case late && vmWhy != "":
		// The alarm woke the guest; when it ran again was its host's
		// choice (seen: a 3 s alarm, 14-22 s asleep, five TCG guests on
		// two loaded cores).
		p.Explained(labelLateWake, vmWhy+": a guest resumes when its host runs it, so the time after the alarm is the host's",
			"cycle %d: woke after %v; the alarm was %v (%s)", n, round(res.Asleep), req.Wake, w.basis)
	case late:
		fail(labelLateWake, "woke after %v; the alarm was %v (%s)", round(res.Asleep), req.Wake, w.basis)
	}
	if w.fallback && !*fallbackSaid {
		*fallbackSaid = true
		p.Info(nil, "wake source: %s; early wakes are judged by wall time (the fallback)", w.fallbackWhy)
	}
	if c != nil {
		o.KernelResumeMS = ms(c.KernelResume)
		if s := c.Slowest(1, pm.PhaseResume); len(s) > 0 {
			o.SlowestDevice, o.SlowestMS = s[0].Device, ms(s[0].Duration)
		}
		for _, f := range c.Failures {
			fail(labelDeviceFailed, "%s", f.Text)
		}
		if c.KernelResume > MaxResume.Get(p) {
			var slow []string
			for _, d := range c.Slowest(5, pm.PhaseResume) {
				slow = append(slow, fmt.Sprintf("%s %v", d.Device, round(d.Duration)))
			}
			fail(labelSlowResume, "the kernel resumed in %v (limit %v); slowest: %s", round(c.KernelResume), MaxResume.Get(p), strings.Join(slow, ", "))
		}
		for _, f := range adv.Findings(recs[c.Start:c.End], fmt.Sprintf("cycle %d: ", n)) {
			p.Report(f)
		}
	}
	if devAfter, err := tests.Load(p, input.Devices); err == nil && devBefore != nil {
		for _, d := range diff(devBefore, devAfter) {
			fail(labelDeviceLost, "%s is gone after resume", d)
		}
		for _, d := range diff(devAfter, devBefore) {
			fail(labelDeviceAdded, "%s appeared after resume", d)
		}
	}
	if statsAfter, err := tests.Load(p, input.SuspendStats); err == nil && statsBefore != nil && p.Failures() == failures {
		if d := counterDelta(statsBefore, statsAfter, "fail"); d > 0 {
			fail(labelStatsFailure, "suspend_stats counted %d failure(s) (last_failed_dev %q, last_failed_step %q)", d, statsAfter["last_failed_dev"], statsAfter["last_failed_step"])
		}
	}
	if s2idle(req, states) && serr == nil {
		checkResidency(p, fail, idleBefore, n)
	}
	if f, err := tests.Load(p, input.FPDT); err == nil && f != nil {
		if f.Resume != nil {
			o.FirmwareResumeMS = float64(f.Resume.FullResume) / 1e6
		}
		if f.Suspend != nil {
			if d, ok := f.Suspend.Duration(); ok {
				o.FirmwareSuspendMS = ms(d)
			}
		}
	}
	o.Status = "passed"
	if p.Failures() > failures {
		o.Status = "failed"
	}
	p.Info(nil, "cycle %d %s: asleep %v, kernel resume %s, firmware resume %s, slowest device %s", n, o.Status,
		round(res.Asleep), msText(o.KernelResumeMS), msText(o.FirmwareResumeMS), deviceText(o))
	if err := j.Append(Record{Event: "outcome", Cycle: n, Time: p.Now(), Outcome: &o}); err != nil {
		return o, err
	}
	p.CycleEnded(o)
	return o, nil
}

// findCycle returns cycle n of the log: by its marker, or, when the markers
// could not be written, the last cycle the kernel logged.
func findCycle(sl *pm.SuspendLog, n int, marked bool) *pm.Cycle {
	for i := len(sl.Cycles) - 1; i >= 0; i-- {
		c := &sl.Cycles[i]
		if c.Number == n && c.Marker != "" {
			return c
		}
	}
	if !marked && len(sl.Cycles) > 0 {
		return &sl.Cycles[len(sl.Cycles)-1]
	}
	return nil
}

// wakeEvidence is what the kernel recorded of a wake: the RTC's wakeup
// source and its event count across the suspend, the other wakeup sources
// whose counts moved, and the wakeup IRQ.
type wakeEvidence struct {
	rtc                 string // the RTC's wakeup source; empty when unknown
	rtcBefore, rtcAfter int64
	rtcRead             bool // both counts were read
	// counts says why the RTC's source counts every alarm wake (see
	// rtcBaseline), so that its count standing still is evidence; empty
	// when nothing says so yet.
	counts string
	moved  []string // other sources, "name (+n)"
	irq    string
}

// rtcBaseline says, before the first suspend, why the RTC's wakeup source
// counts every wake its alarm causes, so that its count standing still
// across a suspend says something else woke the machine, from the first
// cycle on:
//   - the journal's earlier cycles saw it count an alarm wake;
//   - its driver is rtc_cmos with the ACPI RTC event handler installed
//     (input.RTCWakeEvent): that handler counts each alarm wake on it;
//   - it had already counted wakes in this boot.
//
// It is empty when none holds; then an alarm wake the source counts in
// this run makes it evidence, and until then the wall-time fallback judges.
func rtcBaseline(p *tests.Pass, earlier []Outcome) string {
	if slices.ContainsFunc(earlier, func(o Outcome) bool { return o.WokenBy == "alarm" }) {
		return "it counted this run's earlier alarm wakes"
	}
	if w, err := tests.Load(p, input.RTCWakeEvent); err == nil && w.CountsAlarmWakes() && !fixedRTC(p) {
		return "rtc_cmos counts every alarm wake on it through its ACPI RTC event handler"
	}
	rtc, _ := tests.Load(p, input.RTCWakeSource)
	if ws, err := tests.Load(p, input.WakeupSources); err == nil && rtc != "" && ws[rtc] > 0 {
		return fmt.Sprintf("it had counted %d wakes in this boot before the run", ws[rtc])
	}
	return ""
}

// fixedRTC reports whether the FADT says the RTC's wake status is not in
// the fixed register space (FIX_RTC, ACPI 6.5 §5.2.9 Table 5.10): there the
// ACPI RTC event never fires and its handler never counts a wake.
func fixedRTC(p *tests.Pass) bool {
	ts, err := tests.Load(p, input.ACPITables)
	if err != nil || ts == nil {
		return false
	}
	f, err := ts.FADT()
	return err == nil && f.Flags&acpi.FADTFlagFixRTC != 0
}

func gatherEvidence(p *tests.Pass, states map[string]string, before, after map[string]int64, counts string) wakeEvidence {
	ev := wakeEvidence{irq: states["pm_wakeup_irq"], counts: counts}
	ev.rtc, _ = tests.Load(p, input.RTCWakeSource)
	if before == nil || after == nil {
		return ev
	}
	if b, ok := before[ev.rtc]; ok && ev.rtc != "" {
		if a, ok := after[ev.rtc]; ok {
			ev.rtcBefore, ev.rtcAfter, ev.rtcRead = b, a, true
		}
	}
	for name, n := range after {
		if name != ev.rtc && n > before[name] {
			ev.moved = append(ev.moved, fmt.Sprintf("%s (+%d)", name, n-before[name]))
		}
	}
	sort.Strings(ev.moved)
	return ev
}

// cause names what the kernel says woke the machine, for a message.
func (ev wakeEvidence) cause() string {
	var why []string
	if ev.irq != "" {
		why = append(why, "wakeup IRQ "+ev.irq)
	}
	if len(ev.moved) > 0 {
		why = append(why, "wakeup sources "+strings.Join(ev.moved, ", "))
	}
	if len(why) == 0 {
		return "; the kernel recorded no other wakeup source"
	}
	return "; " + strings.Join(why, "; ")
}

// wakeJudgement is what woke the machine, as far as the evidence says.
type wakeJudgement struct {
	by       string // "alarm", "other", or "" (fallback)
	early    bool   // something other than the alarm woke it
	basis    string // the evidence, for the message
	fallback bool   // judged by wall time
	// fallbackWhy says why no source could judge.
	fallbackWhy string
}

// judgeWake decides whether the RTC alarm woke the machine, from what
// woke it rather than from how long it seemed to sleep: a slow resume (a
// device taking seconds, a loaded hypervisor) lets the alarm's time pass
// before anything is read, so the alarm looks fired and the wall time
// looks full although something else woke the machine halfway.
//
//   - The alarm still armed and more than a second away: something else
//     woke it.
//   - The RTC's wakeup source counted an event across the suspend: the
//     alarm woke it (the kernel's ACPI RTC handler counts it as it
//     resumes), however short the sleep looked.
//   - The count stood still, on a machine whose RTC source is known to
//     count its alarm wakes (rtcBaseline: known before the first cycle
//     from the RTC's driver and ACPI event handler, else once this run has
//     seen it count one): not the alarm, however long the resume took.
//   - Otherwise (no RTC wakeup source, counts unreadable, or not yet seen
//     counting) the wall-time rule, said to be the fallback: the alarm is
//     set in whole RTC seconds, and without a clock that runs through
//     suspend the kernel measures the sleep with the RTC's one-second
//     resolution (a 3 s alarm showed 1.9 s asleep on QEMU with SeaBIOS),
//     so only a wake two seconds short of the alarm, counted from the
//     arming, is early.
func judgeWake(res input.SuspendResult, wake time.Duration, ev wakeEvidence) wakeJudgement {
	if res.Alarm == input.AlarmPending && res.AlarmLeft > time.Second {
		return wakeJudgement{by: "other", early: true, basis: fmt.Sprintf("the RTC alarm was still armed, %v away", round(res.AlarmLeft))}
	}
	if ev.rtcRead && ev.rtcAfter > ev.rtcBefore {
		return wakeJudgement{by: "alarm", basis: fmt.Sprintf("the RTC's wakeup source %s counted the wake", ev.rtc)}
	}
	if ev.rtcRead && ev.counts != "" {
		return wakeJudgement{by: "other", early: true, basis: fmt.Sprintf("the RTC's wakeup source %s did not count this wake (%s)", ev.rtc, ev.counts)}
	}
	j := wakeJudgement{fallback: true}
	switch {
	case ev.rtc == "":
		j.fallbackWhy = "the RTC has no wakeup source the kernel names"
	case !ev.rtcRead:
		j.fallbackWhy = fmt.Sprintf("the event count of the RTC's wakeup source %s could not be read", ev.rtc)
	default:
		j.fallbackWhy = fmt.Sprintf("nothing says the RTC's wakeup source %s counts alarm wakes (its driver is not rtc_cmos with an ACPI RTC event handler) and it has not yet counted one in this run", ev.rtc)
	}
	if res.Alarm == input.AlarmFired {
		j.basis = "the RTC alarm had fired when read back (fallback: no wake source to tell)"
		return j
	}
	j.early = max(res.SinceArmed, res.Elapsed) < wake-2*time.Second
	j.basis = fmt.Sprintf("%v from arming the alarm to running again (fallback: wall time, no wake source to tell)", round(max(res.SinceArmed, res.Elapsed)))
	return j
}

// summarize reports the run: per-cycle table lines were given as each
// cycle ended; here the counts, the distributions, the drift and the first
// failing cycle.
func summarize(p *tests.Pass, os []Outcome) {
	if len(os) == 0 {
		return
	}
	passed, failed, hung, first := 0, 0, 0, 0
	var asleep, kernel, firmware, fwSuspend, slowest []float64
	for _, o := range os {
		switch o.Status {
		case "passed":
			passed++
		case "hung":
			hung++
		default:
			failed++
		}
		if o.Status != "passed" && first == 0 {
			first = o.Cycle
		}
		if o.AsleepMS > 0 {
			asleep = append(asleep, o.AsleepMS)
		}
		if o.KernelResumeMS > 0 {
			kernel = append(kernel, o.KernelResumeMS)
		}
		if o.FirmwareResumeMS > 0 {
			firmware = append(firmware, o.FirmwareResumeMS)
		}
		if o.FirmwareSuspendMS > 0 {
			fwSuspend = append(fwSuspend, o.FirmwareSuspendMS)
		}
		if o.SlowestMS > 0 {
			slowest = append(slowest, o.SlowestMS)
		}
	}
	p.Info(nil, "%d cycles: %d passed, %d failed, %d hung", len(os), passed, failed, hung)
	if first > 0 {
		p.Info(nil, "first failing cycle: %d", first)
	}
	for _, s := range []struct {
		name string
		v    []float64
	}{{"time asleep", asleep}, {"kernel resume", kernel}, {"firmware resume", firmware}, {"firmware suspend", fwSuspend}, {"slowest device resume", slowest}} {
		if len(s.v) == 0 {
			p.Info(nil, "%s: not measured", s.name)
			continue
		}
		sm := stats.Summarize(s.v)
		p.Info(nil, "%s (ms): min %.1f, median %.1f, p95 %.1f, max %.1f over %d cycles", s.name, sm.Min, sm.Median, sm.P95, sm.Max, sm.N)
	}
	if len(kernel) == 0 {
		p.NotChecked("kernel resume times", "the kernel log has no resume boundaries for these cycles", "make sure the kernel log is readable and not rate-limited")
	}
	if tr, err := stats.Series(kernel); err == nil {
		p.Info(nil, "kernel resume drift: %+.3f ms per cycle (p = %.3g)", tr.Slope, tr.P)
		if tr.Significant(0.01) && tr.Slope > 0 && tr.Slope*float64(tr.N) > 0.1*stats.Summarize(kernel).Median {
			p.Warn(labelDrift, "kernel resume time grows by %.3f ms per cycle over %d cycles (p = %.3g)", tr.Slope, tr.N, tr.P)
		}
	}
	if failed == 0 && hung == 0 {
		p.Passed("%d cycles slept, woke on time and brought every device back%s", passed, journalNote(p))
	}
}

// JournalOff is the journal setting that runs without one on purpose.
const JournalOff = "none"

// journalNote is what the summary says of a run without a journal.
func journalNote(p *tests.Pass) string {
	switch JournalPath.Get(p) {
	case JournalOff:
		return " (journal off: a hang would have left no record)"
	case "":
		return " (no journal)"
	}
	return ""
}

func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

func counterDelta(before, after map[string]string, name string) int {
	var a, b int
	fmt.Sscan(before[name], &b)
	fmt.Sscan(after[name], &a)
	return a - b
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

func msText(v float64) string {
	if v <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f ms", v)
}

func deviceText(o Outcome) string {
	if o.SlowestDevice == "" {
		return "unknown"
	}
	return fmt.Sprintf("%s %.1f ms", o.SlowestDevice, o.SlowestMS)
}

// awakeTimes is how long the machine stays awake between cycles: fixed, or
// drawn at random from a range with a seed the results name, so a failing
// sequence can be replayed.
type awakeTimes struct {
	fixed, min, max time.Duration
	seed            int64
	rng             *rand.Rand
}

func newAwake(p *tests.Pass) (*awakeTimes, error) {
	a := &awakeTimes{fixed: Awake.Get(p)}
	spec := AwakeRandom.Get(p)
	if spec == "" {
		return a, nil
	}
	lo, hi, ok := strings.Cut(spec, "..")
	var err1, err2 error
	a.min, err1 = time.ParseDuration(strings.TrimSpace(lo))
	a.max, err2 = time.ParseDuration(strings.TrimSpace(hi))
	if !ok || err1 != nil || err2 != nil || a.min < 0 || a.max < a.min || a.max > 24*time.Hour {
		return nil, fmt.Errorf("--s3.awake-random %q: want MIN..MAX, two durations with MIN ≤ MAX ≤ 24h (e.g. 1s..30s)", spec)
	}
	a.seed = p.Now().UnixNano()
	a.rng = rand.New(rand.NewPCG(uint64(a.seed), 0))
	return a, nil
}

func (a *awakeTimes) next() time.Duration {
	if a.rng == nil {
		return a.fixed
	}
	return a.min + time.Duration(a.rng.Int64N(int64(a.max-a.min)+1))
}

// progressLine is the driver's progress line before cycle n: the counts so
// far, the last resume times and an estimate of the time left from the
// cycles done in this run.
func progressLine(n, cycles int, os []Outcome, failed int, sleep time.Duration, done int, spent time.Duration) string {
	s := fmt.Sprintf("cycle %d/%d: suspending for %v; %d passed, %d failed", n, cycles, sleep, len(os)-failed, failed)
	if len(os) > 0 {
		last := os[len(os)-1]
		s += fmt.Sprintf("; last resume: firmware %s, kernel %s", msText(last.FirmwareResumeMS), msText(last.KernelResumeMS))
	}
	if done > 0 {
		left := spent / time.Duration(done) * time.Duration(cycles-n+1)
		s += fmt.Sprintf("; about %v left", left.Round(time.Second))
	}
	return s
}

// hungEvidence is what this boot can say about the cycle the last one hung
// in: the device pm_trace left its hash for in the RTC (when the run asked
// for pm_trace, the kernel's "hash matches" lines at boot name it; without
// it the RTC holds the time and any match is chance), and the last lines
// of the previous boot's log that pstore kept.
func hungEvidence(p *tests.Pass) []string {
	var out []string
	if PMTrace.Get(p) {
		var lines []string
		recs, _ := tests.KernelRecords(p)
		for _, r := range recs {
			if strings.Contains(r.Text, "Magic number:") || strings.Contains(r.Text, "hash matches") {
				lines = append(lines, strings.TrimSpace(r.Text))
			}
		}
		if len(lines) > 0 {
			out = append(out, "pm_trace: "+strings.Join(lines, " | "))
		} else {
			out = append(out, "pm_trace: this boot's log names no device (no \"hash matches\" line)")
		}
	}
	if ps, err := tests.Load(p, input.Pstore); err == nil && len(ps) > 0 {
		names := make([]string, 0, len(ps))
		for n := range ps {
			if strings.HasPrefix(n, "dmesg-") {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		if len(names) > 0 {
			last := names[len(names)-1]
			lines := strings.Split(strings.TrimRight(ps[last], "\n"), "\n")
			lines = lines[max(0, len(lines)-5):]
			out = append(out, fmt.Sprintf("pstore %s ends: %s", last, strings.Join(lines, " | ")))
		}
	}
	return out
}

// s2idle tells whether req suspends to idle: freeze, or mem with the
// s2idle mode asked for or selected by the kernel ("[s2idle]").
func s2idle(req input.SuspendRequest, states map[string]string) bool {
	switch {
	case req.State == "freeze":
		return true
	case req.State != "mem":
		return false
	case req.MemSleep != "":
		return req.MemSleep == "s2idle"
	}
	return strings.Contains(states["mem_sleep"], "[s2idle]")
}

// checkResidency compares the low-power idle counters across an s2idle
// cycle: at least one must have moved. Without counters it says so once.
func checkResidency(p *tests.Pass, fail func(*tests.Label, string, ...any), before map[string]int64, n int) {
	// Without counters, NotChecked says so once for the run.
	after, err := tests.Load(p, input.IdleResidency)
	if err != nil || len(after) == 0 || len(before) == 0 {
		p.NotChecked("low-power idle residency", "the machine exposes no residency counter (no LPIT table, no Intel PMC debugfs)",
			"on Intel, mount debugfs and load intel_pmc_core; elsewhere the platform must publish an LPIT")
		return
	}
	var moved []string
	names := make([]string, 0, len(after))
	for name := range after {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if b, ok := before[name]; ok && after[name] > b {
			moved = append(moved, fmt.Sprintf("%s +%d µs", name, after[name]-b))
		}
	}
	if len(moved) == 0 {
		var vals []string
		for _, name := range names {
			vals = append(vals, fmt.Sprintf("%s %d µs", name, after[name]))
		}
		fail(labelNoLowPowerIdle, "no low-power idle residency counter moved (%s)", strings.Join(vals, ", "))
		return
	}
	p.Info(nil, "cycle %d: low-power idle residency %s", n, strings.Join(moved, ", "))
}

// sleepOffer says which sleep the kernel offers: "suspend to RAM (S3)",
// "s2idle only", from /sys/power/state and mem_sleep.
func sleepOffer(states map[string]string) string {
	st := strings.Fields(states["state"])
	ms := strings.NewReplacer("[", "", "]", "").Replace(states["mem_sleep"])
	switch {
	case slices.Contains(strings.Fields(ms), "deep"):
		return "suspend to RAM (S3, mem_sleep deep)"
	case slices.Contains(st, "mem") || slices.Contains(st, "freeze"):
		return "s2idle only (no deep sleep: /sys/power/state " + strconvQuote(states["state"]) + ", mem_sleep " + strconvQuote(states["mem_sleep"]) + ")"
	}
	return "no sleep state"
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", strings.TrimSpace(s)) }
