// Package ivrs checks the I/O Virtualization Reporting Structure (AMD I/O
// Virtualization Technology (IOMMU) Specification, revision 3.08, §5.2):
// revision against the block types present, every IVHD and IVMD block
// walked by its own length, IOMMU base addresses, device entries walked by
// the size their type gives with ranges opened and closed, IVMD ranges
// (aligned, and reserved in the firmware memory map when the run has it),
// and the cross-table rules: special-device I/O APIC handles against the
// MADT (Linux turns interrupt remapping off when an I/O APIC is missing)
// and HPET handles against the HPET tables.
//
// Each IVHD type (10h, 11h, 40h) describes the IOMMUs on its own — an OS
// uses the blocks of one type — so the I/O APIC coverage is judged per
// type. Left out on purpose: device IDs against the PCI devices present
// (ranges may cover empty slots), and the IVinfo address-size fields
// (the specification gives no bound beyond their width).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	IVRSMalformed          none
//	IVRSRevision           none
//	IVRSReservedBits       none
//	IVRSBlockLength        none
//	IVRSBlockShort         none
//	IVRSNoIVHD             none
//	IVRSIOMMUBase          none
//	IVRSDeviceEntryLength  none
//	IVRSRangeUnterminated  none
//	IVRSACPIHIDInOldIVHD   none
//	IVRSSpecialVariety     none
//	IVRSIOAPICNotInMADT    1: core/E273887C5E08
//	IVRSIOAPICMissing      1: core/E273887C5E08
//	IVRSHPETNotInHPET      3: core/57ED146F2C3C core/60A19B2806BE full/57ED146F2C3C
//	IVRSIVMDRange          none
//	IVRSIVMDNotReserved    none
package ivrs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "AMD IOMMU 3.08 §5.2"

