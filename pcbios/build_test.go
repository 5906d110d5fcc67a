package pcbios

import "encoding/binary"

// Builders of well-formed structures for the tests; the layouts are the
// specifications' (see the parsers).

func fix(b []byte, at int) { b[at] -= Sum(b) }

func mpFloating(cfg uint32) []byte {
	b := make([]byte, 16)
	copy(b, "_MP_")
	binary.LittleEndian.PutUint32(b[4:], cfg)
	b[8], b[9] = 1, 4
	fix(b, 10)
	return b
}

func mpConfig(entries ...[]byte) []byte {
	h := make([]byte, MPConfigHeaderSize)
	copy(h, "PCMP")
	h[6] = 4
	copy(h[8:], "FWCHK   ")
	copy(h[16:], "TESTBOARD   ")
	binary.LittleEndian.PutUint32(h[36:], 0xFEE00000)
	for _, e := range entries {
		h = append(h, e...)
	}
	binary.LittleEndian.PutUint16(h[4:], uint16(len(h)))
	binary.LittleEndian.PutUint16(h[34:], uint16(len(entries)))
	fix(h, 7)
	return h
}

func mpCPU(id, flags byte) []byte {
	e := make([]byte, 20)
	e[0], e[1], e[2], e[3] = MPProcessorEntry, id, 0x14, flags
	return e
}

func mpBus(id byte, typ string) []byte {
	e := []byte{MPBusEntry, id, ' ', ' ', ' ', ' ', ' ', ' '}
	copy(e[2:], typ)
	return e
}

func mpIOAPIC(id byte, addr uint32) []byte {
	e := []byte{MPIOAPICEntry, id, 0x11, 1, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(e[4:], addr)
	return e
}

func mpIOInt(bus, irq, apic, pin byte) []byte {
	return []byte{MPIOIntEntry, 0, 0, 0, bus, irq, apic, pin}
}

type slot struct {
	bus, devfn byte
	links      [4]byte
	bitmap     uint16
}

func pir(slots ...slot) []byte {
	b := make([]byte, PIRHeaderSize)
	copy(b, "$PIR")
	binary.LittleEndian.PutUint16(b[4:], 0x0100)
	b[9] = 1 << 3
	binary.LittleEndian.PutUint16(b[12:], 0x8086)
	binary.LittleEndian.PutUint16(b[14:], 0x7000)
	for _, s := range slots {
		e := make([]byte, PIRSlotSize)
		e[0], e[1] = s.bus, s.devfn
		for i, l := range s.links {
			e[2+3*i] = l
			if l != 0 {
				binary.LittleEndian.PutUint16(e[3+3*i:], s.bitmap)
			}
		}
		b = append(b, e...)
	}
	binary.LittleEndian.PutUint16(b[6:], uint16(len(b)))
	fix(b, 31)
	return b
}

func bios32(entry uint32) []byte {
	b := make([]byte, 16)
	copy(b, "_32_")
	binary.LittleEndian.PutUint32(b[4:], entry)
	b[9] = 1
	fix(b, 10)
	return b
}

func pnp() []byte {
	b := make([]byte, PnPLength)
	copy(b, "$PnP")
	b[4], b[5] = 0x10, PnPLength
	binary.LittleEndian.PutUint16(b[0x0F:], 0xF000)
	fix(b, 8)
	return b
}

func smbios2(table uint32) []byte {
	b := make([]byte, 0x1F)
	copy(b, "_SM_")
	b[5], b[6], b[7] = 0x1F, 2, 8
	copy(b[0x10:], "_DMI_")
	binary.LittleEndian.PutUint16(b[0x16:], 0x100)
	binary.LittleEndian.PutUint32(b[0x18:], table)
	b[0x1E] = 0x28
	b[0x15] -= Sum(b[0x10:0x1F])
	b[4] -= Sum(b)
	return b
}
