// Package platform holds what the platform checks (thermal, fan,
// power-supply, cpufreq) share: how they say why a device class is absent.
package platform

import (
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

// Absent returns why a machine has none of what a check looks for: the
// virtual machine evidence when there is some ("virtual machine (DMI:
// QEMU …): the hypervisor emulates none"), else firmware, the firmware
// describing none. The check's Optional inputs should include input.DMI
// and input.CPUInfo.
func Absent(p *tests.Pass, firmware string) string {
	dmi, _ := tests.Load(p, input.DMI)
	cpus, _ := tests.Load(p, input.CPUInfo)
	if why := vm.Evidence(dmi, nil, cpus); why != "" {
		return why + ", whose virtual hardware has none"
	}
	return firmware
}
