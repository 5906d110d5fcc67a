package lines

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
)

// MaxCases bounds the case lines one boot prints (a 1000-cycle S3 run
// prints about 4000); the ones past it are counted in the end line's
// dropped= and stay in the results document and the journal.
const MaxCases = 10000

// HeartbeatInterval is how often a boot prints a beat line between its
// start and end lines.
const HeartbeatInterval = 30 * time.Second

// Writer prints one boot's lines. Its methods are safe for concurrent use
// (the heartbeat runs on its own goroutine); each line goes out in one
// Write. The start line is printed once, before any other; the end line
// once, after which the Writer prints nothing more.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	seq     int
	cases   int
	dropped int
	started bool
	ended   bool
	check   string // the check running, for the beat line
	errs    int
}

// NewWriter returns a Writer printing on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// print formats and writes l; the caller holds mu.
func (w *Writer) print(l Line) {
	l.Seq = w.seq
	s, err := l.Format()
	if err != nil {
		// Every caller passes sanitised fields; a bug here must not
		// stop the run, and the gap in the sequence shows the loss.
		w.errs++
		w.seq++
		return
	}
	w.seq++
	_, _ = io.WriteString(w.w, s+"\n")
}

// Begin prints the start line (once; later calls do nothing).
func (w *Writer) Begin(boot, version string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started || w.ended {
		return
	}
	w.started = true
	w.print(Line{Kind: Start, Boot: Token(boot, maxToken), Fwcheck: Token(version, maxToken)})
}

// caseLine prints a case line within the bound; the caller holds mu.
func (w *Writer) caseLine(l Line) {
	if !w.started || w.ended {
		return
	}
	if w.cases >= MaxCases {
		w.dropped++
		return
	}
	l.Kind = Case
	w.cases++
	w.print(l)
}

// CheckStarted records the check now running, for the beat lines.
func (w *Writer) CheckStarted(check string) {
	w.mu.Lock()
	w.check = check
	w.mu.Unlock()
}

// CheckEnded prints a check's line, and for a cycling check (s3, reboot) the
// summary lines of its cycles: the longest kernel and firmware resume (s3)
// or firmware start (reboot), each measured or said not to be.
func (w *Writer) CheckEnded(r tests.Result) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.check = ""
	id := Token(r.ID, maxID)
	res, note := checkResult(r.Status)
	cs := r.Cycles()
	l := Line{ID: id, Result: res, Note: note}
	if len(cs) > 0 {
		good := 0
		for _, c := range cs {
			if c.Good() {
				good++
			}
		}
		l.Measurement, l.Units = strconv.Itoa(good), "cycles"
	}
	w.caseLine(l)
	for _, m := range summaryMeasures(r.ID) {
		best := 0.0
		for _, c := range cs {
			best = max(best, m.get(&c))
		}
		if len(cs) == 0 {
			continue
		}
		w.caseLine(measureLine(id+"."+m.name+"-max", res, best, m.units))
	}
}

// checkResult maps a check status to a LAVA result: only passed and
// warning are a pass; incomplete is unknown, never a pass.
func checkResult(s tests.Status) (result, note string) {
	switch s {
	case tests.StatusPassed:
		return Pass, ""
	case tests.StatusWarning:
		return Pass, "warning"
	case tests.StatusFailed:
		return Fail, ""
	case tests.StatusAborted:
		return Fail, "aborted"
	case tests.StatusIncomplete:
		return Unknown, "incomplete"
	case tests.StatusNotApplicable:
		return Skip, "not-applicable"
	case tests.StatusSkipped:
		return Skip, "skipped"
	}
	return Unknown, Token(string(s), maxToken)
}

// measure is one per-cycle measurement and where a CycleRecord keeps it.
type measure struct {
	name, units string
	scale       float64 // from the record's milliseconds to units
	get         func(*tests.CycleRecord) float64
}

// cycleMeasures lists the measurements a cycle of each cycling check
// prints, every cycle, measured or not.
func cycleMeasures(check string) []measure {
	switch check {
	case "s3":
		return []measure{
			{"firmware-resume", "ms", 1, func(c *tests.CycleRecord) float64 { return c.FirmwareResumeMS }},
			{"kernel-resume", "ms", 1, func(c *tests.CycleRecord) float64 { return c.KernelResumeMS }},
			{"asleep", "s", 1e-3, func(c *tests.CycleRecord) float64 { return c.AsleepMS }},
		}
	case "reboot":
		return []measure{
			{"firmware-start", "ms", 1, func(c *tests.CycleRecord) float64 { return c.FirmwareStartMS }},
			{"exit-boot-services", "ms", 1, func(c *tests.CycleRecord) float64 { return c.ExitBootServicesMS }},
			{"request-to-kernel", "ms", 1, func(c *tests.CycleRecord) float64 { return c.RequestToKernelMS }},
		}
	}
	return nil
}

