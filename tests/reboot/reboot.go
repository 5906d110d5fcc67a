// Package reboot is the reboot cycling check: it resets the machine again
// and again through one reset method, and on every boot that follows
// records how the reset went: how long from the request to the next
// kernel's start, the firmware's boot phases from the FPDT, and the kernel
// log's findings of that boot. A reset that never came back (the machine
// had to be power-cycled) is found on the next boot from the journal.
//
// The run lives in its journal (internal/journal): each request is
// appended and fsync'd before reboot(2), each boot appends the outcome of
// the reset that led to it. The check is flagged Unsafe: it runs only when
// named. It acts only through the framework's Control, and reads the
// machine only through inputs; tests drive it with a fake of both.
//
// Two facts make the method matter. The FADT's reset register is often
// I/O port 0xCF9, and writing 0x06 there in one go (reset type and reset
// bit together) fails now and then on many chipsets, where 0x02, a pause,
// then 0x06 does not (the fadt check flags the static hazard). And the
// kernel tries several methods in turn by default, so a method that
// fails silently is hidden behind the next one; naming one method
// (reboot.method) tests that method alone.
package reboot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/journal"
	"github.com/fwcheck/fwcheck/internal/stats"
	"github.com/fwcheck/fwcheck/tests"
	klogcheck "github.com/fwcheck/fwcheck/tests/klog"
)

// maxCycles bounds --reboot.cycles, and the cycle numbers a journal may hold.
const maxCycles = 1000

const spec = "ACPI 6.5 §4.8.3.6 (reset register), §5.2.9 (FADT RESET_REG, RESET_VALUE, RESET_REG_SUP); the chipset datasheet's Reset Control Register (0xCF9)"

// The check's settings (--reboot.NAME, fwcheck.reboot.NAME=).
var (
	Cycles      = tests.IntOpt("cycles", "number of `reboots`", 3, 1, maxCycles)
	Method      = tests.StringOpt("method", "reset `method` (/sys/kernel/reboot/type, Linux 5.11 on): acpi, kbd, pci, efi, triple, bios, or default for the kernel's own order; on arm64 default or efi (EFI ResetSystem, then PSCI SYSTEM_RESET) or psci (PSCI alone, on a machine not booted through UEFI)", "default", "default", "acpi", "kbd", "pci", "efi", "triple", "bios", "psci")
	JournalPath = tests.StringOpt("journal", "the JSON-lines `FILE` that carries the run across reboots, on persistent storage (the live image uses its FWCHECK partition)", "")
	MaxFailures = tests.IntOpt("max-failures", "stop after this many failed or hung reboots (0: never)", 0, 0, 1000)
	HangAfter   = tests.DurationOpt("hang-after", "a reboot whose next kernel started later than this after the request counts as hung: the machine had to be power-cycled", 10*time.Minute, 5*time.Second, 24*time.Hour)
)

var (
	labelHung = tests.NewLabel("RebootHung", tests.Critical, spec,
		"The machine did not come back from this reset by itself: the next kernel started only after the hang "+
			"limit, when the machine was power-cycled. A reset that fails now and then is typical of a reset register "+
			"written in one go (0x06 to port 0xCF9): write the reset type first (0x02), wait, then set the reset bit "+
			"(0x06), or point the FADT at a reset the chipset always honours.")
	labelFailed = tests.NewLabel("RebootRefused", tests.High, spec,
		"The kernel refused the reset request or the method: the machine did not go down. The message says why; "+
			"a method the kernel does not offer on this machine cannot be tested here.")
	labelIntermittent = tests.NewLabel("RebootIntermittentLogFinding", tests.Medium, spec,
		"A kernel-log finding appeared in some boots of the run and not in others: something the firmware sets up "+
			"differently from one boot to the next (a device that trains late, a table built from uninitialised memory). "+
			"The boots it appeared in are named.")
)

