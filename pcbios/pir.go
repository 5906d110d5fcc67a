package pcbios

import (
	"bytes"
	"fmt"
)

// PIR is the PCI IRQ Routing Table ("$PIR", Microsoft PCI IRQ Routing
// Table Specification 1.0): a 32-byte header (version 1.0, the table's
// size, the interrupt router's bus and device/function, the IRQs devoted
// exclusively to PCI, the router's vendor and device ID, miniport data, a
// checksum over the whole table) and a 16-byte entry per slot or on-board
// device.
type PIR struct {
	Addr          uint64
	Version       uint16 // 0x0100 for 1.0
	Size          uint16
	RouterBus     uint8
	RouterDevFn   uint8
	ExclusiveIRQs uint16
	RouterVendor  uint16
	RouterDevice  uint16
	ChecksumOK    bool
	Slots         []PIRSlot
	// Problems are structural defects: a size that is not 32 plus a
	// multiple of 16, or runs past the data.
	Problems []string
}

// PIRHeaderSize and PIRSlotSize are the header's and an entry's lengths.
const (
	PIRHeaderSize = 32
	PIRSlotSize   = 16
)

// PIRSlot is one device's routing: for each of INTA#–INTD#, the link value
// (0: not connected) and the bitmap of IRQs 0–15 the link can be routed
// to; and the slot number (0: on board).
type PIRSlot struct {
	Bus, DevFn uint8
	Links      [4]uint8
	Bitmaps    [4]uint16
	Slot       uint8
}

// Device is the slot's PCI device number.
func (s PIRSlot) Device() uint8 { return s.DevFn >> 3 }

// ParsePIR decodes the routing table at b.
func ParsePIR(b []byte, addr uint64) (*PIR, error) {
	if len(b) < PIRHeaderSize || !bytes.HasPrefix(b, []byte("$PIR")) {
		return nil, fmt.Errorf("not a PCI IRQ routing table")
	}
	p := &PIR{Addr: addr, Version: le16(b, 4), Size: le16(b, 6), RouterBus: b[8], RouterDevFn: b[9],
		ExclusiveIRQs: le16(b, 10), RouterVendor: le16(b, 12), RouterDevice: le16(b, 14)}
	n := int(p.Size)
	switch {
	case n < PIRHeaderSize || (n-PIRHeaderSize)%PIRSlotSize != 0:
		p.Problems = append(p.Problems, fmt.Sprintf("table size %d is not 32 plus a multiple of 16", n))
		if n < PIRHeaderSize {
			n = PIRHeaderSize
		}
	}
	if n > len(b) {
		p.Problems = append(p.Problems, fmt.Sprintf("table size %d runs past the %d bytes to the end of the BIOS area", n, len(b)))
		n = len(b)
	}
	p.ChecksumOK = Sum(b[:n]) == 0
	for off := PIRHeaderSize; off+PIRSlotSize <= n && len(p.Slots) < MaxEntries; off += PIRSlotSize {
		e := b[off:]
		s := PIRSlot{Bus: e[0], DevFn: e[1], Slot: e[14]}
		for i := 0; i < 4; i++ {
			s.Links[i] = e[2+3*i]
			s.Bitmaps[i] = le16(e, 3+3*i)
		}
		p.Slots = append(p.Slots, s)
	}
	return p, nil
}
