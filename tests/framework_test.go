package tests

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
)

var (
	testLabel  = NewLabel("FrameworkTestFailure", Medium, "none", "Fixture label used by the framework's own tests.")
	testHigh   = NewLabel("FrameworkTestHigh", High, "none", "Fixture label used by the framework's own tests.")
	testLabels = []*Label{testLabel, testHigh}
)

func fakeChecks() []*Check {
	run := func(p *Pass) error { p.Passed("ok"); return nil }
	return []*Check{
		{ID: "zpower", Title: "suspends", Category: Power, Flags: PowerState, Run: run},
		{ID: "klogish", Title: "log", Category: Log, Run: run},
		{ID: "bravo", Title: "b", Category: ACPI, Run: run},
		{ID: "alpha", Title: "a", Category: ACPI, Run: run},
		{ID: "mtrrish", Title: "m", Category: CPU, Inputs: []input.Decl{input.MemoryMap}, Run: run},
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

// run runs one check on an empty machine.
func run(c *Check) Result {
	if c.Category == "" {
		c.Category = ACPI
	}
	if c.Title == "" {
		c.Title = "t"
	}
	return RunOne(&Env{Machine: input.New(input.Empty(), input.Options{})}, c)
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

func TestSelectLenientKeepsTheValidPart(t *testing.T) {
	got, errs := SelectLenient(fakeChecks(), Selection{IDs: []string{"alpha", "mtrr", "zpower"}})
	assert.Equal(t, []string{"alpha", "zpower"}, ids(got))
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], `unknown check "mtrr"`)
	// Every named check unknown: nothing runs (rather than everything).
	got, errs = SelectLenient(fakeChecks(), Selection{IDs: []string{"mtrr"}})
	assert.Empty(t, got)
	assert.Len(t, errs, 1)
}

func TestRunAbortsOnPanicAndErrorAndGoesOn(t *testing.T) {
	checks := []*Check{
		{ID: "panics", Title: "p", Category: ACPI, Run: func(p *Pass) error {
			p.Passed("before the panic")
			var tbl map[string]int
			tbl["x"] = 1 // nil map write
			return nil
		}},
		{ID: "errs", Title: "e", Category: ACPI, Run: func(p *Pass) error { return errors.New("table vanished") }},
		{ID: "fine", Title: "f", Category: ACPI, Labels: testLabels, Run: func(p *Pass) error { p.Fail(testLabel, "value %d", 7); return nil }},
	}
	rs := Run(&Env{Machine: input.New(input.Empty(), input.Options{})}, checks)
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
	c := &Check{ID: "tables", Title: "t", Category: ACPI, Inputs: []input.Decl{input.ACPITables},
		Run: func(p *Pass) error { ran = true; return nil }}
	// A snapshot with no ACPI tables in it.
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "proc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "proc/version"), []byte("Linux 6.1\n"), 0o644))
	src, err := input.Open(dir)
	require.NoError(t, err)
	r := RunOne(&Env{Machine: input.New(src, input.Options{})}, c)
	assert.False(t, ran)
	assert.Equal(t, StatusSkipped, r.Status)
	assert.Contains(t, r.Reason, "acpi-tables unavailable")

	// A missing file given on the command line also skips, naming the file.
	m := input.New(input.Empty(), input.Options{Files: map[input.Decl]string{input.ACPITables: filepath.Join(dir, "nope.txt")}})
	r = RunOne(&Env{Machine: m}, c)
	assert.Equal(t, StatusSkipped, r.Status)
	assert.Contains(t, r.Reason, "nope.txt")
}

// Every status, from what a check recorded.
func TestStatuses(t *testing.T) {
	mk := func(f func(p *Pass)) Result {
		return run(&Check{ID: "x", Labels: testLabels, Run: func(p *Pass) error { f(p); return nil }})
	}
	assert.Equal(t, StatusPassed, mk(func(p *Pass) { p.Passed("a"); p.Info(nil, "b") }).Status)
	assert.Equal(t, StatusWarning, mk(func(p *Pass) { p.Passed("a"); p.Warn(nil, "w") }).Status)
	r := mk(func(p *Pass) { p.Warn(nil, "w"); p.Fail(testLabel, "f"); p.Fail(testHigh, "g") })
	assert.Equal(t, StatusFailed, r.Status)
	assert.Equal(t, High, r.Worst())
	assert.Equal(t, StatusSkipped, mk(func(p *Pass) { p.Skip("no %s", "log") }).Status)

	// Nothing checked is not a pass.
	r = mk(func(p *Pass) { p.Info(nil, "only an info") })
	assert.Equal(t, StatusIncomplete, r.Status)
	require.Len(t, r.Unchecked, 1)
	assert.Equal(t, "the check evaluated nothing", r.Unchecked[0].Reason)

	// Part not checked: incomplete, with the reason and the remedy.
	r = mk(func(p *Pass) {
		p.Passed("tables sum to zero")
		p.NotChecked("RSDP checksums", "RSDP not read: the kernel restricts /dev/mem", "boot with iomem=relaxed")
	})
	assert.Equal(t, StatusIncomplete, r.Status)
	assert.Equal(t, []Unchecked{{"RSDP checksums", "RSDP not read: the kernel restricts /dev/mem", "boot with iomem=relaxed"}}, r.Unchecked)
	// What could be checked failed: failed, and the unchecked part is still listed.
	r = mk(func(p *Pass) { p.Fail(testLabel, "bad"); p.NotChecked("RSDP", "absent", "") })
	assert.Equal(t, StatusFailed, r.Status)
	assert.Len(t, r.Unchecked, 1)

	r = mk(func(p *Pass) { p.NotApplicable("no HPET table") })
	assert.Equal(t, StatusNotApplicable, r.Status)
	assert.Equal(t, "no HPET table", r.Reason)

	// An explained failure is shown but does not fail the check.
	r = mk(func(p *Pass) { p.Explained(testLabel, "virtual machine (DMI: QEMU)", "TSC unstable") })
	assert.Equal(t, StatusPassed, r.Status)
	assert.Equal(t, "virtual machine (DMI: QEMU)", r.Findings[0].Explained)
	assert.False(t, r.Findings[0].Fails())
	assert.Equal(t, None, r.Worst())

	// A failure without a label, or with one the check did not declare, is
	// a bug in the check: it aborts.
	r = mk(func(p *Pass) { p.Report(Finding{Kind: KindFail, Message: "m"}) })
	assert.Equal(t, StatusAborted, r.Status)
	other := NewLabel("FrameworkTestUndeclared", Low, "none", "Fixture.")
	r = mk(func(p *Pass) { p.Fail(other, "m") })
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, "does not declare")
}

