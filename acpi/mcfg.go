package acpi

import "fmt"

// MCFG layout (PCI Firmware Specification 3.x §4.1.2; signature reserved by
// ACPI 6.5 §5.2.6 Table 5.6).
const (
	MCFGEntriesOffset = HeaderSize + 8
	MCFGEntrySize     = 16
)

// MCFG is the PCI Express memory-mapped configuration space table.
type MCFG struct {
	Header   Header
	Reserved uint64
	Entries  []MCFGEntry
	// Trailing is the number of bytes after the last whole entry.
	Trailing int
}

// MCFGEntry is one ECAM region: the configuration space of buses
// StartBus..EndBus of a PCI segment group.
type MCFGEntry struct {
	Base     uint64
	Segment  uint16
	StartBus uint8
	EndBus   uint8
	Reserved uint32
}

// Size is the length of the region's ECAM window: 1 MiB per bus.
func (e MCFGEntry) Size() uint64 {
	if e.EndBus < e.StartBus {
		return 0
	}
	return (uint64(e.EndBus) - uint64(e.StartBus) + 1) << 20
}

// ParseMCFG decodes an MCFG table.
func ParseMCFG(t *Table) (*MCFG, error) {
	b, err := sdtBody(t, SigMCFG, MCFGEntriesOffset)
	if err != nil {
		return nil, err
	}
	m := &MCFG{Header: t.Header, Reserved: le(b).u64(HeaderSize)}
	body := b[MCFGEntriesOffset:]
	for len(body) >= MCFGEntrySize {
		r := le(body)
		m.Entries = append(m.Entries, MCFGEntry{Base: r.u64(0), Segment: r.u16(8), StartBus: r.u8(10), EndBus: r.u8(11), Reserved: r.u32(12)})
		body = body[MCFGEntrySize:]
	}
	m.Trailing = len(body)
	return m, nil
}

// MCFG returns the first parsed MCFG, or an error when it is absent or
// malformed.
func (ts *Tables) MCFG() (*MCFG, error) {
	t := ts.First(SigMCFG)
	if t == nil {
		return nil, fmt.Errorf("%s: not in %s", SigMCFG, ts.Source)
	}
	return ParseMCFG(t)
}
