// Package dmar checks the DMA Remapping Reporting table (Intel
// Virtualization Technology for Directed I/O architecture specification,
// revision 4.1, chapter 8): the header (host address width, flags,
// reserved bytes), every remapping structure and device scope walked by its
// own length, the order rule for INCLUDE_PCI_ALL units, register bases,
// RMRR ranges (aligned, and reserved in the firmware memory map when the
// run has it), ATSR/SATC/RHSA/ANDD fields, and the cross-table rules: I/O
// APIC scopes against the MADT, HPET scopes against the HPET tables, RHSA
// and ANDD references within the DMAR.
//
// When the tables hold the DSDT, the object each ANDD names must be in the
// namespace the DSDT and SSDTs build (DMARANDDNotInNamespace; a name
// declared only by External is not checked: the table defining it is not
// in the set). Left out on purpose: the
// RHSA proximity domain against the SRAT (an SRAT is optional even where
// an RHSA is given), and PCI device paths against the devices present (the
// firmware may describe hot-pluggable slots that are empty). Revision 2 is
// accepted beside the specification's 1: it is what firmware setting
// DMA_CTRL_PLATFORM_OPT_IN publishes (15 corpus machines, Intel's own
// reference code among them), and no OS treats it differently.
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	DMARMalformed              none
//	DMARRevision               none
//	DMARHostAddressWidth       none
//	DMARReservedBits           none
//	DMARStructureLength        none
//	DMARStructureShort         none
//	DMARNoDRHD                 none
//	DMARIncludeAllOrder        none
//	DMARRegisterBase           none
//	DMARDuplicateRegisterBase  none
//	DMARNoDeviceScope          none
//	DMARIncludeAllPCIScope     none
//	DMARRMRRRange              none
//	DMARRMRRNotReserved        none
//	DMARScopeTypeMismatch      none
//	DMARSegmentWithoutUnit     none
//	DMARATSRNoScope            none
//	DMARRHSAUnknownUnit        none
//	DMARANDDName               none
//	DMARANDDNotInNamespace     none
//	DMARNamespaceScopeUnknown  none
//	DMARDeviceScopeLength      none
//	DMARDeviceScopePath        none
//	DMARIOAPICNotInMADT        2: core/11618970C18C full/11618970C18C
//	DMARIOAPICNotCovered       2: core/11618970C18C full/11618970C18C
//	DMARHPETNotInHPET          none
package dmar

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "Intel VT-d 4.1 §8"

