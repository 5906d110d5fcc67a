// Package cstates checks the processor idle states (C-states) the firmware
// offers, as the kernel's cpuidle framework shows them
// (/sys/devices/system/cpu/cpuN/cpuidle/stateM, from the firmware's _CST
// through acpi_idle, or intel_idle's own tables checked against it): every
// CPU offers the same states, and every state that is not disabled is
// entered while the machine idles. The cpuidle input samples the usage and
// time counters twice, input.IdleSpan apart while fwcheck sleeps; a state
// whose counters moved on no CPU was never entered.
//
// POLL (state0, a busy loop in the kernel, not a firmware state) and
// states the OS disabled are listed and not judged. A machine running other
// work in the sample may keep its CPUs out of the deepest states, so
// CStateNotEntered is a warning; CStatesDiffer is one too until a machine
// in the corpus confirms it. Where there are no idle states the check says
// why: a virtual machine, no cpuidle driver, or a boot parameter.
package cstates

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/platform"
)

const spec = "ACPI 6.5 §8.4.1.1 (_CST), §8.1 (Processor Power States)"

var (
	labelDiffer = tests.NewLabel("CStatesDiffer", tests.Medium, spec,
		"CPUs of one machine offer different idle states: the firmware gives some processor objects another _CST "+
			"(or none). The OS then idles some CPUs shallower than others, wasting power; give every processor the "+
			"same _CST package.")
	labelNotEntered = tests.NewLabel("CStateNotEntered", tests.Medium, spec,
		"An idle state the firmware offers was not entered on any CPU while the machine idled: its entry method "+
			"(the _CST register or MWAIT hint) does not work, its latency is too high for the OS to choose, or the "+
			"machine was busy. Check the state's entry method and its latency and power values in _CST.")
)

// Check is the cstates check.
var Check = &tests.Check{
	ID: "cstates", Title: "C-states: the same idle states on every CPU, each entered while idle",
	Category: tests.CPU,
	Inputs:   []input.Decl{input.CPUIdle},
	Optional: []input.Decl{input.DMI, input.CPUInfo},
	Spec:     spec,
	Labels:   []*tests.Label{labelDiffer, labelNotEntered},
	Run:      run,
}

func names(c sysdev.IdleCPU) []string {
	var out []string
	for _, s := range c.States {
		out = append(out, s.Name)
	}
	return out
}

func run(p *tests.Pass) error {
	s := tests.Input(p, input.CPUIdle)
	var cpus []sysdev.IdleCPU
	for _, c := range s.CPUs {
		if len(c.States) > 0 {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) == 0 {
		absent(p, s)
		return nil
	}
	first := cpus[0]
	same := true
	for _, c := range cpus[1:] {
		if !slices.Equal(names(c), names(first)) {
			p.Warn(labelDiffer, "cpu%d offers %s, cpu%d offers %s", first.CPU, strings.Join(names(first), " "), c.CPU, strings.Join(names(c), " "))
			same = false
		}
	}
	if same {
		p.Passed("%d CPUs offer the same %d idle states (%s) from driver %s", len(cpus), len(first.States),
			strings.Join(names(first), " "), orNone(s.Driver))
	}
	// Entries by state name, summed over the CPUs.
	type tally struct {
		entries, us  int64
		cpus, judged int
		disabled     bool
		desc         string
		latency      int64
	}
	byName := map[string]*tally{}
	var order []string
	sampled := false
	for _, c := range cpus {
		for _, st := range c.States {
			t := byName[st.Name]
			if t == nil {
				t = &tally{desc: st.Desc, latency: st.Latency}
				byName[st.Name] = t
				order = append(order, st.Name)
			}
			if st.Disabled {
				t.disabled = true
				continue
			}
			if st.UsageAfter < 0 || st.Usage < 0 {
				continue
			}
			sampled = true
			t.judged++
			if du, dt := st.UsageAfter-st.Usage, st.TimeAfter-st.Time; du > 0 || dt > 0 {
				t.entries += max(du, 0)
				t.us += max(dt, 0)
				t.cpus++
			}
		}
	}
	if !sampled {
		p.NotChecked("each idle state is entered", "the idle-state counters were sampled once only", "take the snapshot with this version, which samples them twice")
		return nil
	}
	for _, n := range order {
		t := byName[n]
		what := fmt.Sprintf("%s (%s, exit latency %d µs)", n, orNone(t.desc), t.latency)
		switch {
		case n == "POLL":
			p.Info(nil, "%s: the kernel's busy-wait state, not the firmware's: not judged", what)
		case t.disabled:
			p.Info(nil, "%s is disabled by the OS (cpuidle stateN/disable): not judged", what)
		case t.judged == 0:
		case t.cpus == 0:
			p.Warn(labelNotEntered, "%s: not entered on any of %d CPUs in %s s idle", what, t.judged, span(s))
		default:
			p.Passed("%s entered %d times on %d of %d CPUs, %.3f s in all, in %s s idle", what, t.entries, t.cpus, t.judged,
				float64(t.us)/1e6, span(s))
		}
	}
	return nil
}

func span(s *sysdev.CPUIdle) string {
	if s.Span != "" {
		return s.Span
	}
	return "?"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// absent says why no CPU has idle states.
func absent(p *tests.Pass, s *sysdev.CPUIdle) {
	for _, f := range strings.Fields(s.Cmdline) {
		if f == "cpuidle.off=1" || strings.HasPrefix(f, "idle=") || f == "processor.max_cstate=0" {
			p.NotApplicable("no CPU idle states: the boot parameter %s turns them off", f)
			return
		}
	}
	driver := "no cpuidle driver is bound"
	if s.Driver != "" && s.Driver != "none" {
		driver = "cpuidle driver " + s.Driver + " registered no states"
	}
	if why := platform.Absent(p, ""); why != "" {
		p.NotApplicable("%s: %s (no _CST, and intel_idle does not run under a hypervisor it does not know)", driver, why)
		return
	}
	p.NotApplicable("%s: the firmware offers no C-states (no _CST, FADT C2/C3 latencies out of range) and intel_idle does not know this CPU", driver)
}
