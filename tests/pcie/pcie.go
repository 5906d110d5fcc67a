// Package pcie checks the PCI Express settings firmware leaves for the OS,
// from every function's configuration space as sysfs exposes it (the
// pci-config input) and the PCI Express capability in it:
//
//   - Max_Payload_Size (Device Control) is a defined size, within what the
//     function supports (Device Capabilities), and never above the MPS of
//     the bridge or port above it, so that along each path from the root
//     port no receiver gets TLPs larger than it accepts; Max_Read_Request_Size
//     is a defined size.
//   - ASPM (Link Control) is enabled only in states the link's ends support
//     (Link Capabilities), and L1 on both ends of a link or neither.
//   - Who controls ASPM is said: the FADT's IAPC_BOOT_ARCH "PCIe ASPM
//     Controls" bit, what the kernel logged of _OSC and of that bit, and the
//     kernel's ASPM policy.
//
// fwts's aspm and maxreadreq tests look at the same registers; this check
// follows the PCI Express Base Specification, not their code. Without root
// only the 64-byte headers can be read, and the check says so. Its
// findings are warnings until a machine in the corpus confirms them (the
// corpus has no configuration spaces yet).
package pcie

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/platform"
)

const (
	specDev  = "PCI Express Base Specification 6.0 §7.5.3.3 (Device Capabilities), §7.5.3.4 (Device Control)"
	specLink = "PCI Express Base Specification 6.0 §5.4.1 (Active State Power Management), §7.5.3.6 (Link Capabilities), §7.5.3.7 (Link Control)"
	specASPM = "ACPI 6.5 §5.2.9.3 (IA-PC Boot Architecture Flags: PCIe ASPM Controls), §6.2.11 (_OSC)"
)

var (
	labelMPSInvalid = tests.NewLabel("PCIeMaxPayloadInvalid", tests.Medium, specDev,
		"Max_Payload_Size or Max_Read_Request_Size holds a reserved encoding (6 or 7), so the function's TLP size "+
			"limit is undefined. Firmware must program one of 128-4096 bytes.")
	labelMPSAboveCap = tests.NewLabel("PCIeMaxPayloadAboveCapability", tests.Medium, specDev,
		"Max_Payload_Size is set above what the function says it supports (Max_Payload_Size Supported). The "+
			"function may drop or mangle larger TLPs; program at most the supported size.")
	labelMPSPath = tests.NewLabel("PCIeMaxPayloadMismatch", tests.Medium, specDev,
		"A function's Max_Payload_Size is larger than that of the port or bridge above it, so it may send TLPs "+
			"the port treats as malformed (AER errors, hangs under DMA load). Along each path the sizes must not "+
			"grow away from the root port; program the smallest size of the path, or leave it to the OS.")
	labelASPMUnsupported = tests.NewLabel("PCIeASPMEnabledUnsupported", tests.Medium, specLink,
		"A link has an ASPM state enabled (Link Control) that one of its ends does not support (Link "+
			"Capabilities). Enable only states both ends advertise.")
	labelASPML1 = tests.NewLabel("PCIeASPML1OneSided", tests.Low, specLink,
		"ASPM L1 is enabled on one end of a link only: the link never enters L1, and the configuration shows "+
			"firmware that stopped half-way. Enable L1 on both ends (downstream first) or on neither.")
)

// Check is the pcie check.
var Check = &tests.Check{
	ID: "pcie", Title: "PCIe: MaxPayloadSize/MaxReadRequest consistent along each path, ASPM within each link's support",
	Category: tests.BIOS,
	Inputs:   []input.Decl{input.PCIConfig},
	Optional: []input.Decl{input.ACPITables, input.KernelLog, input.DMI, input.CPUInfo},
	Spec:     specDev + "; " + specLink + "; " + specASPM,
	Labels:   []*tests.Label{labelMPSInvalid, labelMPSAboveCap, labelMPSPath, labelASPMUnsupported, labelASPML1},
	Run:      run,
}

type fn struct {
	dev sysdev.PCIDevice
	cap *sysdev.PCIe
}

func (f fn) String() string {
	return fmt.Sprintf("%s (%s)", f.dev.Addr, sysdev.PortTypeName(f.cap.PortType))
}

