// Package cpufeatures checks what firmware decides about CPU features:
// NX/XD not disabled, VMX (Intel) or SVM (AMD) not locked off, the same
// microcode revision on every CPU, and mitigations the kernel cannot apply
// because the firmware ships old microcode.
//
// Evidence, live or from a snapshot: raw CPUID (VMX, SVM, NX and long-mode
// bits as the CPU reports them), /proc/cpuinfo (flags, microcode per
// CPU), IA32_FEATURE_CONTROL, IA32_MISC_ENABLE and AMD's VM_CR from the
// MSRs, /sys/devices/system/cpu/vulnerabilities; from a boot log alone:
// the kernel's microcode, NX, "VMX (outside TXT) disabled by BIOS" and
// "kvm: disabled by bios" lines and its vulnerability verdicts. Linux
// clears the vmx/svm flag of a CPU whose firmware locked the feature off,
// so a locked-off feature is recognised by the lock bits together with the
// flag or the kernel's own line.
package cpufeatures

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/cpu/msr"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

var (
	labelNX = tests.NewLabel("NXDisabled", tests.High, "Intel SDM Vol. 4 (IA32_MISC_ENABLE bit 34, XD Bit Disable)",
		"Execute-disable (NX/XD) protection is switched off by firmware, so the OS cannot mark data pages "+
			"non-executable. Leave IA32_MISC_ENABLE.XD_DISABLE clear and remove any setup option defaulting it on.")
	labelVMX = tests.NewLabel("VMXLockedOff", tests.Medium, "Intel SDM Vol. 3C §24.7 (IA32_FEATURE_CONTROL)",
		"The CPU supports VMX but firmware locked IA32_FEATURE_CONTROL with VMX disabled, so no hypervisor can "+
			"run until the setup option is changed and the machine rebooted. Enable virtualization in setup by "+
			"default, or leave the lock bit clear for the OS to set.")
	labelSVM = tests.NewLabel("SVMLockedOff", tests.Medium, "AMD APM Vol. 2 §15.30.1 (VM_CR.SVMDIS, VM_CR.LOCK)",
		"The CPU supports SVM but firmware set VM_CR.SVMDIS and locked it, so no hypervisor can run. Enable SVM "+
			"in setup by default, or leave the lock bit clear.")
	labelMicrocode = tests.NewLabel("MicrocodeMismatch", tests.Medium, "Intel SDM Vol. 3A §10.11 (microcode update)",
		"CPUs run different microcode revisions: firmware updated some processors and not others. Mixed "+
			"revisions give CPUs different errata and features. Load the same microcode update on every processor "+
			"(and on resume from S3).")
	labelNoMicrocode = tests.NewLabel("MitigationNeedsMicrocode", tests.Medium, "the kernel's CPU vulnerability report",
		"The kernel reports a CPU vulnerability it cannot fully mitigate because the microcode lacks the needed "+
			"support. Ship the CPU vendor's current microcode update in the firmware.")
)

// Check is the cpu-features check.
var Check = &tests.Check{
	ID: "cpu-features", Title: "NX enabled, VMX/SVM not locked off, identical microcode, mitigations not starved of microcode",
	Category: tests.CPU,
	Arch:     tests.X86,
	Optional: []input.Decl{input.CPUInfo, input.CPUID, input.MSRs, input.CPUVulns, input.KernelLog, input.DMI},
	Spec:     "Intel SDM Vol. 3A/3C/4; AMD APM Vol. 2",
	Labels:   []*tests.Label{labelNX, labelVMX, labelSVM, labelMicrocode, labelNoMicrocode},
	Run:      run,
}

