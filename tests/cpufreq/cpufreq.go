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
// Not yet measured: whether the advertised maximum is reached under load
// and whether each P-state changes the speed (APERF/MPERF). The check says
// so as not checked rather than passing without it.
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
	Optional: []input.Decl{input.ACPITables, input.DMI, input.CPUInfo},
	Spec:     spec,
	Labels:   []*tests.Label{labelMismatch, labelOrder, labelRange},
	Run:      run,
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
	p.NotChecked("the maximum frequency is reached under load and each P-state changes the measured speed",
		"this version does not measure APERF/MPERF yet", "")
	return nil
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
