// Package klog is the klog check: every kernel log message that points at
// a firmware problem, matched against the advice database of package
// github.com/fwcheck/fwcheck/klog (and, optionally, an fwts-format database
// the user gives), and every error-level message no entry explains. The log
// is streamed, never held; each distinct message is one finding with its
// count and last time. Messages the database attributes to the CPU, the
// silicon, a driver or the fitted hardware are information; what a virtual
// machine or the log's own command line causes is explained. Watcher does
// the same one record at a time, for fwcheck klog --follow.
package klog

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	klog "github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/logscan"
)

// klogUnexplained labels error-level kernel messages that no advice entry
// explains: reported as low-severity information so users still see them.
var klogUnexplained = tests.NewLabel(logscan.Unexplained, tests.Low, "Linux kernel log priority levels (KERN_ERR and worse)",
	"The kernel logged this at error level (or it reads like an error) and fwcheck's advice database has no entry for it. "+
		"It may or may not be a firmware problem: look up the message in the kernel source to see what it checks, "+
		"and report it to fwcheck if it points at firmware.")

// DB is the check's "db" setting (--klog.db, --klog-db): an fwts-format
// klog.json whose entries are matched before fwcheck's own. The file is
// read when the setting is made, so a bad file is a usage error.
var DB = tests.NewOpt("db", "an fwts-format klog.json `FILE` whose entries are matched before fwcheck's own", []klog.Entry(nil),
	LoadDB)

// maxDBFile bounds the database file: fwts's own klog.json is about 300 KB.
const maxDBFile = 16 << 20

// maxDBLabel bounds a label's length (fwts's longest is under 40).
const maxDBLabel = 64