func TestFindingsPerLabelAreCapped(t *testing.T) {
	r := run(&Check{ID: "flood", Labels: testLabels, Run: func(p *Pass) error {
		for i := 0; i < 2000; i++ {
			p.Fail(testLabel, "overlap %d", i)
		}
		p.Fail(testHigh, "one other")
		return nil
	}})
	// The listed findings are real ones; the rest is a count, not a
	// finding.
	require.Len(t, r.Findings, MaxPerLabel+1)
	for _, f := range r.Findings {
		assert.NotContains(t, f.Message, "more")
	}
	assert.Equal(t, []Omitted{{Kind: KindFail, Label: "FrameworkTestFailure", Severity: testLabel.Severity, Advice: testLabel.Advice, Spec: testLabel.Spec, Count: 1900}}, r.Omitted)
	assert.Contains(t, Render([]Result{r}), "  fail FrameworkTestFailure [medium]: … and 1900 more FrameworkTestFailure findings not listed (2000 in all)\n")
	assert.Equal(t, StatusFailed, r.Status)
}

func TestOmittedKeepTheirClass(t *testing.T) {
	r := run(&Check{ID: "flood", Labels: testLabels, Run: func(p *Pass) error {
		for i := 0; i < MaxPerLabel; i++ {
			p.Explained(testLabel, "virtual machine", "listed %d", i)
		}
		for i := 0; i < 30; i++ {
			p.Explained(testLabel, "virtual machine", "over %d", i)
			p.Warn(testLabel, "warned %d", i)
		}
		return nil
	}})
	require.Len(t, r.Omitted, 2)
	assert.Equal(t, 30, r.Omitted[0].Count)
	assert.Equal(t, "virtual machine", r.Omitted[0].Explained)
	assert.False(t, r.Omitted[0].Fails())
	assert.Equal(t, KindWarning, r.Omitted[1].Kind)
	assert.Equal(t, StatusWarning, r.Status, "explained failures over the cap do not fail the check")
}

func TestFailureIsNotHiddenByALaterSkip(t *testing.T) {
	for name, end := range map[string]func(p *Pass){
		"skip":           func(p *Pass) { p.Skip("the second table is unreadable") },
		"not applicable": func(p *Pass) { p.NotApplicable("no second table") },
	} {
		r := run(&Check{ID: "late", Labels: testLabels, Run: func(p *Pass) error {
			p.Fail(testLabel, "first half broken")
			end(p)
			return nil
		}})
		assert.Equal(t, StatusFailed, r.Status, name)
		require.Len(t, r.Unchecked, 1, name)
		assert.Equal(t, "the rest of the check", r.Unchecked[0].What, name)
	}
}

