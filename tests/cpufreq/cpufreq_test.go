package cpufreq

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/platform/platformtest"
)

func render(r tests.Result) string { return tests.Render([]tests.Result{r}) }

func TestLaptop(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "laptop", nil))
	// Sound, but the speed under load is not measured: incomplete, not passed.
	assert.Equal(t, tests.StatusIncomplete, r.Status, render(r))
	assert.Empty(t, checktest.FailLabels(r))
	assert.Equal(t, "2 policies, all with driver acpi-cpufreq, governors conservative ondemand performance powersave schedutil userspace, 6 P-states 2601/2600/2400/2000/1600/1200 MHz; 1200000-2601000 kHz", r.Findings[0].Message)
	assert.Equal(t, "boost (turbo) is enabled (cpufreq/boost 1)", r.Findings[1].Message)
}

func TestBroken(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "broken", nil))
	assert.Equal(t, []string{"CPUFreqPoliciesDiffer", "CPUFreqPStateOrder"}, checktest.FailLabels(r), render(r))
}

func TestAbsent(t *testing.T) {
	dsdt := checktest.SDT("DSDT", 2, []byte("\x10\x0a\\_PR_")) // a scope, no _PSS or _CPC
	for _, c := range []struct {
		name   string
		files  map[string][]byte
		status tests.Status
		reason string
	}{
		{"QEMU", map[string][]byte{"sys/class/dmi/id/sys_vendor": []byte("QEMU\n")}, tests.StatusNotApplicable, "virtual machine (DMI: QEMU"},
		{"no _PSS", map[string][]byte{"sys/firmware/acpi/tables/DSDT": dsdt}, tests.StatusNotApplicable, "has no _PSS or _CPC"},
		{"_PSS, no driver", map[string][]byte{"sys/firmware/acpi/tables/DSDT": checktest.SDT("DSDT", 2, []byte("\x08_PSS\x12\x02\x00"))}, tests.StatusSkipped, "load acpi-cpufreq"},
		{"nothing known", map[string][]byte{"proc/version": []byte("Linux\n")}, tests.StatusSkipped, "without the ACPI tables"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.FilesMachine(t, c.files))
			assert.Equal(t, c.status, r.Status, render(r))
			assert.Contains(t, r.Reason, c.reason)
		})
	}
}

func TestMaxUnderLoad(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "laptop", nil))
	assert.Contains(t, render(r), "policy0: cpu0 ran at 3204 MHz under load (APERF/MPERF over 0.30 s), the maximum being 2601 MHz (cpuinfo_max_freq)")
	assert.Contains(t, render(r), "policy1: cpu1 ran at 3194 MHz under load")
	require.Len(t, r.Unchecked, 1)
	assert.Equal(t, "run the cpufreq-steps check by name", r.Unchecked[0].Remedy)

	r = checktest.Run(t, Check, platformtest.Fixture(t, "broken", nil))
	w := checktest.FindingWith(r, "CPUFreqMaxNotReached")
	require.NotNil(t, w, render(r))
	assert.Equal(t, tests.KindWarning, w.Kind)
	assert.Equal(t, "policy0: cpu0 ran at 1200 MHz under load (APERF/MPERF over 0.30 s), below the maximum 2601 MHz (cpuinfo_max_freq), governor schedutil", w.Message)
	assert.Contains(t, render(r), "cpu1's counters: IA32_MPERF (0xE7): input/output error")
}

func TestJudgeSteps(t *testing.T) {
	khz := []int64{2601000, 2600000, 2400000, 2000000, 1600000, 1200000}
	for _, c := range []struct {
		name string
		mhz  []float64
		warn []string
	}{
		{"each step", []float64{3190, 2598, 2401, 1999, 1601, 1199}, nil},
		{"stuck", []float64{3190, 2598, 2401, 2398, 1601, 1199}, []string{"P-state 2 (2400 MHz) measured 2401 MHz, P-state 3 (2000 MHz) 2398 MHz"}},
		{"reversed", []float64{3190, 2598, 2401, 1601, 1999, 1199}, []string{"P-state 3 (2000 MHz) measured 1601 MHz, P-state 4 (1600 MHz) 1999 MHz: -398 MHz apart"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, &tests.Check{ID: "x", Title: "x", Category: tests.CPU, Labels: Steps.Labels,
				Run: func(p *tests.Pass) error { JudgeSteps(p, "policy0", khz, c.mhz); return nil }}, checktest.FilesMachine(t, nil))
			var got []string
			for _, f := range r.Findings {
				if f.Label != "" {
					got = append(got, f.Message)
				}
			}
			require.Len(t, got, len(c.warn), render(r))
			for i := range got {
				assert.Contains(t, got[i], c.warn[i])
			}
			if c.warn == nil {
				assert.Equal(t, tests.StatusPassed, r.Status, render(r))
			}
		})
	}
}
