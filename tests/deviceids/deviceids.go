// Package deviceids is the device-ids check: each device's _HID and _CID
// are valid PNP IDs, ACPI IDs or compressed EISA IDs, and its _UID is an
// integer or a string (ACPI 6.5 §6.1.2, §6.1.5, §6.1.12).
//
// IDs a driver matches by string. A few IDs of an invalid form are bound
// to all the same, because a Linux driver lists that exact string
// (ACPICA upper-cases _HID and _CID strings before the match): "VMGENCTR"
// and "VM_GEN_COUNTER" (drivers/virt/vmgenid.c, the VM generation ID that
// Hyper-V, QEMU and Firecracker publish, the latter two as _CID
// "VM_Gen_Counter"), and "VMCLOCK" (drivers/ptp/ptp_vmclock.c). Such an ID
// is still reported, since the form is wrong and another OS may ignore
// it, but the message names the driver that binds to it. These are IDs
// that hypervisors publish: with positive evidence of a virtual machine
// (DMI, the kernel's "Hypervisor detected", the CPUID hypervisor bit) the
// finding is reported as explained by the virtual machine, naming the
// evidence. Every other invalid ID fails in a guest too: a hypervisor's
// virtual firmware is firmware, and an ID no driver knows binds nothing.
package deviceids

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

const spec = "ACPI 6.5 §6.1.2, §6.1.5, §6.1.12"

var (
	labelHID = tests.NewLabel("DeviceHIDInvalid", tests.Medium, "ACPI 6.5 §6.1.5",
		"A _HID is neither a PNP ID (three capital letters and four hex digits, \"PNP0C09\"), an ACPI ID "+
			"(four capital letters or digits and four hex digits, \"ACPI0003\"), nor a valid compressed "+
			"EISA ID integer. The OS matches drivers on _HID, and drivers list registered IDs of these forms: "+
			"an ID of another form binds only where a driver lists that exact string (the message names the "+
			"driver when Linux has one), and other OSes may ignore it. Use the ID registered for the device.")
	labelCID = tests.NewLabel("DeviceCIDInvalid", tests.Low, "ACPI 6.5 §6.1.2",
		"A _CID is neither a PNP or ACPI ID, a compressed EISA ID, nor a bus-specific ID "+
			"(\"PCI\\CC_0C0330\"). Unless a driver lists that exact string (the message names the driver when "+
			"Linux has one), the compatible ID adds nothing. Use a registered ID, or leave the _CID out.")
	labelUID = tests.NewLabel("DeviceUIDType", tests.Medium, "ACPI 6.5 §6.1.12",
		"A _UID is neither an integer nor a string, so the OS cannot read the device's unique ID. Return "+
			"an integer or a string.")
)

// Check is the device-ids check.
var Check = &tests.Check{
	ID:       "device-ids",
	Title:    "Device _HID, _CID and _UID values are well formed",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Optional: []input.Decl{input.DMI, input.KernelLog, input.CPUInfo},
	Spec:     spec,
	Labels:   []*tests.Label{labelHID, labelCID, labelUID},
	Run:      run,
}

var (
	pnpID  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z]{3}[0-9A-F]{4}$`) })
	acpiID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z0-9_]{4}[0-9A-F]{4}$`) })
)

