package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fwcheck/fwcheck/input"
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
	// Width is the column the report wraps at; zero means 80.
	Width int
}

// DefaultWidth is the width the report wraps at when the output is not a
// terminal and COLUMNS is unset.
const DefaultWidth = 80

// minWidth keeps a very narrow terminal from wrapping every word.
const minWidth = 40

// maxShown is how many findings of one label a check's block lists before
// "… and N more".
const maxShown = 5

const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	green  = "\x1b[32m"
	cyan   = "\x1b[36m"
	dim    = "\x1b[2m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
	// onRed: critical stands out from high (bold red) at a glance.
	onRed = "\x1b[1;37;41m"
)

// severityColor: critical and high must not look like low.
var severityColor = map[tests.Severity]string{
	tests.Critical: onRed, tests.High: red + bold, tests.Medium: yellow, tests.Low: cyan,
}

var statusColor = map[tests.Status]string{
	tests.StatusPassed: green, tests.StatusFailed: red, tests.StatusWarning: yellow,
	tests.StatusIncomplete: yellow, tests.StatusNotApplicable: dim,
	tests.StatusSkipped: dim, tests.StatusAborted: red + bold,
}

// WriteText writes the human report: a header saying what was examined, a
// block per check (its findings grouped by label, each label's advice
// once), a closing summary of every failing label by severity, the status
// counts, and the verdict last. It wraps to o.Width; every string that
// came from the machine goes through Sanitize, so the report's own colour
// codes are the only escapes it writes.
func WriteText(w io.Writer, d *Document, o TextOptions) error {
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	o.Width = max(o.Width, minWidth)
	tw := &textWriter{w: w, o: o}
	tw.header(d)
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

// span is a run of text in one colour; its text is sanitised when laid
// out.
type span struct{ color, text string }

func plain(format string, args ...any) span { return span{"", fmt.Sprintf(format, args...)} }
func colored(c, format string, args ...any) span {
	return span{c, fmt.Sprintf(format, args...)}
}

// token is one word of a paragraph.
type token struct {
	color, text string
	space       int  // spaces between it and the previous token
	brk         bool // a line break precedes it
}

// para writes spans as one paragraph starting at column indent, wrapped
// to the width with continuation lines at indent+hang. Newlines inside
// the text start a new (continuation) line. Spaces are kept, except where
// the paragraph wraps.
func (t *textWriter) para(indent, hang int, spans ...span) {
	if t.err != nil {
		return
	}
	var toks []token
	pending := 0
	for _, s := range spans {
		for li, line := range strings.Split(Sanitize(s.text, true), "\n") {
			if li > 0 {
				toks = append(toks, token{brk: true})
				pending = 0
			}
			for wi, word := range strings.Split(line, " ") {
				if wi > 0 {
					pending++
				}
				if word == "" {
					continue
				}
				toks = append(toks, token{color: s.color, text: word, space: pending})
				pending = 0
			}
		}
	}
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", indent))
	col, start := indent, indent
	cont := indent + hang
	if cont > t.o.Width/2 {
		cont = indent + 2
	}
	wrapped := false
	open := "" // the colour in force on the line
	setColor := func(c string) {
		if !t.o.Color || c == open {
			return
		}
		if open != "" {
			b.WriteString(reset)
		}
		if c != "" {
			b.WriteString(c)
		}
		open = c
	}
	newline := func(soft bool) {
		setColor("")
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", cont))
		col, start, wrapped = cont, cont, soft
	}
	for _, tk := range toks {
		if tk.brk {
			newline(false)
			continue
		}
		text := tk.text
		n := utf8.RuneCountInString(text)
		sp := tk.space
		if wrapped && col == start {
			sp = 0
		}
		// A word that fits no line is cut where it stands instead.
		if col+sp+n > t.o.Width && col > start && n <= t.o.Width-cont {
			newline(true)
			sp = 0
		}
		if col+sp >= t.o.Width {
			newline(true)
			sp = 0
		}
		if tk.color != open {
			setColor("") // spaces between colours stay plain
		}
		b.WriteString(strings.Repeat(" ", sp))
		col += sp
		setColor(tk.color)
		// A word longer than a line (a path, a hex dump) is cut; the runes
		// left are counted down, not again (a 4 MiB word took 106 s).
		for col+n > t.o.Width && t.o.Width-col > 0 {
			cut := byteIndexOfRune(text, t.o.Width-col)
			b.WriteString(text[:cut])
			n -= t.o.Width - col
			text = text[cut:]
			newline(true)
			setColor(tk.color)
		}
		b.WriteString(text)
		col += n
	}
	setColor("")
	b.WriteByte('\n')
	_, t.err = io.WriteString(t.w, b.String())
}

func byteIndexOfRune(s string, n int) int {
	i := 0
	for j := range s {
		if i == n {
			return j
		}
		i++
	}
	return len(s)
}

func (t *textWriter) blank() {
	if t.err == nil {
		_, t.err = io.WriteString(t.w, "\n")
	}
}

// header says which fwcheck looked at what.
func (t *textWriter) header(d *Document) {
	t.para(0, 2, colored(bold, "fwcheck %s", d.Tool.Version), plain(" — firmware report, %s", d.Start.Format("2006-01-02 15:04 UTC")))
	t.para(0, 10, plain("examined: %s", describeSource(d.Machine)))
	if id := machineName(d.Machine); id != "" {
		t.para(0, 10, plain("machine:  %s", id))
	}
	if d.Machine.Kernel != "" {
		t.para(0, 10, plain("kernel:   %s", strings.TrimSpace(d.Machine.Kernel)))
	}
	if l := LockdownLine(d.Machine); l != "" {
		t.para(0, 10, plain("lockdown: %s", l))
	}
	if d.Profile != "" {
		t.para(0, 10, plain("profile:  %s (severities as the profile sets them)", d.Profile))
	}
	if len(d.Settings) > 0 {
		var ss []string
		for _, k := range sortedKeys(d.Settings) {
			ss = append(ss, k+"="+d.Settings[k])
		}
		t.para(0, 10, plain("settings: %s", strings.Join(ss, ", ")))
	}
	t.blank()
}

// inputWords names inputs given as files the way a user thinks of them.
var inputWords = map[string]string{
	"acpi-tables": "ACPI tables", "kernel-log": "kernel log", "memory-map": "memory map", "dmi": "DMI identity",
}

const filesOnly = " (nothing else: not the machine fwcheck ran on)"

// describeSource says what was examined, in the user's words.
func describeSource(m input.Identity) string {
	var files []string
	for _, in := range sortedKeys(m.Files) {
		what := inputWords[in]
		if what == "" {
			what = in
		}
		p := m.Files[in]
		if p == "-" {
			p = "standard input"
		}
		files = append(files, what+" from "+p)
	}
	src := m.Source
	switch {
	case src == "snapshot:none":
		if len(files) == 0 {
			return "nothing: no machine and no input files"
		}
		return strings.Join(files, ", ") + filesOnly
	case strings.HasPrefix(src, "live:"):
		src = "this machine"
		if root := strings.TrimPrefix(m.Source, "live:"); root != "/" {
			src += " (root " + root + ")"
		}
	case strings.HasPrefix(src, "snapshot:"):
		src = "the snapshot " + strings.TrimPrefix(src, "snapshot:")
	}
	if len(files) > 0 {
		src += ", with " + strings.Join(files, ", ")
	}
	return src
}

// LockdownLine says the kernel's lockdown mode and the Secure Boot state
// the run started with, in the words of the report header ("integrity,
// because Secure Boot is on"), or "" when neither is known.
func LockdownLine(m input.Identity) string {
	st := &input.LockdownState{Mode: m.Lockdown, SecureBoot: m.SecureBoot}
	switch {
	case m.Lockdown == "" && m.SecureBoot == "":
		return ""
	case m.Lockdown == "":
		return "not shown by the kernel (no /" + input.LockdownFile + "); Secure Boot " + m.SecureBoot
	case st.Locked():
		return st.Words()
	case m.SecureBoot != "":
		return m.Lockdown + " (Secure Boot " + m.SecureBoot + ")"
	}
	return m.Lockdown
}

// machineName is the DMI identity in one line: vendor, product, board and
// BIOS.
func machineName(m input.Identity) string {
	if m.DMI == nil {
		return ""
	}
	i := m.DMI
	var parts []string
	if s := strings.TrimSpace(i.SysVendor + " " + i.ProductName); s != "" {
		parts = append(parts, s)
	}
	if s := strings.TrimSpace(i.BoardVendor + " " + i.BoardName); s != "" && i.BoardName != i.ProductName {
		parts = append(parts, "board "+s)
	}
	if s := strings.TrimSpace(i.BIOSVendor + " " + i.BIOSVersion); s != "" {
		if i.BIOSDate != "" {
			s += " (" + i.BIOSDate + ")"
		}
		parts = append(parts, "BIOS "+s)
	}
	return strings.Join(parts, ", ")
}

// statusWord is the status as the report's first column shows it.
func statusWord(s tests.Status) string {
	if s == tests.StatusNotApplicable {
		return "N/A"
	}
	return strings.ToUpper(string(s))
}

// group is the findings of one kind and label within a check, in order.
type group struct {
	kind     tests.Kind
	label    string
	sev      tests.Severity
	advice   string
	spec     string
	class    string // "fail", "explained", "waived", "warning", "info", "pass"
	messages []string
	why      []string // what explains or waives each
	total    int      // count, the findings the framework's cap left out included
}

// moreLine is the line that stands for n findings not shown.
func moreLine(n int) string { return fmt.Sprintf("… and %d more", n) }

func classOf(f Finding) string {
	switch {
	case f.Kind == tests.KindFail && f.Waived != "":
		return "waived"
	case f.Kind == tests.KindFail && f.Explained != "":
		return "explained"
	}
	return string(f.Kind)
}

// groups collects a result's findings by class and label, in order of
// first appearance; findings without a label stay one group each. The
// findings the framework's cap left out (Result.Omitted) count in their
// group's total.
func groups(r *Result) []*group {
	var out []*group
	idx := map[string]*group{}
	eachFinding(&r.Result, func(f *Finding, n int, listed bool) {
		c := classOf(*f)
		key := c + "\x00" + f.Label
		g := idx[key]
		if g == nil || f.Label == "" {
			g = &group{kind: f.Kind, label: f.Label, sev: f.Severity, advice: f.Advice, spec: f.Spec, class: c}
			out = append(out, g)
			if f.Label != "" {
				idx[key] = g
			}
		}
		if !listed {
			g.total += n
			if len(g.why) == 0 {
				g.why = append(g.why, f.Explained+f.Waived)
			}
			return
		}
		g.messages = append(g.messages, f.Message)
		g.why = append(g.why, f.Explained+f.Waived)
		g.total++
	})
	return out
}

func (t *textWriter) result(r Result) {
	if t.o.Quiet && r.Status != tests.StatusFailed && r.Status != tests.StatusAborted {
		return
	}
	head := []span{colored(statusColor[r.Status], "%-10s", statusWord(r.Status)), plain(" %-14s %s", r.ID, r.Title)}
	if r.Reason != "" {
		head = append(head, colored(dim, " (%s)", r.Reason))
	}
	t.para(0, 11, head...)
	for _, g := range groups(&r) {
		t.group(g)
	}
	// What could not be checked is part of the verdict: always shown.
	for _, u := range r.Unchecked {
		sp := []span{colored(yellow, "NOT CHECKED"), plain(" %s: %s", u.What, u.Reason)}
		if u.Remedy != "" {
			sp = append(sp, plain(" (to check it: %s)", u.Remedy))
		}
		t.para(2, 4, sp...)
	}
}

func (t *textWriter) group(g *group) {
	v := t.o.Verbose
	switch g.class {
	case "fail":
	case "explained", "waived", "warning":
		if t.o.Quiet {
			return
		}
	default: // info, pass
		if !v {
			return
		}
	}
	var tag span
	switch g.class {
	case "fail":
		tag = colored(severityColor[g.sev], "FAIL")
	case "explained":
		tag = colored(dim, "EXPLAINED")
	case "waived":
		tag = colored(dim, "WAIVED")
	case "warning":
		tag = colored(yellow, "WARN")
	case "info":
		tag = colored(dim, "info")
	case "pass":
		tag = colored(dim, "ok")
	}
	head := []span{tag}
	if g.label != "" {
		head = append(head, plain(" %s", g.label))
	}
	if g.sev != tests.None {
		head = append(head, colored(severityColor[g.sev], " [%s]", g.sev))
	}
	if g.total == 1 && len(g.messages) == 1 {
		head = append(head, plain(": %s", g.messages[0]))
		t.para(2, 5, head...)
		t.why(g.class, g.why[0])
	} else {
		head = append(head, plain(", %s:", plural(g.total, "finding", "findings")))
		t.para(2, 5, head...)
		same := !slices.ContainsFunc(g.why, func(w string) bool { return w != g.why[0] })
		for i, m := range g.messages {
			if i == maxShown {
				break
			}
			t.para(5, 2, plain("- %s", m))
			if !same {
				t.why(g.class, g.why[i])
			}
		}
		if more := g.total - min(len(g.messages), maxShown); more > 0 {
			t.para(5, 2, plain("%s", moreLine(more)))
		}
		if same && len(g.why) > 0 {
			t.whyAll(g.class, g.why[0])
		}
	}
	if g.advice != "" && (g.class == "fail" || v) {
		t.para(5, 8, plain("advice: %s", g.advice))
	}
	if g.spec != "" && (g.class == "fail" || v) {
		t.para(5, 6, colored(dim, "spec: %s", g.spec))
	}
}

func (t *textWriter) why(class, why string) {
	switch {
	case why == "":
	case class == "explained":
		t.para(7, 2, colored(dim, "explained by: %s", why))
	case class == "waived":
		t.para(7, 2, colored(dim, "waived: %s", why))
	}
}

// whyAll says once what explains or waives every finding of a group.
func (t *textWriter) whyAll(class, why string) {
	switch {
	case why == "":
	case class == "explained":
		t.para(5, 2, colored(dim, "all explained by: %s", why))
	case class == "waived":
		t.para(5, 2, colored(dim, "all waived: %s", why))
	}
}

// failingLabel is one line of the closing summary.
type failingLabel struct {
	sev          tests.Severity
	label, check string
	n            int
}

func (t *textWriter) summary(d *Document) {
	var fl []failingLabel
	for _, r := range d.Results {
		for _, g := range groups(&r) {
			if g.class == "fail" {
				fl = append(fl, failingLabel{g.sev, g.label, r.ID, g.total})
			}
		}
	}
	t.blank()
	if len(fl) > 0 {
		t.para(0, 2, colored(bold, "Failures by severity (label, check, count):"))
		wl, wc := 0, 0
		for _, f := range fl {
			wl = max(wl, utf8.RuneCountInString(f.label))
			wc = max(wc, len(f.check))
		}
		for _, sev := range []tests.Severity{tests.Critical, tests.High, tests.Medium, tests.Low} {
			first := true
			for _, f := range fl {
				if f.sev != sev {
					continue
				}
				name := ""
				if first {
					name = sev.String()
				}
				first = false
				t.para(2, 12, colored(severityColor[sev], "%-8s", name), plain("  %-*s  %-*s  %d", wl, f.label, wc, f.check, f.n))
			}
		}
		t.blank()
	}
	for _, e := range d.Errors {
		t.para(0, 6, colored(red, "ERROR"), plain(" %s", e))
	}
	t.para(0, 2, colored(bold, "%s", StatusCounts(d)))
	f := d.Totals.Failures
	line := fmt.Sprintf("failures by severity: critical %d, high %d, medium %d, low %d", f["critical"], f["high"], f["medium"], f["low"])
	if d.Totals.Explained > 0 {
		line += fmt.Sprintf("; %d explained by the environment", d.Totals.Explained)
	}
	if d.Totals.Waived > 0 {
		line += fmt.Sprintf("; %d waived", d.Totals.Waived)
	}
	t.para(0, 2, plain("%s", line))
	for _, e := range d.ExpiredWaivers {
		t.para(0, 2, colored(yellow, "expired waiver:"), plain(" %s", e))
	}
	t.verdict(d)
}

// StatusCounts says how many checks ended in each status, leaving out
// the statuses no check has: "9 checks: 2 passed, 2 failed, 3 skipped".
func StatusCounts(d *Document) string {
	var parts []string
	for _, st := range tests.Statuses {
		if n := d.Totals.Status[string(st)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(string(st), "-", " ")))
		}
	}
	s := plural(d.Totals.Checks, "check", "checks")
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// verdict prints the one line a person booting new hardware looks for.
func (t *textWriter) verdict(d *Document) {
	v, kind := Verdict(d, t.o.FailOn)
	color := map[VerdictKind]string{VerdictFail: red + bold, VerdictPass: green + bold, VerdictIncomplete: yellow + bold, VerdictNothing: yellow + bold}[kind]
	t.para(0, 9, colored(color, "verdict: %s", v))
}

