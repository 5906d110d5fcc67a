package sysdev

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// CPUDir holds the CPUs (cpuN/cpuidle/stateM) and the cpuidle driver
// (cpuidle/current_driver), per Documentation/ABI/testing/
// sysfs-devices-system-cpu and Documentation/admin-guide/pm/cpuidle.rst.
const CPUDir = "sys/devices/system/cpu"

// The idle-state attributes read; usage and time (microseconds) are the
// counters a second sample repeats with AfterSuffix.
var idleAttrs = []string{"name", "desc", "latency", "residency", "disable", "usage", "time"}

// AfterSuffix marks a counter of the second sample ("usage.after").
const AfterSuffix = ".after"

// ReadCPUIdle reads the cpuidle states of every CPU below CPUDir of fsys
// into a dump: "cpu0.state1/usage", and the driver as
// "cpuidle/current_driver". A machine without cpuidle gives a dump
// without states.
func ReadCPUIdle(fsys fs.FS) *Dump { return ReadCPUIdleAt(fsys, CPUDir) }

// ReadCPUIdleAt is ReadCPUIdle of a CPU directory elsewhere in fsys.
func ReadCPUIdleAt(fsys fs.FS, dir string) *Dump {
	d := NewDump()
	for _, a := range []string{"current_driver", "current_governor", "current_governor_ro"} {
		if v, err := readValue(fsys, path.Join(dir, "cpuidle", a)); err == nil {
			d.Attrs["cpuidle/"+a] = v
		}
	}
	cpus, _ := fs.ReadDir(fsys, dir)
	n := 0
	for _, c := range cpus {
		if _, ok := cpuNumber(c.Name()); !ok || n >= MaxAttrs {
			continue
		}
		states, _ := fs.ReadDir(fsys, path.Join(dir, c.Name(), "cpuidle"))
		for _, s := range states {
			if _, ok := numbered(s.Name(), "state"); !ok {
				continue
			}
			for _, a := range idleAttrs {
				if n >= MaxAttrs {
					break
				}
				key := c.Name() + "." + s.Name() + "/" + a
				v, err := readValue(fsys, path.Join(dir, c.Name(), "cpuidle", s.Name(), a))
				switch {
				case err == nil:
					d.Attrs[key] = v
					n++
				case !isNotExist(err):
					d.Errors[key] = errText(err)
					n++
				}
			}
		}
	}
	return d
}

// AddAfter copies the counters (usage, time) of a second sample into d as
// "….after" attributes.
func (d *Dump) AddAfter(after *Dump) {
	for k, v := range after.Attrs {
		if strings.HasSuffix(k, "/usage") || strings.HasSuffix(k, "/time") {
			d.Attrs[k+AfterSuffix] = v
		}
	}
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func cpuNumber(s string) (int, bool) { return numbered(s, "cpu") }

// numbered parses "prefixN".
func numbered(s, prefix string) (int, bool) {
	r, ok := strings.CutPrefix(s, prefix)
	if !ok || r == "" || len(r) > 6 {
		return 0, false
	}
	n, err := strconv.Atoi(r)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == r
}

// IdleState is one cpuidle state of one CPU.
type IdleState struct {
	Index int
	// Name ("C1E", "POLL") and Desc ("MWAIT 0x01", "ACPI FFH MWAIT 0x0")
	// come from intel_idle's tables or the firmware's _CST.
	Name, Desc string
	// Latency and Residency are the exit latency and target residency,
	// microseconds.
	Latency, Residency int64
	Disabled           bool
	// Usage and Time (microseconds) are the counters of the first
	// sample; UsageAfter and TimeAfter those of the second (-1 when
	// there was none).
	Usage, Time           int64
	UsageAfter, TimeAfter int64
}

// IdleCPU is a CPU's idle states, in index order.
type IdleCPU struct {
	CPU    int
	States []IdleState
}

// CPUIdle is the cpuidle driver and every CPU's states.
type CPUIdle struct {
	Driver, Governor string
	CPUs             []IdleCPU
	// Span is the seconds between the two samples, and Cmdline the
	// kernel command line, as the recorder noted them ("sample/seconds",
	// "sample/cmdline").
	Span, Cmdline string
}

// ParseCPUIdle types a cpuidle dump.
func ParseCPUIdle(d *Dump) *CPUIdle {
	out := &CPUIdle{}
	out.Driver, _ = d.Get("cpuidle", "current_driver")
	if g, ok := d.Get("cpuidle", "current_governor"); ok {
		out.Governor = g
	} else {
		out.Governor, _ = d.Get("cpuidle", "current_governor_ro")
	}
	out.Span, _ = d.Get("sample", "seconds")
	out.Cmdline, _ = d.Get("sample", "cmdline")
	per := map[int]map[int]*IdleState{}
	for _, dev := range d.Devices() {
		c, s, ok := strings.Cut(dev, ".")
		cpu, ok1 := cpuNumber(c)
		idx, ok2 := numbered(s, "state")
		if !ok || !ok1 || !ok2 {
			continue
		}
		if per[cpu] == nil {
			if len(per) >= MaxDevices*4 {
				continue
			}
			per[cpu] = map[int]*IdleState{}
		}
		st := &IdleState{Index: idx, UsageAfter: -1, TimeAfter: -1, Usage: -1, Time: -1}
		st.Name, _ = d.Get(dev, "name")
		st.Desc, _ = d.Get(dev, "desc")
		st.Latency, _ = d.Int(dev, "latency")
		st.Residency, _ = d.Int(dev, "residency")
		if v, ok := d.Int(dev, "disable"); ok && v != 0 {
			st.Disabled = true
		}
		for _, x := range []struct {
			name string
			p    *int64
		}{{"usage", &st.Usage}, {"time", &st.Time}, {"usage" + AfterSuffix, &st.UsageAfter}, {"time" + AfterSuffix, &st.TimeAfter}} {
			if v, ok := d.Int(dev, x.name); ok {
				*x.p = v
			}
		}
		per[cpu][idx] = st
	}
	for cpu, states := range per {
		c := IdleCPU{CPU: cpu}
		for _, s := range states {
			c.States = append(c.States, *s)
		}
		sort.Slice(c.States, func(i, j int) bool { return c.States[i].Index < c.States[j].Index })
		out.CPUs = append(out.CPUs, c)
	}
	sort.Slice(out.CPUs, func(i, j int) bool { return out.CPUs[i].CPU < out.CPUs[j].CPU })
	return out
}
