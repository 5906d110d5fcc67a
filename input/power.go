package input

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
)

// Inputs of the suspend/resume check: the kernel's power-management state
// and counters, the device inventory, and the firmware's performance
// records. All are read afresh after every resume (a new phase).
var (
	// SuspendStats are the counters of /sys/power/suspend_stats (success,
	// fail, failed_suspend, …, last_failed_dev), by file name.
	SuspendStats = Declare(Def[map[string]string]{
		Name: "suspend-stats", Doc: "suspend/resume counters (/sys/power/suspend_stats)",
		Capture: []string{"sys/power/suspend_stats"},
		Load:    loadSuspendStats,
	})
	// PowerStates are the sleep states the kernel offers: /sys/power/state
	// ("freeze mem disk") and /sys/power/mem_sleep ("s2idle [deep]"),
	// keyed "state" and "mem_sleep".
	PowerStates = Declare(Def[map[string]string]{
		Name: "power-states", Doc: "sleep states the kernel offers (/sys/power/state, mem_sleep)",
		Capture: []string{"sys/power/state", "sys/power/mem_sleep", "sys/power/pm_wakeup_irq"},
		Load:    loadPowerStates,
	})
	// Devices is the device inventory: PCI and USB devices, network
	// interfaces, block devices, input devices and DRM connectors, each as
	// "class name" ("pci 0000:00:02.0", "net enp0s3"), sorted.
	Devices = Declare(Def[[]string]{
		Name: "devices", Doc: "device inventory (/sys/bus/pci, usb; /sys/class/net, block, input, drm)",
		Capture: []string{},
		Load:    loadDevices,
	})
	// WakeupSources are the event counts of the kernel's wakeup sources
	// (/sys/class/wakeup/*/event_count), by source name.
	WakeupSources = Declare(Def[map[string]int64]{
		Name: "wakeup-sources", Doc: "wakeup source event counts (/sys/class/wakeup)",
		Load: loadWakeupSources,
	})
	// RTCWakeSource is the name of the wakeup source of the RTC that wakes
	// the machine from suspend (rtc0's device, e.g. "00:05" for the
	// PNP0B00 CMOS RTC), as /sys/class/wakeup names it. The kernel counts
	// an event on it when the RTC's alarm wakes the machine (rtc_cmos's
	// ACPI RTC event handler), so its count moving across a suspend says
	// the alarm woke it, and its count standing still says something else
	// did.
	RTCWakeSource = Declare(Def[string]{
		Name: "rtc-wake-source", Doc: "the RTC's wakeup source (/sys/class/rtc/rtc0/device/wakeup)",
		Capture: []string{rtcWakeDir},
		Load:    loadRTCWakeSource,
	})
	// RTCWakeEvent is how the kernel will learn of the RTC alarm's wake,
	// read before any suspend: the driver of rtc0 and the state of the
	// ACPI RTC fixed event. rtc_cmos installs a handler for that event
	// (its line in /sys/firmware/acpi/interrupts/ff_rt_clk then does not
	// say "invalid"), and the handler counts an event on the RTC's wakeup
	// source each time the alarm wakes the machine: on such a machine the
	// count standing still across a suspend says something else woke it,
	// from the first cycle on.
	RTCWakeEvent = Declare(Def[RTCWake]{
		Name: "rtc-wake-event", Doc: "the RTC's driver and the ACPI RTC fixed event (/sys/class/rtc/rtc0/name, /sys/firmware/acpi/interrupts/ff_rt_clk)",
		Capture: []string{"sys/class/rtc/rtc0/name", acpiRTCEvent},
		Load:    loadRTCWake,
	})
	// IdleResidency are the platform's low-power idle residency counters in
	// microseconds, by name: "system" and "cpu" from the LPIT
	// (/sys/devices/system/cpu/cpuidle/low_power_idle_*_residency_us),
	// "slp_s0" from Intel's PMC (debugfs pmc_core/slp_s0_residency_usec).
	// Only the counters the machine has are present.
	IdleResidency = Declare(Def[map[string]int64]{
		Name: "idle-residency", Doc: "low-power idle residency counters (LPIT, PMC SLP_S0)", Root: true,
		Capture: residencyFiles,
		Load:    loadResidency,
	})
	// Pstore is what the kernel's persistent store kept of earlier boots
	// (/sys/fs/pstore: dmesg-efi-*, dmesg-ramoops-*, …), by file name; each
	// file at most MaxPstoreFile bytes, its end kept.
	Pstore = Declare(Def[map[string]string]{
		Name: "pstore", Doc: "kernel logs of earlier boots kept by pstore (/sys/fs/pstore)", Root: true,
		Capture: []string{"sys/fs/pstore"},
		Load:    loadPstore,
	})
	// FPDT is the firmware performance data Linux exposes from the FPDT
	// (/sys/firmware/acpi/fpdt): the firmware's S3 resume and suspend times.
	FPDT = Declare(Def[*acpi.FPDTSysfs]{
		Name: "fpdt", Doc: "firmware performance records (/sys/firmware/acpi/fpdt)", Root: true,
		Capture: []string{acpi.FPDTSysfsDir},
		Load:    func(src Source) (*acpi.FPDTSysfs, error) { return acpi.ReadFPDTSysfs(src, acpi.FPDTSysfsDir) },
	})
)

