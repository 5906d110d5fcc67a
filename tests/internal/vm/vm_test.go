package vm

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
)

func TestEvidence(t *testing.T) {
	assert.Equal(t, "", Evidence(nil, nil, nil), "an unknown machine is not a virtual one")
	assert.Equal(t, "", Evidence(&input.DMIInfo{SysVendor: "LENOVO", ProductName: "20XW"}, nil, []cpuinfo.CPU{{Flags: map[string]bool{"vmx": true}}}))
	assert.Equal(t, "virtual machine (DMI: QEMU Standard PC (Q35 + ICH9, 2009))",
		Evidence(&input.DMIInfo{SysVendor: "QEMU", ProductName: "Standard PC (Q35 + ICH9, 2009)"}, nil, nil))
	assert.Equal(t, "virtual machine (Hypervisor detected: KVM)",
		Evidence(nil, []klog.Record{{Text: "Hypervisor detected: KVM"}}, nil))
	assert.Equal(t, "virtual machine (CPUID hypervisor bit)",
		Evidence(nil, nil, []cpuinfo.CPU{{Flags: map[string]bool{"hypervisor": true}}}))
}