// LoadDB reads an fwts-format klog.json and checks every entry can be
// reported as a finding: a CamelCase label of at most 64 characters and
// non-empty advice. The first entry that cannot is a one-line error naming
// it, so that no imported label or advice breaks the results schema.
func LoadDB(name string) ([]klog.Entry, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDBFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxDBFile {
		return nil, fmt.Errorf("%s: larger than %d MiB, not a klog.json", name, maxDBFile>>20)
	}
	es, err := klog.LoadFwts(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i, e := range es {
		l := tests.Label{Name: e.Label, Severity: klogSeverity(e.Severity), Advice: e.Advice}
		err := l.Validate()
		if err == nil && len(e.Label) > maxDBLabel {
			err = fmt.Errorf("label is longer than %d characters", maxDBLabel)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d (label %.60q, pattern %.60q): %v", name, i+1, e.Label, e.Pattern(), err)
		}
	}
	return es, nil
}

// Check is the klog check.
var Check = &tests.Check{
	ID:         "klog",
	Title:      "Kernel log messages that point at firmware problems",
	Category:   tests.Log,
	Inputs:     []input.Decl{input.KernelLog},
	Spec:       "Linux kernel messages (FW_BUG, ACPICA, PCI, IOMMU, EFI, TPM)",
	Labels:     []*tests.Label{klogUnexplained},
	DataLabels: DataLabels,
	Settings:   []tests.Setting{DB},
	Run:        runKlog,
}

// DataLabels are the labels of the embedded advice database.
func DataLabels() ([]*tests.Label, error) {
	es, err := klog.DefaultDB()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []*tests.Label
	for _, e := range es {
		if seen[e.Label] {
			continue
		}
		seen[e.Label] = true
		out = append(out, &tests.Label{Name: e.Label, Severity: klogSeverity(e.Severity), Spec: entrySpec(e), Advice: e.Advice})
	}
	return out, nil
}

func entrySpec(e klog.Entry) string {
	if e.Source != "" {
		return "printed by " + e.Source
	}
	return ""
}

// runKlog reports the run's one reading of the log (logscan.Scan, shared
// with the oops check); with a database of the user's it reads the log
// again, matching those entries first.
func runKlog(p *tests.Pass) error {
	s := tests.Input(p, logscan.Scan)
	if s.Err != nil {
		return s.Err
	}
	if s.KlogErr != nil {
		return s.KlogErr
	}
	ms := s.Klog
	if extra := DB.Get(p); len(extra) > 0 {
		own, err := klog.DefaultDB()
		if err != nil {
			return err
		}
		m, err := klog.NewMatcherWords(append(slices.Clone(extra), own...), s.Env, logscan.ErrorWords)
		if err != nil {
			return err
		}
		ms = logscan.NewMatches(m)
		if err := tests.Input(p, input.KernelLog).EachLine(func(r klog.Record) bool { ms.Add(r); return true }); err != nil {
			return err
		}
	}
	if ms.Lines == 0 {
		p.Skip("the kernel log is empty")
		return nil
	}
	fails := report(p, ms.Groups, s.Env)
	switch {
	case ms.Matched == 0:
		p.Passed("no known firmware-related messages in %d kernel log records", ms.Lines)
	case fails == 0:
		// Only information (CPU, driver, hardware messages): the log was
		// read and holds no firmware failure.
		p.Passed("no firmware failure in %d kernel log records; the known messages are information", ms.Lines)
	}
	ms.Limits.Report(p)
	return nil
}

// report reports the groups and returns how many are failures (explained
// or not).
func report(p *tests.Pass, g *logscan.Grouper, env klog.Env) int {
	fails := 0
	for _, gr := range g.Groups {
		if gr.Entry == nil {
			p.Report(tests.Finding{
				Kind: tests.KindInfo, Label: klogUnexplained.Name, Severity: tests.Low,
				Message: "unexplained: " + groupLine(gr), Advice: klogUnexplained.Advice,
			})
			continue
		}
		f := finding(gr.Entry, groupLine(gr), env)
		if f.Kind == tests.KindFail {
			fails++
		}
		p.Report(f)
	}
	g.Overflow(func(l string, messages, lines int) {
		what := l + " messages"
		if l == klogUnexplained.Name {
			what = "unexplained error lines"
		}
		p.Info(nil, "%d more %s not listed (%d lines)", messages, what, lines)
	})
	return fails
}

// groupLine formats a group: its first line as klogLine does, with how
// many times it was logged and when last.
func groupLine(gr *logscan.Group) string {
	r := gr.First
	r.Count = 1
	line := klogLine(r)
	switch {
	case gr.Count <= 1:
		return line
	case gr.Last >= 0 && gr.Last != r.Time:
		return fmt.Sprintf("%s (repeated %d times, last at %s)", line, gr.Count, klog.Record{Time: gr.Last}.Stamp())
	}
	return fmt.Sprintf("%s (repeated %d times)", line, gr.Count)
}

// klogLine formats a record for a finding: "[   1.234567] text", with the
// repeat count when identical lines were folded.
func klogLine(r klog.Record) string {
	var b strings.Builder
	if s := r.Stamp(); s != "" {
		fmt.Fprintf(&b, "[%12s] ", s)
	}
	b.WriteString(r.Text)
	if r.Count > 1 {
		fmt.Fprintf(&b, " (repeated %d times)", r.Count)
	}
	return b.String()
}

func klogSeverity(s klog.Severity) tests.Severity {
	switch s {
	case klog.Critical:
		return tests.Critical
	case klog.High:
		return tests.High
	case klog.Medium:
		return tests.Medium
	}
	return tests.Low
}

// Finding turns a database match on record r into a finding, with what
// env explains; prefix goes before the line ("cycle 3: ").
func Finding(e *klog.Entry, r klog.Record, env klog.Env, prefix string) tests.Finding {
	return finding(e, prefix+klogLine(r), env)
}

// finding is a match of e on a message, formatted as line. A message that
// the entry says points at the processor, the silicon, a driver, what is
// fitted or the kernel itself is information; what the user's boot
// parameters or a virtual machine cause is explained by them.
func finding(e *klog.Entry, line string, env klog.Env) tests.Finding {
	f := tests.Finding{
		Kind:      tests.KindFail,
		Label:     e.Label,
		Severity:  klogSeverity(e.Severity),
		Message:   line,
		Advice:    e.Advice,
		Spec:      entrySpec(*e),
		Explained: e.Explanation(env),
	}
	if e.Cause != "" {
		f.Kind = tests.KindInfo
		f.Message = "not a firmware fault (" + e.Cause + "): " + line
	}
	return f
}

// Watcher matches kernel log records one at a time, as they are logged
// (fwcheck klog --follow), against the advice database, with what the
// machine's environment explains. Each distinct message under a label is
// reported once; later occurrences are counted. Memory is bounded: at
// most tests.MaxPerLabel distinct messages are remembered per label.
type Watcher struct {
	m        *klog.Matcher
	env      klog.Env
	seen     map[string]int
	perLabel map[string]int
}

// NewWatcher returns a Watcher for a machine described by env; extra
// entries (an fwts database) are matched before the embedded ones.
func NewWatcher(env klog.Env, extra []klog.Entry) (*Watcher, error) {
	m, err := newMatcher(env, extra)
	if err != nil {
		return nil, err
	}
	return &Watcher{m: m, env: env, seen: map[string]int{}, perLabel: map[string]int{}}, nil
}

// newMatcher compiles the embedded advice database, after extra entries
// (an fwts database), for a machine described by env.
func newMatcher(env klog.Env, extra []klog.Entry) (*klog.Matcher, error) {
	own, err := klog.DefaultDB()
	if err != nil {
		return nil, err
	}
	return klog.NewMatcher(append(slices.Clone(extra), own...), env)
}

// Add matches r. It returns the finding when r is the first occurrence of
// a known message, and whether r matched at all.
func (w *Watcher) Add(r klog.Record) (f tests.Finding, first, matched bool) {
	e := w.m.Match(r.Text)
	if e == nil {
		return tests.Finding{}, false, false
	}
	key := e.Label + "\x00" + r.Text
	if _, ok := w.seen[key]; ok {
		w.seen[key]++
		return tests.Finding{}, false, true
	}
	if w.perLabel[e.Label] < tests.MaxPerLabel {
		w.perLabel[e.Label]++
		w.seen[key] = 1
	}
	return finding(e, klogLine(r), w.env), true, true
}

// Repeats returns how many times messages already reported were logged
// again.
func (w *Watcher) Repeats() int {
	n := 0
	for _, c := range w.seen {
		n += c - 1
	}
	return n
}
