package image_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/report/lines"
)

// scanLines reads a boot's console lines (report/lines). No line may be
// lost without a trace: every gap in a boot's sequence is a line the
// reader saw damaged (a kernel message cut it).
func scanLines(t *testing.T, console string) *lines.Transcript {
	t.Helper()
	tr, err := lines.Scan(strings.NewReader(console))
	require.NoError(t, err)
	missing := 0
	for _, b := range tr.Boots {
		missing += b.Missing
	}
	assert.LessOrEqual(t, missing, tr.Damaged, "lines missing from the sequence that were not seen damaged")
	assert.Zero(t, tr.Stray, "lines outside a start and end pair")
	return tr
}

// checkLines checks the console lines of a boot that ran the checks of d
// and powered off: one start and one end line, a case line for every
// check with its status's result, and the end line's verdict.
func checkLines(t *testing.T, console string, d *report.Document) {
	t.Helper()
	tr := scanLines(t, console)
	require.Len(t, tr.Boots, 1, "one start line per boot")
	b := tr.Boots[0]
	require.NotNil(t, b.End, "the end line")
	assert.Equal(t, lines.Done, b.End.State)
	assert.Equal(t, b.End.Cases, len(b.Cases)+b.Missing, "the end line counts the case lines")
	assert.Equal(t, 1, strings.Count(console, lines.End+" "), "one end line")
	got := map[string]string{}
	for _, c := range b.Cases {
		got[c.ID] = c.Result
	}
	want := map[string]string{"passed": "pass", "warning": "pass", "failed": "fail", "aborted": "fail",
		"incomplete": "unknown", "skipped": "skip", "not-applicable": "skip"}
	lost := 0
	for _, r := range d.Results {
		res, ok := got[r.ID]
		if !ok {
			lost++
			continue
		}
		assert.Equal(t, want[string(r.Status)], res, "check %s (%s)", r.ID, r.Status)
	}
	assert.LessOrEqual(t, lost, tr.Damaged, "checks without a line")
	assert.Contains(t, []string{"pass", "fail", "nothing-checked"}, b.End.Verdict)
}

// checkCycleLines checks the console lines of TestBootResultsDiskBuses's
// four boots (three reboots, then three S3 cycles): each boot's start and
// end line, the three resets' end lines, a line for each reboot (printed
// by the boot after it) and for each S3 cycle with its kernel resume time
// measured, and a line that says so for each time that was not.
func checkCycleLines(t *testing.T, console string) {
	t.Helper()
	tr := scanLines(t, console)
	require.Len(t, tr.Boots, 4, "a start line in each boot")
	var states []string
	cases := map[string]lines.Line{}
	for _, b := range tr.Boots {
		if assert.NotNil(t, b.End, "each boot's end line") {
			states = append(states, b.End.State)
		}
		for _, c := range b.Cases {
			cases[c.ID] = c
		}
	}
	assert.Equal(t, []string{lines.Reset, lines.Reset, lines.Reset, lines.Done}, states)
	if tr.Damaged > 0 {
		t.Logf("%d lines cut by kernel messages; their checks are not asserted", tr.Damaged)
		return
	}
	for _, id := range []string{"reboot.cycle-1", "reboot.cycle-2", "reboot.cycle-3", "s3.cycle-1", "s3.cycle-2", "s3.cycle-3"} {
		if assert.Contains(t, cases, id) {
			assert.Equal(t, lines.Pass, cases[id].Result, id)
		}
	}
	for _, n := range []string{"1", "2", "3"} {
		k := cases["s3.cycle-"+n+".kernel-resume"]
		assert.Equal(t, "ms", k.Units, "cycle %s's kernel resume measured: %+v", n, k)
		for _, id := range []string{"s3.cycle-" + n + ".firmware-resume", "s3.cycle-" + n + ".asleep", "reboot.cycle-" + n + ".firmware-start"} {
			l, ok := cases[id]
			if assert.True(t, ok, id) && l.Measurement == "" {
				assert.Equal(t, "not-measured", l.Note, "%s: a time that is not there is said", id)
			}
		}
	}
}
