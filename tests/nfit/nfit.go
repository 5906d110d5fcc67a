// Package nfit checks the NVDIMM Firmware Interface Table (ACPI 6.5
// §5.2.26): its revision and reserved field, every structure walked by
// its own length, each structure type's length (SPA range 56 bytes, or
// 64 with the SPA location cookie ACPI 6.4 added; region mapping 48;
// interleave 16 plus 4 per line; SMBIOS management information at least
// 8; control region 80, or 32 when it has no block control windows; block
// data window region 40; flush hint address 16 plus 8 per address;
// platform capabilities 16), reserved fields and flag bits, SPA range
// and interleave indexes (nonzero, unique) and control region indexes
// (unique), the references between structures (a region mapping's SPA
// range and control region, and, when it maps to an SPA range, its
// interleave structure, which needs two or more interleave ways; a block
// data window region's control region), and the platform capabilities'
// memory controller flush bit whenever the CPU cache flush bit is set.
// An SPA range whose address range type GUID ACPI 6.5 does not define is
// information (a vendor may define its own), and so is a region mapping
// whose NVDIMM state flags report a failed save, restore or flush, an
// NVDIMM not armed or a failed mapping: they are the platform's report
// on the NVDIMM, not a defect of the table.
//
// When the tables hold an SRAT, an SPA range whose flags say its
// proximity domain is valid (bit 1) must give a domain of one of the
// SRAT's enabled memory affinity structures (ACPI 6.5 §5.2.26.2: the
// domain must match the SRAT's entry; NFITDomainNotInSRAT). Without an
// SRAT nothing is said: a machine of one node needs none, and the domain
// then names no other.
//
// Left out on purpose: the SPA range's address against the SRAT's
// memory ranges (a hot-pluggable NVDIMM's range may be one the SRAT
// covers only with a wider hot-plug range, or not at all), SPA ranges
// against the memory map (persistent memory is
// described by the UEFI memory map's persistent type, which a
// /sys/firmware/memmap reading does not always show), the SMBIOS data
// inside type 3 structures, and bits above the platform capabilities'
// Highest Valid Capability (the specification tells the OS to ignore
// them, so any value is allowed).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	NFITMalformed        none
//	NFITRevision         none
//	NFITReserved         none
//	NFITStructureLength  none
//	NFITStructureSize    none
//	NFITIndex            none
//	NFITReference        none
//	NFITSPARange         none
//	NFITInterleaveWays   none
//	NFITCapabilities     none
//	NFITDomainNotInSRAT  none
package nfit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.26"

