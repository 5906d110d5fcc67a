package acpi

import "fmt"

// HPETSize is the length of the HPET description table.
const HPETSize = 56

// HPET is the IA-PC HPET description table (the HPET specification 1.0a
// §3.2.4, signature reserved by ACPI 6.5 §5.2.6 Table 5.6).
type HPET struct {
	Header Header
	// EventTimerBlockID is the raw block ID: hardware revision (7:0),
	// number of comparators field (12:8), COUNT_SIZE_CAP (13),
	// LegacyReplacement capable (15), PCI vendor ID (31:16).
	EventTimerBlockID uint32
	BaseAddress       GAS
	Number            uint8
	MinClockTick      uint16
	// PageProtection holds the page protection (3:0) and OEM attributes
	// (7:4).
	PageProtection uint8
}

// HardwareRevision is the hardware revision ID from the block ID.
func (h *HPET) HardwareRevision() uint8 { return uint8(h.EventTimerBlockID) }

// ComparatorField is bits 12:8 of the block ID. The HPET capabilities
// register reports the number of the last timer there, so the block has
// ComparatorField+1 comparators.
func (h *HPET) ComparatorField() uint8 { return uint8(h.EventTimerBlockID>>8) & 0x1F }

// Counter64 reports COUNT_SIZE_CAP: the main counter is 64 bits wide.
func (h *HPET) Counter64() bool { return h.EventTimerBlockID&(1<<13) != 0 }

// LegacyReplacement reports the LegacyReplacement IRQ routing capability.
func (h *HPET) LegacyReplacement() bool { return h.EventTimerBlockID&(1<<15) != 0 }

// VendorID is the PCI vendor ID of the timer block.
func (h *HPET) VendorID() uint16 { return uint16(h.EventTimerBlockID >> 16) }

// Protection is the page protection value: 0 none, 1 4 KiB, 2 64 KiB,
// 3-15 reserved.
func (h *HPET) Protection() uint8 { return h.PageProtection & 0x0F }

// ParseHPET decodes an HPET table.
func ParseHPET(t *Table) (*HPET, error) {
	b, err := sdtBody(t, SigHPET, HPETSize)
	if err != nil {
		return nil, err
	}
	r := le(b)
	return &HPET{
		Header:            t.Header,
		EventTimerBlockID: r.u32(36),
		BaseAddress:       gasAt(b, 40),
		Number:            r.u8(52),
		MinClockTick:      r.u16(53),
		PageProtection:    r.u8(55),
	}, nil
}

// HPET returns the first parsed HPET, or an error when it is absent or
// malformed.
func (ts *Tables) HPET() (*HPET, error) {
	t := ts.First(SigHPET)
	if t == nil {
		return nil, fmt.Errorf("%s: not in %s", SigHPET, ts.Source)
	}
	return ParseHPET(t)
}