var (
	labelMalformed = tests.NewLabel("DMARMalformed", tests.High, "Intel VT-d 4.1 §8.1",
		"The DMAR is shorter than its 48-byte header or its Length disagrees with its bytes, so the "+
			"OS cannot use the IOMMUs. Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("DMARRevision", tests.Low, "Intel VT-d 4.1 §8.1",
		"The DMAR revision is neither 1, the value the VT-d specification gives, nor 2, which firmware "+
			"setting DMA_CTRL_PLATFORM_OPT_IN uses. Set Revision to 1 (or 2 with that flag).")
	labelWidth = tests.NewLabel("DMARHostAddressWidth", tests.High, "Intel VT-d 4.1 §8.1",
		"The Host Address Width (the DMA address width minus one) is below 11 or above 63; Linux "+
			"rejects the table and runs without an IOMMU. Report the width the remapping hardware "+
			"supports (for example 38 for 39-bit, 45 for 46-bit addressing).")
	labelReserved = tests.NewLabel("DMARReservedBits", tests.Low, "Intel VT-d 4.1 §8.1-§8.8",
		"Reserved header flag bits, reserved header bytes or a structure's reserved fields are not "+
			"zero. Clear them: a later revision may give them a meaning.")
	labelStructLength = tests.NewLabel("DMARStructureLength", tests.High, "Intel VT-d 4.1 §8.2",
		"A remapping structure has a length shorter than its type and length fields or runs past "+
			"the end of the table, so the OS stops reading the table there and loses the remapping "+
			"units after it. Give each structure its real length.")
	labelStructShort = tests.NewLabel("DMARStructureShort", tests.High, "Intel VT-d 4.1 §8.3-§8.8",
		"A remapping structure is shorter than its type's fixed fields, so its register base or "+
			"range is read from the next structure. Use the length the specification gives the type.")
	labelNoDRHD = tests.NewLabel("DMARNoDRHD", tests.High, "Intel VT-d 4.1 §8.3",
		"The DMAR describes no remapping hardware unit (DRHD), so it describes no IOMMU at all. Publish "+
			"a DRHD for each unit, or no DMAR when VT-d is off.")
	labelIncludeAll = tests.NewLabel("DMARIncludeAllOrder", tests.High, "Intel VT-d 4.1 §8.3",
		"A DRHD with INCLUDE_PCI_ALL is not the last DRHD of its PCI segment, or a segment has more "+
			"than one: such a unit must come after every other unit of the segment, because it takes "+
			"every device the units before it do not list. Put the one INCLUDE_PCI_ALL unit of each "+
			"segment last.")
	labelBase = tests.NewLabel("DMARRegisterBase", tests.High, "Intel VT-d 4.1 §8.3",
		"A remapping unit's register base address is 0 or not 4 KiB aligned, so the OS cannot program "+
			"the unit. Give the unit's real register base.")
	labelDupBase = tests.NewLabel("DMARDuplicateRegisterBase", tests.Medium, "Intel VT-d 4.1 §8.3",
		"Two remapping units share one register base address; the OS programs one unit twice and "+
			"the devices of the other lose remapping. Give each unit its own base.")
	labelNoScope = tests.NewLabel("DMARNoDeviceScope", tests.Medium, "Intel VT-d 4.1 §8.3-§8.4",
		"A DRHD without INCLUDE_PCI_ALL, or an RMRR, lists no device scope, so it applies to no "+
			"device. List the devices, or leave the structure out.")
	labelIncludeAllPCI = tests.NewLabel("DMARIncludeAllPCIScope", tests.Low, "Intel VT-d 4.1 §8.3",
		"A DRHD with INCLUDE_PCI_ALL lists PCI endpoint or sub-hierarchy scopes; such a unit may list "+
			"only I/O APIC, HPET and ACPI namespace devices, since it covers every PCI device already. "+
			"Remove the PCI scopes.")
	labelRMRRRange = tests.NewLabel("DMARRMRRRange", tests.High, "Intel VT-d 4.1 §8.4",
		"An RMRR's base is not 4 KiB aligned, its limit plus one is not 4 KiB aligned, or its limit is "+
			"below its base; Linux warns the BIOS is broken and may not identity-map the region, so the "+
			"device's DMA to it faults. Give a page-aligned range with limit = last byte.")
	labelRMRRNotReserved = tests.NewLabel("DMARRMRRNotReserved", tests.Medium, "Intel VT-d 4.1 §8.4",
		"An RMRR range is not reserved in the firmware memory map, so the OS may use the memory a "+
			"device keeps doing DMA to. Report the range as reserved in the memory map.")
	labelScopeType = tests.NewLabel("DMARScopeTypeMismatch", tests.Low, "Intel VT-d 4.1 §8.4-§8.5",
		"An RMRR lists a scope that is not a PCI endpoint, or an ATSR one that is not a PCI "+
			"sub-hierarchy (root port). Use the scope type the structure defines.")
	labelSegment = tests.NewLabel("DMARSegmentWithoutUnit", tests.Medium, "Intel VT-d 4.1 §8.4-§8.6",
		"An RMRR, ATSR or SATC names a PCI segment that no DRHD covers. Describe the segment's "+
			"remapping unit, or correct the segment number.")
	labelATSRNoScope = tests.NewLabel("DMARATSRNoScope", tests.Low, "Intel VT-d 4.1 §8.5",
		"An ATSR without ALL_PORTS lists no root port. List the ports that support ATS, or set ALL_PORTS.")
	labelRHSA = tests.NewLabel("DMARRHSAUnknownUnit", tests.Medium, "Intel VT-d 4.1 §8.6",
		"An RHSA names a register base no DRHD has; Linux warns the BIOS is broken and ignores it. "+
			"Use the base address of the unit the proximity domain is meant for.")
	labelANDDName = tests.NewLabel("DMARANDDName", tests.Medium, "Intel VT-d 4.1 §8.7",
		"An ANDD's object name is empty or not NUL-terminated, so the OS cannot find the device. "+
			"Give the device's full namespace path, NUL-terminated.")
	labelANDDNamespace = tests.NewLabel("DMARANDDNotInNamespace", tests.Medium, "Intel VT-d 4.1 §8.7",
		"An ANDD names an ACPI object the namespace (DSDT and SSDTs) does not have, so the OS "+
			"cannot bind the device's DMA remapping to it and the device falls outside the IOMMU. "+
			"Give the full path of the device object the firmware declares, or declare it.")
	labelNamespaceScope = tests.NewLabel("DMARNamespaceScopeUnknown", tests.Medium, "Intel VT-d 4.1 §8.3.1.3, §8.7",
		"An ACPI namespace device scope gives a device number no ANDD structure declares, so the OS "+
			"cannot tell which device it means. Add the ANDD, or correct the enumeration ID.")
	labelScopeLength = tests.NewLabel("DMARDeviceScopeLength", tests.Medium, "Intel VT-d 4.1 §8.3.1",
		"A device scope is shorter than 8 bytes, its path is not a whole number of 2-byte "+
			"(device, function) entries, or it runs past its structure, so the OS cannot tell which "+
			"device it means. Give each scope length 6 + 2 × path entries.")
	labelScopePath = tests.NewLabel("DMARDeviceScopePath", tests.Low, "Intel VT-d 4.1 §8.3.1",
		"A device scope path names a PCI device above 31 or a function above 7, which no PCI bus "+
			"has. Give the real device and function numbers.")
	labelIOAPICMADT = tests.NewLabel("DMARIOAPICNotInMADT", tests.Medium, "Intel VT-d 4.1 §8.3.1.1; ACPI 6.5 §5.2.12.3",
		"An I/O APIC device scope gives an enumeration ID that no MADT I/O APIC has; the OS cannot "+
			"match the remapping unit to the I/O APIC. Use the I/O APIC IDs of the MADT.")
	labelIOAPICUncovered = tests.NewLabel("DMARIOAPICNotCovered", tests.Medium, "Intel VT-d 4.1 §8.3.1.1",
		"The DMAR sets INTR_REMAP but an I/O APIC of the MADT is under no remapping unit's scope; "+
			"Linux then turns interrupt remapping off (and x2APIC with it). List every I/O APIC in "+
			"the scope of the unit it sits behind.")
	labelHPETScope = tests.NewLabel("DMARHPETNotInHPET", tests.Low, "Intel VT-d 4.1 §8.3.1.2; IA-PC HPET 1.0a §3.2.4",
		"An HPET device scope gives an enumeration ID that is the HPET Number of no HPET table, so "+
			"the OS cannot remap the HPET's MSIs. Make the two agree: the enumeration ID is the HPET "+
			"table's number, and a machine's only HPET is number 0.")
)