var (
	labelMalformed = tests.NewLabel("NFITMalformed", tests.Medium, spec,
		"The NFIT is shorter than its 40-byte fixed part or its Length disagrees with its bytes. "+
			"Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("NFITRevision", tests.Low, spec,
		"The NFIT revision is not 1, the only one defined. Set Revision to 1.")
	labelReserved = tests.NewLabel("NFITReserved", tests.Low, spec,
		"A reserved field of the NFIT or of one of its structures, or a flag bit no revision "+
			"defines, is not zero. Clear it: a later revision may give it a meaning.")
	labelStructLength = tests.NewLabel("NFITStructureLength", tests.Medium, spec,
		"An NFIT structure has a length shorter than its Type and Length fields or runs past the end "+
			"of the table, so the OS stops reading the NVDIMM description there. Give each structure "+
			"its real length.")
	labelSize = tests.NewLabel("NFITStructureSize", tests.Medium, spec+".1",
		"An NFIT structure's length is not the one its type and counts give (SPA range 56, or 64 "+
			"with the location cookie flag; region mapping 48; interleave 16 + 4 per line; control "+
			"region 80, or 32 without block control windows; block data window 40; flush hint 16 + 8 "+
			"per address; platform capabilities 16), so the OS reads fields from the wrong place or "+
			"rejects the structure. Make the length match the type.")
	labelIndex = tests.NewLabel("NFITIndex", tests.Medium, spec,
		"An SPA range or interleave structure has index 0 (reserved), or an SPA range, control "+
			"region or interleave structure shares its index with another structure of its type, so the structures that refer to it by index "+
			"cannot tell which is meant. Give each a unique nonzero index.")
	labelReference = tests.NewLabel("NFITReference", tests.Medium, spec+".3",
		"A region mapping refers to an SPA range, control region or interleave structure the NFIT "+
			"does not have (or a block data window region to a control region it does not have), so "+
			"the OS cannot put the NVDIMM region together and leaves it unused. Refer to the index of "+
			"a structure the table holds, or 0 where the field allows none.")
	labelRange = tests.NewLabel("NFITSPARange", tests.Medium, spec+".2",
		"An SPA range's base plus length runs past the end of the 64-bit address space, so the OS "+
			"cannot map it. Give the range's real base and length.")
	labelWays = tests.NewLabel("NFITInterleaveWays", tests.Medium, spec+".3",
		"A region mapping names an interleave structure but gives 0 or 1 interleave ways, a "+
			"combination the specification calls invalid: an interleave structure describes a set of "+
			"two or more NVDIMMs. Give the number of NVDIMMs in the set, or interleave index 0 for "+
			"a region that is not interleaved.")
	labelCaps = tests.NewLabel("NFITCapabilities", tests.Medium, spec+".9",
		"The platform capabilities claim CPU cache flush on power loss (bit 0) without memory "+
			"controller flush on power loss (bit 1); the specification requires bit 1 whenever bit 0 "+
			"is set, since the CPU's stores pass through the memory controller. Set bit 1, or clear "+
			"bit 0 if the platform does not flush its caches.")
	labelDomain = tests.NewLabel("NFITDomainNotInSRAT", tests.Medium, spec+".2, §5.2.16",
		"An SPA range says its proximity domain is valid (flags bit 1) but gives a domain no "+
			"enabled SRAT memory affinity structure declares, so the OS cannot place the NVDIMM's "+
			"memory in a NUMA node the SRAT knows and falls back to a guess. Give the domain of "+
			"the SRAT memory affinity structure that describes the range, or clear bit 1.")
	allLabels = []*tests.Label{labelMalformed, labelRevision, labelReserved, labelStructLength, labelSize, labelIndex, labelReference, labelRange, labelWays, labelCaps, labelDomain}
)

// confirmed are the labels whose corpus occurrences were read against
// the specification: none; no linuxhw machine ships an NFIT, and QEMU's
// (pc and q35 with an NVDIMM, virt with one) follow it.
var confirmed = []*tests.Label{}

// Check is the nfit check.
var Check = &tests.Check{
	ID:       "nfit",
	Title:    "NFIT NVDIMM structures, their lengths and the indexes they refer to each other by",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   allLabels,
	Run:      run,
}

var typeNames = []string{"SPA range", "region mapping", "interleave", "SMBIOS management information",
	"control region", "block data window region", "flush hint address", "platform capabilities"}

func name(typ uint32) string {
	if int(typ) < len(typeNames) {
		return typeNames[typ]
	}
	return fmt.Sprintf("type %d", typ)
}

func run(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(allLabels, confirmed)
	ts := tests.Input(p, input.ACPITables)
	for _, t := range tablecheck.Tables(p, acpi.SigNFIT, "no NFIT table (the machine describes no NVDIMMs; it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		n, err := acpi.ParseNFIT(t)
		if n == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1)
		if n.Reserved != 0 {
			r.Fail(labelReserved, "reserved field after the header 0x%08x", n.Reserved)
		}
		r.Walk(labelStructLength, err)
		r.NotRead(n.NotRead)
		summary := check(r, n)
		checkDomains(p, r, ts, n)
		r.Done("%s", summary)
	}
	return nil
}