func run(p *tests.Pass) error {
	cpus, cpuErr := tests.Load(p, input.CPUInfo)
	ids, _ := tests.Load(p, input.CPUID)
	d, _ := tests.Load(p, input.MSRs)
	vulns, _ := tests.Load(p, input.CPUVulns)
	recs, _ := tests.KernelRecords(p)
	dmi, _ := tests.Load(p, input.DMI)
	var texts []string
	for _, r := range recs {
		texts = append(texts, r.Text)
	}
	lf := cpuinfo.FromLog(texts)
	if cpus == nil && ids == nil && d == nil && vulns == nil && recs == nil {
		p.Skip("no CPU information: %v", cpuErr)
		return nil
	}
	why := vm.Evidence(dmi, recs, cpus)
	vmWhy := func(what string) string {
		if why == "" {
			return ""
		}
		return why + ": " + what
	}
	intel, amd := vendor(cpus, texts)

	// NX.
	switch {
	case d != nil && intel && bit(d, msr.MiscEnable, 34):
		p.Fail(labelNX, "IA32_MISC_ENABLE has XD_DISABLE (bit 34) set")
	case has(ids, extLeaf, 3, 29) && !has(ids, extLeaf, 3, 20):
		p.Fail(labelNX, "CPUID 0x80000001: long mode without NX (EDX bit 20 clear)")
	case cpus != nil && cpus[0].Has("lm") && !cpus[0].Has("nx"):
		p.Fail(labelNX, "the 64-bit CPU does not show the nx flag")
	case strings.Contains(lf.NX, "protection missing"):
		p.Fail(labelNX, "kernel: %s", lf.NX)
	case cpus != nil && cpus[0].Has("nx"), strings.HasSuffix(lf.NX, "protection: active"):
		p.Passed("NX/XD protection is available")
	default:
		p.NotChecked("NX/XD enabled", "no nx flag, MSR or kernel line to judge by", "")
	}

	// VMX / SVM.
	switch {
	case intel:
		checkVMX(p, cpus, has(ids, cpuinfo.Leaf{Leaf: 1}, 2, 5), d, lf, vmWhy("nested virtualization is the hypervisor's choice"))
	case amd:
		checkSVM(p, cpus, has(ids, extLeaf, 2, 2), d, lf, vmWhy("nested virtualization is the hypervisor's choice"))
	default:
		p.NotChecked("VMX/SVM not locked off", "CPU vendor unknown", "")
	}

	// Microcode.
	revs := map[int]uint64{}
	src := "/proc/cpuinfo"
	for _, c := range cpus {
		if c.HaveMicrocode {
			revs[c.Processor] = c.Microcode
		}
	}
	if len(revs) == 0 {
		revs, src = lf.Microcode, "the kernel log"
	}
	switch {
	case len(revs) > 1:
		byRev := map[uint64][]int{}
		for c, r := range revs {
			byRev[r] = append(byRev[r], c)
		}
		if len(byRev) == 1 {
			for r := range byRev {
				p.Passed("microcode revision 0x%x on all %d CPUs (%s)", r, len(revs), src)
			}
		} else {
			var parts []string
			var rs []uint64
			for r := range byRev {
				rs = append(rs, r)
			}
			sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
			for _, r := range rs {
				sort.Ints(byRev[r])
				parts = append(parts, fmt.Sprintf("0x%x on CPUs %v", r, byRev[r]))
			}
			p.Explained(labelMicrocode, vmWhy("the hypervisor reports the vCPUs' microcode"), "microcode revisions differ (%s): %s", src, strings.Join(parts, "; "))
		}
	case len(revs) == 1:
		p.Info(nil, "one CPU's microcode revision known: nothing to compare")
	default:
		p.NotChecked("microcode identical on all CPUs", "no per-CPU microcode revision (cpuinfo or the kernel log)", "")
	}

	// Mitigations missing microcode.
	var starved []string
	names := make([]string, 0, len(vulns))
	for n := range vulns {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if v := vulns[n]; strings.Contains(v, "no microcode") || (n == "old_microcode" && strings.HasPrefix(v, "Vulnerable")) {
			starved = append(starved, n+": "+v)
		}
	}
	if vulns == nil {
		starved = lf.NoMicrocode
	}
	for _, s := range starved {
		p.Explained(labelNoMicrocode, vmWhy("the hypervisor decides which microcode features a guest sees"), "%s", s)
	}
	switch {
	case len(starved) > 0:
	case vulns != nil:
		p.Passed("no CPU vulnerability is left unmitigated for want of microcode (%d verdicts)", len(vulns))
	case recs != nil:
		p.NotChecked("mitigations have the microcode they need", "the kernel log prints only some vulnerability verdicts, and none blames missing microcode",
			"run on the machine, where /sys/devices/system/cpu/vulnerabilities lists them all")
	}
	return nil
}

func vendor(cpus []cpuinfo.CPU, texts []string) (intel, amd bool) {
	if len(cpus) > 0 {
		return cpus[0].Intel(), cpus[0].AMD()
	}
	for _, t := range texts {
		if strings.HasPrefix(t, "smpboot: CPU0: Intel") {
			return true, false
		}
		if strings.HasPrefix(t, "smpboot: CPU0: AMD") || strings.HasPrefix(t, "smpboot: CPU0: Hygon") {
			return false, true
		}
	}
	return false, false
}