func TestUndeclaredInputAborts(t *testing.T) {
	r := run(&Check{ID: "sneaky", Run: func(p *Pass) error { Input(p, input.ACPITables); return nil }})
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, "without declaring it")
}

func TestNeedsRootFollowsInputs(t *testing.T) {
	c := &Check{ID: "r", Title: "r", Category: CPU, Inputs: []input.Decl{input.ACPITables},
		Run: func(p *Pass) error { p.Passed("ok"); return nil }}
	assert.True(t, c.NeedsRoot())
	assert.False(t, (&Check{Inputs: []input.Decl{input.KernelLog}}).NeedsRoot())
	r := RunOne(&Env{Machine: input.New(input.Live(t.TempDir()), input.Options{})}, c)
	if os.Geteuid() == 0 {
		assert.NotContains(t, r.Reason, "needs root")
	} else {
		assert.True(t, strings.HasPrefix(r.Reason, "acpi-tables unavailable: needs root: run fwcheck as root"), r.Reason)
	}
}

// fakeControl records what a check asked of the machine.
type fakeControl struct{ marks []string }

func (f *fakeControl) Mark(m string) error { f.marks = append(f.marks, m); return nil }
func (f *fakeControl) Suspend(input.SuspendRequest) (input.SuspendResult, error) {
	return input.SuspendResult{Asleep: 5 * time.Second}, nil
}
func (f *fakeControl) Reboot(string) error { return errors.New("fake") }

func TestControlOnlyForActingChecks(t *testing.T) {
	acting := &Check{ID: "sleepy", Title: "s", Category: Power, Flags: PowerState, Run: func(p *Pass) error {
		r, err := p.Control().Suspend(input.SuspendRequest{State: "mem"})
		if err != nil {
			return err
		}
		p.Passed("slept %v", r.Asleep)
		return p.Control().Mark("done")
	}}
	// Without a live machine to act on, the check is skipped saying why.
	r := run(acting)
	assert.Equal(t, StatusSkipped, r.Status)
	assert.Contains(t, r.Reason, "no live machine")

	fc := &fakeControl{}
	r = RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: fc}, acting)
	assert.Equal(t, StatusPassed, r.Status, r.Reason)
	assert.Equal(t, "slept 5s", r.Findings[0].Message)
	assert.Equal(t, []string{"done"}, fc.marks)

	// A check without the flag gets no control, even when the run has one.
	quiet := &Check{ID: "quiet", Title: "q", Category: ACPI, Run: func(p *Pass) error { p.Control(); return nil }}
	r = RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: fc}, quiet)
	assert.Equal(t, StatusAborted, r.Status)
}

func TestSettingsBelongToOneRun(t *testing.T) {
	cycles := IntOpt("cycles", "how many", 3, 1, 1000)
	var seen []int
	c := &Check{ID: "cyc", Title: "c", Category: Power, Settings: []Setting{cycles}, Run: func(p *Pass) error {
		seen = append(seen, cycles.Get(p))
		p.Passed("ok")
		return nil
	}}
	var set Settings
	require.NoError(t, set.Set(c, "cycles", "300"))
	assert.ErrorContains(t, set.Set(c, "cycles", "0"), "outside 1…1000")
	assert.ErrorContains(t, set.Set(c, "cycles", "many"), "not a whole number")
	assert.ErrorContains(t, set.Set(c, "sleep", "1s"), "cyc.sleep: no such setting")
	m := input.New(input.Empty(), input.Options{})
	RunOne(&Env{Machine: m, Settings: &set}, c)
	RunOne(&Env{Machine: m}, c)
	assert.Equal(t, []int{300, 3}, seen, "a second run does not inherit the first one's value")
	assert.Equal(t, map[string]string{"cyc.cycles": "300"}, set.Raw())
}

