package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/fwcheck/fwcheck/tests"
)

// TextOptions control the terminal report.
type TextOptions struct {
	Color   bool // ANSI colour; only on a terminal
	Quiet   bool // failures and the summary only
	Verbose bool // passes, infos and skip reasons too
	// FailOn is the severity at which the verdict is FAIL (as --fail-on);
	// zero means low: any failure.
	FailOn tests.Severity
}

const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	green  = "\x1b[32m"
	dim    = "\x1b[2m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

// WriteText writes the human report: a line per check, each failure with
// label, severity, message and advice, and a summary.
func WriteText(w io.Writer, d *Document, o TextOptions) error {
	tw := &textWriter{w: w, o: o}
	for _, r := range d.Results {
		tw.result(r)
	}
	tw.summary(d)
	return tw.err
}

type textWriter struct {
	w   io.Writer
	o   TextOptions
	err error
}

func (t *textWriter) printf(color, format string, args ...any) {
	if t.err != nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	if t.o.Color && color != "" {
		s = color + s + reset
	}
	_, t.err = io.WriteString(t.w, s)
}

var statusColor = map[tests.Status]string{
	tests.StatusPassed: green, tests.StatusFailed: red, tests.StatusWarning: yellow,
	tests.StatusIncomplete: yellow, tests.StatusNotApplicable: dim,
	tests.StatusSkipped: dim, tests.StatusAborted: red + bold,
}

// statusWord is the status as the report's first column shows it.
func statusWord(s tests.Status) string {
	if s == tests.StatusNotApplicable {
		return "N/A"
	}
	return strings.ToUpper(string(s))
}

func (t *textWriter) result(r Result) {
	if t.o.Quiet && r.Status != tests.StatusFailed && r.Status != tests.StatusAborted {
		return
	}
	t.printf(statusColor[r.Status], "%-10s", statusWord(r.Status))
	t.printf("", " %-14s %s", r.ID, r.Title)
	if r.Reason != "" {
		t.printf(dim, " (%s)", r.Reason)
	}
	t.printf("", "\n")
	for _, f := range r.Findings {
		switch {
		case f.Kind == tests.KindFail && f.Explained != "":
			if t.o.Quiet {
				continue
			}
			t.printf(dim, "  EXPLAINED %s [%s]", f.Label, f.Severity)
			t.printf("", ": %s\n", indent(f.Message))
			t.printf(dim, "       explained by: %s\n", f.Explained)
			if t.o.Verbose {
				t.printf("", "       advice: %s\n", indent(f.Advice))
			}
		case f.Kind == tests.KindFail:
			t.printf(red, "  FAIL %s [%s]", f.Label, f.Severity)
			t.printf("", ": %s\n", indent(f.Message))
			t.printf("", "       advice: %s\n", indent(f.Advice))
			if f.Spec != "" {
				t.printf(dim, "       spec: %s\n", f.Spec)
			}
		case f.Kind == tests.KindWarning:
			if t.o.Quiet {
				continue
			}
			lbl := ""
			if f.Label != "" {
				lbl = " " + f.Label
			}
			t.printf(yellow, "  WARN%s", lbl)
			t.printf("", ": %s\n", f.Message)
			if f.Advice != "" && t.o.Verbose {
				t.printf("", "       advice: %s\n", f.Advice)
			}
		case f.Kind == tests.KindInfo:
			if t.o.Verbose {
				t.printf(dim, "  info: %s\n", f.Message)
			}
		case f.Kind == tests.KindPass:
			if t.o.Verbose {
				t.printf(dim, "  ok: %s\n", f.Message)
			}
		}
	}
	// What could not be checked is part of the verdict: always shown.
	for _, u := range r.Unchecked {
		t.printf(yellow, "  NOT CHECKED")
		t.printf("", " %s: %s", u.What, indent(u.Reason))
		if u.Remedy != "" {
			t.printf("", " (to check it: %s)", u.Remedy)
		}
		t.printf("", "\n")
	}
}

func (t *textWriter) summary(d *Document) {
	for _, e := range d.Errors {
		t.printf(red, "\nERROR %s", e)
	}
	s := d.Totals.Status
	t.printf(bold, "\n%d checks: %d passed, %d failed, %d warning, %d incomplete, %d not applicable, %d skipped, %d aborted\n",
		d.Totals.Checks, s["passed"], s["failed"], s["warning"], s["incomplete"], s["not-applicable"], s["skipped"], s["aborted"])
	f := d.Totals.Failures
	t.printf("", "failures by severity: critical %d, high %d, medium %d, low %d", f["critical"], f["high"], f["medium"], f["low"])
	if d.Totals.Explained > 0 {
		t.printf("", "; %d explained by the environment", d.Totals.Explained)
	}
	t.printf("", "\n")
	t.verdict(d)
}

// verdict prints the one line a person booting new hardware looks for.
func (t *textWriter) verdict(d *Document) {
	v, kind := Verdict(d, t.o.FailOn)
	color := map[VerdictKind]string{VerdictFail: red + bold, VerdictPass: green + bold, VerdictIncomplete: yellow + bold, VerdictNothing: yellow + bold}[kind]
	t.printf(color, "verdict: %s\n", v)
}

// VerdictKind classifies a run's outcome.
type VerdictKind int

// Verdict kinds.
const (
	VerdictPass       VerdictKind = iota // every check that ran evaluated everything, no failure at or above the threshold
	VerdictFail                          // a failure at or above it, or an aborted check
	VerdictIncomplete                    // no such failure, but something was not checked
	VerdictNothing                       // no check evaluated anything
)

// Verdict sums a run up in one sentence against the failure threshold
// failOn (zero means low: any failure). It never overstates: a run with
// parts not checked is not a plain PASS, and a run that checked nothing
// says NOTHING CHECKED.
func Verdict(d *Document, failOn tests.Severity) (string, VerdictKind) {
	if failOn == tests.None {
		failOn = tests.Low
	}
	at := 0
	for sev, n := range d.Totals.Failures {
		if s, err := tests.ParseSeverity(sev); err == nil && s >= failOn {
			at += n
		}
	}
	s := d.Totals.Status
	var notes []string
	if n := len(d.Errors); n > 0 {
		notes = append(notes, fmt.Sprintf("%d request error(s)", n))
	}
	if n := s["skipped"]; n > 0 {
		notes = append(notes, fmt.Sprintf("%d check(s) skipped", n))
	}
	if n := d.Totals.Explained; n > 0 {
		notes = append(notes, fmt.Sprintf("%d finding(s) explained by the environment", n))
	}
	tail := ""
	if len(notes) > 0 {
		tail = " (" + strings.Join(notes, ", ") + ")"
	}
	switch {
	case s["aborted"] > 0:
		return fmt.Sprintf("FAIL — %d check(s) aborted; the results are incomplete%s", s["aborted"], tail), VerdictFail
	case at > 0:
		return fmt.Sprintf("FAIL — %d failure(s) at or above %s%s", at, failOn, tail), VerdictFail
	case !d.Checked():
		return "NOTHING CHECKED — no check could evaluate anything (see the reasons: as root, or with --from, more inputs are readable)" + tail, VerdictNothing
	case s["incomplete"] > 0:
		return fmt.Sprintf("INCOMPLETE — no failure at or above %s, but %d check(s) could not check everything (see NOT CHECKED)%s", failOn, s["incomplete"], tail), VerdictIncomplete
	}
	return fmt.Sprintf("PASS — no failure at or above %s%s", failOn, tail), VerdictPass
}

// indent keeps a multi-line message (a kernel line with an embedded
// newline, say) inside its finding's block.
func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n       ") }
