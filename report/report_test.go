package report_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
)

func sample() *report.Document {
	rs := []tests.Result{
		{ID: "fadt", Title: "FADT", Category: tests.ACPI, Status: tests.StatusFailed, Duration: 1500 * time.Microsecond, Findings: []tests.Finding{
			{Kind: tests.KindFail, Label: "FADTResetCF9SingleWrite", Severity: tests.Medium, Message: "RESET_REG is I/O 0xCF9 with value 0x06", Advice: "Write 0x02 then 0x04.", Spec: "ACPI 6.5 §4.8.4.6"},
			{Kind: tests.KindWarning, Message: "odd"},
			{Kind: tests.KindInfo, Message: "reset via port 0xCF9"},
			{Kind: tests.KindPass, Message: "PM1a block length 4"},
		}},
		{ID: "hpet", Title: "HPET", Category: tests.ACPI, Status: tests.StatusSkipped, Reason: "no HPET table", Findings: []tests.Finding{}},
		{ID: "klog", Title: "kernel log", Category: tests.Log, Status: tests.StatusAborted, Reason: "panic: boom", Findings: []tests.Finding{}},
		{ID: "oops", Title: "oopses", Category: tests.Log, Status: tests.StatusPassed, Findings: []tests.Finding{}},
	}
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	return report.New("test", input.Identity{Source: "none"}, t0, t0.Add(time.Second), rs)
}

func TestTotalsAndFailing(t *testing.T) {
	d := sample()
	assert.Equal(t, 4, d.Totals.Checks)
	assert.Equal(t, map[string]int{"passed": 1, "failed": 1, "warning": 0, "incomplete": 0, "not-applicable": 0, "skipped": 1, "aborted": 1}, d.Totals.Status)
	assert.Equal(t, map[string]int{"critical": 0, "high": 0, "medium": 1, "low": 0}, d.Totals.Failures)
	assert.Equal(t, 1, d.Totals.Warnings)
	assert.True(t, d.Failing(tests.Critical), "an aborted check always fails the run")
	d.Results = d.Results[:2]
	assert.True(t, d.Failing(tests.Medium))
	assert.False(t, d.Failing(tests.High))
}

func TestJSONRoundTripAndSchema(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, sample()))
	reporttest.Check(t, b.Bytes())
	d, err := report.ReadJSON(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, tests.Medium, d.Results[0].Findings[0].Severity)
	assert.InDelta(t, 1.5, d.Results[0].DurationMS, 0.001)

	_, err = report.ReadJSON(strings.NewReader(`{"schema":"9.9"}`))
	assert.ErrorContains(t, err, "schema")
	// The schema rejects a failure with no label.
	bad := strings.Replace(b.String(), `"label": "FADTResetCF9SingleWrite",`, "", 1)
	assert.Error(t, reporttest.Validate([]byte(bad)))

	// The same under Python's jsonschema (Draft 2020-12), for every kind
	// of document: plain, judged, with hostile strings, grouped findings,
	// findings over the cap.
	var docs [][]byte
	h := hostileDoc()
	// Labels are checked where they are made (NewLabel, the klog-db
	// loader): only the text report must survive a hostile one.
	h.Results[0].Findings[0].Label = "Bad"
	h.Results[1].Findings = []tests.Finding{}
	for _, d := range []*report.Document{sample(), h, manyFindings(), floodDoc(t)} {
		d.Judge(tests.Medium)
		var b bytes.Buffer
		require.NoError(t, report.WriteJSON(&b, d))
		reporttest.Check(t, b.Bytes())
		docs = append(docs, b.Bytes())
	}
	reporttest.CheckPython(t, docs...)
	assert.ErrorContains(t, reporttest.ValidatePython([]byte(bad)), "label")
}

// JSON keeps untrusted strings exact: only the terminal report escapes.
func TestJSONKeepsStringsExact(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, hostileDoc()))
	d, err := report.ReadJSON(&b)
	require.NoError(t, err)
	assert.Equal(t, strings.ToValidUTF8("line "+hostile, "\ufffd"), d.Results[0].Findings[0].Message, "only the bytes that are not UTF-8 are replaced, by encoding/json")
}

