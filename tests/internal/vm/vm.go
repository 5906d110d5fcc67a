// Package vm finds positive evidence that the machine under test is a
// virtual machine, for the CPU and SMBIOS checks to report what a
// hypervisor explains as explained, and that its CPUs are emulated by
// QEMU rather than run by a hypervisor (Emulated). An unknown machine is
// not a virtual one: no evidence gives "".
package vm

import (
	"strings"

	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
)

// Evidence returns what shows the machine is virtual, as "virtual machine
// (…)", or "". Any argument may be nil. The sources, in order: the DMI
// identity (the vendors klog recognises), the kernel log's own DMI and
// "Hypervisor detected" lines, and the CPUID hypervisor bit.
func Evidence(dmi *input.DMIInfo, log []klog.Record, cpus []cpuinfo.CPU) string {
	if dmi != nil {
		id := dmi.SysVendor + " " + dmi.ProductName + " " + dmi.BIOSVendor
		if env := klog.EnvFromLog([]klog.Record{{Text: "DMI: " + id}}); env.VM != "" {
			return "virtual machine (DMI: " + dmi.SysVendor + " " + dmi.ProductName + ")"
		}
	}
	if len(log) > 0 {
		if env := klog.EnvFromLog(log); env.VM != "" {
			return "virtual machine (" + env.VM + ")"
		}
	}
	for _, c := range cpus {
		if c.Has("hypervisor") {
			return "virtual machine (CPUID hypervisor bit)"
		}
	}
	return ""
}

// Emulated returns what shows that the machine is a QEMU guest whose CPUs
// QEMU itself runs, without KVM (TCG emulation, the CI's way), as "QEMU
// without KVM (…)", or "". A vCPU there is a host thread that a busy host
// may not run for seconds while the guest's clock goes on, so the guest's
// watchdogs report stalls the firmware has no part in. dmi may be nil;
// env is what the head of the kernel log says (klog.Log.Env, the zero Env
// when there is no log). The evidence:
//   - QEMU's virt boards (arm64, riscv) name the system "QEMU Virtual
//     Machine" unless KVM runs them, when they say "KVM Virtual Machine";
//   - QEMU's PC boards name the system the same way under both, but a
//     KVM guest's kernel logs "Hypervisor detected: KVM" at boot, right
//     after its "DMI:" line: a log whose head has QEMU's DMI line and no
//     such line is a guest QEMU emulates.
//
// A "Hypervisor detected" line means a hypervisor runs the CPUs: "".
func Emulated(dmi *input.DMIInfo, env klog.Env) string {
	if strings.HasPrefix(env.VM, "Hypervisor detected: ") {
		return ""
	}
	logDMI, _ := strings.CutPrefix(env.VM, "DMI: ")
	const virt = "QEMU Virtual Machine"
	switch {
	case dmi != nil && dmi.SysVendor == "QEMU" && dmi.ProductName == virt:
		return "QEMU without KVM (DMI: QEMU " + virt + "; under KVM QEMU's virt board is a \"KVM Virtual Machine\")"
	case strings.HasPrefix(logDMI, "QEMU "+virt):
		return "QEMU without KVM (kernel log: DMI: " + logDMI + "; under KVM QEMU's virt board is a \"KVM Virtual Machine\")"
	case strings.HasPrefix(logDMI, "QEMU ") && !strings.Contains(logDMI, "KVM"):
		return "QEMU without KVM (kernel log: DMI: " + logDMI + ", and no \"Hypervisor detected\" line, which a KVM guest's kernel prints after it)"
	}
	return ""
}
