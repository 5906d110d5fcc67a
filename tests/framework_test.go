package tests

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
)

var (
	testLabel = NewLabel("FrameworkTestFailure", Medium, "none", "Fixture label used by the framework's own tests.")
	testHigh  = NewLabel("FrameworkTestHigh", High, "none", "Fixture label used by the framework's own tests.")
)

func fakeChecks() []*Check {
	run := func(p *Pass) error { p.Passed("ok"); return nil }
	return []*Check{
		{ID: "zpower", Title: "suspends", Category: Power, Flags: PowerState, Run: run},
		{ID: "klogish", Title: "log", Category: Log, Run: run},
		{ID: "bravo", Title: "b", Category: ACPI, Run: run},
		{ID: "alpha", Title: "a", Category: ACPI, Run: run},
		{ID: "mtrrish", Title: "m", Category: CPU, Flags: NeedsRoot, Run: run},
		{ID: "wipe", Title: "writes", Category: UEFI, Flags: Unsafe, Run: run},
	}
}

func ids(cs []*Check) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestSelectOrderAndDefaults(t *testing.T) {
	got, err := Select(fakeChecks(), Selection{})
	require.NoError(t, err)
	// Category order first, then ID; unsafe and power-state checks only when named.
	assert.Equal(t, []string{"alpha", "bravo", "mtrrish", "klogish"}, ids(got))

	got, err = Select(fakeChecks(), Selection{IDs: []string{"all"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha", "bravo", "mtrrish", "klogish"}, ids(got))

	got, err = Select(fakeChecks(), Selection{IDs: []string{"zpower", "alpha", "wipe"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha", "wipe", "zpower"}, ids(got), "named checks run in the defined order, not the command-line order")
}

func TestSelectCategoryAndSkip(t *testing.T) {
	got, err := Select(fakeChecks(), Selection{Categories: []Category{ACPI, Log}, Skip: []string{"bravo"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha", "klogish"}, ids(got))

	_, err = Select(fakeChecks(), Selection{IDs: []string{"nosuch"}})
	assert.ErrorContains(t, err, `unknown check "nosuch"`)
	_, err = Select(fakeChecks(), Selection{Skip: []string{"nosuch"}})
	assert.Error(t, err)
	_, err = Select(fakeChecks(), Selection{Categories: []Category{"gpu"}})
	assert.ErrorContains(t, err, `unknown category "gpu"`)
}

func TestRunAbortsOnPanicAndErrorAndGoesOn(t *testing.T) {
	m := input.New(input.Empty(), input.Options{})
	checks := []*Check{
		{ID: "panics", Title: "p", Category: ACPI, Run: func(p *Pass) error {
			p.Passed("before the panic")
			var tbl map[string]int
			tbl["x"] = 1 // nil map write
			return nil
		}},
		{ID: "errs", Title: "e", Category: ACPI, Run: func(p *Pass) error { return errors.New("table vanished") }},
		{ID: "fine", Title: "f", Category: ACPI, Run: func(p *Pass) error { p.Fail(testLabel, "value %d", 7); return nil }},
	}
	rs := RunChecks(m, checks)
	require.Len(t, rs, 3)
	assert.Equal(t, StatusAborted, rs[0].Status)
	assert.Contains(t, rs[0].Reason, "panic: assignment to entry in nil map")
	assert.Contains(t, rs[0].Reason, "framework_test.go", "the reason names where it broke")
	assert.Len(t, rs[0].Findings, 1, "findings made before the panic are kept")
	assert.Equal(t, StatusAborted, rs[1].Status)
	assert.Equal(t, "table vanished", rs[1].Reason)
	assert.Equal(t, StatusFailed, rs[2].Status)
	assert.Equal(t, Finding{Kind: KindFail, Label: "FrameworkTestFailure", Severity: Medium, Message: "value 7",
		Advice: "Fixture label used by the framework's own tests.", Spec: "none"}, rs[2].Findings[0])
}

func TestSkipOnMissingInput(t *testing.T) {
	ran := false
	c := &Check{ID: "tables", Title: "t", Category: ACPI, Inputs: []input.Name{input.ACPITables},
		Run: func(p *Pass) error { ran = true; return nil }}
	// A snapshot with no ACPI tables in it.
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "proc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "proc/version"), []byte("Linux 6.1\n"), 0o644))
	src, err := input.Open(dir)
	require.NoError(t, err)
	r := RunCheck(input.New(src, input.Options{}), c)
	assert.False(t, ran)
	assert.Equal(t, StatusSkipped, r.Status)
	assert.Contains(t, r.Reason, "acpi-tables unavailable")

	// A missing file given on the command line also skips, naming the file.
	r = RunCheck(input.New(input.Empty(), input.Options{ACPIDump: filepath.Join(dir, "nope.txt")}), c)
	assert.Equal(t, StatusSkipped, r.Status)
	assert.Contains(t, r.Reason, "nope.txt")
}

func TestStatusFromFindings(t *testing.T) {
	m := input.New(input.Empty(), input.Options{})
	mk := func(run func(p *Pass)) Result {
		return RunCheck(m, &Check{ID: "x", Title: "x", Category: ACPI, Run: func(p *Pass) error { run(p); return nil }})
	}
	assert.Equal(t, StatusPassed, mk(func(p *Pass) { p.Passed("a"); p.Info(nil, "b") }).Status)
	assert.Equal(t, StatusWarning, mk(func(p *Pass) { p.Warn(nil, "w") }).Status)
	r := mk(func(p *Pass) { p.Warn(nil, "w"); p.Fail(testLabel, "f"); p.Fail(testHigh, "g") })
	assert.Equal(t, StatusFailed, r.Status)
	assert.Equal(t, High, r.Worst())
	assert.Equal(t, StatusSkipped, mk(func(p *Pass) { p.Skip("no %s", "HPET") }).Status)
	// A failure without a label is a bug in the check: it aborts.
	r = mk(func(p *Pass) { p.Report(Finding{Kind: KindFail, Message: "m"}) })
	assert.Equal(t, StatusAborted, r.Status)
}

func TestUndeclaredInputAborts(t *testing.T) {
	m := input.New(input.Empty(), input.Options{})
	r := RunCheck(m, &Check{ID: "sneaky", Title: "s", Category: ACPI, Run: func(p *Pass) error { p.ACPI(); return nil }})
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, "without declaring it")
}

func TestNeedsRootSkipsOnlyLiveUnprivileged(t *testing.T) {
	c := &Check{ID: "r", Title: "r", Category: CPU, Flags: NeedsRoot, Inputs: []input.Name{input.ACPITables},
		Run: func(p *Pass) error { return nil }}
	live := input.New(input.Live(t.TempDir()), input.Options{})
	r := RunCheck(live, c)
	if os.Geteuid() == 0 {
		assert.NotEqual(t, "needs root", r.Reason)
	} else {
		assert.Equal(t, "needs root", r.Reason)
	}
}

func TestLabelsAndRegistry(t *testing.T) {
	assert.Panics(t, func() { NewLabel("FrameworkTestFailure", Low, "", "again") }, "duplicate")
	assert.Panics(t, func() { NewLabel("not-camel", Low, "", "x") })
	assert.Panics(t, func() { NewLabel("NoAdvice", Low, "", " ") })
	assert.Panics(t, func() {
		Register(&Check{ID: "Upper", Title: "t", Category: ACPI, Run: func(*Pass) error { return nil }})
	})
	assert.Panics(t, func() {
		Register(&Check{ID: "cat", Title: "t", Category: "gpu", Run: func(*Pass) error { return nil }})
	})

	// Every registered check is well-formed and every label carries advice and a spec.
	for _, c := range All() {
		assert.NotEmpty(t, c.Spec, "check %s has no spec reference", c.ID)
	}
	for _, l := range Labels() {
		assert.NotEmpty(t, l.Spec, "label %s has no spec section", l.Name)
	}
}