var (
	labelMalformed = tests.NewLabel("IVRSMalformed", tests.High, "AMD IOMMU 3.08 §5.2.1",
		"The IVRS is shorter than its 48-byte header or its Length disagrees with its bytes, so the "+
			"OS cannot use the IOMMUs. Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("IVRSRevision", tests.Low, "AMD IOMMU 3.08 §5.2.1",
		"The IVRS revision is not 1 (type 10h blocks only) or 2 (types 11h and 40h allowed), or is 1 "+
			"while the table holds type 11h or 40h blocks. Set Revision to 2 when any variable-length IVHD is present.")
	labelReserved = tests.NewLabel("IVRSReservedBits", tests.Low, "AMD IOMMU 3.08 §5.2.1, §5.2.3",
		"Reserved bits of IVinfo, the header's reserved bytes, or an IVMD's reserved fields are not "+
			"zero. Clear them.")
	labelBlockLength = tests.NewLabel("IVRSBlockLength", tests.High, "AMD IOMMU 3.08 §5.2.2",
		"An IVHD or IVMD block has a length shorter than its header fields or runs past the end of the "+
			"table, so the OS stops reading the table there. Give each block its real length.")
	labelBlockShort = tests.NewLabel("IVRSBlockShort", tests.High, "AMD IOMMU 3.08 §5.2.2, §5.2.3",
		"An IVHD is shorter than its type's fixed part (24 bytes for 10h, 40 for 11h and 40h) or an "+
			"IVMD is not 32 bytes. Use the length the specification gives the type.")
	labelNoIVHD = tests.NewLabel("IVRSNoIVHD", tests.High, "AMD IOMMU 3.08 §5.2.2",
		"The IVRS describes no IOMMU (no IVHD block). Publish an IVHD for each IOMMU, or no IVRS when "+
			"the IOMMU is off.")
	labelBase = tests.NewLabel("IVRSIOMMUBase", tests.High, "AMD IOMMU 3.08 §5.2.2.1",
		"An IVHD's IOMMU base address is 0 or not 16 KiB aligned, so the OS cannot reach the IOMMU's "+
			"registers. Give the IOMMU's real MMIO base.")
	labelEntryLength = tests.NewLabel("IVRSDeviceEntryLength", tests.Medium, "AMD IOMMU 3.08 §5.2.2.2",
		"A device entry runs past the end of its IVHD (its type fixes its size, and an ACPI HID "+
			"entry's UID length adds to it), so the entry and the devices it names are lost. Make the "+
			"IVHD's Length cover its entries.")
	labelRange = tests.NewLabel("IVRSRangeUnterminated", tests.Medium, "AMD IOMMU 3.08 §5.2.2.2",
		"A start-of-range device entry is not followed by an end-of-range entry before the next "+
			"range or the block's end, or an end-of-range entry has no start; the OS cannot tell which "+
			"devices the range covers. Close each range with an end-of-range entry.")
	labelHIDType = tests.NewLabel("IVRSACPIHIDInOldIVHD", tests.Low, "AMD IOMMU 3.08 §5.2.2.4",
		"An ACPI HID device entry (type F0h) appears in an IVHD of type 10h or 11h; only type 40h "+
			"defines it, and an OS reading the older types stops at it. Put it in the type 40h IVHD only.")
	labelVariety = tests.NewLabel("IVRSSpecialVariety", tests.Low, "AMD IOMMU 3.08 §5.2.2.3",
		"A special device entry's variety is neither 1 (I/O APIC) nor 2 (HPET). Use the defined variety.")
	labelIOAPICMADT = tests.NewLabel("IVRSIOAPICNotInMADT", tests.Medium, "AMD IOMMU 3.08 §5.2.2.3; ACPI 6.5 §5.2.12.3",
		"A special device entry names an I/O APIC ID the MADT does not have; the OS cannot tie the "+
			"I/O APIC's interrupts to its requester ID. Use the MADT's I/O APIC IDs.")
	labelIOAPICMissing = tests.NewLabel("IVRSIOAPICMissing", tests.Medium, "AMD IOMMU 3.08 §5.2.2.3",
		"An I/O APIC of the MADT has no special device entry in the IVHDs of one type; Linux then "+
			"reports a firmware bug and turns interrupt remapping off. Add a special device entry "+
			"(variety 1) with the I/O APIC's ID and requester ID to every IVHD type's list.")
	labelHPET = tests.NewLabel("IVRSHPETNotInHPET", tests.Low, "AMD IOMMU 3.08 §5.2.2.3; IA-PC HPET 1.0a §3.2.4",
		"A special device entry for an HPET gives a handle that is the HPET Number of no HPET table, "+
			"so the OS cannot remap the HPET's MSIs. Make the two agree: the handle is the HPET table's "+
			"number, and a machine's only HPET is number 0.")
	labelIVMD = tests.NewLabel("IVRSIVMDRange", tests.Medium, "AMD IOMMU 3.08 §5.2.3",
		"An IVMD's start address or length is not 4 KiB aligned, its length is 0, or the range wraps "+
			"past the top of memory; the OS cannot map the memory the device needs. Give a page-aligned, "+
			"non-empty range.")
	labelIVMDReserved = tests.NewLabel("IVRSIVMDNotReserved", tests.Medium, "AMD IOMMU 3.08 §5.2.3",
		"An IVMD range, memory a device reaches through the IOMMU's unity mapping or exclusion "+
			"range, is usable RAM in the firmware memory map, so the OS may give it to other software "+
			"while the device reads or writes it. Mark every IVMD range reserved in the E820/UEFI map.")
)

var allLabels = []*tests.Label{labelMalformed, labelRevision, labelReserved, labelBlockLength, labelBlockShort, labelNoIVHD,
	labelBase, labelEntryLength, labelRange, labelHIDType, labelVariety, labelIOAPICMADT, labelIOAPICMissing, labelHPET, labelIVMD,
	labelIVMDReserved}

// confirmed are the labels whose corpus occurrences were read against the
// specification (the table above); the others are warnings until seen.
var confirmed = []*tests.Label{labelIOAPICMADT, labelIOAPICMissing, labelHPET}

// unconfirmed are the labels not yet seen on a real machine: warnings.
func unconfirmed() map[*tests.Label]bool { return tablecheck.Unconfirmed(allLabels, confirmed) }

// Check is the ivrs check.
var Check = &tests.Check{
	ID:       "ivrs",
	Title:    "IVRS IOMMU blocks, device entries and their MADT/HPET references",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.ACPITables},
	Optional: []input.Decl{input.MemoryMap},
	Spec:     spec,
	Labels:   allLabels,
	Run:      run,
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	for _, t := range tablecheck.Tables(p, acpi.SigIVRS, "no IVRS table (no AMD IOMMU, or it is off)") {
		check(p, ts, t)
	}
	return nil
}

