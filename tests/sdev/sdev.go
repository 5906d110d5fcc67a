// Package sdev checks the Secure Devices Table (ACPI 6.5 §5.2.27): its
// revision, every secure device structure walked by its own length, each
// structure's fixed part (namespace device 12 bytes, 16 with secure
// access components; PCIe endpoint 16), reserved flag bits, the
// variable parts each structure locates by offset and length (device
// identifier, vendor data, secure access components, PCI path): inside
// the structure and after its fixed part; a namespace device's
// identifier present and NUL-terminated; a PCIe endpoint's path present
// and a whole number of 2-byte (device, function) entries. Structure
// types ACPI 6.5 does not define are information.
//
// Left out on purpose: the namespace device's identifier against the
// namespace (the device may be one the secure OS owns and the AML of
// the normal world does not declare), the PCI path against the devices
// present (a path is resolved from the start bus at boot, which a table
// reading cannot redo), and the contents of vendor data and secure
// access components (the vendor's).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	SDEVMalformed        none
//	SDEVRevision         none
//	SDEVStructureLength  none
//	SDEVStructureSize    none
//	SDEVReservedFlags    none
//	SDEVDataRange        none
//	SDEVDeviceID         none
//	SDEVPCIPath          none
package sdev

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.27"

var (
	labelMalformed = tests.NewLabel("SDEVMalformed", tests.Medium, spec,
		"The SDEV is shorter than its header or its Length disagrees with its bytes. Publish the whole "+
			"table with a correct Length.")
	labelRevision = tests.NewLabel("SDEVRevision", tests.Low, spec,
		"The SDEV revision is not 1, the only one defined. Set Revision to 1.")
	labelStructLength = tests.NewLabel("SDEVStructureLength", tests.Medium, spec,
		"A secure device structure has a length shorter than its header or runs past the end of the "+
			"table, so the OS stops reading the secure devices there. Give each structure its real length.")
	labelSize = tests.NewLabel("SDEVStructureSize", tests.Medium, spec+".1",
		"A secure device structure is shorter than its type's fixed part (namespace device 12 bytes, "+
			"16 when its secure access components flag is set; PCIe endpoint 16), so its offsets and "+
			"lengths are read from beyond it. Give the structure its whole fixed part.")
	labelReserved = tests.NewLabel("SDEVReservedFlags", tests.Low, spec+".1",
		"A secure device structure's reserved flag bits (7:2) are set. Clear them.")
	labelRange = tests.NewLabel("SDEVDataRange", tests.Medium, spec+".1",
		"A secure device structure's device identifier, vendor data, secure access components or "+
			"PCI path, as its offset and length give it, lies outside the structure or over its fixed "+
			"fields, so the OS reads the wrong bytes as the device. Point each offset at its data "+
			"inside the structure, after the fixed part.")
	labelID = tests.NewLabel("SDEVDeviceID", tests.Medium, spec+".2",
		"A namespace device structure has no device identifier, or one not ended by a NUL, so the OS "+
			"cannot tell which device is secure. Give the device's full namespace path, NUL-terminated.")
	labelPath = tests.NewLabel("SDEVPCIPath", tests.Medium, spec+".3",
		"A PCIe endpoint structure's PCI path is empty or not a whole number of 2-byte (device, "+
			"function) entries, so the OS cannot find the secure endpoint. Give the path from the "+
			"start bus to the endpoint.")
	allLabels = []*tests.Label{labelMalformed, labelRevision, labelStructLength, labelSize, labelReserved, labelRange, labelID, labelPath}
)

// confirmed: none; the 3 corpus SDEVs (core/68279BE5FE48,
// core/A7910C2A6426, core/FB643712B4A0: PCIe endpoints with vendor data
// and camera namespace devices) follow the specification.
var confirmed = []*tests.Label{}

// Check is the sdev check.
var Check = &tests.Check{
	ID:       "sdev",
	Title:    "SDEV secure devices: structures, identifiers and PCI paths",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   allLabels,
	Run:      run,
}

func run(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(allLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigSDEV, "no SDEV table (the platform declares no secure devices; it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		d, err := acpi.ParseSDEV(t)
		if d == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1)
		r.Walk(labelStructLength, err)
		r.NotRead(d.NotRead)
		ns, pci := 0, 0
		for _, s := range d.Structures {
			switch s.Type {
			case acpi.SDEVNamespaceDevice:
				ns++
			case acpi.SDEVPCIeEndpoint:
				pci++
			default:
				r.Info("structure type %d at offset %d (length %d) is reserved: not interpreted", s.Type, s.Offset, s.Length)
				continue
			}
			check(r, s)
		}
		r.Done("revision %d, %d namespace devices, %d PCIe endpoints", t.Header.Revision, ns, pci)
	}
	return nil
}

func check(r *tablecheck.T, s acpi.SDEVStruct) {
	at := fmt.Sprintf("structure type %d at offset %d", s.Type, s.Offset)
	if s.Short {
		r.Fail(labelSize, "%s has length %d; its fixed part is %d bytes (flags 0x%02x)", at, s.Length, s.Fixed, s.Flags)
		return
	}
	if s.Flags&^3 != 0 {
		r.Fail(labelReserved, "%s: flags 0x%02x", at, s.Flags)
	}
	for _, g := range s.Ranges {
		if g.Length > 0 && (g.Offset < s.Fixed || g.Offset+g.Length > s.Length) {
			r.Fail(labelRange, "%s (length %d, fixed part %d): %s at offset %d, length %d", at, s.Length, s.Fixed, g.What, g.Offset, g.Length)
		}
	}
	switch s.Type {
	case acpi.SDEVNamespaceDevice:
		id := s.Ranges[0]
		switch {
		case id.Length == 0:
			r.Fail(labelID, "%s: device identifier length 0", at)
		case s.DeviceID != nil && s.DeviceID[len(s.DeviceID)-1] != 0:
			r.Fail(labelID, "%s: device identifier %q has no NUL at its end", at, s.DeviceID)
		}
	case acpi.SDEVPCIeEndpoint:
		if path := s.Ranges[0]; path.Length == 0 || path.Length%2 != 0 {
			r.Fail(labelPath, "%s (segment %d, start bus %d): PCI path length %d", at, s.Segment, s.StartBus, path.Length)
		}
	}
}