var allLabels = []*tests.Label{labelMalformed, labelRevision, labelWidth, labelReserved, labelStructLength, labelStructShort,
	labelNoDRHD, labelIncludeAll, labelBase, labelDupBase, labelNoScope, labelIncludeAllPCI, labelRMRRRange,
	labelRMRRNotReserved, labelScopeType, labelSegment, labelATSRNoScope, labelRHSA, labelANDDName, labelANDDNamespace, labelNamespaceScope,
	labelScopeLength, labelScopePath, labelIOAPICMADT, labelIOAPICUncovered, labelHPETScope}

// unconfirmed are the labels not yet seen on a real machine: warnings.
func unconfirmed() map[*tests.Label]bool { return tablecheck.Unconfirmed(allLabels, confirmed) }

// confirmed are the labels whose corpus occurrences were read against
// the specification (see the table above).
var confirmed = []*tests.Label{labelRevision, labelIOAPICMADT, labelIOAPICUncovered}

// Check is the dmar check.
var Check = &tests.Check{
	ID:       "dmar",
	Title:    "DMAR remapping structures, device scopes and their MADT/HPET references",
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
	for _, t := range tablecheck.Tables(p, acpi.SigDMAR, "no DMAR table (no Intel VT-d, or it is off)") {
		check(p, ts, t)
	}
	return nil
}

