// Package spcr checks the Serial Port Console Redirection table
// (Microsoft SPCR specification, table revision 4): length against the
// revision, interface type, the port register, interrupt type against the
// IRQ and GSI, baud rate, line settings, terminal type, the PCI location
// and, from revision 4, the namespace string.
//
// Left out on purpose: the GSI against the MADT's I/O APIC ranges (the
// MADT does not give each I/O APIC's redirection entry count), the PCI
// bus, device and function when the PCI Device ID is 0xFFFF (not a PCI
// device: the specification asks for 0 there, but firmware commonly
// leaves 0xFF and no OS reads them then), and interface subtypes this
// check does not know (information: the DBG2 subtype list keeps growing).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	SPCRMissing          none
//	SPCRMalformed        none
//	SPCRRevision         none
//	SPCRInterfaceType    none
//	SPCRAddress          6: core/47908F284309 core/97BE895CF6E6 core/A8DA802364DF full/47908F284309 …
//	SPCRInterrupt        none
//	SPCRBaudRate         none
//	SPCRLineSettings     2: core/47908F284309 full/47908F284309
//	SPCRTerminalType     none
//	SPCRReserved         none
//	SPCRPCILocation      none
//	SPCRNamespaceString  1: core/4C483D36D3E6
package spcr

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "Microsoft Serial Port Console Redirection Table (SPCR), revision 4"

var (
	labelMissing = tests.NewLabel("SPCRMissing", tests.Low, "Arm DEN 0044 BBR 2.1 Appendix E Table E.1",
		"An Arm machine has no SPCR, so the OS has no serial console until its UART driver loads, and "+
			"an early boot failure leaves no trace. Arm platforms (SBBR requires it) publish an SPCR for the "+
			"console UART (a PL011 or SBSA generic UART).")
	labelMalformed = tests.NewLabel("SPCRMalformed", tests.Medium, spec,
		"The SPCR is shorter than the 80 bytes every revision has, or (revision 4) than its 88-byte "+
			"fixed part, or its Length disagrees with its bytes. Publish the whole table.")
	labelRevision = tests.NewLabel("SPCRRevision", tests.Low, spec,
		"The SPCR revision is none of 1-4, the revisions defined. Use the revision whose layout the table has.")
	labelInterface = tests.NewLabel("SPCRInterfaceType", tests.Medium, spec,
		"A revision 1 SPCR gives an interface type other than 0 (full 16550) or 1 (16550 subset), the "+
			"only ones that revision defines. Use revision 2 or later to describe other UARTs.")
	labelAddress = tests.NewLabel("SPCRAddress", tests.Medium, spec,
		"The console port's register is at address 0 or in an address space other than System I/O or "+
			"System Memory, so the OS cannot reach the console. Give the UART's real address.")
	labelInterrupt = tests.NewLabel("SPCRInterrupt", tests.Medium, spec,
		"The interrupt type sets reserved bits, or says the port uses a PC-AT (8259) IRQ above 15, "+
			"which the 8259s do not have. Give the interrupt types and numbers the port really uses "+
			"(0 for a polled port).")
	labelBaud = tests.NewLabel("SPCRBaudRate", tests.Medium, spec,
		"The baud rate code is none of 0 (as set up), 3 (9600), 4 (19200), 6 (57600) or 7 (115200), "+
			"so the OS cannot configure the console. Use a defined code (and, in revision 4, the "+
			"Precise Baud Rate for others).")
	labelLine = tests.NewLabel("SPCRLineSettings", tests.Low, spec,
		"Parity is not 0 (none) or stop bits not 1, the only settings defined, or reserved flow "+
			"control bits are set. Use no parity, one stop bit and defined flow control bits.")
	labelTerminal = tests.NewLabel("SPCRTerminalType", tests.Low, spec,
		"The terminal type is none of 0 (VT100), 1 (VT100+), 2 (VT-UTF8) or 3 (ANSI). Use a defined type.")
	labelReserved = tests.NewLabel("SPCRReserved", tests.Low, spec,
		"Reserved bytes or the Language field (which must be 0) are not zero. Clear them.")
	labelPCI = tests.NewLabel("SPCRPCILocation", tests.Low, spec,
		"The SPCR names a PCI console device with a device number above 31 or a function above 7. "+
			"Give the UART's real PCI location, or Device ID 0xFFFF when it is not on PCI.")
	labelNamespace = tests.NewLabel("SPCRNamespaceString", tests.Medium, spec,
		"The revision 4 namespace string lies outside the table, is empty or is not NUL-terminated. "+
			"Give the UART device's full path, or \".\" for none, with the NUL counted in the length.")
)

