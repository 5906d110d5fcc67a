// Package dbg2 checks the Microsoft debug port tables: the Debug Port
// Table 2 (DBG2) — its device information structures walked by their own
// lengths, namespace strings, register arrays, port types and subtypes —
// and, as the dbgp check, the older Debug Port Table (DBGP).
//
// Left out on purpose: the namespace path against the AML namespace (the
// tables alone carry none; "." is the defined "no device" value), the
// register's address-size values (the specification leaves them to the
// port), net and 1394 subtypes (vendor IDs and a single value), and
// serial subtypes this check does not know, which are information, as the
// list keeps growing.
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	DBG2Missing          none
//	DBG2Malformed        none
//	DBG2Revision         none
//	DBG2DeviceList       none
//	DBG2NoDevices        none
//	DBG2DeviceRevision   none
//	DBG2NamespaceString  none
//	DBG2Registers        none
//	DBG2PortType         none
//	DBG2RegisterAddress  1: core/5D2F5E56BCAB
//	DBG2Reserved         none
//	DBGPLength           none
//	DBGPRevision         none
//	DBGPInterfaceType    none
//	DBGPReserved         17: core/16859F37F144 core/2B5491E1A559 core/336D5712545D core/3A881F598779 …
//	DBGPAddress          2: core/25250FD435E2 core/5D2F5E56BCAB
package dbg2

import (
	"errors"
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const (
	spec     = "Microsoft Debug Port Table 2 (DBG2)"
	dbgpSpec = "Microsoft Debug Port Table (DBGP)"
)

var (
	labelMissing = tests.NewLabel("DBG2Missing", tests.Low, "Arm DEN 0044 BBR 2.1 Appendix E Table E.1",
		"An Arm machine has no DBG2, so the OS knows no debug port for its early console and kernel "+
			"debugger. Arm platforms (SBBR requires it) publish a DBG2 naming the debug UART.")
	labelMalformed = tests.NewLabel("DBG2Malformed", tests.Medium, spec,
		"The DBG2 is shorter than its 44-byte fixed part or its Length disagrees with its bytes. "+
			"Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("DBG2Revision", tests.Low, spec,
		"The DBG2 table revision is not 0, the only one its specification defines. Set Revision to 0.")
	labelList = tests.NewLabel("DBG2DeviceList", tests.Medium, spec,
		"The device information offset points outside the table, or a device information structure "+
			"is shorter than its 22-byte fixed part or runs past the table, so the debugger loses the "+
			"devices from there on. Give the right offset, count and lengths.")
	labelNone = tests.NewLabel("DBG2NoDevices", tests.Low, spec,
		"The DBG2 lists no debug device. Describe the debug port, or publish no DBG2.")
	labelDevRevision = tests.NewLabel("DBG2DeviceRevision", tests.Low, spec,
		"A device information structure's revision is not 0, the only one defined. Set it to 0.")
	labelNamespace = tests.NewLabel("DBG2NamespaceString", tests.Medium, spec,
		"A device's namespace string lies outside its structure, is empty or is not NUL-terminated "+
			"within its length, so the OS cannot tell which ACPI device is the debug port. Give the "+
			"device's full path, or \".\" for none, with the NUL counted in the length.")
	labelRegisters = tests.NewLabel("DBG2Registers", tests.Medium, spec,
		"A device's base address register or address size array lies outside its structure, or a "+
			"serial port lists no register, so the debugger cannot reach the port. Give the offsets and "+
			"count of the arrays as laid out in the structure.")
	labelPortType = tests.NewLabel("DBG2PortType", tests.Low, spec,
		"A device's port type is none of serial (0x8000), 1394 (0x8001), USB (0x8002) or net (0x8003). "+
			"Use a defined type.")
	labelAddress = tests.NewLabel("DBG2RegisterAddress", tests.Medium, spec,
		"A serial debug port's register is at address 0 or in an address space other than System I/O or "+
			"System Memory. Give the UART's real I/O port or MMIO address.")
	labelReserved = tests.NewLabel("DBG2Reserved", tests.Low, spec,
		"A device information structure's reserved field is not zero. Clear it.")

	labelDBGPLength = tests.NewLabel("DBGPLength", tests.Medium, dbgpSpec,
		"The DBGP is not the 52 bytes its specification defines. Publish the 52-byte table.")
	labelDBGPRevision = tests.NewLabel("DBGPRevision", tests.Low, dbgpSpec,
		"The DBGP revision is not 1, the only one defined. Set Revision to 1.")
	labelDBGPType = tests.NewLabel("DBGPInterfaceType", tests.Medium, dbgpSpec,
		"The DBGP interface type is neither 0 (full 16550) nor 1 (16550 subset), the only ones "+
			"defined; debuggers will not use the port. Describe other ports in a DBG2.")
	labelDBGPReserved = tests.NewLabel("DBGPReserved", tests.Low, dbgpSpec,
		"The DBGP's reserved bytes are not zero. Clear them.")
	labelDBGPAddress = tests.NewLabel("DBGPAddress", tests.Medium, dbgpSpec,
		"The DBGP port register is at address 0 or in an address space other than System I/O or System "+
			"Memory. Give the UART's real I/O port or MMIO address.")
)

var unconfirmed = map[*tests.Label]bool{
	labelMissing:   true,
	labelMalformed: true, labelRevision: true, labelList: true, labelNone: true, labelDevRevision: true, labelNamespace: true,
	labelRegisters: true, labelPortType: true, labelReserved: true,
	labelDBGPLength: true, labelDBGPRevision: true, labelDBGPType: true,
}

// Check is the dbg2 check.
var Check = &tests.Check{
	ID:       "dbg2",
	Title:    "DBG2 debug device structures, namespace strings and registers",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelMissing, labelMalformed, labelRevision, labelList, labelNone, labelDevRevision, labelNamespace, labelRegisters, labelPortType, labelAddress, labelReserved},
	Run:      runDBG2,
}

