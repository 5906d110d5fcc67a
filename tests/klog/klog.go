// Package klog is the klog check: every kernel log message that points at
// a firmware problem, matched against the advice database of package
// github.com/fwcheck/fwcheck/klog (and, optionally, an fwts-format database
// the user gives), and every error-level message no entry explains.
package klog

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	klog "github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
)

// klogUnexplained labels error-level kernel messages that no advice entry
// explains: reported as low-severity information so users still see them.
var klogUnexplained = tests.NewLabel("KlogUnexplained", tests.Low, "Linux kernel log priority levels (KERN_ERR and worse)",
	"The kernel logged this at error level (or it reads like an error) and fwcheck's advice database has no entry for it. "+
		"It may or may not be a firmware problem: look up the message in the kernel source to see what it checks, "+
		"and report it to fwcheck if it points at firmware.")

// maxUnexplained bounds the unexplained infos one log produces.
const maxUnexplained = 100

// errorish recognises error messages in logs without priority levels;
// notError excludes lines that only name errors (error-record tables,
// error collectors), module-signature taint notes and userspace lines
// ("systemd[1]: …") that journald copies into the kernel log.
var (
	errorish = regexp.MustCompile(`(?i)\b(?:error|failed|failure|timed out|timeout|invalid|corrupt(?:ed)?|bogus|broken)\b`)
	notError = regexp.MustCompile(`(?i)error (?:record|report|log|injection|handling|containment|collector|source)|errors collector|support is initialized|enabled with IRQ|module verification failed|^[\w.@/-]+\[\d+\]: `)
)

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

// klogEntries returns the advice entries to match: the user's fwts file,
// if any, then the embedded database.
func klogEntries(p *tests.Pass) ([]klog.Entry, error) {
	own, err := klog.DefaultDB()
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(DB.Get(p)), own...), nil
}

func runKlog(p *tests.Pass) error {
	recs := tests.Input(p, input.KernelLog)
	if len(recs) == 0 {
		p.Skip("the kernel log is empty")
		return nil
	}
	entries, err := klogEntries(p)
	if err != nil {
		return err
	}
	env := klog.EnvFromLog(recs)
	m, err := klog.NewMatcher(entries, env)
	if err != nil {
		return err
	}
	matched, unexplained := 0, 0
	for _, r := range recs {
		if e := m.Match(r.Text); e != nil {
			matched++
			f := tests.Finding{
				Kind:     tests.KindFail,
				Label:    e.Label,
				Severity: klogSeverity(e.Severity),
				Message:  klogLine(r),
				Advice:   e.Advice,
				Spec:     entrySpec(*e),
				// What the environment explains (a virtual machine) is
				// shown but does not fail the run.
				Explained: e.Explanation(env),
			}
			p.Report(f)
			continue
		}
		if !klogIsError(r) {
			continue
		}
		unexplained++
		if unexplained <= maxUnexplained {
			p.Report(tests.Finding{
				Kind: tests.KindInfo, Label: klogUnexplained.Name, Severity: tests.Low,
				Message: "unexplained: " + klogLine(r), Advice: klogUnexplained.Advice,
			})
		}
	}
	if unexplained > maxUnexplained {
		p.Info(nil, "%d more unexplained error lines not listed", unexplained-maxUnexplained)
	}
	if matched == 0 {
		p.Passed("no known firmware-related messages in %d kernel log records", len(recs))
	}
	tests.NotCheckedTruncated(p, recs)
	return nil
}

// klogIsError reports whether r is at error level or worse; for logs
// without levels, whether its text reads like an error.
func klogIsError(r klog.Record) bool {
	if r.Level >= 0 {
		return r.Level <= klog.Err
	}
	return errorish.MatchString(r.Text) && !notError.MatchString(r.Text)
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
	return tests.Finding{
		Kind:      tests.KindFail,
		Label:     e.Label,
		Severity:  klogSeverity(e.Severity),
		Message:   prefix + klogLine(r),
		Advice:    e.Advice,
		Spec:      entrySpec(*e),
		Explained: e.Explanation(env),
	}
}
