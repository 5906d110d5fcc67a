package tests

import (
	"fmt"
	"github.com/fwcheck/fwcheck/internal/regfile"
	"io"
	"slices"
	"time"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/journal"
)

// Kind is what a finding says.
type Kind string

// Finding kinds.
const (
	KindPass    Kind = "pass"
	KindFail    Kind = "fail"
	KindWarning Kind = "warning"
	KindInfo    Kind = "info"
)

// Finding is one thing a check found.
type Finding struct {
	Kind     Kind     `json:"kind"`
	Label    string   `json:"label,omitempty"`
	Severity Severity `json:"severity,omitempty"`
	Message  string   `json:"message"`
	Advice   string   `json:"advice,omitempty"`
	Spec     string   `json:"spec,omitempty"`
	// Explained, on a failure or warning, says what in the environment
	// explains it (a virtual machine, a boot parameter the user chose): it
	// is shown and counted apart, and never fails the run.
	Explained string `json:"explained,omitempty"`
	// Waived, on a failure, is the reason of the user's waiver that covers
	// it (see report.Waiver): shown, counted apart, never failing the run.
	Waived string `json:"waived,omitempty"`
}

// Fails reports whether f is a failure that fails the check: a failure
// neither explained by the environment nor waived.
func (f Finding) Fails() bool { return f.Kind == KindFail && f.Explained == "" && f.Waived == "" }

// Omitted counts the findings of one label, kind and class (explained or
// not) that the framework's cap (MaxPerLabel) left out of Result.Findings.
// They are counted in every total as the listed ones are; reports show them
// as one "… and N more" line. The fields other than Count are those of the
// label's findings.
type Omitted struct {
	Kind      Kind     `json:"kind"`
	Label     string   `json:"label"`
	Severity  Severity `json:"severity,omitempty"`
	Advice    string   `json:"advice,omitempty"`
	Spec      string   `json:"spec,omitempty"`
	Explained string   `json:"explained,omitempty"`
	Waived    string   `json:"waived,omitempty"`
	// Count is how many findings were left out (at least 1).
	Count int `json:"count"`
}

// Finding returns the finding o stands for, without a message: counts,
// classes and waivers treat it as they treat each finding it counts.
func (o Omitted) Finding() Finding {
	return Finding{Kind: o.Kind, Label: o.Label, Severity: o.Severity, Advice: o.Advice, Spec: o.Spec, Explained: o.Explained, Waived: o.Waived}
}

// Fails reports whether the omitted findings fail the check (see
// Finding.Fails).
func (o Omitted) Fails() bool { return o.Finding().Fails() }

// Unchecked is one part of a check's assertions that could not be
// evaluated, with the reason and what would let it be.
type Unchecked struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
	Remedy string `json:"remedy,omitempty"`
}

// Env is what one run gives its checks: the machine, the settings' values,
// and the control of the machine, which only checks with an Acting flag
// receive (nil when the driver allows no action, e.g. on a snapshot).
type Env struct {
	Machine  *input.Machine
	Settings *Settings
	Control  input.Control
	// Progress, when set, receives a long-running check's progress
	// (Pass.Progress): the driver shows it as it likes (an updating line
	// on a terminal, plain lines on a serial console) and never in the
	// results.
	Progress func(check, msg string)
	// CycleEnded, when set, receives each cycle of a cycling check (s3,
	// reboot) as it ends (Pass.CycleEnded): the live image prints a line
	// for it at once, so that a console monitor sees every cycle.
	CycleEnded func(check string, c CycleRecord)
	// Clock is the time checks read and wait with (Pass.Now, Pass.Sleep);
	// nil is the real clock. Tests give a fake one.
	Clock Clock
	// Profile is the certification profile the run applies (nil: none):
	// its overrides change the kind and severity of the findings of the
	// labels they name (see Profile).
	Profile *Profile
	// Journals is where acting checks keep their journals (Pass.OpenJournal,
	// Pass.ReadJournal); nil is the machine's file system, the journal path
	// being a setting the user gives.
	Journals Journals
}

// Clock is a run's time.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// Journals opens the journals of checks that act on the machine (see
// internal/journal): the record of a run that must survive a hang or a
// reset.
type Journals interface {
	// Open opens the journal at path for appending, creating it.
	Open(path string) (*journal.Journal, error)
	// Read opens it for reading; one that does not exist yet is an error
	// matching fs.ErrNotExist.
	Read(path string) (io.ReadCloser, error)
}