func check(p *tests.Pass, ts *acpi.Tables, t *acpi.Table) {
	r := tablecheck.New(p, t, unconfirmed())
	d, err := acpi.ParseDMAR(t)
	if d == nil {
		r.Fail(labelMalformed, "%v", err)
		return
	}
	// Revision 2 is what firmware that sets DMA_CTRL_PLATFORM_OPT_IN
	// publishes (15 corpus machines); VT-d 4.1 still lists 1.
	r.Revision(labelRevision, t, 1, 2)
	if w := int(d.HostAddressWidth) + 1; w < 12 || w > 64 {
		r.Fail(labelWidth, "host address width field %d (%d-bit DMA addresses)", d.HostAddressWidth, w)
	}
	if d.Flags&^7 != 0 || d.Reserved != 0 {
		r.Fail(labelReserved, "header flags 0x%02x, reserved bytes %s", d.Flags, tablecheck.Nonzero(d.Reserved))
	}
	r.Walk(labelStructLength, err)
	r.NotRead(d.NotRead)

	type unit struct {
		idx, offset int
		base        uint64
		all         bool
	}
	segUnits := map[uint16][]unit{}
	bases := map[uint64]int{} // base → offset of the first DRHD with it
	andd := map[uint8]bool{}
	var nsScopes []acpi.DeviceScope
	var ioapicScopes, hpetScopes []acpi.DeviceScope
	var rmrrs, anddNames []acpi.DMARStructure
	counts := map[string]int{}
	for i, s := range d.Structures {
		name := acpi.DMARTypeName(s.Type)
		counts[name]++
		where := fmt.Sprintf("%s at offset %d", name, s.Offset)
		if s.Type > acpi.DMARTypeSIDP {
			r.Info("remapping structure type %d at offset %d (length %d), reserved: not interpreted", s.Type, s.Offset, s.Length)
			continue
		}
		if s.Short {
			r.Fail(labelStructShort, "%s has length %d, its type needs %d", where, s.Length, acpi.DMARMinLength(s.Type))
			continue
		}
		if s.Reserved != 0 {
			r.Fail(labelReserved, "%s: reserved field %s", where, tablecheck.Nonzero(s.Reserved))
		}
		if s.ScopeErr != nil {
			r.Fail(labelScopeLength, "%s: %v", where, s.ScopeErr)
		}
		pci := 0
		for _, ds := range s.Scopes {
			sw := fmt.Sprintf("%s: %s scope at offset %d", where, acpi.ScopeTypeName(ds.Type), ds.Offset)
			if ds.Length < 8 || ds.Odd {
				r.Fail(labelScopeLength, "%s has length %d", sw, ds.Length)
			}
			for _, pe := range ds.Path {
				if pe[0] > 31 || pe[1] > 7 {
					r.Fail(labelScopePath, "%s: path entry %02x.%x", sw, pe[0], pe[1])
					break
				}
			}
			switch ds.Type {
			case acpi.ScopePCIEndpoint, acpi.ScopePCIBridge:
				pci++
			case acpi.ScopeIOAPIC:
				if s.Type == acpi.DMARTypeDRHD {
					ioapicScopes = append(ioapicScopes, ds)
				}
			case acpi.ScopeHPET:
				if s.Type == acpi.DMARTypeDRHD {
					hpetScopes = append(hpetScopes, ds)
				}
			case acpi.ScopeACPINamespac:
				nsScopes = append(nsScopes, ds)
			default:
				r.Info("%s: device scope type %d at offset %d is reserved: not interpreted", where, ds.Type, ds.Offset)
			}
		}
		switch s.Type {
		case acpi.DMARTypeDRHD:
			all := s.Flags&1 != 0
			if s.Flags&^1 != 0 || s.Size&0xF0 != 0 {
				r.Fail(labelReserved, "%s: flags 0x%02x, size field 0x%02x", where, s.Flags, s.Size)
			}
			if s.Base == 0 || s.Base&0xFFF != 0 {
				r.Fail(labelBase, "%s: register base 0x%x", where, s.Base)
			} else if prev, dup := bases[s.Base]; dup {
				r.Fail(labelDupBase, "%s: register base 0x%x, as the DRHD at offset %d", where, s.Base, prev)
			} else {
				bases[s.Base] = s.Offset
			}
			if !all && len(s.Scopes) == 0 && s.ScopeErr == nil {
				r.Fail(labelNoScope, "%s (segment %d, base 0x%x) has no INCLUDE_PCI_ALL and no device scope", where, s.Segment, s.Base)
			}
			if all && pci > 0 {
				r.Fail(labelIncludeAllPCI, "%s (segment %d) has INCLUDE_PCI_ALL and %d PCI scopes", where, s.Segment, pci)
			}
			segUnits[s.Segment] = append(segUnits[s.Segment], unit{i, s.Offset, s.Base, all})
		case acpi.DMARTypeRMRR:
			rmrrs = append(rmrrs, s)
			if s.Base&0xFFF != 0 || (s.Limit+1)&0xFFF != 0 || s.Limit < s.Base {
				r.Fail(labelRMRRRange, "%s: range 0x%x-0x%x", where, s.Base, s.Limit)
			}
			if len(s.Scopes) == 0 && s.ScopeErr == nil {
				r.Fail(labelNoScope, "%s (0x%x-0x%x) has no device scope", where, s.Base, s.Limit)
			}
			for _, ds := range s.Scopes {
				if ds.Type != acpi.ScopePCIEndpoint {
					r.Fail(labelScopeType, "%s: %s scope at offset %d, an RMRR lists PCI endpoints", where, acpi.ScopeTypeName(ds.Type), ds.Offset)
				}
			}
		case acpi.DMARTypeATSR:
			if s.Flags&^1 != 0 {
				r.Fail(labelReserved, "%s: flags 0x%02x", where, s.Flags)
			}
			if s.Flags&1 == 0 && len(s.Scopes) == 0 && s.ScopeErr == nil {
				r.Fail(labelATSRNoScope, "%s (segment %d)", where, s.Segment)
			}
			for _, ds := range s.Scopes {
				if ds.Type != acpi.ScopePCIBridge {
					r.Fail(labelScopeType, "%s: %s scope at offset %d, an ATSR lists root ports (PCI sub-hierarchies)", where, acpi.ScopeTypeName(ds.Type), ds.Offset)
				}
			}
		case acpi.DMARTypeSATC:
			if s.Flags&^1 != 0 {
				r.Fail(labelReserved, "%s: flags 0x%02x", where, s.Flags)
			}
		case acpi.DMARTypeANDD:
			if !s.NameTerminated || s.ObjectName == "" {
				r.Fail(labelANDDName, "%s (device number %d): object name %q, terminated %t", where, s.DeviceNumber, s.ObjectName, s.NameTerminated)
			}
			andd[s.DeviceNumber] = true
			if s.NameTerminated && s.ObjectName != "" {
				anddNames = append(anddNames, s)
			}
		}
	}
	if len(d.Structures) > 0 && counts["DRHD"] == 0 {
		r.Fail(labelNoDRHD, "%d remapping structures, none a DRHD", len(d.Structures))
	} else if len(d.Structures) == 0 && err == nil {
		r.Fail(labelNoDRHD, "no remapping structures")
	}
	segs := make([]int, 0, len(segUnits))
	for s := range segUnits {
		segs = append(segs, int(s))
	}
	sort.Ints(segs)
	for _, sg := range segs {
		us := segUnits[uint16(sg)]
		for j, u := range us {
			if u.all && j != len(us)-1 {
				r.Fail(labelIncludeAll, "segment %d: the INCLUDE_PCI_ALL DRHD at offset %d (base 0x%x) is unit %d of %d", sg, u.offset, u.base, j+1, len(us))
			}
		}
	}
	for _, s := range d.Structures {
		if s.Short {
			continue
		}
		switch s.Type {
		case acpi.DMARTypeRMRR, acpi.DMARTypeATSR, acpi.DMARTypeSATC:
			if len(segUnits) > 0 && segUnits[s.Segment] == nil {
				r.Fail(labelSegment, "%s at offset %d names segment %d; the DRHDs cover %s", acpi.DMARTypeName(s.Type), s.Offset, s.Segment, segList(segs))
			}
		case acpi.DMARTypeRHSA:
			if _, ok := bases[s.Base]; !ok {
				r.Fail(labelRHSA, "RHSA at offset %d: register base 0x%x (proximity domain %d)", s.Offset, s.Base, s.ProximityDomain)
			}
		}
	}
	for _, ds := range nsScopes {
		if !andd[ds.EnumerationID] {
			r.Fail(labelNamespaceScope, "ACPI namespace device scope at offset %d: device number %d", ds.Offset, ds.EnumerationID)
		}
	}
	if len(anddNames) > 0 {
		checkANDDNames(p, r, ts, anddNames)
	}
	checkIOAPICs(r, ts, d, ioapicScopes)
	checkHPETs(r, ts, hpetScopes)
	if len(rmrrs) > 0 {
		if mm := tablecheck.MemoryMap(p, t.Name()+": RMRR ranges against the memory map"); mm != nil {
			for _, s := range rmrrs {
				if s.Limit < s.Base {
					continue
				}
				if ok, what := tablecheck.Reserved(mm, s.Base, s.Limit); !ok {
					r.Fail(labelRMRRNotReserved, "RMRR at offset %d: 0x%x-0x%x is covered by %s", s.Offset, s.Base, s.Limit, what)
				}
			}
		}
	}
	var parts []string
	for _, n := range []string{"DRHD", "RMRR", "ATSR", "RHSA", "ANDD", "SATC", "SIDP", "reserved"} {
		if counts[n] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[n], n))
		}
	}
	r.Done("revision %d, %d-bit DMA addresses, flags 0x%02x, %s", t.Header.Revision, int(d.HostAddressWidth)+1, d.Flags, strings.Join(parts, ", "))
}