// Check is the reboot check.
var Check = &tests.Check{
	ID:       "reboot",
	Title:    "Reboot cycling: every reset through the chosen method brings the machine back by itself",
	Category: tests.Power,
	Flags:    tests.Unsafe,
	Inputs:   []input.Decl{input.BootTime, input.KernelLog},
	Optional: []input.Decl{input.RebootConfig, input.FPDT},
	Spec:     spec,
	Labels:   []*tests.Label{labelHung, labelFailed, labelIntermittent},
	Settings: []tests.Setting{Cycles, Method, JournalPath, MaxFailures, HangAfter},
	Run:      run,
}

// Record is one line of the reboot journal.
type Record struct {
	Event string    `json:"event"` // "run", "request", "outcome", "done"
	Cycle int       `json:"cycle,omitempty"`
	Time  time.Time `json:"time"`
	// For "run": the run's parameters; "request" repeats the method.
	Cycles int    `json:"cycles,omitempty"`
	Method string `json:"method,omitempty"`
	// For "outcome".
	Outcome *Outcome `json:"outcome,omitempty"`
}

// Outcome is one reboot's result, as the journal and the results hold it:
// the framework's per-cycle record, whose reboot fields this check fills.
type Outcome = tests.CycleRecord

// run carries the journal's run one step further: it records the outcome
// of the reset that led to this boot, if the journal is waiting for one,
// and then requests the next reset or closes the run.
func run(p *tests.Pass) error {
	path := JournalPath.Get(p)
	if path == "" {
		p.Skip("reboot cycling needs a journal on persistent storage to carry the run across resets: give --reboot.journal FILE (the live image keeps it on its FWCHECK partition)")
		return nil
	}
	st, err := readState(p.ReadJournal, path)
	if err != nil {
		return err
	}
	if st.damaged > 0 {
		p.Warn(nil, "journal %s: %d damaged lines skipped (a write cut off by a reset)", path, st.damaged)
	}
	j, err := p.OpenJournal(path)
	if err != nil {
		return err
	}
	defer j.Close()

	method := Method.Get(p)
	cycles := Cycles.Get(p)
	if st.active {
		method, cycles = st.method, st.cycles
		if st.pending > 0 {
			o := arrived(p, st.pendingAt, st.pending, method)
			if err := j.Append(Record{Event: "outcome", Cycle: o.Cycle, Time: p.Now(), Outcome: &o}); err != nil {
				return err
			}
			p.CycleEnded(o)
			st.outcomes = append(st.outcomes, o)
		}
	} else {
		if err := j.Append(Record{Event: "run", Time: p.Now(), Cycles: cycles, Method: method}); err != nil {
			return err
		}
		st.outcomes = nil
	}

	next := len(st.outcomes) + 1
	failed := 0
	for _, o := range st.outcomes {
		if o.Status != "completed" {
			failed++
		}
	}
	stop := ""
	if m := MaxFailures.Get(p); m > 0 && failed >= m && next <= cycles {
		stop = fmt.Sprintf("the run stopped after %d failed reboots (max-failures)", failed)
	}
	if next <= cycles && stop == "" {
		o, err := request(p, j, next, cycles, method)
		if err != nil {
			return err
		}
		if o == nil {
			// The reset is under way: this boot's part is done.
			p.NotChecked(fmt.Sprintf("reboots %d–%d", next, cycles), fmt.Sprintf("the machine is resetting for reboot %d", next),
				"the run goes on at the next boot from the same journal")
			return nil
		}
		st.outcomes = append(st.outcomes, *o)
		p.CycleEnded(*o)
		stop, next = "the reset request failed", next+1
	}
	if stop != "" && next <= cycles {
		p.NotChecked(fmt.Sprintf("reboots %d–%d", next, cycles), stop, "raise --reboot.max-failures, or fix the reset and run again")
	}
	if err := j.Append(Record{Event: "done", Time: p.Now()}); err != nil {
		p.Warn(nil, "journal: %v", err)
	}
	summarize(p, st.outcomes, method)
	return nil
}