var unconfirmed = map[*tests.Label]bool{
	labelMissing:   true,
	labelMalformed: true, labelRevision: true, labelInterface: true, labelInterrupt: true,
	labelBaud: true, labelTerminal: true, labelReserved: true, labelPCI: true,
}

// Check is the spcr check.
var Check = &tests.Check{
	ID:       "spcr",
	Title:    "SPCR console port, interrupt and line settings",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelMissing, labelMalformed, labelRevision, labelInterface, labelAddress, labelInterrupt, labelBaud, labelLine, labelTerminal, labelReserved, labelPCI, labelNamespace},
	Run:      run,
}

var bauds = map[uint8]string{0: "as set up", 3: "9600", 4: "19200", 6: "57600", 7: "115200"}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	if len(ts.Get(acpi.SigSPCR)) == 0 {
		if arm := tablecheck.Arm(ts); arm != "" {
			// Reported as a warning until a real Arm machine without one
			// confirms it (see the label table).
			p.Warn(labelMissing, "no SPCR on an Arm machine (%s): the OS has no console before its UART driver loads", arm)
			return nil
		}
	}
	for _, t := range tablecheck.Tables(p, acpi.SigSPCR, "no SPCR table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		s, err := acpi.ParseSPCR(t)
		if err == nil && t.Header.Revision >= 4 && t.Header.Length < 88 {
			err = fmt.Errorf("revision %d with length %d, shorter than the 88-byte fixed part", t.Header.Revision, t.Header.Length)
		}
		if err != nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		rev := t.Header.Revision
		if rev < 1 || rev > 4 {
			r.Fail(labelRevision, "revision %d", rev)
		}
		iface := fmt.Sprintf("interface type %d", s.InterfaceType)
		if n := acpi.SerialSubtypeName(uint16(s.InterfaceType)); n != "" {
			iface += " (" + n + ")"
		}
		switch {
		case rev == 1 && s.InterfaceType > 1:
			r.Fail(labelInterface, "revision 1 with %s", iface)
		case acpi.SerialSubtypeName(uint16(s.InterfaceType)) == "":
			r.Info("%s is not one fwcheck knows", iface)
		}
		if s.Base.Address == 0 || (s.Base.Space != acpi.SpaceSystemIO && s.Base.Space != acpi.SpaceSystemMemory) {
			r.Fail(labelAddress, "register %s", s.Base)
		}
		if s.InterruptType&^0x1F != 0 || (s.InterruptType&1 != 0 && s.IRQ > 15) {
			r.Fail(labelInterrupt, "interrupt type 0x%02x, IRQ %d, GSI %d", s.InterruptType, s.IRQ, s.GSI)
		}
		if _, ok := bauds[s.BaudRate]; !ok {
			r.Fail(labelBaud, "baud rate code %d", s.BaudRate)
		}
		if s.Parity != 0 || s.StopBits != 1 || s.FlowControl&^7 != 0 {
			r.Fail(labelLine, "parity %d, stop bits %d, flow control 0x%02x", s.Parity, s.StopBits, s.FlowControl)
		}
		if s.TerminalType > 3 {
			r.Fail(labelTerminal, "terminal type %d", s.TerminalType)
		}
		if s.Reserved != 0 || s.Language != 0 {
			r.Fail(labelReserved, "reserved bytes %s, language %d", tablecheck.Nonzero(s.Reserved), s.Language)
		}
		if s.PCIDeviceID != 0xFFFF && (s.PCIDevice > 31 || s.PCIFunction > 7) {
			r.Fail(labelPCI, "PCI %04x:%04x at %02x:%02x.%x", s.PCIVendorID, s.PCIDeviceID, s.PCIBus, s.PCIDevice, s.PCIFunction)
		}
		if rev >= 4 && (!s.NamespaceOK || s.Namespace == "") {
			r.Fail(labelNamespace, "namespace string %q", s.Namespace)
		}
		r.Done("revision %d, %s at %s, interrupt type 0x%02x IRQ %d GSI %d, %s baud", rev, iface, s.Base, s.InterruptType, s.IRQ, s.GSI, bauds[s.BaudRate])
	}
	return nil
}
