// Package cpufreq checks CPU frequency scaling as the kernel's cpufreq
// policies show it (/sys/devices/system/cpu/cpufreq/policyN): one driver
// and one set of governors on every policy; with a driver that lists the
// firmware's P-states (acpi-cpufreq, from _PSS), the same P-states on every
// policy, in strictly descending order, within cpuinfo_min_freq and
// cpuinfo_max_freq. Turbo (boost) is reported as information.
//
// Where no driver is bound, the check says why: a virtual machine (whose
// hypervisor exposes no P-states), or firmware that gives neither _PSS nor
// _CPC in its AML (the name segments are looked for in the DSDT and
// SSDTs), which the ACPI drivers need; with either present, a driver should
// have bound and the check is skipped with that remedy.
//
// Under load (the cpu-speed input: a busy loop of a fraction of a second
// on the first CPU of each policy, one policy after the other, with
// IA32_APERF/IA32_MPERF read around it), the effective frequency must come
// within 5 % of the advertised maximum (cpuinfo_max_freq, or the OS's
// lower scaling_max_freq; the highest non-turbo P-state when boost is
// off). A governor that holds the frequency (powersave or userspace with
// a table driver) explains a lower figure. The check writes nothing and
// takes about half a second per policy measured (at most eight); where
// APERF/MPERF do not count at all (QEMU under TCG), a 10 ms probe says so
// and the measurement stops there.
//
// Whether each listed P-state changes the measured speed needs the
// frequency set, which writes machine state: that is the cpufreq-steps
// check (Steps), flagged Adjusts, so it runs only when named. It holds the
// first policy at each listed P-state in turn with the userspace governor,
// measures it, and puts the governor back: about half a second a P-state,
// at most 16.
//
// CPUFreqMaxNotReached, CPUFreqPStateNoEffect and CPUFreqPStateOrder of
// measured speeds are warnings: no measurement in the corpus confirms them
// yet.
package cpufreq

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/platform"
)

const spec = "ACPI 6.5 §8.4.5 (Processor Performance Control: _PCT, _PSS, _PPC), §8.4.6 (_CPC)"

var (
	labelMismatch = tests.NewLabel("CPUFreqPoliciesDiffer", tests.Medium, spec,
		"CPUs of the same machine scale their frequency differently: another driver, other governors, or other "+
			"P-states. The firmware gives some processors different (or no) _PSS/_PCT/_CPC objects; give every "+
			"processor object the same performance control objects.")
	labelOrder = tests.NewLabel("CPUFreqPStateOrder", tests.Medium, spec+" (_PSS entries in descending order of performance)",
		"The P-states the firmware lists (_PSS, as the driver shows them) are not in strictly descending order "+
			"of frequency, or repeat one. The OS picks P-states by index; list each once, fastest first.")
	labelRange = tests.NewLabel("CPUFreqRangeInvalid", tests.Medium, spec,
		"The frequency range is wrong: a maximum of 0, a minimum above the maximum, or P-states outside "+
			"the range. The frequencies in _PSS must be the processor's real core frequencies in MHz.")
)

// Check is the cpufreq check.
var Check = &tests.Check{
	ID: "cpufreq", Title: "CPU frequency scaling: same driver, governors and P-states on every CPU; P-states ordered",
	Category: tests.CPU,
	Inputs:   []input.Decl{input.CPUFreq},
	Optional: []input.Decl{input.ACPITables, input.DMI, input.CPUInfo, input.CPUSpeed},
	Spec:     spec,
	Labels:   []*tests.Label{labelMismatch, labelOrder, labelRange, labelMaxNotReached},
	Run:      run,
}

var (
	labelMaxNotReached = tests.NewLabel("CPUFreqMaxNotReached", tests.Medium, spec+"; Intel SDM Vol. 3B §15.2 (IA32_APERF, IA32_MPERF)",
		"Under load the CPU ran well below the maximum frequency the firmware advertises, with a governor that "+
			"should let it reach it. The P-state control (_PCT registers, _PPC limit, or the HWP/CPPC ranges) "+
			"does not take the CPU to its top P-state, or power or thermal limits set by the firmware hold it down.")
	labelNoEffect = tests.NewLabel("CPUFreqPStateNoEffect", tests.Medium, spec+"; Intel SDM Vol. 3B §15.2 (IA32_APERF, IA32_MPERF)",
		"Selecting this P-state did not change the measured speed as its listed frequency says, or a slower "+
			"P-state measured faster than a faster one. The _PSS entry's control value does not select the "+
			"frequency it lists; each entry's Control must program the frequency in its CoreFrequency field.")
)