type fileJournals struct{}

func (fileJournals) Open(path string) (*journal.Journal, error) { return journal.Open(path) }
func (fileJournals) Read(path string) (io.ReadCloser, error)    { return regfile.Open(path) }

// Pass is a check's view of one run: the machine to read and the place to
// report. A Pass is used by one check, from one goroutine.
type Pass struct {
	Check *Check
	env   *Env

	findings      []Finding
	unchecked     []Unchecked
	skipped       string
	notApplicable string

	allowed    map[string]bool // labels the check declared
	dataLabels bool            // the check reports data labels
	data       map[string]any  // measurements (Result.Data)
	perLabel   map[string]int  // findings reported per label
	omitted    []Omitted       // findings over the cap, counted by label, kind and class
	fails      int             // counting failures reported, listed or not
}

// MaxPerLabel caps the findings one check lists under one label; beyond it
// the pass only counts them (Result.Omitted), so that a hostile table
// (2,000 identical MCFG entries) cannot flood the results.
const MaxPerLabel = 100

func newPass(c *Check, env *Env) *Pass {
	p := &Pass{Check: c, env: env, allowed: map[string]bool{}, perLabel: map[string]int{}, dataLabels: c.DataLabels != nil}
	for _, l := range c.Labels {
		p.allowed[l.Name] = true
	}
	return p
}

// Input returns input k, which the check must declare in Inputs, or which
// is derived (input.Def.Requires) from inputs the check declares there:
// the runner loaded those before Run, so it is available. A derived input
// is computed once per phase, for every check that reads it. Reading an
// undeclared input panics (it would be missing from snapshots and would
// not skip cleanly).
func Input[T any](p *Pass, k *input.Key[T]) T {
	if !declared(p.Check.Inputs, k) {
		panic(fmt.Sprintf("check %s reads input %s without declaring it in Inputs", p.Check.ID, k.Name()))
	}
	v, err := k.Get(p.env.Machine)
	if err != nil {
		// Only after a new phase (see Control) can a declared input fail.
		panic(fmt.Sprintf("input %s: %v", k.Name(), err))
	}
	return v
}

// declared reports whether d is among ds, or derived from inputs all of
// which are.
func declared(ds []input.Decl, d input.Decl) bool {
	if slices.Contains(ds, d) {
		return true
	}
	req := d.Requires()
	for _, r := range req {
		if !declared(ds, r) {
			return false
		}
	}
	return len(req) > 0
}

// Load returns input k, declared in Inputs or Optional (or derived from
// inputs declared there), or why it cannot be had.
func Load[T any](p *Pass, k *input.Key[T]) (T, error) {
	if !declared(p.Check.AllInputs(), k) {
		panic(fmt.Sprintf("check %s reads input %s without declaring it", p.Check.ID, k.Name()))
	}
	return k.Get(p.env.Machine)
}

// Profile returns the certification profile the run applies, nil when
// none. A check reads it to say what the profile requires (the profile's
// own checks); severities follow from the profile's overrides without it.
func (p *Pass) Profile() *Profile { return p.env.Profile }

// Machine describes where the inputs come from, for messages.
func (p *Pass) Machine() *input.Machine { return p.env.Machine }

// Control returns the seam to actions on the machine. Only checks flagged
// Unsafe, PowerState, Adjusts or WritesVariables get one (the runner skips them where the
// driver gave none); asking without a flag panics, and so does an action no
// flag of the check grants (Suspend needs PowerState, Reboot needs Unsafe,
// input.RunAt needs Adjusts, input.WakeAlarm Adjusts or PowerState,
// input.Variables WritesVariables; Mark,
// writing to the kernel log, comes with any). After each action inputs are read
// afresh: the machine has changed.
func (p *Pass) Control() input.Control {
	if p.Check.Flags&Acting == 0 {
		panic(fmt.Sprintf("check %s asks for machine control without an Unsafe, PowerState, Adjusts or WritesVariables flag", p.Check.ID))
	}
	return granted{input.Phased(p.env.Control, p.env.Machine), p.Check}
}

// granted is a Control limited to the powers of a check's flags.
type granted struct {
	input.Control
	c *Check
}

func (g granted) need(f Flags, action string) {
	if g.c.Flags&f == 0 {
		panic(fmt.Sprintf("check %s asks to %s without the %s flag", g.c.ID, action, f.Strings()[0]))
	}
}