// summaryMeasures are the measurements a cycling check's result line is
// followed by (their maximum over the cycles): the firmware's and the
// kernel's times.
func summaryMeasures(check string) []measure {
	ms := cycleMeasures(check)
	if len(ms) > 2 {
		ms = ms[:2]
	}
	return ms
}

// measureLine is a measurement's case line: the value, or, when it was not
// measured (0), a skip that says so: a missing time is never silent.
func measureLine(id, result string, ms float64, units string) Line {
	if ms <= 0 {
		return Line{ID: id, Result: Skip, Note: "not-measured"}
	}
	return Line{ID: id, Result: result, Measurement: strconv.FormatFloat(ms, 'f', 3, 64), Units: units}
}

// CycleEnded prints a cycle's line (s3.cycle-N, pass or fail, note=hung for a
// cycle that did not come back) and one line per measurement of it.
func (w *Writer) CycleEnded(check string, c tests.CycleRecord) {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := Token(check, 20) + ".cycle-" + strconv.Itoa(c.Cycle)
	res, note := Fail, ""
	switch {
	case c.Good():
		res = Pass
	case c.Status == "hung":
		note = "hung"
	}
	w.caseLine(Line{ID: id, Result: res, Note: note})
	for _, m := range cycleMeasures(check) {
		w.caseLine(measureLine(id+"."+m.name, res, m.get(&c)*m.scale, m.units))
	}
}

// Beat prints a beat line: at is the time since the kernel started.
func (w *Writer) Beat(at time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started || w.ended {
		return
	}
	check := w.check
	if check == "" {
		check = "-"
	}
	w.print(Line{Kind: Beat, At: int(at / time.Second), Check: Token(check, maxID)})
}

// Heartbeat prints a beat line every interval until the returned stop
// function is called (or the end line is printed); uptime gives the time
// since the kernel started.
func (w *Writer) Heartbeat(interval time.Duration, uptime func() time.Duration) (stop func()) {
	t := time.NewTicker(interval)
	done := make(chan struct{})
	var once sync.Once
	go func() {
		for {
			select {
			case <-t.C:
				w.Beat(uptime())
			case <-done:
				return
			}
		}
	}()
	return func() {
		once.Do(func() {
			t.Stop()
			close(done)
		})
	}
}

// Finish prints the end line (once): state Done with the verdict, or Reset
// when the machine is about to be reset and the run goes on in the next
// boot. A Writer that never began prints its start line first, so that
// the pair is always whole.
func (w *Writer) Finish(state, verdict string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	if !w.started {
		w.started = true
		w.print(Line{Kind: Start, Boot: "-", Fwcheck: "-"})
	}
	if state == Reset {
		verdict = "none"
	}
	w.print(Line{Kind: End, State: state, Cases: w.cases, Verdict: Token(verdict, maxToken), Dropped: w.dropped})
	w.ended = true
}

// String describes the writer's counts, for a log line.
func (w *Writer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("%d lines, %d cases, %d dropped, %d unprintable", w.seq, w.cases, w.dropped, w.errs)
}

// Verdict is the end line's verdict for a judged document: fail when a
// failure at or above failOn (or an aborted check) is there; no-cycles when
// a cycling check in asked (s3, reboot) completed no cycle in this run (a
// run that never suspended is never a pass, whatever else passed);
// nothing-checked when no check evaluated anything; pass otherwise.
func Verdict(d *report.Document, failOn tests.Severity, asked []string) string {
	switch {
	case d.Failing(failOn):
		return "fail"
	case !d.Checked():
		return "nothing-checked"
	}
	for _, id := range asked {
		good := 0
		for i := range d.Results {
			if d.Results[i].ID != id {
				continue
			}
			for _, c := range d.Results[i].Cycles() {
				if c.Good() {
					good++
				}
			}
		}
		if good == 0 {
			return "no-cycles"
		}
	}
	return "pass"
}