func check(p *tests.Pass, ts *acpi.Tables, t *acpi.Table) {
	r := tablecheck.New(p, t, unconfirmed())
	v, err := acpi.ParseIVRS(t)
	if v == nil {
		r.Fail(labelMalformed, "%v", err)
		return
	}
	r.Walk(labelBlockLength, err)
	r.NotRead(v.NotRead)
	if v.IVInfo>>23 != 0 || v.Reserved != 0 {
		r.Fail(labelReserved, "IVinfo 0x%08x, header reserved bytes 0x%x", v.IVInfo, v.Reserved)
	}
	counts := map[uint32]int{}
	// special[type] holds the I/O APIC IDs the IVHDs of that type name.
	special := map[uint32]map[uint8]bool{}
	var ioapicEntries, hpetEntries []acpi.IVDeviceEntry
	var ivmds []acpi.IVRSBlock
	for _, b := range v.Blocks {
		counts[b.Type]++
		where := fmt.Sprintf("block type %02Xh at offset %d", b.Type, b.Offset)
		ivhd := acpi.IVHDHeaderSize(b.Type) > 0
		ivmd := b.Type == acpi.IVMDAll || b.Type == acpi.IVMDDevice || b.Type == acpi.IVMDRange
		if !ivhd && !ivmd {
			r.Info("%s (length %d) is reserved: not interpreted", where, b.Length)
			continue
		}
		if b.Short {
			r.Fail(labelBlockShort, "%s has length %d", where, b.Length)
			continue
		}
		if ivmd {
			if b.Reserved != 0 || b.Flags&0xF0 != 0 {
				r.Fail(labelReserved, "%s: flags 0x%02x, reserved 0x%x", where, b.Flags, b.Reserved)
			}
			if b.Start&0xFFF != 0 || b.Size&0xFFF != 0 || b.Size == 0 || b.Start+b.Size < b.Start {
				r.Fail(labelIVMD, "%s: start 0x%x, length 0x%x", where, b.Start, b.Size)
			} else {
				ivmds = append(ivmds, b)
			}
			continue
		}
		if b.Base == 0 || b.Base&0x3FFF != 0 {
			r.Fail(labelBase, "%s (device %s): IOMMU base 0x%x", where, bdf(b.DeviceID), b.Base)
		}
		if b.EntryErr != nil {
			r.Fail(labelEntryLength, "%s: %v", where, b.EntryErr)
		}
		if special[b.Type] == nil {
			special[b.Type] = map[uint8]bool{}
		}
		open := -1 // offset of an open range
		for _, e := range b.Entries {
			switch e.Type {
			case acpi.IVEntryStart, acpi.IVEntryAliasStart, acpi.IVEntryExtStart:
				if open >= 0 {
					r.Fail(labelRange, "%s: the range opened at offset %d is not closed before the one at offset %d", where, open, e.Offset)
				}
				open = e.Offset
			case acpi.IVEntryEnd:
				if open < 0 {
					r.Fail(labelRange, "%s: end-of-range entry at offset %d (device %s) closes no range", where, e.Offset, bdf(e.DeviceID))
				}
				open = -1
			case acpi.IVEntrySpecial:
				switch e.Variety {
				case acpi.IVSpecialIOAPIC:
					special[b.Type][e.Handle] = true
					ioapicEntries = append(ioapicEntries, e)
				case acpi.IVSpecialHPET:
					hpetEntries = append(hpetEntries, e)
				default:
					r.Fail(labelVariety, "%s: special device entry at offset %d has variety %d", where, e.Offset, e.Variety)
				}
			case acpi.IVEntryACPIHID:
				if b.Type != acpi.IVHDUnified {
					r.Fail(labelHIDType, "%s: ACPI HID entry %q at offset %d", where, e.HID, e.Offset)
				}
			case acpi.IVEntryPad, acpi.IVEntryAll, acpi.IVEntrySelect, acpi.IVEntryAliasSel, acpi.IVEntryExtSel:
			default:
				r.Info("%s: device entry type %d at offset %d is reserved: not interpreted", where, e.Type, e.Offset)
			}
		}
		if open >= 0 && b.EntryErr == nil {
			r.Fail(labelRange, "%s: the range opened at offset %d is not closed by the block's end", where, open)
		}
	}
	ivhds := counts[acpi.IVHDFixed] + counts[acpi.IVHDVariable] + counts[acpi.IVHDUnified]
	if ivhds == 0 && err == nil {
		r.Fail(labelNoIVHD, "%d blocks, none an IVHD", len(v.Blocks))
	}
	switch rev := t.Header.Revision; {
	case rev != 1 && rev != 2:
		r.Fail(labelRevision, "revision %d", rev)
	case rev == 1 && counts[acpi.IVHDVariable]+counts[acpi.IVHDUnified] > 0:
		r.Fail(labelRevision, "revision 1 with %d type 11h and %d type 40h IVHDs", counts[acpi.IVHDVariable], counts[acpi.IVHDUnified])
	}
	checkIOAPICs(r, ts, special, ioapicEntries)
	checkHPETs(r, ts, hpetEntries)
	if len(ivmds) > 0 {
		if mm := tablecheck.MemoryMap(p, t.Name()+": IVMD ranges against the memory map"); mm != nil {
			for _, b := range ivmds {
				if ok, what := tablecheck.Reserved(mm, b.Start, b.Start+b.Size-1); !ok {
					r.Fail(labelIVMDReserved, "IVMD type %02Xh at offset %d: 0x%x-0x%x is covered by %s", b.Type, b.Offset, b.Start, b.Start+b.Size-1, what)
				}
			}
		}
	}
	var parts []string
	keys := make([]int, 0, len(counts))
	for k := range counts {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d of type %02Xh", counts[uint32(k)], k))
	}
	r.Done("revision %d, IVinfo 0x%08x, blocks: %s", t.Header.Revision, v.IVInfo, strings.Join(parts, ", "))
}

