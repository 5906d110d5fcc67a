package tests

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/input"
)

// Status is a check's overall outcome.
type Status string

// Statuses. A verdict never overstates: passed means every assertion the
// check makes was evaluated and held.
const (
	// StatusPassed: every assertion was evaluated, and held.
	StatusPassed Status = "passed"
	// StatusFailed: a failure not explained by the environment. Parts not
	// checked are still listed.
	StatusFailed Status = "failed"
	// StatusWarning: warnings and no failure.
	StatusWarning Status = "warning"
	// StatusIncomplete: part of the assertions could not be evaluated (see
	// Result.Unchecked), and what could be held.
	StatusIncomplete Status = "incomplete"
	// StatusNotApplicable: what the check checks is absent, legally.
	StatusNotApplicable Status = "not-applicable"
	// StatusSkipped: an input is unavailable; nothing was checked.
	StatusSkipped Status = "skipped"
	// StatusAborted: the check broke (an error or a panic).
	StatusAborted Status = "aborted"
)

// Statuses lists every status, in the order reports count them.
var Statuses = []Status{StatusPassed, StatusFailed, StatusWarning, StatusIncomplete, StatusNotApplicable, StatusSkipped, StatusAborted}

// Checked reports whether a check in status s evaluated something.
func (s Status) Checked() bool {
	switch s {
	case StatusPassed, StatusFailed, StatusWarning, StatusIncomplete:
		return true
	}
	return false
}

// Result is one check's outcome.
type Result struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Category Category `json:"category"`
	Status   Status   `json:"status"`
	// Reason says why the check was skipped, aborted or not applicable.
	Reason string `json:"reason,omitempty"`
	// Unchecked lists what the check could not evaluate.
	Unchecked []Unchecked `json:"unchecked,omitempty"`
	Findings  []Finding   `json:"findings"`
	// Omitted counts, per label, the findings over the framework's cap
	// (MaxPerLabel) that Findings does not list.
	Omitted []Omitted `json:"omitted,omitempty"`
	// Data holds a check's measurements by name, for tools and plots:
	// the s3 and reboot checks' per-cycle records are under "cycles"
	// (read them with Cycles, as []CycleRecord).
	Data     map[string]any `json:"data,omitempty"`
	Duration time.Duration  `json:"-"`
}

// Worst returns the highest severity among the result's counting failures,
// or None.
func (r *Result) Worst() Severity {
	w := None
	for _, f := range r.AllFindings() {
		if f.Fails() && (w == None || f.Severity > w) {
			w = f.Severity
		}
	}
	return w
}

// AllFindings returns the listed findings followed by one message-less
// finding per entry of Omitted: what a count over findings by kind, label
// or severity iterates (each omitted entry stands for Count findings, see
// Weight).
func (r *Result) AllFindings() []Finding {
	out := slices.Clone(r.Findings)
	for _, o := range r.Omitted {
		out = append(out, o.Finding())
	}
	return out
}

// Weight is how many findings AllFindings()[i] stands for: 1 for a listed
// finding, the count for an omitted entry.
func (r *Result) Weight(i int) int {
	if i < len(r.Findings) {
		return 1
	}
	return r.Omitted[i-len(r.Findings)].Count
}

// Run runs checks in the order given and returns one result each. A check
// that panics or returns an error is recorded as aborted and the run goes
// on.
func Run(env *Env, checks []*Check) []Result {
	out := make([]Result, 0, len(checks))
	for _, c := range checks {
		out = append(out, RunOne(env, c))
	}
	return out
}

// RunOne runs one check.
func RunOne(env *Env, c *Check) (r Result) {
	r = Result{ID: c.ID, Title: c.Title, Category: c.Category, Findings: []Finding{}}
	start := time.Now()
	defer func() { r.Duration = time.Since(start) }()

	if len(c.Arch) > 0 {
		if arch, from := env.Machine.Arch(); arch != "" && !slices.Contains(c.Arch, arch) {
			r.Status, r.Reason = StatusNotApplicable, archReason(c.Arch, arch, from)
			return r
		}
	}
	if c.Flags&Acting != 0 && env.Control == nil {
		r.Status, r.Reason = StatusSkipped, fmt.Sprintf("it acts on the machine (%s), and this run has no live machine to act on", strings.Join(c.Flags.Strings(), ", "))
		return r
	}
	for _, in := range c.Inputs {
		if err := env.Machine.Available(in); err != nil {
			var absent *input.Absent
			if errors.As(err, &absent) {
				r.Status, r.Reason = StatusNotApplicable, absent.Reason
				return r
			}
			r.Status, r.Reason = StatusSkipped, err.Error()
			var u *input.Unavailable
			if errors.As(err, &u) {
				r.Reason = u.Error()
			}
			return r
		}
	}
	p := newPass(c, env)
	err := runProtected(p)
	r.Status, r.Reason = status(p, err)
	r.Findings = append(r.Findings, p.findings...)
	r.Omitted = p.omitted
	r.Unchecked = p.unchecked
	r.Data = p.data
	return r
}

