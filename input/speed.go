package input

import (
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// CPUSpeed is each cpufreq policy's first CPU measured under load (a busy
// loop of a fraction of a second on that CPU alone), through the
// actual/maximum performance counters (IA32_APERF, IA32_MPERF) and the
// time-stamp counter read by /dev/cpu/N/msr. Where there are no cpufreq
// policies, CPU 0 is measured. It writes nothing: the load is the only
// effect. A snapshot records the samples as fwcheck/cpu-speed.txt.
var CPUSpeed = Declare(Def[[]SpeedSample]{
	Name: "cpu-speed", Doc: "effective CPU frequency under load (APERF/MPERF through /dev/cpu/N/msr)", Root: true,
	Capture: []string{RecordedDir + "/" + CPUSpeedFile},
	Load: func(src Source) ([]SpeedSample, error) {
		b, err := fs.ReadFile(src, RecordedDir+"/"+CPUSpeedFile)
		if err != nil {
			return nil, err
		}
		return ParseSpeed(b)
	},
})

// CPUSpeedFile is the recorded CPUSpeed below RecordedDir.
const CPUSpeedFile = "cpu-speed.txt"

// Bounds of a speed record and of a measurement.
const (
	maxSpeedSamples = 64
	// speedPolicies is how many policies the live recorder measures.
	speedPolicies = 8
	// speedWarm is the load before the counters are read, for the
	// governor to raise the frequency; speedRun the load measured.
	speedWarm = 150 * time.Millisecond
	speedRun  = 300 * time.Millisecond
	// speedProbe is the load over which counters that do not count at
	// all are told apart before the warm-up.
	speedProbe = 10 * time.Millisecond
)

// FormatSpeed writes samples as ParseSpeed reads them: one a line,
// "CPU WALL_NS TSC APERF MPERF" or "CPU error QUOTED-REASON".
func FormatSpeed(ss []SpeedSample) []byte {
	var b bytes.Buffer
	b.WriteString("# fwcheck cpu speed 1: CPU WALL_NS TSC APERF MPERF | CPU error REASON\n")
	for _, s := range ss {
		if s.Err != "" {
			fmt.Fprintf(&b, "%d error %s\n", s.CPU, strconv.Quote(s.Err))
			continue
		}
		fmt.Fprintf(&b, "%d %d %d %d %d\n", s.CPU, s.Wall.Nanoseconds(), s.TSC, s.APERF, s.MPERF)
	}
	return b.Bytes()
}

// ParseSpeed reads a recorded cpu-speed.txt.
func ParseSpeed(b []byte) ([]SpeedSample, error) {
	var out []SpeedSample
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if len(out) >= maxSpeedSamples {
			return nil, fmt.Errorf("cpu speed: more than %d samples", maxSpeedSamples)
		}
		f := strings.Fields(line)
		cpu, err := strconv.Atoi(f[0])
		if err != nil || cpu < 0 || cpu > 1<<16 || len(f) < 2 {
			return nil, fmt.Errorf("cpu speed line %d: %.60q", i+1, line)
		}
		s := SpeedSample{CPU: cpu}
		if f[1] == "error" {
			_, rest, _ := strings.Cut(line, "error ")
			if s.Err, err = strconv.Unquote(rest); err != nil || s.Err == "" {
				return nil, fmt.Errorf("cpu speed line %d: bad reason %.60q", i+1, rest)
			}
			out = append(out, s)
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("cpu speed line %d: %d fields, want 5", i+1, len(f))
		}
		var v [4]uint64
		for j := range v {
			if v[j], err = strconv.ParseUint(f[j+1], 10, 64); err != nil {
				return nil, fmt.Errorf("cpu speed line %d: %.30q is not a count", i+1, f[j+1])
			}
		}
		if v[0] == 0 || v[0] > uint64(time.Hour) {
			return nil, fmt.Errorf("cpu speed line %d: measured for %d ns", i+1, v[0])
		}
		s.Wall, s.TSC, s.APERF, s.MPERF = time.Duration(v[0]), v[1], v[2], v[3]
		out = append(out, s)
	}
	return out, nil
}

// ParseProcRTC reads the alarm lines ("alarm_IRQ\t: no", "alrm_pending\t:
// no", "alrm_time", "alrm_date") of /proc/driver/rtc, which rtc-cmos writes.
func ParseProcRTC(b []byte) map[string]string {
	out := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		if i >= 64 {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if !ok || !strings.HasPrefix(k, "al") || len(k) > 32 {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) > 64 {
			v = v[:64]
		}
		out[k] = v
	}
	return out
}