func (g granted) Suspend(req input.SuspendRequest) (input.SuspendResult, error) {
	g.need(PowerState, "suspend")
	return g.Control.Suspend(req)
}

func (g granted) Reboot(method string) error {
	g.need(Unsafe, "reboot")
	return g.Control.Reboot(method)
}

// WakeAlarm comes with Adjusts, and with PowerState (a suspend check tests
// the alarm that is to wake the machine first).
func (g granted) WakeAlarm(after, wait time.Duration) (input.AlarmTest, error) {
	if g.c.Flags&(Adjusts|PowerState) == 0 {
		g.need(Adjusts, "arm the RTC wake alarm")
	}
	return input.WakeAlarm(g.Control, after, wait)
}

func (g granted) RunAt(policy string, khz int64) (input.SpeedSample, error) {
	g.need(Adjusts, "set a CPU frequency")
	return input.RunAt(g.Control, policy, khz)
}

// Variables, the firmware's variable store, comes with WritesVariables.
func (g granted) Variables() (input.VariableStore, error) {
	g.need(WritesVariables, "write UEFI variables")
	return input.Variables(g.Control)
}

// Fail reports a failure of kind l.
func (p *Pass) Fail(l *Label, format string, args ...any) { p.add(KindFail, l, "", format, args) }

// Explained reports a failure of kind l that the environment explains
// (why says how: "virtual machine (DMI: QEMU)", "boot parameter
// efi=noruntime"): shown, counted apart, never failing the run.
func (p *Pass) Explained(l *Label, why, format string, args ...any) {
	p.add(KindFail, l, why, format, args)
}

// Warn reports a warning; l may be nil.
func (p *Pass) Warn(l *Label, format string, args ...any) { p.add(KindWarning, l, "", format, args) }

// Info reports something worth knowing that is not wrong; l may be nil.
func (p *Pass) Info(l *Label, format string, args ...any) { p.add(KindInfo, l, "", format, args) }

// Passed records that an assertion was evaluated and holds.
func (p *Pass) Passed(format string, args ...any) { p.add(KindPass, nil, "", format, args) }

// NotChecked records that part of the check's assertions could not be
// evaluated: what, why, and what would let it be (the remedy may be
// empty). The check then cannot pass: it ends incomplete, or failed when
// what it could check failed.
// The same part reported again (every cycle of a run) is listed once.
func (p *Pass) NotChecked(what, reason, remedy string) {
	u := Unchecked{What: what, Reason: reason, Remedy: remedy}
	if slices.Contains(p.unchecked, u) {
		return
	}
	p.unchecked = append(p.unchecked, u)
}

// NotApplicable ends the check as not applicable: the thing it checks is
// absent, and its absence is legal (no HPET table). Run should return
// after it.
func (p *Pass) NotApplicable(format string, args ...any) {
	p.notApplicable = fmt.Sprintf(format, args...)
}

// Skip marks the check skipped with the reason (an input it needs is
// empty or unusable); Run should return after it.
func (p *Pass) Skip(format string, args ...any) { p.skipped = fmt.Sprintf(format, args...) }

// Report records f as it is: for findings whose label and advice come from
// data, such as the kernel-log advice database. A failure needs a label,
// a severity and advice.
func (p *Pass) Report(f Finding) {
	if f.Kind == KindFail && (f.Label == "" || f.Severity == None || f.Advice == "") {
		panic(fmt.Sprintf("check %s: failure without label, severity or advice: %q", p.Check.ID, f.Message))
	}
	if f.Label != "" && !p.allowed[f.Label] && !p.dataLabels {
		panic(fmt.Sprintf("check %s reports label %s it does not declare", p.Check.ID, f.Label))
	}
	p.record(f)
}

func (p *Pass) add(k Kind, l *Label, why, format string, args []any) {
	if k == KindFail && l == nil {
		panic(fmt.Sprintf("check %s: failure without a label", p.Check.ID))
	}
	if l != nil && !p.allowed[l.Name] {
		panic(fmt.Sprintf("check %s reports label %s it does not declare", p.Check.ID, l.Name))
	}
	if l != nil && k != KindPass && p.perLabel[l.Name] >= MaxPerLabel {
		// Over the cap the finding is only counted: do not format it (a
		// hostile input reports millions).
		f := Finding{Kind: k, Label: l.Name, Severity: l.Severity, Advice: l.Advice, Spec: l.Spec, Explained: why}
		if k == KindInfo {
			f.Severity = None
		}
		p.env.Profile.apply(&f)
		p.omit(f)
		return
	}
	f := Finding{Kind: k, Message: fmt.Sprintf(format, args...), Explained: why}
	if l != nil {
		f.Label, f.Severity, f.Advice, f.Spec = l.Name, l.Severity, l.Advice, l.Spec
		if k == KindInfo {
			f.Severity = None
		}
	}
	p.record(f)
}

