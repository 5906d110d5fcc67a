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

func TestEmulated(t *testing.T) {
	virt := &input.DMIInfo{SysVendor: "QEMU", ProductName: "QEMU Virtual Machine"}
	assert.Equal(t, "", Emulated(nil, klog.Env{}), "an unknown machine is not an emulated one")
	assert.Equal(t, `QEMU without KVM (DMI: QEMU QEMU Virtual Machine; under KVM QEMU's virt board is a "KVM Virtual Machine")`, Emulated(virt, klog.Env{}))
	assert.Equal(t, "", Emulated(&input.DMIInfo{SysVendor: "QEMU", ProductName: "KVM Virtual Machine"}, klog.Env{}), "arm64 virt under KVM")
	assert.Equal(t, "", Emulated(&input.DMIInfo{SysVendor: "LENOVO", ProductName: "21CB"}, klog.Env{}))

	// The arm64 live image's log under TCG (the line of image's
	// TestArm64ACPI boot).
	arm := []klog.Record{{Text: "DMI: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015"}}
	assert.Contains(t, Emulated(nil, klog.EnvFromLog(arm)), "QEMU without KVM (kernel log: DMI: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015;")
	assert.Equal(t, "", Emulated(nil, klog.EnvFromLog([]klog.Record{{Text: "DMI: QEMU KVM Virtual Machine, BIOS 0.0.0 02/06/2015"}})))

	// x86: the corpus's TCG boot of q35 has no "Hypervisor detected"
	// line; a KVM guest has one.
	q35 := []klog.Record{{Text: "DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 0.0.0 02/06/2015"}}
	assert.Contains(t, Emulated(nil, klog.EnvFromLog(q35)), `no "Hypervisor detected" line`)
	kvm := append(q35, klog.Record{Text: "Hypervisor detected: KVM"})
	assert.Equal(t, "", Emulated(nil, klog.EnvFromLog(kvm)))
	assert.Equal(t, "", Emulated(virt, klog.EnvFromLog(kvm)), "a hypervisor line wins over the product name")
	assert.Equal(t, "", Emulated(nil, klog.EnvFromLog([]klog.Record{{Text: "DMI: Dell Inc. PowerEdge R650, BIOS 1.2.3 01/01/2024"}})))
	// QEMU's PC board in DMI, but no boot log to tell KVM from TCG.
	assert.Equal(t, "", Emulated(&input.DMIInfo{SysVendor: "QEMU", ProductName: "Standard PC (Q35 + ICH9, 2009)"}, klog.Env{}))
}