// checkDomains looks the proximity domain of each SPA range that says it
// is valid up in the SRAT's memory affinity structures.
func checkDomains(p *tests.Pass, r *tablecheck.T, ts *acpi.Tables, n *acpi.NFIT) {
	var spas []acpi.NFITStruct
	for _, s := range n.Structures {
		if s.Type == acpi.NFITSPARange && !s.Short && s.Flags&acpi.NFITSPADomainValid != 0 {
			spas = append(spas, s)
		}
	}
	t := ts.First(acpi.SigSRAT)
	if len(spas) == 0 || t == nil {
		return
	}
	srat, err := acpi.ParseSRAT(t)
	if srat == nil {
		p.NotChecked(r.Name+": SPA range proximity domains against the SRAT", fmt.Sprintf("the SRAT cannot be read: %v", err), "")
		return
	}
	domains := srat.MemoryDomains()
	for _, s := range spas {
		if domains[s.Domain] {
			continue
		}
		if err != nil || srat.NotRead > 0 {
			// The domain's structure may be past where the walk stopped
			// (the srat check reports why).
			p.NotChecked(fmt.Sprintf("%s: the proximity domain %d of the SPA range at offset %d", r.Name, s.Domain, s.Offset), "the SRAT's structures are read only in part", "")
			continue
		}
		r.Fail(labelDomain, "SPA range at offset %d (index %d, 0x%x-0x%x) gives proximity domain %d; the SRAT's enabled memory affinity structures declare %s",
			s.Offset, s.Index, s.Base, s.Base+s.Size-1, s.Domain, domainList(domains))
	}
}

// domainList lists a set of proximity domains in order ("0 1 3"), the
// first 16 of a longer set, "none" for an empty one.
func domainList(ds map[uint32]bool) string {
	if len(ds) == 0 {
		return "none"
	}
	l := make([]uint32, 0, len(ds))
	for d := range ds {
		l = append(l, d)
	}
	slices.Sort(l)
	var b strings.Builder
	b.WriteString("domain")
	if len(l) > 1 {
		b.WriteString("s")
	}
	for i, d := range l {
		if i == 16 {
			fmt.Fprintf(&b, " … (%d in all)", len(l))
			break
		}
		fmt.Fprintf(&b, " %d", d)
	}
	return b.String()
}