// Steps is the cpufreq-steps check: each P-state the firmware lists changes
// the measured speed, in order.
var Steps = &tests.Check{
	ID: "cpufreq-steps", Title: "CPU P-states: each listed P-state changes the measured speed, in order",
	Category: tests.CPU,
	Flags:    tests.Adjusts,
	Inputs:   []input.Decl{input.CPUFreq},
	Optional: []input.Decl{input.ACPITables, input.DMI, input.CPUInfo},
	Spec:     spec,
	Labels:   []*tests.Label{labelNoEffect},
	Run:      runSteps,
}

// maxSteps bounds the P-states cpufreq-steps measures.
const maxSteps = 16

func runSteps(p *tests.Pass) error {
	s := tests.Input(p, input.CPUFreq)
	var pol *sysdev.Policy
	for i := range s.Policies {
		if s.Policies[i].Driver != "" {
			pol = &s.Policies[i]
			break
		}
	}
	if pol == nil {
		absent(p)
		return nil
	}
	if len(pol.Frequencies) < 2 {
		p.NotApplicable("driver %s lists no P-state table (it picks frequencies itself): nothing to step through", pol.Driver)
		return nil
	}
	fs := pol.Frequencies
	if len(fs) > maxSteps {
		p.NotChecked(fmt.Sprintf("P-states past the first %d", maxSteps), fmt.Sprintf("%d are listed", len(fs)), "")
		fs = fs[:maxSteps]
	}
	ctl := p.Control()
	mhz := make([]float64, len(fs))
	for i, f := range fs {
		p.Progress("%s at %d MHz", pol.Name, f/1000)
		r, err := input.RunAt(ctl, pol.Name, f)
		if err == nil && r.Err != "" {
			err = fmt.Errorf("%s", r.Err)
		}
		if err != nil {
			p.NotChecked("each P-state changes the measured speed", fmt.Sprintf("measuring %s at %d kHz: %v", pol.Name, f, err),
				"run as root with the msr module and the userspace governor (CONFIG_CPU_FREQ_GOV_USERSPACE)")
			return nil
		}
		mhz[i] = r.MHz()
		p.Info(nil, "%s P-state %d (%d MHz): cpu%d measured %.0f MHz", pol.Name, i, f/1000, r.CPU, mhz[i])
	}
	JudgeSteps(p, pol.Name, fs, mhz)
	return nil
}

// JudgeSteps compares the measured speeds (MHz) with the listed P-states
// (kHz, fastest first). A turbo entry (1 MHz above the next) is not judged
// against its listed figure.
func JudgeSteps(p *tests.Pass, policy string, khz []int64, mhz []float64) {
	bad := 0
	for i := 1; i < len(khz); i++ {
		want := float64(khz[i-1]-khz[i]) / 1000
		if want <= 1 {
			continue // the turbo entry: its speed is the hardware's choice
		}
		got := mhz[i-1] - mhz[i]
		if got < want/2 {
			p.Warn(labelNoEffect, "%s: P-state %d (%d MHz) measured %.0f MHz, P-state %d (%d MHz) %.0f MHz: %.0f MHz apart, listed %.0f MHz apart",
				policy, i-1, khz[i-1]/1000, mhz[i-1], i, khz[i]/1000, mhz[i], got, want)
			bad++
		}
	}
	if bad == 0 {
		p.Passed("%s: each of %d P-states changed the measured speed, in the listed order (%s)", policy, len(khz), measured(mhz))
	}
}

func measured(mhz []float64) string {
	var s []string
	for _, m := range mhz {
		s = append(s, fmt.Sprintf("%.0f", m))
	}
	return strings.Join(s, "/") + " MHz"
}

