package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/fwcheck/fwcheck/tests"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failures  []junitResult `xml:"failure,omitempty"`
	Error     *junitResult  `xml:"error,omitempty"`
	Skipped   *junitResult  `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes d as JUnit XML: a test suite per category, a test case
// per check, a <failure> per failure at or above failOn (type is the
// label; zero means low), so that CI agrees with the exit status. Failures
// below it, explained and waived ones go to <system-out>.
func WriteJUnit(w io.Writer, d *Document, failOn tests.Severity) error {
	if failOn == tests.None {
		failOn = tests.Low
	}
	root := junitSuites{Name: "fwcheck"}
	idx := map[tests.Category]int{}
	for _, r := range d.Results {
		i, ok := idx[r.Category]
		if !ok {
			i = len(root.Suites)
			idx[r.Category] = i
			root.Suites = append(root.Suites, junitSuite{Name: string(r.Category), Timestamp: d.Start.Format("2006-01-02T15:04:05")})
		}
		s := &root.Suites[i]
		c := junitCase{Name: r.ID, Classname: "fwcheck." + string(r.Category), Time: fmt.Sprintf("%.3f", r.DurationMS/1000)}
		var out strings.Builder
		for _, f := range r.Findings {
			switch {
			case f.Fails() && f.Severity >= failOn:
				c.Failures = append(c.Failures, junitResult{
					Message: fmt.Sprintf("%s [%s]: %s", f.Label, f.Severity, f.Message),
					Type:    f.Label,
					Body:    fmt.Sprintf("%s\nadvice: %s\nspec: %s", f.Message, f.Advice, f.Spec),
				})
			case f.Fails():
				fmt.Fprintf(&out, "failure below --fail-on %s: %s [%s]: %s\n", failOn, f.Label, f.Severity, f.Message)
			case f.Waived != "":
				fmt.Fprintf(&out, "waived %s [%s]: %s (waived: %s)\n", f.Label, f.Severity, f.Message, f.Waived)
			case f.Explained != "":
				fmt.Fprintf(&out, "explained %s [%s]: %s (explained by: %s)\n", f.Label, f.Severity, f.Message, f.Explained)
			default:
				fmt.Fprintf(&out, "%s: %s\n", f.Kind, f.Message)
			}
		}
		// The findings the framework's cap left out: one line per label,
		// a <failure> when they fail the run.
		for _, o := range r.Omitted {
			f, more := o.Finding(), fmt.Sprintf("%s %s findings not listed", moreLine(o.Count), o.Label)
			switch {
			case f.Fails() && f.Severity >= failOn:
				c.Failures = append(c.Failures, junitResult{
					Message: fmt.Sprintf("%s [%s]: %s", f.Label, f.Severity, more),
					Type:    f.Label,
					Body:    fmt.Sprintf("%s\ncount: %d\nadvice: %s\nspec: %s", more, o.Count, f.Advice, f.Spec),
				})
			default:
				fmt.Fprintf(&out, "%s %s [%s]: %s\n", classOf(f), f.Label, f.Severity, more)
			}
		}
		for _, u := range r.Unchecked {
			fmt.Fprintf(&out, "not checked: %s: %s\n", u.What, u.Reason)
		}
		c.SystemOut = out.String()
		switch r.Status {
		case tests.StatusSkipped, tests.StatusNotApplicable:
			c.Skipped = &junitResult{Message: string(r.Status) + ": " + r.Reason}
			s.Skipped++
			root.Skipped++
		case tests.StatusAborted:
			c.Error = &junitResult{Message: r.Reason, Type: "aborted"}
			s.Errors++
			root.Errors++
		}
		if len(c.Failures) > 0 {
			s.Failures++
			root.Failures++
		}
		s.Tests++
		root.Tests++
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("writing junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