// DBGP is the dbgp check.
var DBGP = &tests.Check{
	ID:       "dbgp",
	Title:    "DBGP debug port interface type and register",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     dbgpSpec,
	Labels:   []*tests.Label{labelDBGPLength, labelDBGPRevision, labelDBGPType, labelDBGPReserved, labelDBGPAddress},
	Run:      runDBGP,
}

func uartRegister(g acpi.GAS) bool {
	return g.Address != 0 && (g.Space == acpi.SpaceSystemIO || g.Space == acpi.SpaceSystemMemory)
}

func runDBG2(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	if len(ts.Get(acpi.SigDBG2)) == 0 {
		if arm := tablecheck.Arm(ts); arm != "" {
			// Reported as a warning until a real Arm machine without one
			// confirms it (see the label table).
			p.Warn(labelMissing, "no DBG2 on an Arm machine (%s): the OS knows no debug port", arm)
			return nil
		}
	}
	for _, t := range tablecheck.Tables(p, acpi.SigDBG2, "no DBG2 table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		d, err := acpi.ParseDBG2(t)
		if d == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 0)
		var de *acpi.DBG2Error
		if errors.As(err, &de) {
			r.Fail(labelList, "%v", err)
		} else if d.NumDevices == 0 {
			r.Fail(labelNone, "device count 0")
		}
		if int(d.NumDevices) > len(d.Devices) && err == nil {
			r.P.NotChecked(fmt.Sprintf("%s: devices after the first %d", t.Name(), acpi.MaxSubtables), "more devices than fwcheck reads", "")
		}
		for i, dev := range d.Devices {
			where := fmt.Sprintf("device %d (%s) at offset %d", i+1, DBG2PortName(dev), dev.Offset)
			if dev.Revision != 0 {
				r.Fail(labelDevRevision, "%s: revision %d", where, dev.Revision)
			}
			if dev.Reserved != 0 {
				r.Fail(labelReserved, "%s: reserved 0x%04x", where, dev.Reserved)
			}
			if !dev.NamespaceOK || dev.Namespace == "" {
				r.Fail(labelNamespace, "%s: namespace string length %d at offset %d in a %d-byte structure", where, dev.NamespaceLength, dev.NamespaceOffset, dev.Length)
			}
			switch dev.PortType {
			case acpi.DBG2Serial:
				if acpi.SerialSubtypeName(dev.PortSubtype) == "" {
					r.Info("%s: serial subtype 0x%04x is not one fwcheck knows", where, dev.PortSubtype)
				}
			case acpi.DBG21394, acpi.DBG2USB, acpi.DBG2Net:
			default:
				r.Fail(labelPortType, "%s: port type 0x%04x", where, dev.PortType)
			}
			if !dev.RegistersOK || (dev.PortType == acpi.DBG2Serial && dev.NumGAS == 0) {
				r.Fail(labelRegisters, "%s: %d registers, array at offset %d, sizes at offset %d, in a %d-byte structure", where, dev.NumGAS, dev.GASOffset, dev.SizeOffset, dev.Length)
			} else if dev.PortType == acpi.DBG2Serial && !uartRegister(dev.Registers[0]) {
				r.Fail(labelAddress, "%s: register %s", where, dev.Registers[0])
			}
		}
		r.Done("revision %d, %d debug devices", t.Header.Revision, len(d.Devices))
	}
	return nil
}

// DBG2PortName names a device's port type and subtype.
func DBG2PortName(d acpi.DBG2Device) string {
	name := acpi.DBG2PortTypeName(d.PortType)
	if d.PortType == acpi.DBG2Serial {
		if s := acpi.SerialSubtypeName(d.PortSubtype); s != "" {
			return name + ", " + s
		}
	}
	return fmt.Sprintf("%s, subtype 0x%04x", name, d.PortSubtype)
}

func runDBGP(p *tests.Pass) error {
	for _, t := range tablecheck.Tables(p, acpi.SigDBGP, "no DBGP table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		d, err := acpi.ParseDBGP(t)
		if err != nil {
			r.Fail(labelDBGPLength, "%v", err)
			continue
		}
		if t.Header.Length != acpi.DBGPSize {
			r.Fail(labelDBGPLength, "length %d, defined as %d", t.Header.Length, acpi.DBGPSize)
		}
		r.Revision(labelDBGPRevision, t, 1)
		if d.InterfaceType > 1 {
			r.Fail(labelDBGPType, "interface type %d", d.InterfaceType)
		}
		if d.Reserved != 0 {
			r.Fail(labelDBGPReserved, "reserved bytes 0x%06x", d.Reserved)
		}
		if !uartRegister(d.Base) {
			r.Fail(labelDBGPAddress, "register %s", d.Base)
		}
		r.Done("interface type %d, register %s", d.InterfaceType, d.Base)
	}
	return nil
}
