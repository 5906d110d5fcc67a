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
// When the tables hold the DSDT, the path each namespace device
// structure gives must name a Device (or Processor) object of the
// namespace the DSDT and SSDTs build (SDEVNotInNamespace): the OS finds
// the secure device by that path, and one it cannot find stays in the
// normal world's hands. A name declared only by External is not judged
// (the table that defines it is not in the set); one declared inside an
// If block that runs when the table loads counts as found (whether the
// OS creates it depends on what that code reads).
//
// Left out on purpose: the PCI path against the devices present (a path
// is resolved from the start bus at boot, which a table reading cannot
// redo), and the contents of vendor data and secure access components
// (the vendor's).
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
//	SDEVNotInNamespace   none
package sdev

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
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
	labelNamespace = tests.NewLabel("SDEVNotInNamespace", tests.Medium, spec+".2",
		"A namespace device structure gives a path that names no Device object of the namespace "+
			"the DSDT and SSDTs build (nothing at all, or an object of another kind), so the OS "+
			"cannot tell which device the secure world owns and may drive it itself. Give the full "+
			"path of the Device the firmware declares for it.")
	allLabels = []*tests.Label{labelMalformed, labelRevision, labelStructLength, labelSize, labelReserved, labelRange, labelID, labelPath, labelNamespace}
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
	ts := tests.Input(p, input.ACPITables)
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
		var names []named
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
			if path, ok := devicePath(s); ok {
				names = append(names, named{s.Offset, path})
			}
		}
		if len(names) > 0 {
			checkNames(p, r, ts, names)
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

// named is a namespace device structure's offset and the path it gives.
type named struct {
	offset int
	path   string
}

// devicePath returns the path a well-formed namespace device structure
// gives: its identifier up to the NUL that ends it. A structure check
// already reported (short, no identifier, one outside the structure or
// without its NUL) gives none.
func devicePath(s acpi.SDEVStruct) (string, bool) {
	if s.Type != acpi.SDEVNamespaceDevice || s.Short || len(s.DeviceID) == 0 || s.DeviceID[len(s.DeviceID)-1] != 0 {
		return "", false
	}
	id := s.DeviceID
	if i := bytes.IndexByte(id, 0); i >= 0 {
		id = id[:i]
	}
	if len(id) == 0 {
		return "", false
	}
	return string(id), true
}

// checkNames looks each path up in the namespace the DSDT and SSDTs
// build (the run's one, shared with the AML checks).
func checkNames(p *tests.Pass, r *tablecheck.T, ts *acpi.Tables, names []named) {
	if len(ts.Get(acpi.SigDSDT)) == 0 {
		p.NotChecked(r.Name+": namespace device paths against the namespace", "the tables hold no DSDT (this dump has the static tables only)", "give a dump with the DSDT and SSDTs")
		return
	}
	l := tests.Input(p, amlcheck.Namespace)
	for _, nm := range names {
		path := nm.path
		if !strings.HasPrefix(path, `\`) {
			path = `\` + path // a path without the root prefix is read from the root
		}
		n := l.NS.Lookup(path)
		switch {
		case n == nil || n.InMethod:
			// An object a method body declares exists only while the
			// method runs: the OS cannot find the device by it.
			r.Fail(labelNamespace, "namespace device structure at offset %d names %s, which the namespace does not have", nm.offset, nm.path)
		case n.External:
			p.NotChecked(r.Name+": namespace device "+nm.path, "the tables declare it only as External; the table that defines it is not among them", "give a dump with every SSDT, including those loaded at run time")
		default:
			// An Alias stands for its target; one whose target is not
			// found, and an object of unknown type, are not judged.
			if t := n.Resolved(); t != nil && t.Type != aml.TypeDevice && t.Type != aml.TypeProcessor && t.Type != aml.TypeAny && t.Type != aml.TypeAlias {
				r.Fail(labelNamespace, "namespace device structure at offset %d names %s, an object of type %s, not a Device", nm.offset, nm.path, t.Type)
			}
		}
	}
}