// request journals reboot n and resets the machine. It returns nil when the
// reset is under way, or the failed outcome when the kernel refused it.
func request(p *tests.Pass, j *journal.Journal, n, cycles int, method string) (*Outcome, error) {
	ctl := p.Control()
	if p.Arch() == "arm64" {
		return requestArm64(p, j, n, cycles, method)
	}
	if method == "psci" {
		o := &Outcome{Cycle: n, Status: "failed", Method: method, Problems: []string{"psci is an Arm reset method: this machine is " + p.Arch()}}
		p.Fail(labelFailed, "reboot %d: %s", n, o.Problems[0])
		return o, j.Append(Record{Event: "outcome", Cycle: n, Time: p.Now(), Outcome: o})
	}
	if method != "default" {
		if rc, err := tests.Load(p, input.RebootConfig); err == nil && rc != nil && !rc.Selectable {
			o := &Outcome{Cycle: n, Status: "failed", Method: method,
				Problems: []string{"this kernel cannot select a reset method (no /sys/kernel/reboot, Linux before 5.11): only --reboot.method default can be used"}}
			p.Fail(labelFailed, "reboot %d: %s", n, o.Problems[0])
			return o, j.Append(Record{Event: "outcome", Cycle: n, Time: p.Now(), Outcome: o})
		}
	}
	if err := j.Append(Record{Event: "request", Cycle: n, Time: p.Now(), Method: method}); err != nil {
		return nil, err
	}
	p.Progress("reboot %d/%d: resetting the machine through method %s", n, cycles, method)
	m := method
	if m == "default" {
		m = ""
	}
	// The journal's file system is unmounted before the reset.
	if err := j.Close(); err != nil {
		return nil, err
	}
	if err := ctl.Reboot(m); err != nil {
		o := &Outcome{Cycle: n, Status: "failed", Method: method, Problems: []string{err.Error()}}
		p.Fail(labelFailed, "reboot %d: %v", n, err)
		return o, j.Append(Record{Event: "outcome", Cycle: n, Time: p.Now(), Outcome: o})
	}
	return nil, nil
}

// arrived is the outcome of reboot n, requested at `at`, seen from the boot
// it led to.
func arrived(p *tests.Pass, at time.Time, n int, method string) Outcome {
	o := Outcome{Cycle: n, Status: "completed", Method: method}
	boot := tests.Input(p, input.BootTime)
	if d := boot.Sub(at); d >= -time.Second {
		o.RequestToKernelMS = float64(max(d, 0).Milliseconds())
		if d > HangAfter.Get(p) {
			o.Status = "hung"
			o.Problems = append(o.Problems, fmt.Sprintf("the next kernel started %v after the request (limit %v): the machine was power-cycled",
				d.Round(time.Second), HangAfter.Get(p)))
		}
	} else {
		o.Problems = append(o.Problems, fmt.Sprintf("the clock reads %v before the request: the RTC was reset, time to kernel not measured", (-d).Round(time.Second)))
	}
	if f, err := tests.Load(p, input.FPDT); err == nil && f != nil && f.Boot != nil {
		b := f.Boot
		o.FirmwareStartMS = nsToMS(b.ResetEnd)
		o.LoaderLoadMS = nsToMS(b.OSLoaderLoadImageStart)
		o.LoaderStartMS = nsToMS(b.OSLoaderStartImageStart)
		o.ExitBootServicesMS = nsToMS(b.ExitBootServicesEntry)
	}
	adv := klogcheck.NewAdvisor(p)
	recs, _ := tests.KernelRecords(p)
	for _, f := range adv.Findings(recs, "") {
		if f.Fails() && f.Label != "" {
			o.LogFindings = append(o.LogFindings, f.Label)
		}
	}
	return o
}

// state is what the journal holds of the last run.
type state struct {
	active    bool // a run is unfinished
	cycles    int
	method    string
	outcomes  []Outcome
	pending   int // the reboot requested and not yet accounted for
	pendingAt time.Time
	damaged   int
}