func run(p *tests.Pass) error {
	s := tests.Input(p, input.CPUFreq)
	var bound []sysdev.Policy
	for _, pol := range s.Policies {
		if pol.Driver != "" {
			bound = append(bound, pol)
		}
	}
	if len(bound) == 0 {
		absent(p)
		return nil
	}
	before := p.Failures()
	first := bound[0]
	for _, pol := range bound[1:] {
		switch {
		case pol.Driver != first.Driver:
			p.Fail(labelMismatch, "%s uses driver %s, %s uses %s", first.Name, first.Driver, pol.Name, pol.Driver)
		case !slices.Equal(pol.Governors, first.Governors):
			p.Fail(labelMismatch, "%s offers governors %v, %s offers %v", first.Name, first.Governors, pol.Name, pol.Governors)
		case !slices.Equal(pol.Frequencies, first.Frequencies):
			p.Fail(labelMismatch, "%s lists P-states %s, %s lists %s", first.Name, khz(first.Frequencies), pol.Name, khz(pol.Frequencies))
		case len(first.Frequencies) > 0 && pol.MaxFreq != first.MaxFreq:
			p.Fail(labelMismatch, "%s has maximum %d kHz, %s %d kHz", first.Name, first.MaxFreq, pol.Name, pol.MaxFreq)
		}
	}
	for _, pol := range bound {
		if pol.MaxFreq <= 0 || pol.MinFreq > pol.MaxFreq {
			p.Fail(labelRange, "%s: cpuinfo_min_freq %d kHz, cpuinfo_max_freq %d kHz", pol.Name, pol.MinFreq, pol.MaxFreq)
			continue
		}
		for i, f := range pol.Frequencies {
			if i > 0 && f >= pol.Frequencies[i-1] {
				p.Fail(labelOrder, "%s: P-state %d (%d kHz) is not below P-state %d (%d kHz)", pol.Name, i, f, i-1, pol.Frequencies[i-1])
				break
			}
		}
		for _, f := range pol.Frequencies {
			// acpi-cpufreq lists a turbo P-state as the maximum + 1 MHz.
			if f < pol.MinFreq || f > pol.MaxFreq+1000 {
				p.Fail(labelRange, "%s: P-state %d kHz outside %d-%d kHz", pol.Name, f, pol.MinFreq, pol.MaxFreq)
				break
			}
		}
	}
	if p.Failures() == before {
		pstates := "no P-state table (the driver chooses frequencies itself)"
		if len(first.Frequencies) > 0 {
			pstates = fmt.Sprintf("%d P-states %s", len(first.Frequencies), khz(first.Frequencies))
		}
		p.Passed("%d policies, all with driver %s, governors %s, %s; %d-%d kHz", len(bound), first.Driver,
			strings.Join(first.Governors, " "), pstates, first.MinFreq, first.MaxFreq)
	}
	switch {
	case s.Boost != "":
		p.Info(nil, "boost (turbo) is %s (cpufreq/boost %s)", onOff(s.Boost == "1"), s.Boost)
	case s.NoTurbo != "":
		p.Info(nil, "turbo is %s (intel_pstate/no_turbo %s)", onOff(s.NoTurbo == "0"), s.NoTurbo)
	}
	maxUnderLoad(p, s, bound)
	p.NotChecked("each listed P-state changes the measured speed", "setting a frequency changes the machine's state",
		"run the cpufreq-steps check by name")
	return nil
}