func loadSuspendStats(src Source) (map[string]string, error) {
	const dir = "sys/power/suspend_stats"
	ents, err := fs.ReadDir(src, dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(src, path.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		out[e.Name()] = strings.TrimSpace(string(b))
	}
	return out, nil
}

func loadPowerStates(src Source) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range []string{"state", "mem_sleep", "pm_wakeup_irq"} {
		if b, err := fs.ReadFile(src, "sys/power/"+f); err == nil {
			out[f] = strings.TrimSpace(string(b))
		}
	}
	if out["state"] == "" {
		return nil, &Unavailable{"power-states", "no /sys/power/state: the kernel offers no sleep state"}
	}
	return out, nil
}

// deviceDirs are the inventory's classes and where their members live.
var deviceDirs = []struct{ class, dir string }{
	{"pci", "sys/bus/pci/devices"},
	{"usb", "sys/bus/usb/devices"},
	{"net", "sys/class/net"},
	{"block", "sys/class/block"},
	{"input", "sys/class/input"},
	{"drm", "sys/class/drm"},
}

func loadDevices(src Source) ([]string, error) {
	var out []string
	found := false
	for _, d := range deviceDirs {
		ents, err := fs.ReadDir(src, d.dir)
		if err != nil {
			continue
		}
		found = true
		for _, e := range ents {
			n := e.Name()
			// Virtual or per-boot names that come and go on their own.
			if d.class == "net" && n == "lo" || d.class == "block" && (strings.HasPrefix(n, "loop") || strings.HasPrefix(n, "ram")) {
				continue
			}
			if d.class == "drm" && !strings.Contains(n, "-") && !strings.HasPrefix(n, "card") {
				continue
			}
			out = append(out, d.class+" "+n)
		}
	}
	if !found {
		return nil, &Unavailable{"devices", "no /sys/bus or /sys/class on " + src.String()}
	}
	sort.Strings(out)
	return out, nil
}

func loadWakeupSources(src Source) (map[string]int64, error) {
	const dir = "sys/class/wakeup"
	ents, err := fs.ReadDir(src, dir)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	var errs []error
	for _, e := range ents {
		name := e.Name()
		if b, err := fs.ReadFile(src, path.Join(dir, e.Name(), "name")); err == nil {
			name = strings.TrimSpace(string(b))
		}
		b, err := fs.ReadFile(src, path.Join(dir, e.Name(), "event_count"))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			out[name] = n
		}
	}
	if len(out) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

const rtcWakeDir = "sys/class/rtc/rtc0/device/wakeup"

// acpiRTCEvent is the kernel's counter and state of the ACPI RTC fixed event.
const acpiRTCEvent = "sys/firmware/acpi/interrupts/ff_rt_clk"

