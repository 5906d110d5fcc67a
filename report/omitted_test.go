package report_test

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
)

var (
	floodHigh = tests.NewLabel("FloodHigh", tests.High, "none", "Fixture: a label reported 150 times.")
	floodMed  = tests.NewLabel("FloodMedium", tests.Medium, "none", "Fixture: a label reported 50 times.")
)

// floodDoc runs a real check through the framework that fails 150 times
// under one label (over the cap of 100) and 50 under another.
func floodDoc(t *testing.T) *report.Document {
	t.Helper()
	c := &tests.Check{ID: "flood", Title: "flood", Category: tests.ACPI, Labels: []*tests.Label{floodHigh, floodMed}, Run: func(p *tests.Pass) error {
		for i := range 150 {
			p.Fail(floodHigh, "entry %d overlaps", i)
			if i < 50 {
				p.Fail(floodMed, "entry %d misaligned", i)
			}
		}
		return nil
	}}
	require.NoError(t, tests.Validate([]*tests.Check{c}))
	rs := tests.Run(&tests.Env{Machine: input.New(input.Empty(), input.Options{})}, []*tests.Check{c})
	require.Equal(t, tests.MaxPerLabel, 100, "the test assumes the cap")
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return report.New("test", input.Identity{Source: "snapshot:none"}, t0, t0, rs)
}

func TestOmittedFindingsAddUpEverywhere(t *testing.T) {
	d := floodDoc(t)
	d.Judge(tests.Low)
	r := d.Results[0]
	require.Len(t, r.Findings, 150, "100 of the one label listed, all 50 of the other")
	require.Len(t, r.Omitted, 1)
	assert.Equal(t, 50, r.Omitted[0].Count)

	// JSON: the totals, read back from the document.
	var js bytes.Buffer
	require.NoError(t, report.WriteJSON(&js, d))
	back, err := report.ReadJSON(&js)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"critical": 0, "high": 150, "medium": 50, "low": 0}, back.Totals.Failures)
	assert.Equal(t, r.Omitted, back.Results[0].Omitted)

	// Text: the summary's counts and one "… and N more" line per label.
	out := text(t, d, report.TextOptions{Width: 100})
	assert.Contains(t, out, "FAIL FloodHigh [high], 150 findings:")
	assert.Contains(t, out, "FAIL FloodMedium [medium], 50 findings:")
	assert.Equal(t, []string{"… and 145 more", "… and 45 more"}, regexp.MustCompile(`… and \d+ more`).FindAllString(out, -1))
	assert.Regexp(t, `high\s+FloodHigh\s+flood\s+150\n\s+medium\s+FloodMedium\s+flood\s+50\n`, out)
	assert.Contains(t, out, "failures by severity: critical 0, high 150, medium 50, low 0")
	assert.Contains(t, lastLine(out), "200 failures")

	// HTML: the totals, the failing-label table and one row standing for
	// the 50 not listed.
	var h bytes.Buffer
	require.NoError(t, report.WriteHTML(&h, d, tests.Low))
	page := h.String()
	assert.Contains(t, page, `high <span data-sev="high">150</span>, medium <span data-sev="medium">50</span>`)
	assert.Regexp(t, `<td>FloodHigh</td><td>flood</td><td class="count">150</td>`, page)
	assert.Regexp(t, `<td>FloodMedium</td><td>flood</td><td class="count">50</td>`, page)
	// The page groups findings by label as the text report does: one row
	// per label, counting every finding; it lists every finding the
	// document holds (100 of FloodHigh), so one "… and 50 more" line.
	assert.Equal(t, 2, strings.Count(page, `<tr class="finding"`), "one row per label")
	assert.Contains(t, page, `data-count="150"`)
	assert.Contains(t, page, `data-count="50"`)
	assert.Equal(t, []string{"… and 50 more"}, regexp.MustCompile(`… and \d+ more`).FindAllString(page, -1))

	// JUnit: a <failure> per listed failure and one carrying the count of
	// those not listed: 150 and 50 again.
	var j bytes.Buffer
	require.NoError(t, report.WriteJUnit(&j, d, tests.Low))
	var suites struct {
		Suites []struct {
			Cases []struct {
				Failures []struct {
					Type string `xml:"type,attr"`
					Body string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(j.Bytes(), &suites))
	n := map[string]int{}
	mores := 0
	for _, f := range suites.Suites[0].Cases[0].Failures {
		if m := regexp.MustCompile(`(?m)^count: (\d+)$`).FindStringSubmatch(f.Body); m != nil {
			c, _ := strconv.Atoi(m[1])
			n[f.Type] += c
			mores++
			continue
		}
		n[f.Type]++
	}
	assert.Equal(t, map[string]int{"FloodHigh": 150, "FloodMedium": 50}, n)
	assert.Equal(t, 1, mores, "one … and N more failure, for the label over the cap")
	assert.Equal(t, 1, strings.Count(j.String(), `message="FloodHigh [high]: … and 50 more FloodHigh findings not listed"`))

	// Diff: the counts of a label compare whole.
	old := floodDoc(t)
	old.Results[0].Omitted[0].Count = 10
	old = roundTrip(t, old)
	df := report.Compare(old, d)
	require.Len(t, df.Changed, 1)
	assert.Equal(t, report.LabelCount{Check: "flood", Label: "FloodHigh", Severity: tests.High, Old: 110, New: 150}, df.Changed[0])
}

// roundTrip recounts a document as ReadJSON gives it.
func roundTrip(t *testing.T, d *report.Document) *report.Document {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, d))
	back, err := report.ReadJSON(&b)
	require.NoError(t, err)
	return back
}

func TestWaiverCoversOmittedFindings(t *testing.T) {
	d := floodDoc(t)
	d.ApplyWaivers([]report.Waiver{{Label: "FloodHigh", Reason: "known", Expires: "2099-01-01"}}, d.Start)
	assert.Equal(t, 150, d.Totals.Waived)
	assert.Equal(t, 0, d.Totals.Failures["high"])
	assert.Equal(t, 50, d.Totals.Failures["medium"])
}
