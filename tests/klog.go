package tests

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
)

// klogUnexplained labels error-level kernel messages that no advice entry
// explains: reported as low-severity information so users still see them.
var klogUnexplained = NewLabel("KlogUnexplained", Low, "Linux kernel log priority levels (KERN_ERR and worse)",
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

var klogCheck = &Check{
	ID:       "klog",
	Title:    "Kernel log messages that point at firmware problems",
	Category: Log,
	Inputs:   []input.Name{input.KernelLog},
	Spec:     "Linux kernel messages (FW_BUG, ACPICA, PCI, IOMMU, EFI, TPM)",
}

// klogExtra holds the entries of the klog check's "db" setting (--klog.db,
// --klog-db): an fwts-format klog.json matched before fwcheck's own. The
// file is read when the setting is made, so a bad file is a usage error.
var klogExtra []klog.Entry

func init() {
	klogCheck.Settings.Func("db", "an fwts-format klog.json `FILE` whose entries are matched before fwcheck's own", func(path string) error {
		es, err := klog.LoadFwtsFile(path)
		if err != nil {
			return err
		}
		klogExtra = es
		return nil
	})
	klogCheck.Run = runKlog
	Register(klogCheck)
}

// klogEntries returns the advice entries to match: the user's fwts file,
// if any, then the embedded database.
func klogEntries() ([]klog.Entry, error) {
	own, err := klog.DefaultDB()
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(klogExtra), own...), nil
}

func runKlog(p *Pass) error {
	recs := p.KernelLog()
	if len(recs) == 0 {
		p.Skip("the kernel log is empty")
		return nil
	}
	entries, err := klogEntries()
	if err != nil {
		return err
	}
	m, err := klog.NewMatcher(entries, klog.EnvFromLog(recs))
	if err != nil {
		return err
	}
	matched, unexplained := 0, 0
	for _, r := range recs {
		if e := m.Match(r.Text); e != nil {
			matched++
			f := Finding{
				Kind:     KindFail,
				Label:    e.Label,
				Severity: klogSeverity(e.Severity),
				Message:  klogLine(r),
				Advice:   e.Advice,
			}
			if e.Source != "" {
				f.Spec = "printed by " + e.Source
			}
			p.Report(f)
			continue
		}
		if !klogIsError(r) {
			continue
		}
		unexplained++
		if unexplained <= maxUnexplained {
			p.Report(Finding{
				Kind: KindInfo, Label: klogUnexplained.Name, Severity: Low,
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

func klogSeverity(s klog.Severity) Severity {
	switch s {
	case klog.Critical:
		return Critical
	case klog.High:
		return High
	case klog.Medium:
		return Medium
	}
	return Low
}
