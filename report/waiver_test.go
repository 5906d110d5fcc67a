package report_test

import (
	"bytes"
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

func waived(t *testing.T, file string, at time.Time) *report.Document {
	t.Helper()
	ws, err := report.ReadWaivers(strings.NewReader(file))
	require.NoError(t, err)
	d := manyFindings()
	d.ApplyWaivers(ws, at)
	d.Judge(tests.Medium)
	return d
}

func TestWaivers(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d := waived(t, `{"waivers": [
		{"label": "AMLMethodNotFound", "check": "klog", "machine": {"sys_vendor": "ACME", "bios_version": "1.0.*"}, "reason": "fixed in 1.1", "expires": "2026-12-01"},
		{"label": "TPMSelfTestFailed", "reason": "old TPM", "expires": "2026-11-30"},
		{"label": "OSILinuxQuery", "machine": {"sys_vendor": "Other"}, "reason": "not this one", "expires": "2030-01-01"}
	]}`, now)
	assert.Equal(t, 12, d.Totals.Waived)
	assert.Equal(t, map[string]int{"critical": 1, "high": 0, "medium": 0, "low": 1}, d.Totals.Failures)
	require.Len(t, d.ExpiredWaivers, 1)
	assert.Equal(t, "TPMSelfTestFailed", d.ExpiredWaivers[0].Label)
	assert.Equal(t, "fixed in 1.1 (waiver until 2026-12-01)", d.Results[0].Findings[0].Waived)
	assert.Equal(t, "fail", d.Verdict.Result, "the expired waiver waives nothing")

	out := text(t, d, report.TextOptions{FailOn: tests.Medium, Width: 200})
	assert.Contains(t, out, "WAIVED AMLMethodNotFound [high], 12 findings:")
	assert.Contains(t, out, "waived: fixed in 1.1 (waiver until 2026-12-01)")
	assert.Contains(t, out, "expired waiver: TPMSelfTestFailed, expired 2026-11-30 (old TPM)")
	assert.Contains(t, out, "12 findings waived, 1 waiver expired")
	assert.NotRegexp(t, `high\s+AMLMethodNotFound`, out, "a waived label is not in the failing summary")

	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, d))
	reporttest.Check(t, b.Bytes())
	reporttest.CheckPython(t, b.Bytes())

	// A day later the first waiver has expired too.
	d = waived(t, `{"waivers": [{"label": "AMLMethodNotFound", "reason": "r", "expires": "2026-12-01"}]}`, now.Add(24*time.Hour))
	assert.Zero(t, d.Totals.Waived)
	assert.Len(t, d.ExpiredWaivers, 1)
}

func TestWaiverTurnsFailedCheckPassed(t *testing.T) {
	d := report.New("t", input.Identity{Source: "live:/", DMI: &input.DMIInfo{SysVendor: "ACME"}}, time.Now(), time.Now(), []tests.Result{
		{ID: "fadt", Title: "FADT", Category: tests.ACPI, Status: tests.StatusFailed, Findings: []tests.Finding{
			{Kind: tests.KindFail, Label: "XLabel", Severity: tests.High, Message: "m", Advice: "a"}, {Kind: tests.KindPass, Message: "ok"}}},
	})
	ws, err := report.ReadWaivers(strings.NewReader(`{"waivers":[{"label":"XLabel","reason":"known","expires":"2999-01-01"}]}`))
	require.NoError(t, err)
	d.ApplyWaivers(ws, time.Now())
	assert.Equal(t, tests.StatusPassed, d.Results[0].Status)
	assert.False(t, d.Failing(tests.Low))
	assert.Equal(t, 1, d.Totals.Status["passed"])
}

func TestWaiverFileErrors(t *testing.T) {
	for file, want := range map[string]string{
		`{"waivers":[{"label":"bad label","reason":"r","expires":"2027-01-01"}]}`:                            "entry 1 (bad label): label",
		`{"waivers":[{"label":"XLabel","expires":"2027-01-01"}]}`:                                            "no reason",
		`{"waivers":[{"label":"XLabel","reason":"r","expires":"soon"}]}`:                                     "YYYY-MM-DD",
		`{"waivers":[{"label":"XLabel","reason":"r","expires":"2027-01-01","machine":{"serial":"1"}}]}`:      `machine field "serial"`,
		`{"waivers":[{"label":"XLabel","reason":"r","expires":"2027-01-01","machine":{"sys_vendor":"[x"}}]}`: "pattern",
		`{"waivers":[{"label":"XLabel","reason":"r","expires":"2027-01-01","comment":"x"}]}`:                 "unknown field",
		`{"waivers":[{"label":"XLabel","check":"Bad","reason":"r","expires":"2027-01-01"}]}`:                 "check ID",
		`[]`:  "waivers",
		`{}`:  `no "waivers" list`,
		`{"w`: "waivers",
	} {
		_, err := report.ReadWaivers(strings.NewReader(file))
		assert.ErrorContains(t, err, want, file)
		if err != nil {
			assert.NotContains(t, err.Error(), "\n")
		}
	}
}
