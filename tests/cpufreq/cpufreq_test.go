package cpufreq

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
