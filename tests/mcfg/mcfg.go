// Package mcfg checks the MCFG table's PCI Express configuration space
// regions (the mcfg check) and that the firmware memory map reserves them
// (the mcfg-reserved check).
//
// Left out on purpose from fwts' mcfg test: comparing the first device's
// configuration header read through the MCFG window (/dev/mem) with the
// kernel's view of it (MMIO reads a strict kernel refuses; a window the
// map does not reserve is mcfg-reserved's finding).
package mcfg

import (
	"fmt"
	"math"
	"slices"
	"strings"

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
	end = start + e.Size() - 1
	if end < start {
		end = math.MaxUint64 // a window running past the top of memory
	}
	return start, end
}

// intervals counts, among a set of closed intervals, those meeting a given
// one: those starting at or before its end, less those ending before its
// start. Built once, each count is two binary searches.
type intervals struct{ starts, ends []uint64 }

func (iv *intervals) add(s, e uint64) {
	iv.starts = append(iv.starts, s)
	iv.ends = append(iv.ends, e)
}

func (iv *intervals) sort() {
	slices.Sort(iv.starts)
	slices.Sort(iv.ends)
}

func (iv *intervals) meeting(s, e uint64) int {
	startedBy, _ := slices.BinarySearch(iv.starts, e+1)
	if e == math.MaxUint64 {
		startedBy = len(iv.starts)
	}
	endedBefore, _ := slices.BinarySearch(iv.ends, s)
	return startedBy - endedBefore
}

// checkOverlaps reports entries that share buses of a segment with others,
// or whose ECAM windows overlap others': one finding per distinct region,
// saying how many times it appears and how many other entries it collides
// with. Counting works on sorted interval ends, n·log n in the entries; a
// real MCFG of 2,000 identical entries gave 2 million pairwise findings.
// It returns false when it reported any.
func checkOverlaps(p *tests.Pass, es []acpi.MCFGEntry) bool {
	type region struct {
		base     uint64
		seg      uint16
		from, to uint8
	}
	var (
		order []region
		where = map[region][]int{} // entries of each region, in order
		mem   intervals
		buses = map[uint16]*intervals{}
	)
	for i, e := range es {
		if e.EndBus < e.StartBus {
			continue // reported as MCFGBusRange
		}
		r := region{e.Base, e.Segment, e.StartBus, e.EndBus}
		if where[r] == nil {
			order = append(order, r)
		}
		where[r] = append(where[r], i)
		mem.add(ecamWindow(e))
		if buses[e.Segment] == nil {
			buses[e.Segment] = &intervals{}
		}
		buses[e.Segment].add(uint64(e.StartBus), uint64(e.EndBus))
	}
	mem.sort()
	for _, iv := range buses {
		iv.sort()
	}
	ok := true
	for _, r := range order {
		idx := where[r]
		copies := len(idx)
		e := es[idx[0]]
		s, end := ecamWindow(e)
		// Every copy of the region meets itself and the other copies.
		sharesBuses := buses[r.seg].meeting(uint64(r.from), uint64(r.to)) - copies
		overlapsMem := mem.meeting(s, end) - copies
		if copies == 1 && sharesBuses == 0 && overlapsMem == 0 {
			continue
		}
		var parts []string
		if copies > 1 {
			parts = append(parts, fmt.Sprintf("appears %d times (entries %s)", copies, listIndexes(idx)))
		}
		if sharesBuses > 0 {
			parts = append(parts, fmt.Sprintf("shares buses with %s of segment %d", others(sharesBuses), r.seg))
		}
		if overlapsMem > 0 {
			parts = append(parts, fmt.Sprintf("its ECAM window 0x%x-0x%x overlaps the window of %s", s, end, others(overlapsMem)))
		}
		p.Fail(labelMCFGOverlap, "entry %d (segment %d, buses %d-%d, base 0x%x): %s", idx[0], r.seg, r.from, r.to, r.base, strings.Join(parts, "; "))
		ok = false
	}
	return ok
}

func others(n int) string {
	if n == 1 {
		return "1 other entry"
	}
	return fmt.Sprintf("%d other entries", n)
}

// listIndexes shows at most five entry numbers.
func listIndexes(idx []int) string {
	var b strings.Builder
	for k, i := range idx {
		if k == 4 && len(idx) > 5 {
			fmt.Fprintf(&b, ", … %d", idx[len(idx)-1])
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

func runMCFG(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	t := ts.First(acpi.SigMCFG)
	if t == nil {
		p.NotApplicable("no MCFG table: no memory-mapped PCI Express configuration space is described")
		return nil
	}
	if n := len(ts.Get(acpi.SigMCFG)); n > 1 {
		p.Info(nil, "%d MCFG tables; only MCFG1 is checked (duplicates are reported by acpi-tables)", n)
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
	}
	if !checkOverlaps(p, m.Entries) {
		ok = false
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
