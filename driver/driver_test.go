package driver_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/driver"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
)

var dump = filepath.Join("..", "cmd", "fwcheck", "testdata", "badsum.acpidump.txt")

func TestRunSelectsRunsAndJudges(t *testing.T) {
	cfg := &driver.Config{Version: "test", Selection: tests.Selection{IDs: []string{"checksum"}},
		Files: input.Options{Files: map[input.Decl]string{input.ACPITables: dump}}}
	d, err := driver.Run(cfg)
	require.NoError(t, err)
	require.Len(t, d.Results, 1)
	assert.Equal(t, "checksum", d.Results[0].ID)
	assert.Equal(t, tests.StatusFailed, d.Results[0].Status)
	assert.Equal(t, map[string]string{"acpi-tables": dump}, d.Machine.Files)
	assert.Equal(t, driver.Failing, driver.Judge(d, nil, tests.Low))
	assert.Equal(t, "fail", d.Verdict.Result)

	// A waiver of every failing label turns the outcome around.
	var ws []report.Waiver
	for _, f := range d.Results[0].Findings {
		if f.Fails() {
			ws = append(ws, report.Waiver{Label: f.Label, Reason: "known", Expires: "2999-01-01"})
		}
	}
	require.NotEmpty(t, ws)
	assert.NotEqual(t, driver.Failing, driver.Judge(d, ws, tests.Low))
}

func TestLenientSelectionKeepsTheRun(t *testing.T) {
	cfg := &driver.Config{Selection: tests.Selection{IDs: []string{"checksum", "chekcsum-typo"}}, Lenient: true,
		Files: input.Options{Files: map[input.Decl]string{input.ACPITables: dump}}}
	d, err := driver.Run(cfg)
	require.NoError(t, err)
	require.Len(t, d.Results, 1)
	require.Len(t, d.Errors, 1)
	assert.Contains(t, d.Errors[0], "chekcsum-typo")

	cfg.Lenient = false
	_, err = driver.Run(cfg)
	assert.ErrorContains(t, err, "unknown check")
}

func TestNamedFileMustLoad(t *testing.T) {
	cfg := &driver.Config{Files: input.Options{Files: map[input.Decl]string{input.ACPITables: "does-not-exist.txt"}}}
	_, err := driver.Run(cfg)
	assert.ErrorContains(t, err, "does-not-exist.txt")
}

func TestNothingChecked(t *testing.T) {
	d, err := driver.Run(&driver.Config{From: t.TempDir(), Selection: tests.Selection{IDs: []string{"checksum"}}})
	require.NoError(t, err)
	assert.Equal(t, tests.StatusSkipped, d.Results[0].Status)
	assert.Equal(t, driver.NothingChecked, driver.Judge(d, nil, tests.Low))
}

// TestFormerIDs: a document and waivers written before a check was
// renamed read with its current ID.
func TestFormerIDs(t *testing.T) {
	cs := []*tests.Check{{ID: "acpi-tables", Aliases: []string{"acpitables"}}}
	d := &report.Document{Results: []report.Result{{Result: tests.Result{ID: "acpitables"}}, {Result: tests.Result{ID: "gone"}}}}
	driver.CanonicalIDs(d, cs)
	assert.Equal(t, "acpi-tables", d.Results[0].ID)
	assert.Equal(t, "gone", d.Results[1].ID)
	ws := []report.Waiver{{Label: "L", Check: "acpitables"}, {Label: "M"}}
	driver.CanonicalWaivers(ws, cs)
	assert.Equal(t, "acpi-tables", ws[0].Check)
	assert.Equal(t, "", ws[1].Check)
}

// recorder is an Observer that writes down what it sees.
type recorder struct{ events []string }

func (r *recorder) CheckStarted(id string) { r.events = append(r.events, "start "+id) }
func (r *recorder) CheckEnded(res tests.Result) {
	r.events = append(r.events, "end "+res.ID+" "+string(res.Status))
}
func (r *recorder) CycleEnded(check string, c tests.CycleRecord) {
	r.events = append(r.events, fmt.Sprintf("cycle %s %d %s", check, c.Cycle, c.Status))
}

func TestObserverSeesTheRunAsItGoes(t *testing.T) {
	cycling := &tests.Check{ID: "cycler", Title: "cycles twice", Category: tests.Power, Run: func(p *tests.Pass) error {
		for n := 1; n <= 2; n++ {
			p.CycleEnded(tests.CycleRecord{Cycle: n, Status: "passed"})
		}
		p.Passed("2 cycles")
		return nil
	}}
	other := &tests.Check{ID: "other", Title: "passes", Category: tests.Power, Run: func(p *tests.Pass) error {
		p.Passed("ok")
		return nil
	}}
	rec := &recorder{}
	d, err := driver.Run(&driver.Config{From: t.TempDir(), Checks: []*tests.Check{cycling, other}, Observer: rec})
	require.NoError(t, err)
	require.Len(t, d.Results, 2)
	assert.Equal(t, []string{"start cycler", "cycle cycler 1 passed", "cycle cycler 2 passed", "end cycler passed", "start other", "end other passed"}, rec.events)
}
