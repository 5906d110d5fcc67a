// Package cpulocks checks, read-only, the CPU settings firmware must close
// before a machine ships: the silicon debug interface (Intel DCI, through
// IA32_DEBUG_INTERFACE) disabled and locked, and microcode loaded.
//
// Evidence: the MSRs (the msr module; reads are allowed under kernel
// lockdown), CPUID's SDBG bit (raw CPUID, or the sdbg flag of
// /proc/cpuinfo), and the microcode revision /proc/cpuinfo shows.
//
// Labels, their fwupd HSI attributes, and what confirms them:
//
//	DebugInterfaceEnabled   IA32_DEBUG_INTERFACE.ENABLE (bit 0) set:
//	                        org.fwupd.hsi.PlatformDebugEnabled (HSI-1).
//	DebugInterfaceUnlocked  IA32_DEBUG_INTERFACE.LOCK (bit 30) clear:
//	                        org.fwupd.hsi.PlatformDebugLocked (HSI-2).
//	MicrocodeRevisionZero   a CPU runs with microcode revision 0: no update
//	                        was ever loaded. Virtual CPUs often show 0 or 1:
//	                        explained there.
//
// None of them has a real occurrence in the project's data yet, so each is
// reported as a warning until one is seen (the project's rule for new
// labels).
//
// Deliberately not judged: the IA32_FEATURE_CONTROL lock. Linux (since
// 5.6) sets the lock itself at boot when firmware left it clear, so from
// the OS the register reads locked either way; a reading cannot blame the
// firmware. Its value is reported as information.
package cpulocks

