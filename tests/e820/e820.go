// Package e820 checks the firmware memory map (the e820 map, as
// /sys/firmware/memmap shows it or as the kernel printed it at boot):
// overlapping and empty entries, usable RAM in the legacy 640 KiB–1 MiB
// area (video memory, option ROMs and the BIOS), and ACPI tables lying in
// memory the OS is told it may use. Whether the MCFG's ECAM windows are
// reserved is the mcfg-reserved check's.
//
// Linux sanitises the map before it prints it and before it fills
// /sys/firmware/memmap (overlaps resolved, entries merged), so an overlap
// reaching this check is the firmware's and survived that. The EBDA's
// position comes from the BIOS data area (/dev/mem, recorded in snapshots);
// a boot log does not show it.
package e820

import (
	"fmt"
	"sort"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
)

const (
	acpiSpec = "ACPI 6.5 §15 (System Address Map Interfaces)"
)

var (
	labelOverlap = tests.NewLabel("E820Overlap", tests.Medium, acpiSpec,
		"Two entries of the memory map overlap. The OS has to guess which type wins (Linux takes the most "+
			"restrictive); describe each address once.")
	labelEmpty = tests.NewLabel("E820EmptyEntry", tests.Low, acpiSpec,
		"The memory map has an entry of zero length (or an end before its start). Leave such entries out.")
	labelLegacy = tests.NewLabel("E820LegacyAreaUsable", tests.High, acpiSpec+"; IBM PC/AT memory layout",
		"The map offers the legacy area between 640 KiB and 1 MiB (VGA memory, option ROMs, the BIOS) as "+
			"usable RAM. An OS that believes it corrupts those regions or reads device memory as RAM. Report the "+
			"area as reserved or leave it out of the map.")
	labelEBDA = tests.NewLabel("E820EBDAUsable", tests.High, acpiSpec+"; IBM PC/AT BIOS data area (0x40E)",
		"The extended BIOS data area, whose segment the BIOS data area records at 0x40E, lies in memory the map "+
			"calls usable. The OS may reuse it while firmware (SMM, the legacy BIOS) still writes there. Report the "+
			"EBDA as reserved.")
	labelACPIInRAM = tests.NewLabel("E820ACPITableInUsableRAM", tests.High, acpiSpec+" (AddressRangeACPI, AddressRangeNVS)",
		"An ACPI table lies in memory the map calls usable, so the OS may overwrite it before (or after) reading "+
			"it. Place ACPI tables in ACPI Reclaim memory and the FACS in ACPI NVS memory.")
)

// Check is the e820 check.
var Check = &tests.Check{
	ID: "e820", Title: "firmware memory map: overlaps, empty entries, the legacy area, ACPI tables outside usable RAM",
	Category: tests.BIOS,
	Arch:     tests.X86,
	Optional: []input.Decl{input.MemoryMap, input.ACPITables, input.KernelLog, input.BDA},
	Spec:     acpiSpec,
	Labels:   []*tests.Label{labelOverlap, labelEmpty, labelLegacy, labelEBDA, labelACPIInRAM},
	Run:      run,
}

func run(p *tests.Pass) error {
	recs, _ := tests.KernelRecords(p)
	var texts []string
	for _, r := range recs {
		texts = append(texts, r.Text)
	}
	var m []memmap.Range
	src := ""
	mm, mmErr := tests.Load(p, input.MemoryMap)
	if mmErr == nil && len(mm) > 0 {
		src, m = "/sys/firmware/memmap", mm
	} else if e := memmap.E820FromLog(texts); len(e) > 0 {
		src, m = "the e820 map in the kernel log", e
	} else {
		reason := "no kernel log with the e820 map"
		if mmErr != nil {
			reason = mmErr.Error() + "; " + reason
		}
		p.Skip("%s", reason)
		return nil
	}
	sort.SliceStable(m, func(i, j int) bool { return m[i].Start < m[j].Start })
	before := p.Failures()
	for i, r := range m {
		if r.End < r.Start {
			p.Fail(labelEmpty, "entry %d: start 0x%x, end 0x%x (%s)", i, r.Start, r.End, r.Type)
			continue
		}
		for _, o := range m[i+1:] {
			if o.Start > r.End {
				break
			}
			if o.End >= o.Start && r.Overlaps(o) {
				p.Fail(labelOverlap, "%s overlaps %s", r, o)
			}
		}
		if memmap.Usable(r.Type) && r.Overlaps(memmap.Range{Start: 0xA0000, End: 0xFFFFF}) {
			p.Fail(labelLegacy, "%s reaches into 0xa0000-0xfffff", r)
		}
	}
	if p.Failures() == before {
		p.Passed("%d entries of %s: no overlaps, no empty entries, nothing usable between 640 KiB and 1 MiB", len(m), src)
	}
	checkEBDA(p, m)
	checkACPI(p, m, texts)
	return nil
}

