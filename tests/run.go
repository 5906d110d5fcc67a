package tests

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/input"
)

// Status is a check's overall outcome.
type Status string

// Statuses. A check with a failure has failed; with warnings and no
// failure, warned; with neither, passed.
const (
	StatusPassed  Status = "passed"
	StatusFailed  Status = "failed"
	StatusWarning Status = "warning"
	StatusSkipped Status = "skipped"
	StatusAborted Status = "aborted"
)

// Result is one check's outcome.
type Result struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Category Category      `json:"category"`
	Status   Status        `json:"status"`
	Reason   string        `json:"reason,omitempty"` // why skipped or aborted
	Findings []Finding     `json:"findings"`
	Duration time.Duration `json:"-"`
}

// Worst returns the highest severity among the result's failures, or None.
func (r *Result) Worst() Severity {
	w := None
	for _, f := range r.Findings {
		if f.Kind == KindFail && (w == None || f.Severity > w) {
			w = f.Severity
		}
	}
	return w
}

// RunChecks runs checks against m in the order given and returns one result
// each. A check that panics or returns an error is recorded as aborted and
// the run goes on.
func RunChecks(m *input.Machine, checks []*Check) []Result {
	out := make([]Result, 0, len(checks))
	for _, c := range checks {
		out = append(out, RunCheck(m, c))
	}
	return out
}

// RunCheck runs one check against m.
func RunCheck(m *input.Machine, c *Check) (r Result) {
	r = Result{ID: c.ID, Title: c.Title, Category: c.Category, Findings: []Finding{}}
	start := time.Now()
	defer func() { r.Duration = time.Since(start) }()

	if c.Flags&NeedsRoot != 0 && m.Src.Live() && !m.Src.Privileged() && !allFromFiles(m, c.Inputs) {
		r.Status, r.Reason = StatusSkipped, "needs root"
		return r
	}
	for _, n := range c.Inputs {
		if _, err := m.Load(n); err != nil {
			var u *input.Unavailable
			if errors.As(err, &u) {
				r.Status, r.Reason = StatusSkipped, u.Error()
			} else {
				r.Status, r.Reason = StatusSkipped, err.Error()
			}
			return r
		}
	}
	p := &Pass{Check: c, machine: m}
	err := runProtected(p)
	r.Findings = append(r.Findings, p.findings...)
	switch {
	case err != nil:
		r.Status, r.Reason = StatusAborted, err.Error()
	case p.skipped != "":
		r.Status, r.Reason = StatusSkipped, p.skipped
	default:
		r.Status = StatusPassed
		for _, f := range r.Findings {
			if f.Kind == KindFail {
				r.Status = StatusFailed
				break
			}
			if f.Kind == KindWarning {
				r.Status = StatusWarning
			}
		}
	}
	return r
}

func allFromFiles(m *input.Machine, ns []input.Name) bool {
	for _, n := range ns {
		if !m.FromFile(n) {
			return false
		}
	}
	return len(ns) > 0
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
// kind, label, severity and message. It leaves out what changes from run to
// run (times, advice text), so two renders diff cleanly: golden files use
// it, and so can a comparison of two firmware versions.
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
			fmt.Fprintf(&b, ": %s\n", f.Message)
		}
	}
	return b.String()
}
