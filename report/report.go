// Package report turns check results into the documents users read: the
// versioned JSON results document (schema in report/results.schema.json), the
// terminal report, and JUnit XML for labs. It does not run checks.
package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

// SchemaVersion is the results document's schema version. It changes only
// when a field's meaning changes or a field is removed; added fields keep
// it.
const SchemaVersion = "2.0"

// Document is the results of one run.
type Document struct {
	Schema  string         `json:"schema"`
	Tool    Tool           `json:"tool"`
	Start   time.Time      `json:"start"`
	End     time.Time      `json:"end"`
	Machine input.Identity `json:"machine"`
	// Profile is the certification profile the run applied ("sbbr"),
	// whose overrides changed some labels' severities; empty for none.
	Profile string `json:"profile,omitempty"`
	// Settings are the check settings this run was given ("s3.cycles").
	Settings map[string]string `json:"settings,omitempty"`
	// Errors are problems with what the run was asked to do that did not
	// stop it (an unknown check named on the live image's command line).
	Errors  []string `json:"errors,omitempty"`
	Results []Result `json:"results"`
	Totals  Totals   `json:"totals"`
	// Verdict is the run's verdict and the threshold it was judged with
	// (set by Judge; absent from documents of older fwcheck versions).
	Verdict *VerdictDoc `json:"verdict,omitempty"`
	// ExpiredWaivers are the waivers the run was given whose expiry date
	// had passed: they waived nothing.
	ExpiredWaivers []Waiver `json:"expired_waivers,omitempty"`
}

// VerdictDoc is the verdict as the document records it.
type VerdictDoc struct {
	// Result is pass, fail, incomplete or nothing-checked.
	Result string `json:"result"`
	// FailOn is the severity at or above which a failure fails the run.
	FailOn string `json:"fail_on"`
	// Summary is the verdict sentence the terminal report ends on.
	Summary string `json:"summary"`
}

// Judge records d's verdict against the failure threshold failOn (zero
// means low), after any waivers were applied.
func (d *Document) Judge(failOn tests.Severity) {
	if failOn == tests.None {
		failOn = tests.Low
	}
	s, k := Verdict(d, failOn)
	d.Verdict = &VerdictDoc{Result: k.String(), FailOn: failOn.String(), Summary: s}
}

// Finding is one finding as documented.
type Finding = tests.Finding

// Tool names the program that wrote the document.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Result is one check's outcome as documented.
type Result struct {
	tests.Result
	DurationMS float64 `json:"duration_ms"`
}

// Totals counts checks by status and failures by severity. Failures the
// environment explains are counted apart, in Explained.
type Totals struct {
	Checks    int            `json:"checks"`
	Status    map[string]int `json:"status"`
	Failures  map[string]int `json:"failures"`
	Explained int            `json:"explained"`
	// Waived counts failures a waiver covers (see Waiver).
	Waived   int `json:"waived"`
	Warnings int `json:"warnings"`
}

// New builds a document from results.
func New(version string, m input.Identity, start, end time.Time, rs []tests.Result) *Document {
	d := &Document{
		Schema:  SchemaVersion,
		Tool:    Tool{Name: "fwcheck", Version: version},
		Start:   start.UTC(),
		End:     end.UTC(),
		Machine: m,
		Results: []Result{},
	}
	for _, r := range rs {
		d.Results = append(d.Results, Result{Result: r, DurationMS: float64(r.Duration.Microseconds()) / 1000})
	}
	d.count()
	return d
}

// count computes the totals from the results.
func (d *Document) count() {
	t := &d.Totals
	*t = Totals{Status: map[string]int{}, Failures: map[string]int{"critical": 0, "high": 0, "medium": 0, "low": 0}}
	for _, s := range tests.Statuses {
		t.Status[string(s)] = 0
	}
	for _, r := range d.Results {
		t.Checks++
		t.Status[string(r.Status)]++
		eachFinding(&r.Result, func(f *Finding, n int, _ bool) {
			switch {
			case f.Fails():
				t.Failures[f.Severity.String()] += n
			case f.Kind == tests.KindFail && f.Waived != "":
				t.Waived += n
			case f.Explained != "":
				t.Explained += n
			case f.Kind == tests.KindWarning:
				t.Warnings += n
			}
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Checked reports whether any check evaluated something (passed, failed,
// warned or checked part of its assertions).
func (d *Document) Checked() bool {
	for _, r := range d.Results {
		if r.Status.Checked() {
			return true
		}
	}
	return false
}

// Failing reports whether any failure is at or above threshold, or any
// check aborted (an aborted check is a result we could not trust).
func (d *Document) Failing(threshold tests.Severity) bool {
	for _, r := range d.Results {
		if r.Status == tests.StatusAborted {
			return true
		}
		failing := false
		eachFinding(&r.Result, func(f *Finding, _ int, _ bool) {
			failing = failing || f.Fails() && f.Severity >= threshold
		})
		if failing {
			return true
		}
	}
	return false
}

// eachFinding calls fn with each of r's findings and how many it stands
// for: the listed ones (1 each, listed true), then one message-less
// finding per omitted entry (its count), as Result.AllFindings lists them
// but without copying the list: a document from elsewhere may list
// millions.
func eachFinding(r *tests.Result, fn func(f *Finding, n int, listed bool)) {
	for i := range r.Findings {
		fn(&r.Findings[i], 1, true)
	}
	for _, o := range r.Omitted {
		f := o.Finding()
		fn(&f, o.Count, false)
	}
}

// WriteJSON writes d as indented JSON, byte for byte what a json.Encoder
// with SetIndent("", "  ") writes (see indentJSON).
func WriteJSON(w io.Writer, d *Document) error {
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	out := indentJSON(make([]byte, 0, len(b)+len(b)/2), b)
	if _, err := w.Write(append(out, '\n')); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}

// MaxDocument bounds the results document ReadJSON reads (diff and
// report take documents from elsewhere); the framework's cap of findings
// per label keeps real ones far below it.
const MaxDocument = 256 << 20

// Schema is the JSON Schema (draft 2020-12) of the results document.
//
//go:embed results.schema.json
var Schema []byte