type located struct {
	memmap.Range
	exact bool // the length is known; otherwise only the header is
}

// tableRanges returns where ACPI tables are: from the tables' own
// addresses (acpidump), the root table's entries and the FADT's pointers,
// or the kernel log's table list.
func tableRanges(p *tests.Pass, texts []string) ([]located, string) {
	var out []located
	if ts, err := tests.Load(p, input.ACPITables); err == nil && ts != nil {
		lens := map[string]uint64{}
		for _, t := range ts.List {
			if len(t.Raw) > 0 {
				lens[t.Signature] = uint64(len(t.Raw))
			}
			if t.Address != 0 && len(t.Raw) > 0 {
				out = append(out, located{memmap.Range{Start: t.Address, End: t.Address + uint64(len(t.Raw)) - 1, Type: t.Signature}, true})
			}
		}
		if len(out) == 0 {
			for _, sig := range []string{acpi.SigXSDT, acpi.SigRSDT} {
				for _, t := range ts.Get(sig) {
					var rt *acpi.RootTable
					var err error
					if sig == acpi.SigXSDT {
						rt, err = acpi.ParseXSDT(t)
					} else {
						rt, err = acpi.ParseRSDT(t)
					}
					if err != nil {
						continue
					}
					for i, a := range rt.Entries {
						if a != 0 {
							out = append(out, located{memmap.Range{Start: a, End: a + acpi.HeaderSize - 1, Type: fmt.Sprintf("%s entry %d", sig, i)}, false})
						}
					}
				}
			}
			if f, err := ts.FADT(); err == nil {
				for _, x := range []struct {
					sig  string
					a, b uint64
				}{{"FACS", f.XFirmwareCtrl, uint64(f.FirmwareCtrl)}, {"DSDT", f.XDSDT, uint64(f.DSDT)}} {
					a := x.a
					if a == 0 {
						a = x.b
					}
					n, exact := lens[x.sig], true
					if n == 0 {
						n, exact = 36, false
					}
					if a != 0 {
						out = append(out, located{memmap.Range{Start: a, End: a + n - 1, Type: x.sig}, exact})
					}
				}
			}
		}
		if len(out) > 0 {
			return out, "the ACPI tables"
		}
	}
	for _, r := range memmap.ACPITablesFromLog(texts) {
		out = append(out, located{r, true})
	}
	return out, "the kernel log's ACPI table list"
}

func checkACPI(p *tests.Pass, m []memmap.Range, texts []string) {
	tabs, src := tableRanges(p, texts)
	if len(tabs) == 0 {
		p.NotChecked("ACPI tables lie outside usable RAM", "no table addresses (ACPI tables or the kernel log's table list)", "run as root, or give the boot log with --klog")
		return
	}
	before := p.Failures()
	for _, t := range tabs {
		for _, r := range m {
			if memmap.Usable(r.Type) && r.Overlaps(t.Range) {
				p.Fail(labelACPIInRAM, "%s at 0x%x-0x%x lies in usable RAM %s", t.Type, t.Start, t.End, r)
				break
			}
		}
	}
	if p.Failures() == before {
		p.Passed("%d ACPI tables (from %s) lie outside usable RAM", len(tabs), src)
	}
}

// checkEBDA judges the EBDA the BIOS data area points at: from its segment
// (0x40E) up to 640 KiB it must not be usable RAM. A segment outside
// 512–640 KiB means there is no EBDA (UEFI firmware without a CSM).
func checkEBDA(p *tests.Pass, m []memmap.Range) {
	bda, err := tests.Load(p, input.BDA)
	if err != nil {
		p.NotChecked("the EBDA is not usable RAM", err.Error(), p.Machine().Remedy(err, "run as root on the machine: the BDA is read through /dev/mem"))
		return
	}
	seg := uint64(bda[0x0E]) | uint64(bda[0x0F])<<8
	ebda := seg << 4
	if ebda < 0x80000 || ebda >= 0xA0000 {
		p.Passed("no EBDA (the BIOS data area's pointer is 0x%x)", ebda)
		return
	}
	r := memmap.Range{Start: ebda, End: 0x9FFFF}
	for _, e := range m {
		if memmap.Usable(e.Type) && e.Overlaps(r) {
			p.Fail(labelEBDA, "EBDA at 0x%x (segment 0x%x) lies in usable RAM %s", ebda, seg, e)
			return
		}
	}
	p.Passed("the EBDA at 0x%x-0x9ffff is not usable RAM", ebda)
}