// status decides a check's status from what its pass recorded. A failure
// is never hidden: a check that failed and then skipped, or said it was not
// applicable, ends failed, and what it left undone is listed as not
// checked.
func status(p *Pass, err error) (Status, string) {
	if err != nil {
		return StatusAborted, err.Error()
	}
	if p.fails > 0 {
		for _, why := range []string{p.skipped, p.notApplicable} {
			if why != "" {
				p.NotChecked("the rest of the check", why, "")
			}
		}
		return StatusFailed, ""
	}
	if p.skipped != "" {
		return StatusSkipped, p.skipped
	}
	evaluated, warned := len(p.omitted) > 0, false
	for _, f := range p.findings {
		switch {
		case f.Kind == KindPass || f.Kind == KindFail:
			evaluated = true
		case f.Kind == KindWarning:
			evaluated, warned = true, true
		}
	}
	for _, o := range p.omitted {
		warned = warned || o.Kind == KindWarning
	}
	switch {
	case len(p.unchecked) > 0:
		return StatusIncomplete, ""
	case p.notApplicable != "":
		return StatusNotApplicable, p.notApplicable
	case warned:
		return StatusWarning, ""
	case !evaluated:
		// Nothing checked is not a pass.
		p.unchecked = append(p.unchecked, Unchecked{What: "every assertion", Reason: "the check evaluated nothing"})
		return StatusIncomplete, ""
	}
	return StatusPassed, ""
}

func runProtected(p *Pass) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v [%s]", v, panicSite(debug.Stack()))
		}
	}()
	return p.Check.Run(p)
}

// panicSite names the frame that panicked (the first non-runtime frame
// after the panic call), so an aborted result says where it broke without a
// full trace.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	seen := false
	for i := 0; i+1 < len(lines); i++ {
		fn := lines[i]
		if strings.HasPrefix(fn, "panic(") {
			seen = true
			continue
		}
		if !seen || strings.HasPrefix(fn, "\t") || strings.HasPrefix(fn, "runtime.") {
			continue
		}
		return strings.TrimSpace(fn) + " " + strings.TrimSpace(lines[i+1])
	}
	return "unknown site"
}

// Render returns results in a stable compact text form: per check its ID
// and status (with the reason), then one indented line per finding with
// kind, label, severity and message, and one per part not checked. It
// leaves out what changes from run to run (times, advice text), so two
// renders diff cleanly: golden files use it, and so can a comparison of two
// firmware versions.
func Render(rs []Result) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s %s", r.ID, r.Status)
		if r.Reason != "" {
			fmt.Fprintf(&b, " (%s)", r.Reason)
		}
		b.WriteByte('\n')
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "  %s", f.Kind)
			if f.Label != "" {
				fmt.Fprintf(&b, " %s", f.Label)
			}
			if f.Severity != None {
				fmt.Fprintf(&b, " [%s]", f.Severity)
			}
			if f.Explained != "" {
				fmt.Fprintf(&b, " (explained: %s)", f.Explained)
			}
			fmt.Fprintf(&b, ": %s\n", f.Message)
		}
		for _, o := range r.Omitted {
			listed := 0
			for _, f := range r.Findings {
				if f.Label == o.Label && f.Kind != KindPass {
					listed++
				}
			}
			all := listed
			for _, x := range r.Omitted {
				if x.Label == o.Label {
					all += x.Count
				}
			}
			fmt.Fprintf(&b, "  %s %s", o.Kind, o.Label)
			if o.Severity != None {
				fmt.Fprintf(&b, " [%s]", o.Severity)
			}
			if o.Explained != "" {
				fmt.Fprintf(&b, " (explained: %s)", o.Explained)
			}
			fmt.Fprintf(&b, ": … and %d more %s findings not listed (%d in all)\n", o.Count, o.Label, all)
		}
		for _, u := range r.Unchecked {
			fmt.Fprintf(&b, "  not checked: %s: %s", u.What, u.Reason)
			if u.Remedy != "" {
				fmt.Fprintf(&b, " (%s)", u.Remedy)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}