func checkIOAPICs(r *tablecheck.T, ts *acpi.Tables, special map[uint32]map[uint8]bool, entries []acpi.IVDeviceEntry) {
	mt := ts.First(acpi.SigMADT)
	if mt == nil {
		return
	}
	m, _ := acpi.ParseMADT(mt)
	if m == nil {
		return
	}
	ids := map[uint8]bool{}
	for _, io := range m.IOAPICs {
		ids[io.ID] = true
	}
	reported := map[uint8]bool{}
	for _, e := range entries {
		if !ids[e.Handle] && !reported[e.Handle] {
			reported[e.Handle] = true
			r.Fail(labelIOAPICMADT, "special device entry at offset %d: I/O APIC %d (requester %s); the MADT's I/O APICs are %s", e.Offset, e.Handle, bdf(e.SourceID), tablecheck.IDList(ids))
		}
	}
	types := make([]int, 0, len(special))
	for t := range special {
		types = append(types, int(t))
	}
	sort.Ints(types)
	for _, t := range types {
		for _, io := range m.IOAPICs {
			if !special[uint32(t)][io.ID] {
				r.Fail(labelIOAPICMissing, "I/O APIC %d (0x%x, GSI base %d) has no special device entry in the type %02Xh IVHDs", io.ID, io.Address, io.GSIBase, t)
			}
		}
	}
}

func checkHPETs(r *tablecheck.T, ts *acpi.Tables, entries []acpi.IVDeviceEntry) {
	nums := map[uint8]bool{}
	for _, t := range ts.Get(acpi.SigHPET) {
		if h, err := acpi.ParseHPET(t); err == nil {
			nums[h.Number] = true
		}
	}
	if len(nums) == 0 {
		return
	}
	reported := map[uint8]bool{}
	for _, e := range entries {
		if !nums[e.Handle] && !reported[e.Handle] {
			reported[e.Handle] = true
			r.Fail(labelHPET, "special device entry at offset %d: HPET %d; the HPET tables' numbers are %s", e.Offset, e.Handle, tablecheck.IDList(nums))
		}
	}
}

// bdf formats a PCI requester ID as bus:device.function.
func bdf(id uint16) string { return fmt.Sprintf("%02x:%02x.%x", id>>8, id>>3&0x1F, id&7) }
