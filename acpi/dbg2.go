package acpi

import "fmt"

// This file covers the Microsoft debug port tables: the Debug Port Table
// (DBGP, 2000) and the Debug Port Table 2 (DBG2, 2015 and later), and the
// Serial Port Console Redirection table (SPCR, revision 4, 2021), which
// share the serial interface subtypes.

// Signatures of the debug port and console tables.
const (
	SigDBGP = "DBGP"
	SigDBG2 = "DBG2"
	SigSPCR = "SPCR"
)

// DBGPSize is the DBGP's length.
const DBGPSize = 52

// DBGP is the Debug Port Table.
type DBGP struct {
	Header Header
	// InterfaceType: 0 full 16550, 1 16550 subset (the DBGP defines no
	// others).
	InterfaceType uint8
	Reserved      uint32 // the 3 reserved bytes
	Base          GAS
}

// ParseDBGP decodes a DBGP.
func ParseDBGP(t *Table) (*DBGP, error) {
	body, err := sdtBody(t, SigDBGP, DBGPSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	d := &DBGP{Header: t.Header, InterfaceType: r.u8(36), Reserved: uint32(r.u8(37)) | uint32(r.u8(38))<<8 | uint32(r.u8(39))<<16}
	d.Base, _ = ParseGAS(body[40:52])
	return d, nil
}

// DBG2 port types.
const (
	DBG2Serial = 0x8000
	DBG21394   = 0x8001
	DBG2USB    = 0x8002
	DBG2Net    = 0x8003
)

// DBG2PortTypeName names a DBG2 port type.
func DBG2PortTypeName(t uint16) string {
	switch t {
	case DBG2Serial:
		return "serial"
	case DBG21394:
		return "1394"
	case DBG2USB:
		return "USB"
	case DBG2Net:
		return "net"
	}
	return fmt.Sprintf("reserved (0x%04x)", t)
}

// SerialSubtypeName names a serial interface subtype (the DBG2 serial
// port subtypes, which SPCR revision 2 and later use as its interface
// type), "" for a reserved one.
func SerialSubtypeName(t uint16) string {
	names := map[uint16]string{
		0x00: "16550 compatible", 0x01: "16550 subset", 0x02: "MAX311xE SPI UART", 0x03: "Arm PL011",
		0x04: "MSM8x60", 0x05: "Nvidia 16550", 0x06: "TI OMAP", 0x08: "APM88xxxx", 0x09: "MSM8974",
		0x0A: "SAM5250", 0x0B: "Intel USIF", 0x0C: "i.MX 6", 0x0D: "Arm SBSA 32-bit", 0x0E: "Arm SBSA generic",
		0x0F: "Arm DCC", 0x10: "BCM2835", 0x11: "SDM845 1.8432 MHz", 0x12: "16550 with GAS", 0x13: "SDM845 7.372 MHz",
		0x14: "Intel LPSS", 0x15: "RISC-V SBI console",
	}
	return names[t]
}

// DBG2DeviceHeaderSize is a debug device information structure's fixed part.
const DBG2DeviceHeaderSize = 22

// DBG2Device is one debug device information structure. Offsets are from
// the structure's start, as the table gives them.
type DBG2Device struct {
	Revision    uint8
	Length      int
	NumGAS      uint8
	PortType    uint16
	PortSubtype uint16
	Reserved    uint16
	// Namespace is the ACPI path of the device ("." when it has none);
	// NamespaceOK says the string lay inside the structure and was
	// NUL-terminated.
	Namespace   string
	NamespaceOK bool
	// NamespaceLength and NamespaceOffset, OEMLength and OEMOffset,
	// GASOffset and SizeOffset are the fields as given.
	NamespaceLength, NamespaceOffset uint16
	OEMLength, OEMOffset             uint16
	GASOffset, SizeOffset            uint16
	// Registers and Sizes hold the GAS and address-size arrays when they
	// lie inside the structure (RegistersOK).
	Registers   []GAS
	Sizes       []uint32
	RegistersOK bool
	// Offset is where the structure starts in the table.
	Offset int
}

// DBG2 is the Debug Port Table 2.
type DBG2 struct {
	Header        Header
	DevicesOffset uint32
	NumDevices    uint32
	Devices       []DBG2Device
}

// DBG2Error says the device information list is malformed.
type DBG2Error struct{ Msg string }

func (e *DBG2Error) Error() string { return "DBG2: " + e.Msg }

// ParseDBG2 decodes a DBG2. When the device information structures do not
// fit the table it returns those before the fault with a *DBG2Error.
func ParseDBG2(t *Table) (*DBG2, error) {
	body, err := sdtBody(t, SigDBG2, 44)
	if err != nil {
		return nil, err
	}
	r := le(body)
	d := &DBG2{Header: t.Header, DevicesOffset: r.u32(36), NumDevices: r.u32(40)}
	off := int64(d.DevicesOffset)
	if off < 44 || off > int64(len(body)) {
		return d, &DBG2Error{fmt.Sprintf("device information offset %d is outside the table's %d bytes after the 44-byte header", d.DevicesOffset, len(body))}
	}
	for i := uint32(0); i < d.NumDevices; i++ {
		if len(d.Devices) == MaxSubtables {
			break
		}
		if off+DBG2DeviceHeaderSize > int64(len(body)) {
			return d, &DBG2Error{fmt.Sprintf("device %d of %d at offset %d: the table ends at %d", i+1, d.NumDevices, off, len(body))}
		}
		n := int64(r.u16(int(off) + 1))
		if n < DBG2DeviceHeaderSize || off+n > int64(len(body)) {
			return d, &DBG2Error{fmt.Sprintf("device %d of %d at offset %d has length %d (the table ends at %d)", i+1, d.NumDevices, off, n, len(body))}
		}
		d.Devices = append(d.Devices, decodeDBG2Device(body[off:off+n], int(off)))
		off += n
	}
	return d, nil
}

func decodeDBG2Device(b []byte, at int) DBG2Device {
	r := le(b)
	d := DBG2Device{Revision: r.u8(0), Length: len(b), NumGAS: r.u8(3), NamespaceLength: r.u16(4), NamespaceOffset: r.u16(6),
		OEMLength: r.u16(8), OEMOffset: r.u16(10), PortType: r.u16(12), PortSubtype: r.u16(14), Reserved: r.u16(16),
		GASOffset: r.u16(18), SizeOffset: r.u16(20), Offset: at}
	if no, nl := int(d.NamespaceOffset), int(d.NamespaceLength); nl > 0 && no >= DBG2DeviceHeaderSize && no+nl <= len(b) {
		d.Namespace, d.NamespaceOK = cString(b[no : no+nl])
		d.NamespaceOK = d.NamespaceOK && b[no+nl-1] == 0
	}
	n := int(d.NumGAS)
	if g, s := int(d.GASOffset), int(d.SizeOffset); g >= DBG2DeviceHeaderSize && s >= DBG2DeviceHeaderSize && g+n*GASSize <= len(b) && s+n*4 <= len(b) {
		d.RegistersOK = true
		for i := 0; i < n; i++ {
			gas, _ := ParseGAS(b[g+i*GASSize:])
			d.Registers = append(d.Registers, gas)
			d.Sizes = append(d.Sizes, r.u32(s+i*4))
		}
	}
	return d
}

// SPCR is the Serial Port Console Redirection table. Fields after
// BaudRate are present from revision 1 on (80 bytes); the UART clock from
// revision 3 and the precise baud rate and namespace string from
// revision 4.
type SPCR struct {
	Header        Header
	InterfaceType uint8
	Base          GAS
	InterruptType uint8
	IRQ           uint8
	GSI           uint32
	BaudRate      uint8
	Parity        uint8
	StopBits      uint8
	FlowControl   uint8
	TerminalType  uint8
	Language      uint8
	PCIDeviceID   uint16
	PCIVendorID   uint16
	PCIBus        uint8
	PCIDevice     uint8
	PCIFunction   uint8
	PCIFlags      uint32
	PCISegment    uint8
	// Reserved is the OR of the reserved bytes (37-39, and 76-79 before
	// revision 3).
	Reserved uint64
	// UARTClock (revision 3 and later) in Hz, 0 if unknown.
	UARTClock uint32
	// PreciseBaud (revision 4), and the namespace string.
	PreciseBaud uint32
	Namespace   string
	NamespaceOK bool
}

// SPCRSize is the length of an SPCR before revision 4; revision 4 adds
// 8 bytes and the namespace string.
const SPCRSize = 80

// ParseSPCR decodes an SPCR.
func ParseSPCR(t *Table) (*SPCR, error) {
	body, err := sdtBody(t, SigSPCR, SPCRSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	s := &SPCR{Header: t.Header, InterfaceType: r.u8(36), InterruptType: r.u8(52), IRQ: r.u8(53), GSI: r.u32(54),
		BaudRate: r.u8(58), Parity: r.u8(59), StopBits: r.u8(60), FlowControl: r.u8(61), TerminalType: r.u8(62),
		Language: r.u8(63), PCIDeviceID: r.u16(64), PCIVendorID: r.u16(66), PCIBus: r.u8(68), PCIDevice: r.u8(69),
		PCIFunction: r.u8(70), PCIFlags: r.u32(71), PCISegment: r.u8(75)}
	s.Reserved = uint64(r.u8(37)) | uint64(r.u8(38)) | uint64(r.u8(39))
	s.Base, _ = ParseGAS(body[40:52])
	if t.Header.Revision >= 3 {
		s.UARTClock = r.u32(76)
	} else {
		s.Reserved |= uint64(r.u32(76))
	}
	if t.Header.Revision >= 4 && len(body) >= 88 {
		s.PreciseBaud = r.u32(80)
		nl, no := int(r.u16(84)), int(r.u16(86))
		if nl > 0 && no >= 88 && no+nl <= len(body) {
			s.Namespace, s.NamespaceOK = cString(body[no : no+nl])
			s.NamespaceOK = s.NamespaceOK && body[no+nl-1] == 0
		}
	}
	return s, nil
}