// RTCWake is what RTCWakeEvent reads.
type RTCWake struct {
	// Driver is the driver of rtc0's device ("rtc_cmos"), from
	// /sys/class/rtc/rtc0/name ("rtc_cmos 00:05"); empty when not said.
	Driver string
	// ACPIEvent is the ACPI RTC fixed event's state as the kernel prints
	// it ("enabled", "disabled", "wake_enabled", or "invalid" when no
	// handler is installed); empty when there is no such event (no ACPI).
	ACPIEvent string
	// ACPICount is how often the kernel has dispatched that event.
	ACPICount int64
}

// CountsAlarmWakes reports whether the kernel counts each wake by the RTC
// alarm on the RTC's wakeup source: rtc_cmos with its ACPI RTC event
// handler installed (rtc_handler calls pm_wakeup_hard_event on the RTC's
// device).
func (w RTCWake) CountsAlarmWakes() bool {
	return w.Driver == "rtc_cmos" && w.ACPIEvent != "" && w.ACPIEvent != "invalid"
}

func loadRTCWake(src Source) (RTCWake, error) {
	var w RTCWake
	b, err := fs.ReadFile(src, "sys/class/rtc/rtc0/name")
	if err != nil {
		return w, &Unavailable{"rtc-wake-event", "no /sys/class/rtc/rtc0/name: no RTC, or a kernel that does not name its driver"}
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		w.Driver = f[0]
	}
	b, err = fs.ReadFile(src, acpiRTCEvent)
	if err != nil {
		return w, nil // no ACPI: the driver alone is known
	}
	w.ACPICount, w.ACPIEvent = ParseACPIEventLine(string(b))
	return w, nil
}

// ParseACPIEventLine reads one line of /sys/firmware/acpi/interrupts: the
// count, then flags ("EN", "STS"), then the state ("enabled", "disabled",
// "wake_enabled", "invalid") and "masked" or "unmasked". It returns the
// count and the state; what it does not know it leaves at zero and "".
func ParseACPIEventLine(line string) (count int64, state string) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return 0, ""
	}
	count, _ = strconv.ParseInt(f[0], 10, 64)
	count = max(count, 0)
	for _, w := range f[1:] {
		switch w {
		case "enabled", "disabled", "wake_enabled", "invalid":
			return count, w
		}
	}
	return count, ""
}

func loadRTCWakeSource(src Source) (string, error) {
	ents, err := fs.ReadDir(src, rtcWakeDir)
	if err != nil {
		return "", &Unavailable{"rtc-wake-source", "rtc0 has no wakeup source (no /" + rtcWakeDir + "): the RTC cannot wake this machine, or its driver does not say"}
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "wakeup") {
			continue
		}
		name := e.Name()
		if b, err := fs.ReadFile(src, path.Join(rtcWakeDir, e.Name(), "name")); err == nil {
			name = strings.TrimSpace(string(b))
		} else if b, err := fs.ReadFile(src, path.Join("sys/class/wakeup", e.Name(), "name")); err == nil {
			name = strings.TrimSpace(string(b))
		}
		return name, nil
	}
	return "", &Unavailable{"rtc-wake-source", "/" + rtcWakeDir + " lists no wakeup source"}
}

// MaxPstoreFile bounds what is kept of one pstore file: its last bytes.
const MaxPstoreFile = 64 << 10

func loadPstore(src Source) (map[string]string, error) {
	const dir = "sys/fs/pstore"
	ents, err := fs.ReadDir(src, dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range ents {
		if !e.Type().IsRegular() || len(out) >= 64 {
			continue
		}
		b, err := fs.ReadFile(src, path.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if len(b) > MaxPstoreFile {
			b = b[len(b)-MaxPstoreFile:]
		}
		out[e.Name()] = string(b)
	}
	return out, nil
}

var residencyPaths = map[string]string{
	"system": "sys/devices/system/cpu/cpuidle/low_power_idle_system_residency_us",
	"cpu":    "sys/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us",
	"slp_s0": "sys/kernel/debug/pmc_core/slp_s0_residency_usec",
}

var residencyFiles = []string{residencyPaths["system"], residencyPaths["cpu"], residencyPaths["slp_s0"]}

func loadResidency(src Source) (map[string]int64, error) {
	out := map[string]int64{}
	var errs []error
	for name, p := range residencyPaths {
		b, err := fs.ReadFile(src, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			out[name] = n
		}
	}
	if len(out) == 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}