func checkIOAPICs(r *tablecheck.T, ts *acpi.Tables, d *acpi.DMAR, scopes []acpi.DeviceScope) {
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
	scoped := map[uint8]bool{}
	for _, ds := range scopes {
		scoped[ds.EnumerationID] = true
		if !ids[ds.EnumerationID] {
			r.Fail(labelIOAPICMADT, "I/O APIC scope at offset %d: enumeration ID %d; the MADT's I/O APICs are %s", ds.Offset, ds.EnumerationID, tablecheck.IDList(ids))
		}
	}
	if d.Flags&acpi.DMARIntrRemap == 0 {
		return
	}
	for _, io := range m.IOAPICs {
		if !scoped[io.ID] {
			r.Fail(labelIOAPICUncovered, "INTR_REMAP is set, but I/O APIC %d (0x%x, GSI base %d) is in no DRHD's scope", io.ID, io.Address, io.GSIBase)
		}
	}
}

func checkHPETs(r *tablecheck.T, ts *acpi.Tables, scopes []acpi.DeviceScope) {
	if len(scopes) == 0 {
		return
	}
	nums := map[uint8]bool{}
	for _, t := range ts.Get(acpi.SigHPET) {
		if h, err := acpi.ParseHPET(t); err == nil {
			nums[h.Number] = true
		}
	}
	if len(nums) == 0 {
		return
	}
	for _, ds := range scopes {
		if !nums[ds.EnumerationID] {
			r.Fail(labelHPETScope, "HPET scope at offset %d: enumeration ID %d; the HPET tables' numbers are %s", ds.Offset, ds.EnumerationID, tablecheck.IDList(nums))
		}
	}
}

