package cstates

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/platform/platformtest"
)

func render(r tests.Result) string { return tests.Render([]tests.Result{r}) }

func messages(r tests.Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Message)
	}
	return out
}

func TestLaptop(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "laptop", nil))
	assert.Equal(t, tests.StatusPassed, r.Status, render(r))
	m := messages(r)
	require.Len(t, m, 6, render(r))
	assert.Equal(t, "2 CPUs offer the same 5 idle states (POLL C1 C1E C3 C6) from driver intel_idle", m[0])
	assert.Contains(t, m[1], "POLL (CPUIDLE CORE POLL IDLE, exit latency 0 µs): the kernel's busy-wait state")
	assert.Equal(t, "C6 (MWAIT 0x20, exit latency 85 µs) entered 620 times on 2 of 2 CPUs, 3.824 s in all, in 2 s idle", m[5])
}

func TestBroken(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "broken", nil))
	var labels []string
	for _, f := range r.Findings {
		if f.Label != "" {
			assert.Equal(t, tests.KindWarning, f.Kind)
			labels = append(labels, f.Label)
		}
	}
	assert.Equal(t, []string{"CStatesDiffer", "CStateNotEntered"}, labels, render(r))
	assert.Contains(t, render(r), "cpu0 offers POLL C1 C1E C3 C6, cpu1 offers POLL C1 C1E C3")
	assert.Contains(t, render(r), "C3 (MWAIT 0x10, exit latency 70 µs): not entered on any of 2 CPUs in 2 s idle")
	assert.Contains(t, render(r), "C6 (MWAIT 0x20, exit latency 85 µs) entered 310 times on 1 of 1 CPUs")
}

func TestAbsent(t *testing.T) {
	idle := func(attrs map[string]string) []byte {
		d := sysdev.NewDump()
		for k, v := range attrs {
			d.Attrs[k] = v
		}
		return d.Marshal()
	}
	for _, c := range []struct {
		name   string
		files  map[string][]byte
		reason string
	}{
		{"QEMU", map[string][]byte{"sys/class/dmi/id/sys_vendor": []byte("QEMU\n"), "fwcheck/cpuidle.txt": idle(map[string]string{"cpuidle/current_driver": "none"})},
			"no cpuidle driver is bound: virtual machine (DMI: QEMU"},
		{"boot parameter", map[string][]byte{"fwcheck/cpuidle.txt": idle(map[string]string{"sample/cmdline": "quiet idle=poll"})}, "boot parameter idle=poll"},
		{"firmware", map[string][]byte{"fwcheck/cpuidle.txt": idle(nil)}, "the firmware offers no C-states"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.FilesMachine(t, c.files))
			assert.Equal(t, tests.StatusNotApplicable, r.Status, render(r))
			assert.Contains(t, r.Reason, c.reason)
		})
	}
	// One sample only: said as not checked, never passed.
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{input.RecordedDir + "/" + input.CPUIdleFile: idle(map[string]string{
		"cpu0.state1/name": "C1", "cpu0.state1/usage": "5", "cpu0.state1/time": "9"})}))
	assert.Equal(t, tests.StatusIncomplete, r.Status, render(r))
}