func readState(open func(string) (io.ReadCloser, error), path string) (state, error) {
	var st state
	f, err := open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("journal %s: %w", path, err)
	}
	recs, damaged, err := journal.Read(f, func(r *Record) bool {
		return r.Event != "" && journal.CycleOK(r.Cycle, maxCycles) && journal.CycleOK(r.Cycles, maxCycles) &&
			(r.Outcome == nil || journal.CycleOK(r.Outcome.Cycle, maxCycles))
	})
	f.Close()
	if err != nil {
		return st, fmt.Errorf("journal %s: %w", path, err)
	}
	st.damaged = damaged
	for _, r := range recs {
		switch r.Event {
		case "run":
			st = state{active: true, cycles: r.Cycles, method: r.Method, damaged: damaged}
		case "request":
			st.pending, st.pendingAt = r.Cycle, r.Time
		case "outcome":
			if r.Outcome != nil {
				st.outcomes = append(st.outcomes, *r.Outcome)
			}
			if r.Cycle == st.pending {
				st.pending = 0
			}
		case "done":
			st.active = false
		}
	}
	if st.cycles == 0 {
		st.active = false
	}
	return st, nil
}

// summarize reports the run from its outcomes.
func summarize(p *tests.Pass, os []Outcome, method string) {
	p.RecordCycles(os)
	if len(os) == 0 {
		return
	}
	completed, hung, failed, first := 0, 0, 0, 0
	var toKernel, exitBS []float64
	boots := map[string][]int{} // log label → the reboots whose boot had it
	for _, o := range os {
		switch o.Status {
		case "completed":
			completed++
		case "hung":
			hung++
			p.Fail(labelHung, "reboot %d (method %s): %s", o.Cycle, o.Method, strings.Join(o.Problems, "; "))
		default:
			failed++
		}
		if o.Status != "completed" && first == 0 {
			first = o.Cycle
		}
		if o.Status == "completed" && o.RequestToKernelMS > 0 {
			toKernel = append(toKernel, o.RequestToKernelMS)
		}
		if o.ExitBootServicesMS > 0 {
			exitBS = append(exitBS, o.ExitBootServicesMS)
		}
		seen := map[string]bool{}
		for _, l := range o.LogFindings {
			if !seen[l] {
				seen[l] = true
				boots[l] = append(boots[l], o.Cycle)
			}
		}
		p.Info(nil, "reboot %d %s (method %s): request to kernel start %s, ExitBootServices %s, %d kernel-log findings",
			o.Cycle, o.Status, o.Method, msText(o.RequestToKernelMS, " (±1 s)"), msText(o.ExitBootServicesMS, ""), len(o.LogFindings))
	}
	p.Info(nil, "%d reboots with method %s: %d completed, %d hung, %d failed", len(os), method, completed, hung, failed)
	if first > 0 {
		p.Info(nil, "first failing reboot: %d", first)
	}
	if len(toKernel) > 0 {
		s := stats.Summarize(toKernel)
		p.Info(nil, "request to kernel start (ms, whole-second clock): min %.0f, median %.0f, p95 %.0f, max %.0f over %d reboots", s.Min, s.Median, s.P95, s.Max, s.N)
	}
	if len(exitBS) > 0 {
		s := stats.Summarize(exitBS)
		p.Info(nil, "firmware to ExitBootServices (ms): min %.1f, median %.1f, p95 %.1f, max %.1f", s.Min, s.Median, s.P95, s.Max)
	} else {
		p.Info(nil, "firmware boot phases: not measured (no FPDT boot record)")
	}
	arrivals := 0
	for _, o := range os {
		if o.Status != "failed" {
			arrivals++
		}
	}
	labels := make([]string, 0, len(boots))
	for l := range boots {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, l := range labels {
		if b := boots[l]; len(b) < arrivals {
			p.Fail(labelIntermittent, "%s appeared in %d of %d boots: after reboots %s", l, len(b), arrivals, cycleList(b))
		} else {
			p.Info(nil, "%s appeared in every boot (the klog check reports it)", l)
		}
	}
	if hung == 0 && failed == 0 {
		p.Passed("%d reboots through method %s came back by themselves", completed, method)
	}
}

func cycleList(cs []int) string {
	var s []string
	for i, c := range cs {
		if i == 10 {
			s = append(s, fmt.Sprintf("and %d more", len(cs)-i))
			break
		}
		s = append(s, fmt.Sprint(c))
	}
	return strings.Join(s, ", ")
}

func msText(ms float64, suffix string) string {
	if ms <= 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.0f ms%s", ms, suffix)
}

func nsToMS(ns uint64) float64 { return float64(ns) / 1e6 }