// validID reports whether v is a valid hardware ID; cid also allows
// bus-specific compatible IDs (containing a backslash).
func validID(v *aml.Object, cid bool) (string, bool) {
	if v == nil {
		return "an uninitialised value", false
	}
	switch v.Type {
	case aml.TypeInteger:
		s, ok := aml.EISAID(v.Int)
		if !ok {
			return fmt.Sprintf("integer 0x%X, not a compressed EISA ID", v.Int), false
		}
		return s, true
	case aml.TypeString:
		s := v.Str
		return fmt.Sprintf("%q", s), pnpID().MatchString(s) || acpiID().MatchString(s) || cid && strings.Contains(s, `\`)
	}
	return "a " + v.Type.String(), false
}

// stringMatched are IDs of an invalid form that a Linux driver matches by
// string, after ACPICA's upper-casing, with the driver's source file.
var stringMatched = map[string]string{
	"VMGENCTR":       "drivers/virt/vmgenid.c",
	"VM_GEN_COUNTER": "drivers/virt/vmgenid.c",
	"VMCLOCK":        "drivers/ptp/ptp_vmclock.c",
}

// driverFor names the Linux driver that matches v's string, if any.
func driverFor(v *aml.Object) (string, bool) {
	if v == nil || v.Type != aml.TypeString {
		return "", false
	}
	d, ok := stringMatched[strings.ToUpper(strings.TrimPrefix(v.Str, "*"))]
	return d, ok
}

// acpicaRepair is what ACPICA makes of a _HID string (a leading '*'
// dropped, upper case), when that is a valid ID.
func acpicaRepair(v *aml.Object) (string, bool) {
	if v == nil || v.Type != aml.TypeString {
		return "", false
	}
	s := strings.ToUpper(strings.TrimPrefix(v.Str, "*"))
	return s, s != v.Str && (pnpID().MatchString(s) || acpiID().MatchString(s))
}

func run(p *tests.Pass) error {
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	e := l.NewEvaluator()
	defer l.ReportBudget(p, e)
	vmOnce, why := false, ""
	// invalid reports an invalid ID: explained in a virtual machine when a
	// Linux driver matches it by string, failed otherwise.
	invalid := func(label *tests.Label, v *aml.Object, format string, args ...any) {
		d, ok := driverFor(v)
		if !ok {
			p.Fail(label, format, args...)
			return
		}
		format += " (Linux's " + d + " matches this string)"
		if !vmOnce {
			vmOnce = true
			dmi, _ := tests.Load(p, input.DMI)
			recs, _ := tests.KernelRecords(p)
			cpus, _ := tests.Load(p, input.CPUInfo)
			if why = vm.Evidence(dmi, recs, cpus); why != "" {
				why += ": an ID the hypervisor publishes, which the guest's driver binds by string"
			}
		}
		p.Explained(label, why, format, args...)
	}
	checked, unknown := 0, 0
	var unknownEx string
	warned := 0
	for _, n := range amlcheck.Devices(l.NS) {
		path := amlcheck.Path(n)
		for _, name := range []string{"_HID", "_CID", "_UID"} {
			r := amlcheck.Eval(e, n, name)
			if r == nil {
				continue
			}
			if r.Err != nil || r.Faked {
				unknown++
				if unknownEx == "" {
					unknownEx = path + "." + name
				}
				continue
			}
			checked++
			switch name {
			case "_HID":
				if s, ok := validID(r.V, false); !ok {
					if fixed, ok := acpicaRepair(r.V); ok {
						s += " (Linux's ACPICA repairs it to " + fixed + ")"
					}
					invalid(labelHID, r.V, "%s._HID is %s", path, s)
				}
			case "_CID":
				vs := []*aml.Object{r.V}
				if r.V != nil && r.V.Type == aml.TypePackage {
					vs = r.V.Pkg
				}
				for _, v := range vs {
					if s, ok := validID(v, true); !ok {
						invalid(labelCID, v, "%s._CID holds %s", path, s)
					}
				}
			case "_UID":
				if r.V == nil || r.V.Type != aml.TypeInteger && r.V.Type != aml.TypeString {
					t := "nothing"
					if r.V != nil {
						t = "a " + r.V.Type.String()
					}
					// no occurrence in the corpus yet: reported, not failed
					warned++
					p.Warn(labelUID, "%s._UID is %s", path, t)
				}
			}
		}
	}
	if unknown > 0 {
		p.NotChecked(fmt.Sprintf("%d _HID/_CID/_UID objects (e.g. %s)", unknown, unknownEx),
			"their value depends on hardware state or code that cannot run without the machine", "compare with the values the OS reports under /sys/bus/acpi/devices")
	}
	if checked == 0 {
		if unknown == 0 {
			p.NotApplicable("no device has a _HID, _CID or _UID")
		}
		return nil
	}
	if p.Failures() == 0 && warned == 0 {
		p.Passed("%d _HID/_CID/_UID values are well formed", checked)
	}
	return nil
}
