// Package mcfg checks the MCFG table's PCI Express configuration space
// regions (the mcfg check) and that the firmware memory map reserves them
// (the mcfg-reserved check).
package mcfg

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const mcfgSpec = "PCI Firmware 3.3 §4.1.2; ACPI 6.5 §5.2.6 Table 5.6"

var (
	labelMCFGLength = tests.NewLabel("MCFGTableLength", tests.Medium, mcfgSpec,
		"The MCFG is shorter than its fixed part or its length leaves a partial 16-byte allocation "+
			"entry, so the OS may read garbage as an ECAM region. Make Length the header, 8 reserved "+
			"bytes and whole entries.")
	labelMCFGNoEntries = tests.NewLabel("MCFGNoEntries", tests.Medium, mcfgSpec,
		"The MCFG lists no configuration space regions, so the OS can reach only the legacy 256-byte "+
			"configuration space and no PCIe extended capabilities. List the ECAM region of every segment.")
	labelMCFGNullBase = tests.NewLabel("MCFGNullBase", tests.High, mcfgSpec,
		"An MCFG entry has base address 0. Give the ECAM window's real address.")
	labelMCFGBusRange = tests.NewLabel("MCFGBusRange", tests.High, mcfgSpec,
		"An MCFG entry's end bus is below its start bus, so the region is empty or, read naively, "+
			"wraps around. Give the bus range the host bridge decodes.")
	labelMCFGAlignment = tests.NewLabel("MCFGBaseAlignment", tests.Medium, mcfgSpec,
		"An ECAM base address is not aligned to 1 MiB (the size of one bus's configuration space), so "+
			"bus/device/function addresses do not map onto it. Use the address the host bridge decodes, "+
			"aligned as the PCIe specification requires for the number of buses.")
	labelMCFGOverlap = tests.NewLabel("MCFGOverlap", tests.Medium, mcfgSpec,
		"Two MCFG entries cover the same segment and bus, or their ECAM windows overlap in memory, "+
			"so the OS cannot tell which window serves those buses. List each bus once per segment.")
	labelMCFGReserved = tests.NewLabel("MCFGReservedNonZero", tests.Low, mcfgSpec,
		"A reserved MCFG field is not zero. Write zero to reserved fields.")
	labelMCFGNotReserved = tests.NewLabel("MCFGNotReserved", tests.Medium, "PCI Firmware 3.3 §4.1.2; ACPI 6.5 §15",
		"The ECAM region is not reserved in the firmware memory map. The OS may then place other "+
			"devices or RAM there, and Linux refuses to use an unreserved MCFG region. Mark the whole "+
			"window reserved in the E820/UEFI memory map (or as a motherboard resource).")
)

// Check is the mcfg check.
var Check = &tests.Check{
	ID:       "mcfg",
	Title:    "MCFG PCI Express configuration space regions",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     mcfgSpec,
	Labels: []*tests.Label{labelMCFGLength, labelMCFGNoEntries, labelMCFGNullBase, labelMCFGBusRange,
		labelMCFGAlignment, labelMCFGOverlap, labelMCFGReserved},
	Run: runMCFG,
}

// Reserved is the mcfg-reserved check.
var Reserved = &tests.Check{
	ID:       "mcfg-reserved",
	Title:    "MCFG regions are reserved in the firmware memory map",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables, input.MemoryMap},
	Spec:     "PCI Firmware 3.3 §4.1.2",
	Labels:   []*tests.Label{labelMCFGNotReserved},
	Run:      runMCFGReserved,
}

// ecamWindow is the memory an entry's buses occupy.
func ecamWindow(e acpi.MCFGEntry) (start, end uint64) {
	start = e.Base + uint64(e.StartBus)<<20
	return start, start + e.Size() - 1
}