// maxUnderLoad judges the speed measured under load against each policy's
// advertised maximum.
func maxUnderLoad(p *tests.Pass, s *input.CPUFreqState, bound []sysdev.Policy) {
	what := "the advertised maximum frequency is reached under load"
	samples, err := tests.Load(p, input.CPUSpeed)
	if err != nil {
		p.NotChecked(what, fmt.Sprintf("the speed could not be measured: %v", err), "run as root with the msr module")
		return
	}
	byCPU := map[int]input.SpeedSample{}
	for _, x := range samples {
		byCPU[x.CPU] = x
	}
	boostOff := s.Boost == "0" || s.NoTurbo == "1"
	for _, pol := range bound {
		x, ok := byCPU[pol.FirstCPU()]
		switch {
		case !ok:
			p.NotChecked(what+" on "+pol.Name, "its CPUs were not measured", "")
			continue
		case x.Err != "":
			p.NotChecked(what+" on "+pol.Name, fmt.Sprintf("cpu%d's counters: %s", x.CPU, x.Err), "run as root with the msr module")
			continue
		case x.MHz() <= 0:
			p.NotChecked(what+" on "+pol.Name, fmt.Sprintf("cpu%d's counters did not count (APERF %d, MPERF %d)", x.CPU, x.APERF, x.MPERF), "")
			continue
		}
		target, why := pol.MaxFreq, "cpuinfo_max_freq"
		if pol.ScalingMax > 0 && pol.ScalingMax < target {
			target, why = pol.ScalingMax, "scaling_max_freq, the OS's limit"
		}
		if f := pol.Frequencies; boostOff && len(f) > 1 && f[0] == f[1]+1000 && f[1] < target {
			target, why = f[1], "the highest P-state without turbo, boost being off"
		}
		got := x.MHz()
		if got*1000 >= 0.95*float64(target) {
			p.Passed("%s: cpu%d ran at %.0f MHz under load (APERF/MPERF over %.2f s), the maximum being %d MHz (%s)",
				pol.Name, x.CPU, got, x.Wall.Seconds(), target/1000, why)
			continue
		}
		if (pol.Governor == "powersave" && len(pol.Frequencies) > 0) || pol.Governor == "userspace" {
			p.NotChecked(what+" on "+pol.Name, fmt.Sprintf("the %s governor holds the frequency (cpu%d ran at %.0f MHz)", pol.Governor, x.CPU, got),
				"measure with the performance, schedutil or ondemand governor")
			continue
		}
		p.Warn(labelMaxNotReached, "%s: cpu%d ran at %.0f MHz under load (APERF/MPERF over %.2f s), below the maximum %d MHz (%s), governor %s",
			pol.Name, x.CPU, got, x.Wall.Seconds(), target/1000, why, pol.Governor)
	}
}

func onOff(b bool) string {
	if b {
		return "enabled"
	}
	return "disabled"
}

func khz(l []int64) string {
	var s []string
	for _, f := range l {
		s = append(s, fmt.Sprint(f/1000))
	}
	return strings.Join(s, "/") + " MHz"
}

// absent says why no cpufreq driver is bound.
func absent(p *tests.Pass) {
	defer counters(p)
	why := platform.Absent(p, "")
	if why != "" {
		p.NotApplicable("no cpufreq driver is bound: %s (no _PSS or _CPC for the ACPI drivers, no hardware P-states for intel_pstate or amd-pstate)", why)
		return
	}
	ts, err := tests.Load(p, input.ACPITables)
	if err != nil || ts == nil {
		p.Skip("no cpufreq driver is bound, and without the ACPI tables it cannot be said whether the firmware offers P-states (_PSS, _CPC)")
		return
	}
	var found []string
	for _, name := range []string{"_PSS", "_CPC"} {
		for _, t := range ts.List {
			if (t.Signature == "DSDT" || t.Signature == "SSDT") && bytes.Contains(t.Raw, []byte(name)) {
				found = append(found, name)
				break
			}
		}
	}
	if len(found) == 0 {
		p.NotApplicable("no cpufreq driver is bound: the firmware's AML has no _PSS or _CPC, which acpi-cpufreq and cppc_cpufreq need (intel_pstate and amd-pstate need hardware P-states, or are disabled)")
		return
	}
	p.Skip("no cpufreq driver is bound although the firmware's AML has %s: load acpi-cpufreq (for _PSS) or cppc_cpufreq (for _CPC), or check why intel_pstate/amd-pstate did not bind (kernel log)", strings.Join(found, " and "))
}

// counters says, for a machine without a cpufreq driver, whether the speed
// could be measured at all.
func counters(p *tests.Pass) {
	if !declaredSpeed(p) {
		return
	}
	samples, err := tests.Load(p, input.CPUSpeed)
	switch {
	case err != nil:
		p.Info(nil, "the speed under load was not measured: %v", err)
	case len(samples) > 0 && samples[0].Err != "":
		p.Info(nil, "the speed under load cannot be measured either: cpu%d: %s", samples[0].CPU, samples[0].Err)
	case len(samples) > 0:
		p.Info(nil, "cpu%d ran at %.0f MHz under load (APERF/MPERF), with no cpufreq driver to compare it with", samples[0].CPU, samples[0].MHz())
	}
}

func declaredSpeed(p *tests.Pass) bool {
	return slices.Contains(p.Check.Optional, input.Decl(input.CPUSpeed))
}