func size(enc int) string {
	if b := sysdev.PayloadBytes(enc); b > 0 {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("reserved encoding %d", enc)
}

func run(p *tests.Pass) error {
	s := tests.Input(p, input.PCIConfig)
	byAddr := map[string]fn{}
	var fns []fn
	short := 0
	for _, d := range s.Devices {
		c, err := sysdev.PCIeCap(d.Config)
		if err != nil {
			p.Info(nil, "%s: capability list not walked: %v", d.Addr, err)
			continue
		}
		if c == nil {
			if len(d.Config) <= 64 {
				short++
			}
			continue
		}
		f := fn{d, c}
		byAddr[d.Addr] = f
		fns = append(fns, f)
	}
	if len(fns) == 0 {
		switch {
		case len(s.Devices) == 0:
			p.NotApplicable("no PCI devices")
		case short == len(s.Devices):
			p.Skip("only the 64-byte headers of the %d PCI functions could be read (sysfs gives the whole configuration space to root): run as root", short)
		default:
			why := platform.Absent(p, "")
			if why == "" {
				why = "a conventional PCI machine"
			}
			p.NotApplicable("none of the %d PCI functions has a PCI Express capability: %s", len(s.Devices), why)
		}
		return nil
	}
	if short > 0 {
		p.NotChecked(fmt.Sprintf("%d functions read as 64-byte headers only", short), "sysfs gives the whole configuration space to root only", "run as root")
	}
	before := p.Failures()
	warned := 0
	warn := func(l *tests.Label, format string, args ...any) { warned++; p.Warn(l, format, args...) }
	for _, f := range fns {
		c := f.cap
		if c.MaxPayload() > 5 || c.MaxReadRequest() > 5 {
			warn(labelMPSInvalid, "%s: Max_Payload_Size %s, Max_Read_Request_Size %s (Device Control 0x%04x)", f, size(c.MaxPayload()), size(c.MaxReadRequest()), c.DevCtl)
			continue
		}
		if c.MaxPayloadSupported() <= 5 && c.MaxPayload() > c.MaxPayloadSupported() {
			warn(labelMPSAboveCap, "%s: Max_Payload_Size %s, supported %s", f, size(c.MaxPayload()), size(c.MaxPayloadSupported()))
		}
	}
	links, aspmOn := 0, 0
	for _, f := range fns {
		up, ok := byAddr[f.dev.Parent]
		if !ok {
			continue
		}
		if m, pm := f.cap.MaxPayload(), up.cap.MaxPayload(); m <= 5 && pm <= 5 && m > pm {
			warn(labelMPSPath, "%s has Max_Payload_Size %s, above the %s of %s above it", f, size(m), size(pm), up)
		}
		if !sysdev.DownstreamPort(up.cap.PortType) || !f.cap.HasLink || !up.cap.HasLink || f.cap.PortType == sysdev.PCIeRCiEP {
			continue
		}
		links++
		dc, uc := f.cap.ASPMControl(), up.cap.ASPMControl()
		if dc != 0 || uc != 0 {
			aspmOn++
		}
		for _, e := range []fn{up, f} {
			if on := e.cap.ASPMControl(); on&^e.cap.ASPMSupport() != 0 {
				warn(labelASPMUnsupported, "link %s - %s: %s has ASPM %s enabled, supports %s", up.dev.Addr, f.dev.Addr, e, sysdev.ASPMName(on), sysdev.ASPMName(e.cap.ASPMSupport()))
			}
		}
		if dc&2 != uc&2 {
			warn(labelASPML1, "link %s - %s: ASPM L1 enabled on %s (%s), not on %s (%s)", up.dev.Addr, f.dev.Addr,
				pick(dc&2 != 0, f, up), sysdev.ASPMName(pick(dc&2 != 0, dc, uc)), pick(dc&2 != 0, up, f), sysdev.ASPMName(pick(dc&2 != 0, uc, dc)))
		}
	}
	if warned == 0 && p.Failures() == before {
		p.Passed("%d PCI Express functions: Max_Payload_Size and Max_Read_Request_Size defined, within each function's capability "+
			"and never above the port's above it; %d links, %d with ASPM enabled, each within what both ends support", len(fns), links, aspmOn)
	}
	control(p, s, aspmOn)
	return nil
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// control says who controls ASPM: the FADT's bit, the kernel's account of
// it and of _OSC, and the policy.
func control(p *tests.Pass, s *input.PCIState, aspmOn int) {
	if ts, err := tests.Load(p, input.ACPITables); err == nil && ts != nil {
		if f, err := ts.FADT(); err == nil && f != nil && f.Has(109, 2) {
			if f.IAPCBootArch&acpi.BootArchNoASPM != 0 {
				p.Info(nil, "the FADT's IAPC_BOOT_ARCH has PCIe ASPM Controls set: the OS must not change ASPM, and keeps the firmware's settings (%d links with ASPM enabled)", aspmOn)
			} else {
				p.Info(nil, "the FADT's IAPC_BOOT_ARCH leaves ASPM to the OS (PCIe ASPM Controls clear)")
			}
		}
	}
	if l, err := tests.Load(p, input.KernelLog); err == nil && l != nil {
		n := 0
		_ = l.Each(func(r klog.Record) bool {
			t := r.Text
			if strings.Contains(t, "_OSC: OS now controls") || strings.Contains(t, "_OSC: platform does not support") ||
				strings.Contains(t, "_OSC: platform retains control") || strings.Contains(t, "FADT indicates ASPM is unsupported") ||
				strings.Contains(t, "_OSC failed") || strings.Contains(t, "ASPM: ") {
				if len(t) > 200 {
					t = t[:200]
				}
				p.Info(nil, "kernel: %s", t)
				n++
			}
			return n < 8
		})
	}
	if s.ASPMPolicy != "" {
		p.Info(nil, "the kernel's ASPM policy: %s", s.ASPMPolicy)
	}
}
