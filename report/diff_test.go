package report_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
)

func fail(label string, sev tests.Severity) tests.Finding {
	return tests.Finding{Kind: tests.KindFail, Label: label, Severity: sev, Message: label, Advice: "a"}
}

func doc(rs ...tests.Result) *report.Document {
	return report.New("t", input.Identity{Source: "live:/"}, time.Now(), time.Now(), rs)
}

func TestCompare(t *testing.T) {
	old := doc(
		tests.Result{ID: "fadt", Status: tests.StatusFailed, Findings: []tests.Finding{fail("Gone", tests.Low), fail("More", tests.Medium)}},
		tests.Result{ID: "hpet", Status: tests.StatusPassed},
		tests.Result{ID: "mcfg", Status: tests.StatusPassed},
	)
	cur := doc(
		tests.Result{ID: "fadt", Status: tests.StatusFailed, Findings: []tests.Finding{fail("More", tests.Medium), fail("More", tests.Medium), fail("New", tests.High)}},
		tests.Result{ID: "hpet", Status: tests.StatusPassed},
		tests.Result{ID: "madt", Status: tests.StatusAborted, Reason: "panic"},
	)
	d := report.Compare(old, cur)
	assert.Equal(t, []report.LabelCount{{Check: "fadt", Label: "New", Severity: tests.High, New: 1}}, d.Appeared)
	assert.Equal(t, []report.LabelCount{{Check: "fadt", Label: "Gone", Severity: tests.Low, Old: 1}}, d.Disappeared)
	assert.Equal(t, []report.LabelCount{{Check: "fadt", Label: "More", Severity: tests.Medium, Old: 1, New: 2}}, d.Changed)
	assert.ElementsMatch(t, []report.StatusChange{{Check: "madt", New: tests.StatusAborted}, {Check: "mcfg", Old: tests.StatusPassed}}, d.Status)
	assert.True(t, d.Regressed(tests.Critical), "an aborted check is a regression")

	var b bytes.Buffer
	require.NoError(t, report.WriteDiff(&b, old, cur, d, report.TextOptions{FailOn: tests.Medium}))
	out := b.String()
	assert.Contains(t, out, "madt           (not run) → aborted")
	assert.Regexp(t, `New failures:\n  high\s+New  fadt  1 finding\n`, out)
	assert.Regexp(t, `Failures gone:\n  low\s+Gone  fadt  was 1 finding\n`, out)
	assert.Regexp(t, `medium\s+More  fadt  1 → 2\n`, out)
	assert.Contains(t, out, "diff: REGRESSED")

	// Only a new low failure: a regression at low, not at medium.
	cur = doc(tests.Result{ID: "fadt", Status: tests.StatusFailed, Findings: []tests.Finding{fail("Gone", tests.Low), fail("More", tests.Medium), fail("Small", tests.Low)}},
		tests.Result{ID: "hpet", Status: tests.StatusPassed}, tests.Result{ID: "mcfg", Status: tests.StatusPassed})
	d = report.Compare(old, cur)
	assert.False(t, d.Regressed(tests.Medium))
	assert.True(t, d.Regressed(tests.Low))
	// Fewer findings of a label is no regression; the same document none.
	assert.False(t, report.Compare(cur, old).Regressed(tests.Low))
	d = report.Compare(old, old)
	assert.Empty(t, d.Appeared)
	assert.Empty(t, d.Status)
	b.Reset()
	require.NoError(t, report.WriteDiff(&b, old, old, d, report.TextOptions{}))
	assert.Contains(t, b.String(), "no change in statuses or failures")
}
