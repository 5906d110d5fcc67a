package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/tests"
)

// LabelCount is one failing label of one check in a comparison.
type LabelCount struct {
	Check    string
	Label    string
	Severity tests.Severity
	Old, New int // failures of the label in each document (0: absent)
}

// StatusChange is a check whose status differs between two documents
// ("" when the check did not run in one of them).
type StatusChange struct {
	Check    string
	Old, New tests.Status
}

// Diff is what changed between two runs, by check and label: the
// regression view between two firmware versions.
type Diff struct {
	Appeared    []LabelCount // failing only in the new document
	Disappeared []LabelCount // failing only in the old one
	Changed     []LabelCount // failing in both, a different number of times
	Status      []StatusChange
}

// failing counts each check's failing labels (waived and explained ones
// do not fail), the findings the framework's cap left out counted in.
func failing(d *Document) map[[2]string]LabelCount {
	out := map[[2]string]LabelCount{}
	for _, r := range d.Results {
		for _, g := range groups(&r) {
			if g.class == "fail" {
				k := [2]string{r.ID, g.label}
				lc := out[k]
				lc.Check, lc.Label, lc.Severity = r.ID, g.label, g.sev
				lc.New += g.total
				out[k] = lc
			}
		}
	}
	return out
}

// Compare compares two results documents.
func Compare(old, cur *Document) *Diff {
	d := &Diff{}
	o, n := failing(old), failing(cur)
	for k, nc := range n {
		oc, ok := o[k]
		switch {
		case !ok:
			d.Appeared = append(d.Appeared, LabelCount{nc.Check, nc.Label, nc.Severity, 0, nc.New})
		case oc.New != nc.New:
			d.Changed = append(d.Changed, LabelCount{nc.Check, nc.Label, nc.Severity, oc.New, nc.New})
		}
	}
	for k, oc := range o {
		if _, ok := n[k]; !ok {
			d.Disappeared = append(d.Disappeared, LabelCount{oc.Check, oc.Label, oc.Severity, oc.New, 0})
		}
	}
	for _, l := range [][]LabelCount{d.Appeared, d.Disappeared, d.Changed} {
		sort.Slice(l, func(i, j int) bool {
			if l[i].Severity != l[j].Severity {
				return l[i].Severity > l[j].Severity
			}
			if l[i].Check != l[j].Check {
				return l[i].Check < l[j].Check
			}
			return l[i].Label < l[j].Label
		})
	}
	os := map[string]tests.Status{}
	for _, r := range old.Results {
		os[r.ID] = r.Status
	}
	seen := map[string]bool{}
	for _, r := range cur.Results {
		seen[r.ID] = true
		if os[r.ID] != r.Status {
			d.Status = append(d.Status, StatusChange{r.ID, os[r.ID], r.Status})
		}
	}
	for _, r := range old.Results {
		if !seen[r.ID] {
			d.Status = append(d.Status, StatusChange{r.ID, r.Status, ""})
		}
	}
	return d
}

// Regressed reports whether something new fails at or above threshold: a
// label that appeared, or one that fails more often than before, or a
// check that aborted where it had not.
func (d *Diff) Regressed(threshold tests.Severity) bool {
	for _, l := range d.Appeared {
		if l.Severity >= threshold {
			return true
		}
	}
	for _, l := range d.Changed {
		if l.Severity >= threshold && l.New > l.Old {
			return true
		}
	}
	for _, s := range d.Status {
		if s.New == tests.StatusAborted {
			return true
		}
	}
	return false
}

// WriteDiff writes d for a person: both runs' identities, the status
// changes, then the labels that appeared, disappeared and changed, each
// with its check, severity and counts. Strings from the documents are
// sanitised.
func WriteDiff(w io.Writer, old, cur *Document, d *Diff, o TextOptions) error {
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	o.Width = max(o.Width, minWidth)
	t := &textWriter{w: w, o: o}
	for _, x := range []struct {
		name string
		doc  *Document
	}{{"old", old}, {"new", cur}} {
		id := machineName(x.doc.Machine)
		if id == "" {
			id = strings.TrimSuffix(describeSource(x.doc.Machine), filesOnly)
		}
		t.para(0, 5, colored(bold, "%s:", x.name), plain(" %s, fwcheck %s, %s", id, x.doc.Tool.Version, x.doc.Start.Format("2006-01-02 15:04 UTC")))
	}
	if len(d.Status) > 0 {
		t.blank()
		t.para(0, 2, colored(bold, "Checks whose status changed:"))
		for _, s := range d.Status {
			t.para(2, 4, plain("%-14s %s → %s", s.Check, orNone(s.Old), orNone(s.New)))
		}
	}
	list := func(title, color string, ls []LabelCount, counts func(LabelCount) string) {
		if len(ls) == 0 {
			return
		}
		t.blank()
		t.para(0, 2, colored(bold+color, "%s", title))
		for _, l := range ls {
			t.para(2, 12, colored(severityColor[l.Severity], "%-8s", l.Severity), plain("  %s  %s  %s", l.Label, l.Check, counts(l)))
		}
	}
	list("New failures:", red, d.Appeared, func(l LabelCount) string { return plural(l.New, "finding", "findings") })
	list("Failures gone:", green, d.Disappeared, func(l LabelCount) string { return "was " + plural(l.Old, "finding", "findings") })
	list("Failures that changed in number:", yellow, d.Changed, func(l LabelCount) string { return fmt.Sprintf("%d → %d", l.Old, l.New) })
	t.blank()
	if len(d.Appeared)+len(d.Disappeared)+len(d.Changed)+len(d.Status) == 0 {
		t.para(0, 2, plain("no change in statuses or failures"))
	}
	threshold := o.FailOn
	if threshold == tests.None {
		threshold = tests.Low
	}
	if d.Regressed(threshold) {
		t.para(0, 2, colored(red+bold, "diff: REGRESSED — something new fails at or above %s", threshold))
	} else {
		t.para(0, 2, colored(green+bold, "diff: no new failure at or above %s", threshold))
	}
	return t.err
}

func orNone(s tests.Status) string {
	if s == "" {
		return "(not run)"
	}
	return string(s)
}
