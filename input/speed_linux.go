package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fwcheck/fwcheck/cpu/msr"
)

// The counters a speed sample reads.
const (
	msrTSC   = 0x10
	msrMPERF = 0xE7
	msrAPERF = 0xE8
)

// measureSpeed loads cpu (under root) alone with a busy loop and reads its
// counters around the measured part. The calling goroutine is pinned to
// cpu for the while and put back.
func measureSpeed(root string, cpu int) SpeedSample {
	s := SpeedSample{CPU: cpu}
	dev := filepath.Join(root, "dev/cpu", strconv.Itoa(cpu), "msr")
	if filepath.Clean(root) == "/" {
		if _, err := os.Stat(dev); errors.Is(err, fs.ErrNotExist) {
			if e := loadModule("msr"); e != "" {
				s.Err = e
				return s
			}
		}
	}
	f, err := os.Open(dev)
	if err != nil {
		s.Err = errText(err)
		return s
	}
	defer f.Close()
	read := func() (tsc, aperf, mperf uint64, err error) {
		// MPERF and APERF first and last around the TSC, so that the TSC
		// interval lies inside theirs by no more than a read each.
		if mperf, err = msr.ReadFrom(f, msrMPERF); err != nil {
			return 0, 0, 0, fmt.Errorf("IA32_MPERF (0xE7): %s (the CPU or hypervisor has no APERF/MPERF)", errText(err))
		}
		if tsc, err = msr.ReadFrom(f, msrTSC); err != nil {
			return 0, 0, 0, fmt.Errorf("IA32_TIME_STAMP_COUNTER (0x10): %s", errText(err))
		}
		if aperf, err = msr.ReadFrom(f, msrAPERF); err != nil {
			return 0, 0, 0, fmt.Errorf("IA32_APERF (0xE8): %s (the CPU or hypervisor has no APERF/MPERF)", errText(err))
		}
		return tsc, aperf, mperf, nil
	}
	if _, _, _, err := read(); err != nil {
		s.Err = err.Error()
		return s
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		s.Err = "reading the CPU affinity: " + err.Error()
		return s
	}
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		s.Err = fmt.Sprintf("running on CPU %d: %v", cpu, err)
		return s
	}
	defer unix.SchedSetaffinity(0, &old)
	// A short probe first: where the counters do not count (a hypervisor
	// that reads them as zero, as QEMU's TCG does), the sample is an error
	// after 10 ms rather than after the whole warm-up and run. Under load a
	// counting MPERF advances by millions in that time.
	if _, a0, m0, err := read(); err == nil {
		spin(speedProbe)
		if _, a1, m1, err := read(); err == nil && (a1 == a0 || m1 == m0) {
			s.Err = notCounting(a1-a0, m1-m0).Error()
			return s
		}
	}
	spin(speedWarm)
	t0, a0, m0, err := read()
	start := clock(unix.CLOCK_MONOTONIC)
	if err == nil {
		spin(speedRun)
		var t1, a1, m1 uint64
		t1, a1, m1, err = read()
		s.Wall = clock(unix.CLOCK_MONOTONIC) - start
		s.TSC, s.APERF, s.MPERF = t1-t0, a1-a0, m1-m0
		if err == nil && (s.APERF == 0 || s.MPERF == 0) {
			err = notCounting(s.APERF, s.MPERF)
		}
	}
	if err != nil {
		s.Err = err.Error()
	}
	return s
}

// notCounting is the error of APERF/MPERF increments of which one is zero.
func notCounting(aperf, mperf uint64) error {
	return fmt.Errorf("IA32_APERF and IA32_MPERF read %d and %d increments under load: they do not count (the CPU or hypervisor does not implement them)", aperf, mperf)
}

// spin keeps the CPU busy for d: reading the clock is the work.
func spin(d time.Duration) {
	end := clock(unix.CLOCK_MONOTONIC) + d
	for clock(unix.CLOCK_MONOTONIC) < end {
	}
}

var policyName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^policy[0-9]{1,5}$`) })

// policyCPU is the first CPU of a cpufreq policy (related_cpus), or -1.
func policyCPU(root, policy string) int {
	b, err := os.ReadFile(filepath.Join(root, cpufreqDir, policy, "related_cpus"))
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return -1
	}
	return n
}

const cpufreqDir = "sys/devices/system/cpu/cpufreq"

// recordSpeed measures the first CPU of each cpufreq policy (at most
// speedPolicies), or CPU 0 where there is none, one after the other.
func recordSpeed(root string) ([]byte, error) {
	var cpus []int
	ents, _ := os.ReadDir(filepath.Join(root, cpufreqDir))
	for _, e := range ents {
		if policyName().MatchString(e.Name()) && len(cpus) < speedPolicies {
			if c := policyCPU(root, e.Name()); c >= 0 {
				cpus = append(cpus, c)
			}
		}
	}
	if len(cpus) == 0 {
		cpus = []int{0}
	}
	var ss []SpeedSample
	for _, c := range cpus {
		ss = append(ss, measureSpeed(root, c))
	}
	return FormatSpeed(ss), nil
}

// RunAt holds policy at khz with the userspace governor, measures its
// first CPU, and puts the governor back (the userspace governor leaves
// scaling_min_freq and scaling_max_freq alone).
func (c *liveControl) RunAt(policy string, khz int64) (SpeedSample, error) {
	if !policyName().MatchString(policy) {
		return SpeedSample{}, fmt.Errorf("%.40q is not a cpufreq policy", policy)
	}
	dir := cpufreqDir + "/" + policy
	cpu := policyCPU(c.root, policy)
	if cpu < 0 {
		return SpeedSample{}, fmt.Errorf("/%s has no related_cpus", dir)
	}
	gov, err := os.ReadFile(c.path(dir + "/scaling_governor"))
	if err != nil {
		return SpeedSample{}, err
	}
	old := strings.TrimSpace(string(gov))
	if old != "userspace" {
		if err := c.write(dir+"/scaling_governor", "userspace"); err != nil {
			return SpeedSample{}, fmt.Errorf("%w (the userspace governor needs CONFIG_CPU_FREQ_GOV_USERSPACE)", err)
		}
		defer c.write(dir+"/scaling_governor", old)
	}
	if sp, err := os.ReadFile(c.path(dir + "/scaling_setspeed")); err == nil && old == "userspace" {
		defer c.write(dir+"/scaling_setspeed", strings.TrimSpace(string(sp)))
	}
	if err := c.write(dir+"/scaling_setspeed", strconv.FormatInt(khz, 10)); err != nil {
		return SpeedSample{}, err
	}
	return measureSpeed(c.root, cpu), nil
}

// errText is an error's cause without the path.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