// check judges the NFIT's structures and returns the table's summary.
func check(r *tablecheck.T, n *acpi.NFIT) string {
	// Indexes of the structures others refer to, by type.
	idx := map[uint32]map[uint16]int{acpi.NFITSPARange: {}, acpi.NFITControlRegion: {}, acpi.NFITInterleave: {}}
	var good []acpi.NFITStruct
	unknown := 0
	for _, s := range n.Structures {
		at := fmt.Sprintf("%s at offset %d", name(s.Type), s.Offset)
		if s.Type > acpi.NFITCapabilities {
			if unknown++; unknown <= 4 {
				r.Info("structure type %d at offset %d (length %d) is reserved: not interpreted", s.Type, s.Offset, s.Length)
			}
			continue
		}
		if s.Short {
			r.Fail(labelSize, "%s has length %d, shorter than its fixed part", at, s.Length)
			continue
		}
		switch {
		case s.Type == acpi.NFITSPARange && s.Want == 0 && s.Length != 56 && s.Length != 64:
			r.Fail(labelSize, "%s has length %d; an SPA range is 56 bytes, or 64 with the location cookie", at, s.Length)
		case s.Type == acpi.NFITSPARange && s.Want == 64 && s.Length != 64:
			r.Fail(labelSize, "%s has length %d with the location cookie flag set (flags 0x%04x); that needs 64", at, s.Length, s.Flags)
		case s.Type == acpi.NFITControlRegion && s.Want != s.Length:
			r.Fail(labelSize, "%s has length %d with %d block control windows; a control region is 80 bytes, or 32 with none", at, s.Length, s.Count)
		case s.Type == acpi.NFITInterleave && s.Want != s.Length:
			r.Fail(labelSize, "%s has length %d; %d lines need %d", at, s.Length, s.Count, s.Want)
		case s.Type == acpi.NFITFlushHint && s.Want != s.Length:
			r.Fail(labelSize, "%s has length %d; %d flush hint addresses need %d", at, s.Length, s.Count, s.Want)
		case s.Want != 0 && s.Type != acpi.NFITSPARange && s.Type != acpi.NFITControlRegion &&
			s.Type != acpi.NFITInterleave && s.Type != acpi.NFITFlushHint && s.Want != s.Length:
			r.Fail(labelSize, "%s has length %d; the structure is %d bytes", at, s.Length, s.Want)
		}
		if s.Reserved != 0 || s.ReservedFlags != 0 {
			r.Fail(labelReserved, "%s: reserved field 0x%x, undefined flag bits 0x%x", at, s.Reserved, s.ReservedFlags)
		}
		if m, ok := idx[s.Type]; ok {
			// Index 0 is reserved for SPA ranges and interleave
			// structures; for control regions only uniqueness is stated.
			if s.Index == 0 && s.Type != acpi.NFITControlRegion {
				r.Fail(labelIndex, "%s has index 0", at)
			} else if prev, dup := m[s.Index]; dup {
				r.Fail(labelIndex, "%s has index %d, as the %s at offset %d", at, s.Index, name(s.Type), prev)
			} else {
				m[s.Index] = s.Offset
			}
		}
		if s.Type == acpi.NFITCapabilities && s.Capabilities&1 != 0 && s.Capabilities&2 == 0 {
			r.Fail(labelCaps, "%s: capabilities 0x%08x", at, s.Capabilities)
		}
		if s.Type == acpi.NFITSPARange {
			if s.Size > 0 && s.Base+s.Size-1 < s.Base {
				r.Fail(labelRange, "%s (index %d): base 0x%x, length 0x%x", at, s.Index, s.Base, s.Size)
			}
			if acpi.NFITRangeTypeName(s.RangeType) == "" {
				r.Info("%s (index %d): address range type %s is not one ACPI 6.5 defines", at, s.Index, s.RangeType)
			}
		}
		good = append(good, s)
	}
	if unknown > 4 {
		r.Info("%d more structures of reserved types", unknown-4)
	}
	ref := func(at string, what string, typ uint32, i uint16) {
		if i != 0 {
			if _, ok := idx[typ][i]; !ok {
				r.Fail(labelReference, "%s refers to %s %d, which the NFIT does not have", at, what, i)
			}
		}
	}
	counts := map[uint32]int{}
	for _, s := range good {
		counts[s.Type]++
		at := fmt.Sprintf("%s at offset %d", name(s.Type), s.Offset)
		switch s.Type {
		case acpi.NFITRegionMapping:
			at = fmt.Sprintf("%s (NFIT device handle 0x%x)", at, s.Handle)
			ref(at, "SPA range", acpi.NFITSPARange, s.SPAIndex)
			ref(at, "control region", acpi.NFITControlRegion, s.ControlIndex)
			// Without an SPA range the interleave fields are not valid
			// and are ignored.
			if s.SPAIndex != 0 {
				ref(at, "interleave structure", acpi.NFITInterleave, s.InterleaveIndex)
				if s.InterleaveIndex != 0 && s.Ways <= 1 {
					r.Fail(labelWays, "%s: interleave structure %d with %d interleave ways", at, s.InterleaveIndex, s.Ways)
				}
			}
			if f := s.Flags & 0x4F; f != 0 {
				r.Info("%s: NVDIMM state flags 0x%04x report %s", at, s.Flags, stateFlags(f))
			}
		case acpi.NFITBlockWindow:
			ref(at, "control region", acpi.NFITControlRegion, s.ControlIndex)
		}
	}
	return fmt.Sprintf("revision %d, %d SPA ranges, %d region mappings, %d control regions, %d structures in all",
		n.Header.Revision, counts[acpi.NFITSPARange], counts[acpi.NFITRegionMapping], counts[acpi.NFITControlRegion], len(n.Structures))
}

func stateFlags(f uint16) string {
	names := []string{"the last save failed", "the last restore failed", "a platform flush failed", "the NVDIMM not armed", "", "", "a failed mapping"}
	s := ""
	for i, n := range names {
		if n != "" && f&(1<<i) != 0 {
			if s != "" {
				s += ", "
			}
			s += n
		}
	}
	return s
}