func TestTextReport(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, report.WriteText(&b, sample(), report.TextOptions{}))
	out := b.String()
	assert.NotContains(t, out, "\x1b[", "no colour unless asked")
	assert.Contains(t, out, "FAIL FADTResetCF9SingleWrite [medium]: RESET_REG is I/O 0xCF9 with value 0x06")
	assert.Contains(t, out, "advice: Write 0x02 then 0x04.")
	assert.Contains(t, out, "spec: ACPI 6.5 §4.8.4.6")
	assert.Contains(t, out, "(no HPET table)")
	assert.Contains(t, out, "4 checks: 1 passed, 1 failed, 1 skipped, 1 aborted")
	assert.Contains(t, out, "critical 0, high 0, medium 1, low 0")
	assert.NotContains(t, out, "PM1a block length", "passes only with verbose")
	assert.Contains(t, out, "verdict: FAIL — 1 check aborted")

	d := sample()
	d.Results = d.Results[:2]
	d = report.New("test", input.Identity{Source: "none"}, d.Start, d.End, []tests.Result{d.Results[0].Result, d.Results[1].Result})
	b.Reset()
	require.NoError(t, report.WriteText(&b, d, report.TextOptions{FailOn: tests.High}))
	assert.Contains(t, b.String(), "verdict: PASS — no failure at or above high (1 check skipped)")
	b.Reset()
	require.NoError(t, report.WriteText(&b, d, report.TextOptions{}))
	assert.Contains(t, b.String(), "verdict: FAIL — 1 failure at or above low")
	d = report.New("test", input.Identity{Source: "none"}, d.Start, d.End, []tests.Result{d.Results[1].Result})
	b.Reset()
	require.NoError(t, report.WriteText(&b, d, report.TextOptions{}))
	assert.Contains(t, b.String(), "verdict: NOTHING CHECKED")

	b.Reset()
	require.NoError(t, report.WriteText(&b, sample(), report.TextOptions{Quiet: true, Color: true}))
	out = b.String()
	assert.Contains(t, out, "\x1b[31m")
	assert.NotContains(t, out, "oops", "quiet hides passing checks")
	assert.NotContains(t, out, "odd", "quiet hides warnings")

	b.Reset()
	require.NoError(t, report.WriteText(&b, sample(), report.TextOptions{Verbose: true}))
	assert.Contains(t, b.String(), "ok: PM1a block length 4")
	assert.Contains(t, b.String(), "info: reset via port 0xCF9")
}

func TestJUnit(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, report.WriteJUnit(&b, sample(), tests.Low))
	var s struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Time     string `xml:"time,attr"`
				Failures []struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(b.Bytes(), &s), b.String())
	assert.Equal(t, 4, s.Tests)
	assert.Equal(t, 1, s.Failures)
	assert.Equal(t, 1, s.Errors)
	assert.Equal(t, 1, s.Skipped)
	require.Len(t, s.Suites, 2)
	assert.Equal(t, "acpi", s.Suites[0].Name)
	require.Len(t, s.Suites[0].Cases[0].Failures, 1)
	assert.Equal(t, "FADTResetCF9SingleWrite", s.Suites[0].Cases[0].Failures[0].Type)
	assert.Equal(t, "0.002", s.Suites[0].Cases[0].Time)
}

func TestTextKeepsMultiLineMessagesIndented(t *testing.T) {
	rs := []tests.Result{{ID: "klog", Title: "kernel log", Category: tests.Log, Status: tests.StatusFailed, Findings: []tests.Finding{
		{Kind: tests.KindFail, Label: "AMDPStateCPPCDisabled", Severity: tests.Low, Message: "[ 0.35] first line\nsecond line", Advice: "Enable CPPC."},
	}}}
	d := report.New("test", input.Identity{Source: "none"}, time.Now(), time.Now(), rs)
	var b bytes.Buffer
	require.NoError(t, report.WriteText(&b, d, report.TextOptions{}))
	assert.Contains(t, b.String(), "first line\n       second line\n     advice: Enable CPPC.")
}