func (p *Pass) record(f Finding) {
	p.env.Profile.apply(&f)
	if f.Label != "" && f.Kind != KindPass && p.perLabel[f.Label] >= MaxPerLabel {
		p.omit(f)
		return
	}
	if f.Fails() {
		p.fails++
	}
	if f.Label != "" && f.Kind != KindPass {
		p.perLabel[f.Label]++
	}
	p.findings = append(p.findings, f)
}

// omit counts f, a finding over its label's cap, in the pass's omitted
// findings: one entry per label, kind and class, in order of first
// omission.
func (p *Pass) omit(f Finding) {
	p.perLabel[f.Label]++
	if f.Fails() {
		p.fails++
	}
	for i := range p.omitted {
		o := &p.omitted[i]
		if o.Label == f.Label && o.Kind == f.Kind && (o.Explained == "") == (f.Explained == "") && (o.Waived == "") == (f.Waived == "") {
			o.Count++
			return
		}
	}
	p.omitted = append(p.omitted, Omitted{Kind: f.Kind, Label: f.Label, Severity: f.Severity, Advice: f.Advice, Spec: f.Spec, Explained: f.Explained, Waived: f.Waived, Count: 1})
}

// Failures returns how many failures the pass has reported so far, listed
// or over the cap, not counting those the environment explains: a check compares it before and
// after a group of assertions to tell whether the group held.
func (p *Pass) Failures() int { return p.fails }

// Record keeps a measurement under name in the result's data (Result.Data),
// replacing an earlier one: v must marshal to JSON. Per-cycle records go
// through RecordCycles, whose key ("cycles") Record refuses.
func (p *Pass) Record(name string, v any) {
	if name == cyclesKey {
		panic("tests: Pass.Record(\"cycles\"): per-cycle records go through RecordCycles")
	}
	if p.data == nil {
		p.data = map[string]any{}
	}
	p.data[name] = v
}

// Now is the run's time: the wall clock, or the driver's (a test's).
func (p *Pass) Now() time.Time { return p.clock().Now() }

// Sleep waits d on the run's clock (between the cycles of a power check).
func (p *Pass) Sleep(d time.Duration) { p.clock().Sleep(d) }

func (p *Pass) clock() Clock {
	if p.env.Clock == nil {
		return realClock{}
	}
	return p.env.Clock
}

// OpenJournal opens the check's journal at path for appending: only checks
// that act on the machine keep one.
func (p *Pass) OpenJournal(path string) (*journal.Journal, error) {
	if p.Check.Flags&Acting == 0 {
		panic(fmt.Sprintf("check %s opens a journal without an Unsafe or PowerState flag", p.Check.ID))
	}
	return p.journals().Open(path)
}

// ReadJournal opens the check's journal at path for reading (an error
// matching fs.ErrNotExist when there is none yet).
func (p *Pass) ReadJournal(path string) (io.ReadCloser, error) { return p.journals().Read(path) }

func (p *Pass) journals() Journals {
	if p.env.Journals == nil {
		return fileJournals{}
	}
	return p.env.Journals
}

// CycleEnded tells the driver that cycle c has ended (or, read back from
// a journal, that it hung); c is also in the journal and, at the end, in
// RecordCycles. It is not part of the results.
func (p *Pass) CycleEnded(c CycleRecord) {
	if p.env.CycleEnded != nil {
		p.env.CycleEnded(p.Check.ID, c)
	}
}

// Progress tells the driver how a long-running check is getting on
// ("cycle 12/300: …"). It is not part of the results.
func (p *Pass) Progress(format string, args ...any) {
	if p.env.Progress != nil {
		p.env.Progress(p.Check.ID, fmt.Sprintf(format, args...))
	}
}

// Arch returns the architecture of the machine under test as GOARCH names
// it ("amd64", "arm64"), or "" when it cannot be told (see
// input.Machine.Arch): for checks whose method differs by architecture
// (the reset path, the reboot methods), not for gating, which Check.Arch
// declares.
func (p *Pass) Arch() string {
	a, _ := p.env.Machine.Arch()
	return a
}