import (
	"fmt"

	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/cpu/msr"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

var (
	labelDebug = tests.NewLabel("DebugInterfaceEnabled", tests.High, "Intel SDM Vol. 4, IA32_DEBUG_INTERFACE (MSR C80h) bit 0",
		"The CPU's silicon debug interface (Intel DCI, reachable over a USB port) is enabled: someone with the "+
			"cable can halt the CPU and read or change memory, past every OS and firmware protection. Production "+
			"firmware must leave IA32_DEBUG_INTERFACE.ENABLE clear and set its LOCK bit.")
	labelUnlocked = tests.NewLabel("DebugInterfaceUnlocked", tests.Medium, "Intel SDM Vol. 4, IA32_DEBUG_INTERFACE (MSR C80h) bit 30",
		"IA32_DEBUG_INTERFACE is not locked, so code running later (an option ROM, a boot loader, the OS) can "+
			"still enable the silicon debug interface. Firmware must set the LOCK bit before it hands over control.")
	labelMicrocode = tests.NewLabel("MicrocodeRevisionZero", tests.Medium, "Intel SDM Vol. 3A §10.11 (microcode update facilities)",
		"The CPU runs with microcode revision 0: the firmware never loaded a microcode update, so the CPU has "+
			"none of the errata fixes and security mitigations its vendor has shipped. Include the current "+
			"microcode update in the firmware image and load it on every CPU.")
)

// Check is the cpu-locks check.
var Check = &tests.Check{
	ID: "cpu-locks", Title: "silicon debug interface disabled and locked, microcode loaded",
	Category: tests.Security,
	Arch:     tests.X86,
	Optional: []input.Decl{input.MSRs, input.CPUInfo, input.CPUID, input.DMI, input.KernelLog},
	Spec:     "Intel SDM Vol. 4 (IA32_DEBUG_INTERFACE, IA32_FEATURE_CONTROL); Vol. 3A §10.11",
	Labels:   []*tests.Label{labelDebug, labelUnlocked, labelMicrocode},
	Run:      run,
}

// sdbgLeaf is CPUID leaf 1, whose ECX bit 11 (SDBG) says the CPU has
// IA32_DEBUG_INTERFACE.
var sdbgLeaf = cpuinfo.Leaf{Leaf: 1}

func run(p *tests.Pass) error {
	d, msrErr := tests.Load(p, input.MSRs)
	cpus, cpuErr := tests.Load(p, input.CPUInfo)
	ids, _ := tests.Load(p, input.CPUID)
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	if d == nil && cpus == nil {
		p.Skip("neither MSRs nor /proc/cpuinfo could be read: %v; %v", msrErr, cpuErr)
		return nil
	}
	why := vm.Evidence(dmi, recs, cpus)

	// The debug interface.
	sdbg, known := false, false
	if ids != nil {
		if c := ids.CPUs(); len(c) > 0 {
			sdbg, known = ids.Bit(c[0], sdbgLeaf, 2, 11)
		}
	}
	if !known && len(cpus) > 0 {
		sdbg, known = cpus[0].Has("sdbg"), true
	}
	switch {
	case !known:
		p.NotChecked("debug interface disabled and locked", "neither CPUID nor /proc/cpuinfo says whether the CPU has IA32_DEBUG_INTERFACE", "")
	case !sdbg:
		p.Info(nil, "the CPU has no IA32_DEBUG_INTERFACE (CPUID.1:ECX.SDBG clear): nothing to lock")
	case d == nil:
		p.NotChecked("debug interface disabled and locked", fmt.Sprintf("MSRs not read: %v", msrErr), "run as root with the msr module available")
	default:
		debugInterface(p, d)
	}

	// IA32_FEATURE_CONTROL, for information.
	if d != nil {
		if c := d.CPUs(); len(c) > 0 {
			if v, ok := d.Get(c[0], msr.FeatureControl); ok {
				p.Info(nil, "IA32_FEATURE_CONTROL=0x%x (lock %v); not judged: Linux locks it at boot when firmware did not", v, v&1 != 0)
			}
		}
	}

	// Microcode.
	var zero []int
	have := 0
	for _, c := range cpus {
		if c.HaveMicrocode {
			have++
			if c.Microcode == 0 {
				zero = append(zero, c.Processor)
			}
		}
	}
	switch {
	case len(zero) > 0 && why != "":
		p.Explained(labelMicrocode, why+": a hypervisor decides the microcode revision its virtual CPUs report", "microcode revision 0 on CPUs %v", zero)
	case len(zero) > 0:
		p.Warn(labelMicrocode, "microcode revision 0 on CPUs %v", zero)
	case have > 0:
		p.Passed("a microcode update is loaded on all %d CPUs (revision 0x%x on CPU %d)", have, cpus[0].Microcode, cpus[0].Processor)
	default:
		p.NotChecked("microcode loaded", "/proc/cpuinfo gives no microcode revision", "")
	}
	return nil
}

// IA32_DEBUG_INTERFACE bits.
const (
	debugEnable = 1 << 0
	debugLock   = 1 << 30
)

func debugInterface(p *tests.Pass, d *msr.Dump) {
	var enabled, unlocked, unread []int
	var first uint64
	for _, c := range d.CPUs() {
		v, ok := d.Get(c, msr.DebugInterface)
		if !ok {
			unread = append(unread, c)
			continue
		}
		first = v
		if v&debugEnable != 0 {
			enabled = append(enabled, c)
		}
		if v&debugLock == 0 {
			unlocked = append(unlocked, c)
		}
	}
	if len(enabled) > 0 {
		p.Warn(labelDebug, "IA32_DEBUG_INTERFACE.ENABLE set on CPUs %v", enabled)
	}
	if len(unlocked) > 0 {
		p.Warn(labelUnlocked, "IA32_DEBUG_INTERFACE.LOCK clear on CPUs %v", unlocked)
	}
	n := len(d.CPUs())
	switch {
	case len(unread) == n:
		p.NotChecked("debug interface disabled and locked", "IA32_DEBUG_INTERFACE could not be read although CPUID lists it", "")
	case len(unread) > 0:
		p.NotChecked("debug interface on every CPU", fmt.Sprintf("IA32_DEBUG_INTERFACE unreadable on CPUs %v", unread), "")
	case len(enabled) == 0 && len(unlocked) == 0:
		p.Passed("silicon debug interface disabled and locked on all %d CPUs (IA32_DEBUG_INTERFACE=0x%x)", n, first)
	}
}