func TestValidate(t *testing.T) {
	ok := func(*Pass) error { return nil }
	bad := func(l *Label) []*Check {
		return []*Check{{ID: "bad", Title: "t", Category: ACPI, Run: ok, Labels: []*Label{l}}}
	}
	assert.ErrorContains(t, Validate(bad(NewLabel("not-camel", Low, "", "x"))), "not CamelCase")
	assert.ErrorContains(t, Validate(bad(NewLabel("NoAdvice", Low, "", " "))), "no advice")
	assert.ErrorContains(t, Validate(bad(NewLabel("NoSeverity", 0, "", "x"))), "no valid severity")
	assert.NoError(t, Validate(fakeChecks()))
	assert.ErrorContains(t, Validate([]*Check{{ID: "Upper", Title: "t", Category: ACPI, Run: ok}}), "lowercase")
	assert.ErrorContains(t, Validate([]*Check{{ID: "all", Title: "t", Category: ACPI, Run: ok}}), "lowercase")
	assert.ErrorContains(t, Validate([]*Check{{ID: "cat", Title: "t", Category: "gpu", Run: ok}}), "unknown category")
	assert.ErrorContains(t, Validate([]*Check{
		{ID: "a", Title: "t", Category: ACPI, Run: ok, Labels: []*Label{testLabel}},
		{ID: "b", Title: "t", Category: ACPI, Run: ok, Labels: []*Label{testLabel}},
	}), `label "FrameworkTestFailure" declared by both "a" and "b"`)
	assert.ErrorContains(t, Validate([]*Check{{ID: "a", Title: "t", Category: ACPI, Run: ok}, {ID: "a", Title: "t", Category: ACPI, Run: ok}}), "duplicate check ID")
}

func TestUnknownCheckSuggestion(t *testing.T) {
	cs := []*Check{{ID: "fadt"}, {ID: "hpet"}, {ID: "mcfg-reserved"}}
	for id, want := range map[string]string{"fatd": "fadt", "FADT": "fadt", "hept": "hpet", "mcfg-reserve": "mcfg-reserved", "xyz": "", "madt": "fadt", "a": ""} {
		assert.Equal(t, want, unknownCheck(cs, id).Suggest, id)
	}
}

func TestEachFlagGrantsOnlyItsPower(t *testing.T) {
	env := &Env{Machine: input.New(input.Empty(), input.Options{}), Control: &fakeControl{}}
	suspender := &Check{ID: "suspender", Title: "t", Category: Power, Flags: PowerState, Run: func(p *Pass) error {
		return p.Control().Reboot("")
	}}
	r := RunOne(env, suspender)
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, "asks to reboot without the unsafe flag")

	rebooter := &Check{ID: "rebooter", Title: "t", Category: Power, Flags: Unsafe, Run: func(p *Pass) error {
		_, err := p.Control().Suspend(input.SuspendRequest{State: "mem"})
		return err
	}}
	r = RunOne(env, rebooter)
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, "asks to suspend without the power-state flag")
	assert.True(t, Unsafe.RunsOnlyWhenNamed() && PowerState.RunsOnlyWhenNamed() && !Flags(0).RunsOnlyWhenNamed())
}

// TestAliases: a renamed check's former ID selects, skips and looks it up;
// the ID rule refuses uneven forms, and an alias may not collide with
// another check's ID or alias.
func TestAliases(t *testing.T) {
	ok := func(*Pass) error { return nil }
	cs := []*Check{{ID: "acpi-tables", Aliases: []string{"acpitables"}, Title: "t", Category: ACPI, Run: ok}, {ID: "fadt", Title: "t", Category: ACPI, Run: ok}}
	require.NoError(t, Validate(cs))
	got, err := Select(cs, Selection{IDs: []string{"acpitables"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"acpi-tables"}, ids(got))
	got, err = Select(cs, Selection{Skip: []string{"acpitables"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"fadt"}, ids(got))
	got, errs := SelectLenient(cs, Selection{IDs: []string{"acpitables", "nosuch"}})
	assert.Equal(t, []string{"acpi-tables"}, ids(got))
	assert.Len(t, errs, 1)
	assert.Equal(t, "acpi-tables", Canonical(cs, "acpitables"))
	assert.Equal(t, "nosuch", Canonical(cs, "nosuch"))
	assert.Same(t, cs[0], Lookup(cs, "acpitables"))

	for _, id := range []string{"acpi_tables", "acpi--tables", "-acpi", "acpi-", "Acpi"} {
		assert.ErrorContains(t, Validate([]*Check{{ID: id, Title: "t", Category: ACPI, Run: ok}}), "lowercase words joined by hyphens", id)
	}
	assert.ErrorContains(t, Validate(append(cs, &Check{ID: "x", Aliases: []string{"fadt"}, Title: "t", Category: ACPI, Run: ok})), `alias "fadt"`)
	assert.ErrorContains(t, Validate(append(cs, &Check{ID: "acpitables", Title: "t", Category: ACPI, Run: ok})), "duplicate check ID")
}