func bit(d *msr.Dump, a uint32, n uint) bool {
	v, ok := d.Get(d.CPUs()[0], a)
	return ok && v&(1<<n) != 0
}

// extLeaf is CPUID's extended feature leaf (NX, LM, SVM).
var extLeaf = cpuinfo.Leaf{Leaf: 0x80000001}

// has reports whether the boot CPU's CPUID has bit n of register reg in
// leaf l (false when CPUID was not read).
func has(ids cpuinfo.CPUID, l cpuinfo.Leaf, reg, n int) bool {
	if cs := ids.CPUs(); len(cs) > 0 {
		set, _ := ids.Bit(cs[0], l, reg, n)
		return set
	}
	return false
}

func checkVMX(p *tests.Pass, cpus []cpuinfo.CPU, cpuidVMX bool, d *msr.Dump, lf cpuinfo.LogFacts, why string) {
	if d != nil && len(d.CPUs()) > 0 {
		v, ok := d.Get(d.CPUs()[0], msr.FeatureControl)
		if ok {
			locked, vmxOn := v&1 != 0, v&(1<<2) != 0
			supported := cpuidVMX || (len(cpus) > 0 && cpus[0].Has("vmx")) || lf.VMXOff != "" || lf.KVMOff != ""
			switch {
			case locked && !vmxOn && supported:
				p.Explained(labelVMX, why, "IA32_FEATURE_CONTROL 0x%x: locked with VMX outside SMX disabled", v)
			case locked && vmxOn:
				p.Passed("VMX enabled and locked on (IA32_FEATURE_CONTROL 0x%x)", v)
			case !locked:
				p.Passed("IA32_FEATURE_CONTROL 0x%x is not locked: the OS may enable VMX", v)
			default:
				p.Info(nil, "IA32_FEATURE_CONTROL 0x%x: VMX off, and nothing shows the CPU supports it", v)
			}
			return
		}
	}
	switch {
	case lf.VMXOff != "":
		p.Explained(labelVMX, why, "kernel: %s", lf.VMXOff)
	case lf.KVMOff != "":
		p.Explained(labelVMX, why, "kernel: %s", lf.KVMOff)
	case len(cpus) > 0 && cpus[0].Has("vmx"):
		p.Passed("the vmx flag is present (the kernel clears it when firmware locks VMX off)")
	default:
		p.NotChecked("VMX not locked off", "IA32_FEATURE_CONTROL not read and no vmx flag or kernel line", msrRemedy(p))
	}
}

func checkSVM(p *tests.Pass, cpus []cpuinfo.CPU, cpuidSVM bool, d *msr.Dump, lf cpuinfo.LogFacts, why string) {
	if d != nil && len(d.CPUs()) > 0 {
		if v, ok := d.Get(d.CPUs()[0], msr.VMCR); ok {
			locked, dis := v&(1<<3) != 0, v&(1<<4) != 0
			supported := cpuidSVM || (len(cpus) > 0 && cpus[0].Has("svm")) || lf.KVMOff != ""
			switch {
			case locked && dis && supported:
				p.Explained(labelSVM, why, "VM_CR 0x%x: SVMDIS set and locked", v)
			case dis && supported:
				p.Explained(labelSVM, why, "VM_CR 0x%x: SVMDIS set", v)
			case supported:
				p.Passed("SVM enabled (VM_CR 0x%x)", v)
			default:
				p.Info(nil, "VM_CR 0x%x: nothing shows the CPU supports SVM", v)
			}
			return
		}
	}
	switch {
	case lf.KVMOff != "":
		p.Explained(labelSVM, why, "kernel: %s", lf.KVMOff)
	case len(cpus) > 0 && cpus[0].Has("svm"):
		p.Passed("the svm flag is present (the kernel clears it when firmware locks SVM off)")
	default:
		p.NotChecked("SVM not locked off", "VM_CR not read and no svm flag or kernel line", msrRemedy(p))
	}
}

// msrRemedy says what would let the registers be read here.
func msrRemedy(p *tests.Pass) string {
	_, err := tests.Load(p, input.MSRs)
	return p.Machine().Remedy(err, "run as root with the msr module")
}