// plural writes n and the noun in the form n asks for ("1 check").
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
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

// String is the verdict kind as the results document records it.
func (k VerdictKind) String() string {
	return [...]string{"pass", "fail", "incomplete", "nothing-checked"}[k]
}

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
		notes = append(notes, plural(n, "request error", "request errors"))
	}
	if n := s["skipped"]; n > 0 {
		notes = append(notes, plural(n, "check", "checks")+" skipped")
	}
	if n := d.Totals.Explained; n > 0 {
		notes = append(notes, plural(n, "finding", "findings")+" explained by the environment")
	}
	if n := d.Totals.Waived; n > 0 {
		notes = append(notes, plural(n, "finding", "findings")+" waived")
	}
	if n := len(d.ExpiredWaivers); n > 0 {
		notes = append(notes, plural(n, "waiver", "waivers")+" expired")
	}
	tail := ""
	if len(notes) > 0 {
		tail = " (" + strings.Join(notes, ", ") + ")"
	}
	switch {
	case s["aborted"] > 0:
		return fmt.Sprintf("FAIL — %s aborted; the results are incomplete%s", plural(s["aborted"], "check", "checks"), tail), VerdictFail
	case at > 0:
		return fmt.Sprintf("FAIL — %s at or above %s%s", plural(at, "failure", "failures"), failOn, tail), VerdictFail
	case !d.Checked():
		return "NOTHING CHECKED — no check could evaluate anything (see the reasons: as root, or with --from, more inputs are readable)" + tail, VerdictNothing
	case s["incomplete"] > 0:
		return fmt.Sprintf("INCOMPLETE — no failure at or above %s, but %s not check everything (see NOT CHECKED)%s", failOn,
			plural(s["incomplete"], "check could", "checks could"), tail), VerdictIncomplete
	}
	return fmt.Sprintf("PASS — no failure at or above %s%s", failOn, tail), VerdictPass
}