func segList(segs []int) string { return "segment " + strings.Trim(fmt.Sprint(segs), "[]") }

// checkANDDNames looks up each ANDD's object name in the namespace the
// DSDT and SSDTs build (the run's one, shared with the AML checks).
func checkANDDNames(p *tests.Pass, r *tablecheck.T, ts *acpi.Tables, andds []acpi.DMARStructure) {
	if len(ts.Get(acpi.SigDSDT)) == 0 {
		p.NotChecked(r.Name+": ANDD object names against the namespace", "the tables hold no DSDT (this dump has the static tables only)", "give a dump with the DSDT and SSDTs")
		return
	}
	l := tests.Input(p, amlcheck.Namespace)
	for _, s := range andds {
		name := s.ObjectName
		if !strings.HasPrefix(name, "\\") {
			name = "\\" + name // VT-d asks for the full path; a relative one is read from the root
		}
		n := l.NS.Lookup(name)
		switch {
		case n == nil:
			r.Fail(labelANDDNamespace, "ANDD at offset %d (device number %d) names %s, which the namespace does not have", s.Offset, s.DeviceNumber, s.ObjectName)
		case n.External:
			p.NotChecked(r.Name+": ANDD object "+s.ObjectName, "the tables declare it only as External; the table that defines it is not among them", "give a dump with every SSDT, including those loaded at run time")
		}
	}
}
