// Package pcbiostest builds well-formed legacy BIOS structures for tests,
// in the layouts the pcbios parsers read (the specifications'), with the
// values SeaBIOS uses on QEMU's pc machine where a value is needed.
package pcbiostest

import (
	"encoding/binary"

	"github.com/fwcheck/fwcheck/pcbios"
)

// Fix sets the checksum byte at so that b sums to zero.
func Fix(b []byte, at int) { b[at] -= pcbios.Sum(b) }

// MPFloating is an MP 1.4 floating pointer naming the table at cfg.
func MPFloating(cfg uint32) []byte {
	b := make([]byte, pcbios.MPFloatingSize)
	copy(b, "_MP_")
	binary.LittleEndian.PutUint32(b[4:], cfg)
	b[8], b[9] = 1, 4
	Fix(b, 10)
	return b
}

// MPConfig is a configuration table ("BOCHSCPU" "0.1", revision 1.4) with
// the local APIC at lapic and the given base entries.
func MPConfig(lapic uint32, entries ...[]byte) []byte {
	h := make([]byte, pcbios.MPConfigHeaderSize)
	copy(h, "PCMP")
	h[6] = 4
	copy(h[8:], "BOCHSCPU0.1         ")
	binary.LittleEndian.PutUint32(h[36:], lapic)
	for _, e := range entries {
		h = append(h, e...)
	}
	binary.LittleEndian.PutUint16(h[4:], uint16(len(h)))
	binary.LittleEndian.PutUint16(h[34:], uint16(len(entries)))
	Fix(h, 7)
	return h
}

// MPCPU is a processor entry; features are CPUID.1:EDX.
func MPCPU(id, flags byte, features uint32) []byte {
	e := make([]byte, 20)
	e[0], e[1], e[2], e[3] = pcbios.MPProcessorEntry, id, 0x14, flags
	binary.LittleEndian.PutUint32(e[8:], features)
	return e
}

// MPBus is a bus entry of type typ ("PCI", "ISA"), padded with spaces.
func MPBus(id byte, typ string) []byte {
	e := []byte{pcbios.MPBusEntry, id, ' ', ' ', ' ', ' ', ' ', ' '}
	copy(e[2:], typ)
	return e
}

// MPIOAPIC is an enabled I/O APIC entry.
func MPIOAPIC(id byte, addr uint32) []byte {
	e := []byte{pcbios.MPIOAPICEntry, id, 0x11, 1, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(e[4:], addr)
	return e
}

// MPIOInt is an I/O interrupt assignment entry (INT, conforming flags).
func MPIOInt(bus, irq, apic, pin byte) []byte {
	return []byte{pcbios.MPIOIntEntry, 0, 0, 0, bus, irq, apic, pin}
}

// PIR is a $PIR 1.0 table for an Intel router (device id) at 00:01.0.
func PIR(device uint16, entries ...[]byte) []byte {
	b := make([]byte, pcbios.PIRHeaderSize)
	copy(b, "$PIR")
	binary.LittleEndian.PutUint16(b[4:], 0x0100)
	b[9] = 1 << 3
	binary.LittleEndian.PutUint16(b[12:], 0x8086)
	binary.LittleEndian.PutUint16(b[14:], device)
	for _, e := range entries {
		b = append(b, e...)
	}
	binary.LittleEndian.PutUint16(b[6:], uint16(len(b)))
	Fix(b, 31)
	return b
}

// PIREntry is a $PIR entry; each connected pin (link non-zero) gets bitmap.
func PIREntry(bus, devfn byte, links [4]byte, bitmap uint16) []byte {
	e := make([]byte, pcbios.PIRSlotSize)
	e[0], e[1] = bus, devfn
	for i, l := range links {
		e[2+3*i] = l
		if l != 0 {
			binary.LittleEndian.PutUint16(e[3+3*i:], bitmap)
		}
	}
	return e
}

// BIOS32 is a BIOS32 service directory header with its entry point.
func BIOS32(entry uint32) []byte {
	b := make([]byte, 16)
	copy(b, "_32_")
	binary.LittleEndian.PutUint32(b[4:], entry)
	b[9] = 1
	Fix(b, 10)
	return b
}

// PnP is a PnP 1.0 installation structure, real-mode entry f000:d113.
func PnP() []byte {
	b := make([]byte, pcbios.PnPLength)
	copy(b, "$PnP")
	b[4], b[5] = 0x10, pcbios.PnPLength
	binary.LittleEndian.PutUint16(b[0x0D:], 0xD113)
	binary.LittleEndian.PutUint16(b[0x0F:], 0xF000)
	Fix(b, 8)
	return b
}

// SMBIOS2 is an SMBIOS 2.8 32-bit entry point naming the table at table.
func SMBIOS2(table uint32) []byte {
	b := make([]byte, 0x1F)
	copy(b, "_SM_")
	b[5], b[6], b[7] = 0x1F, 2, 8
	copy(b[0x10:], "_DMI_")
	binary.LittleEndian.PutUint16(b[0x16:], 6)
	binary.LittleEndian.PutUint32(b[0x18:], table)
	binary.LittleEndian.PutUint16(b[0x1C:], 1)
	b[0x1E] = 0x28
	b[0x15] -= pcbios.Sum(b[0x10:0x1F])
	b[4] -= pcbios.Sum(b)
	return b
}
