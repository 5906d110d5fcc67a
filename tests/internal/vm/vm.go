// Package vm finds positive evidence that the machine under test is a
// virtual machine, for the CPU and SMBIOS checks to report what a
// hypervisor explains as explained. An unknown machine is not a virtual
// one: no evidence gives "".
package vm

import (
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
