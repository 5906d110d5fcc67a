package sysdev

import (
	"sort"
	"strconv"
	"strings"
)

// CPUFreqDir holds the cpufreq policies (policyN are plain directories;
// cpuN/cpufreq link to them).
const CPUFreqDir = "sys/devices/system/cpu/cpufreq"

var cpufreqAttrs = map[string]bool{
	"scaling_driver": true, "scaling_governor": true, "scaling_available_governors": true,
	"scaling_available_frequencies": true, "cpuinfo_min_freq": true, "cpuinfo_max_freq": true,
	"related_cpus": true, "affected_cpus": true, "energy_performance_preference": true,
	"scaling_max_freq": true, "scaling_min_freq": true,
}

// WantCPUFreq selects the policy attributes the cpufreq check reads
// (Documentation/ABI/testing/sysfs-devices-system-cpu; frequencies in
// kHz).
func WantCPUFreq(dev, name string) bool {
	return strings.HasPrefix(dev, "policy") && cpufreqAttrs[name]
}

// Policy is one cpufreq policy.
type Policy struct {
	Name      string // "policy0"
	Driver    string
	Governor  string
	Governors []string
	// Frequencies are scaling_available_frequencies in the order listed
	// (kHz); nil when the driver has no table (intel_pstate, amd-pstate,
	// cppc_cpufreq).
	Frequencies      []int64
	MinFreq, MaxFreq int64
	// ScalingMin and ScalingMax are the limits the OS set (0 when
	// absent).
	ScalingMin, ScalingMax int64
	CPUs                   string // related_cpus
}

// ParsePolicies types a cpufreq dump.
func ParsePolicies(d *Dump) []Policy {
	var out []Policy
	for _, dev := range d.Devices() {
		p := Policy{Name: dev}
		p.Driver, _ = d.Get(dev, "scaling_driver")
		p.Governor, _ = d.Get(dev, "scaling_governor")
		if v, ok := d.Get(dev, "scaling_available_governors"); ok {
			p.Governors = strings.Fields(v)
			sort.Strings(p.Governors)
		}
		if v, ok := d.Get(dev, "scaling_available_frequencies"); ok {
			for _, f := range strings.Fields(v) {
				if n, err := strconv.ParseInt(f, 10, 64); err == nil && len(p.Frequencies) < 1024 {
					p.Frequencies = append(p.Frequencies, n)
				}
			}
		}
		p.MinFreq, _ = d.Int(dev, "cpuinfo_min_freq")
		p.MaxFreq, _ = d.Int(dev, "cpuinfo_max_freq")
		p.ScalingMin, _ = d.Int(dev, "scaling_min_freq")
		p.ScalingMax, _ = d.Int(dev, "scaling_max_freq")
		p.CPUs, _ = d.Get(dev, "related_cpus")
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return natLess(out[i].Name, out[j].Name) })
	return out
}

// FirstCPU is the first CPU of the policy's related_cpus, or -1.
func (p Policy) FirstCPU() int {
	f := strings.Fields(p.CPUs)
	if len(f) == 0 {
		return -1
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return -1
	}
	return n
}