func runMCFG(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	t := ts.First(acpi.SigMCFG)
	if t == nil {
		p.NotApplicable("no MCFG table: no memory-mapped PCI Express configuration space is described")
		return nil
	}
	if n := len(ts.Get(acpi.SigMCFG)); n > 1 {
		p.Info(nil, "%d MCFG tables; only MCFG1 is checked (duplicates are reported by acpitables)", n)
	}
	m, err := acpi.ParseMCFG(t)
	if err != nil {
		p.Fail(labelMCFGLength, "%v", err)
		return nil
	}
	if m.Trailing != 0 {
		p.Fail(labelMCFGLength, "%d bytes after the last whole entry", m.Trailing)
	}
	if m.Reserved != 0 {
		p.Fail(labelMCFGReserved, "bytes 36-43 are 0x%x", m.Reserved)
	}
	if len(m.Entries) == 0 {
		p.Fail(labelMCFGNoEntries, "the table has no allocation entries")
		return nil
	}
	ok := true
	for i, e := range m.Entries {
		where := fmt.Sprintf("entry %d (segment %d, buses %d-%d, base 0x%x)", i, e.Segment, e.StartBus, e.EndBus, e.Base)
		if e.Base == 0 {
			p.Fail(labelMCFGNullBase, "%s", where)
			ok = false
		} else if e.Base&(1<<20-1) != 0 {
			p.Fail(labelMCFGAlignment, "%s: base is not 1 MiB aligned", where)
			ok = false
		}
		if e.EndBus < e.StartBus {
			p.Fail(labelMCFGBusRange, "%s: end bus below start bus", where)
			ok = false
		}
		if e.Reserved != 0 {
			p.Fail(labelMCFGReserved, "%s: reserved field 0x%08x", where, e.Reserved)
		}
		for j := i + 1; j < len(m.Entries); j++ {
			o := m.Entries[j]
			if e.EndBus < e.StartBus || o.EndBus < o.StartBus {
				continue
			}
			s1, e1 := ecamWindow(e)
			s2, e2 := ecamWindow(o)
			sameBuses := e.Segment == o.Segment && e.StartBus <= o.EndBus && o.StartBus <= e.EndBus
			if sameBuses || (s1 <= e2 && s2 <= e1) {
				p.Fail(labelMCFGOverlap, "entries %d and %d overlap", i, j)
				ok = false
			}
		}
	}
	if ok {
		p.Passed("%d ECAM regions", len(m.Entries))
	}
	return nil
}

func runMCFGReserved(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	if ts.First(acpi.SigMCFG) == nil {
		p.NotApplicable("no MCFG table")
		return nil
	}
	m, err := ts.MCFG()
	if err != nil {
		p.NotChecked("ECAM regions against the memory map", "the MCFG cannot be read: "+err.Error(), "")
		return nil
	}
	mm := tests.Input(p, input.MemoryMap)
	if len(mm) == 0 {
		p.Skip("the firmware memory map is empty")
		return nil
	}
	for i, e := range m.Entries {
		if e.Base == 0 || e.EndBus < e.StartBus {
			continue
		}
		start, end := ecamWindow(e)
		var covering []string
		covered := uint64(0)
		for _, r := range mm {
			if r.End < start || r.Start > end {
				continue
			}
			covering = append(covering, fmt.Sprintf("0x%x-0x%x %s", r.Start, r.End, r.Type))
			if isReservedType(r.Type) {
				lo, hi := max(r.Start, start), min(r.End, end)
				covered += hi - lo + 1
			}
		}
		if covered < end-start+1 {
			what := "no memory map entry"
			if len(covering) > 0 {
				what = fmt.Sprint(covering)
			}
			p.Fail(labelMCFGNotReserved, "entry %d: ECAM 0x%x-0x%x (segment %d, buses %d-%d) is covered by %s",
				i, start, end, e.Segment, e.StartBus, e.EndBus, what)
			continue
		}
		p.Passed("entry %d: ECAM 0x%x-0x%x is reserved", i, start, end)
	}
	return nil
}

// isReservedType reports whether a memory map type keeps the OS from using
// the range.
func isReservedType(t string) bool {
	switch t {
	case "Reserved", "reserved", "Unusable memory", "ACPI Non-volatile Storage", "Persistent Memory (legacy)", "Soft Reserved":
		return true
	}
	return false
}
