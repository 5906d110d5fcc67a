// Package srat checks the tables that describe a machine's NUMA topology:
// the System Resource Affinity Table (ACPI 6.5 §5.2.16, check srat), the
// System Locality Information Table (§5.2.17, check slit), the Maximum
// System Characteristics Table (§5.2.19, check msct) and the
// Heterogeneous Memory Attribute Table (§5.2.28, check hmat). The OS
// builds its NUMA nodes from the SRAT, their distances from the SLIT,
// sizes its node tables from the MSCT and ranks memory tiers by the HMAT; a wrong value puts memory or processors on
// the wrong node, or makes Linux drop the table and treat the machine as
// one node.
//
// srat: revision, the reserved table revision word, every structure walked
// by its own length with the length its type gives, reserved bytes and
// flag bits, enabled memory ranges (nonzero, not wrapping, not overlapping
// a range of another domain) and enabled processor APIC/x2APIC IDs
// (unique). slit: the N×N matrix against the table's length, a diagonal
// of 10, no reserved distance (0-9) between two localities, and every
// SRAT proximity domain inside the matrix. msct: revision, the offset to
// the domain structures, each structure's revision and length, domain
// ranges ordered and within the maximum, and every SRAT domain within the
// maximum. hmat: revision 2, every structure walked by its own length with
// the length its type and counts give, reserved fields and flags, data
// types and memory hierarchies, cache levels, and every proximity domain
// it names among the SRAT's enabled domains.
//
// Left out on purpose: asymmetric SLIT distances (the specification stores
// each distance twice so the directions may differ; reported as
// information); a distance of 10 between two localities (the
// specification does not forbid it, though Linux then ignores the SLIT:
// reported as information); more localities than the SRAT has domains
// (hot-pluggable domains may be empty at boot); overlapping memory ranges
// where one is hot-pluggable (QEMU describes its whole device memory
// window as one hot-pluggable range of the last domain, with the NVDIMMs
// already in it as ranges of their own domains; the specification does
// not forbid it, and Linux drops ranges not populated at boot before it
// looks for overlaps): reported as information; memory ranges outside the
// firmware memory map (hot-pluggable ranges are absent from it); SRAT
// processors against the MADT (an SRAT may describe processors that are
// not present); and MSCT domain ranges that overlap (ACPI 6.5 does not
// say they may not; one corpus machine lists empty ranges after its real
// one, reported as information).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	SRATMalformed          none
//	SRATRevision           none
//	SRATReservedBits       2: core/3E547E3B9CE5 full/3E547E3B9CE5
//	SRATStructureLength    none
//	SRATStructureSize      none
//	SRATMemoryRange        none
//	SRATMemoryOverlap      none
//	SRATDuplicateAPICID    none
//	SRATNoStructures       none
//	SLITMalformed          none
//	SLITRevision           none
//	SLITLength             none
//	SLITSelfDistance       none
//	SLITReservedDistance   none
//	SLITDomainOutside      none
//	MSCTMalformed          none
//	MSCTRevision           none
//	MSCTOffset             none
//	MSCTDomainStructure    none
//	MSCTDomainRange        none
//	MSCTSRATDomainOutside  none
//	HMATMalformed          none
//	HMATRevision           none
//	HMATReservedBits       none
//	HMATStructureLength    none
//	HMATStructureSize      none
//	HMATDataType           none
//	HMATDomainNotInSRAT    none
//	HMATCacheAttributes    none
package srat

import (
	"sort"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const (
	specSRAT = "ACPI 6.5 §5.2.16"
	specSLIT = "ACPI 6.5 §5.2.17"
	specMSCT = "ACPI 6.5 §5.2.19"
)

var (
	labelMalformed = tests.NewLabel("SRATMalformed", tests.Medium, specSRAT,
		"The SRAT is shorter than its 48-byte header or its Length disagrees with its bytes, so the OS "+
			"builds no NUMA topology. Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("SRATRevision", tests.Low, specSRAT,
		"The SRAT revision is not 1 to 3 (3 is ACPI 6.5's; 1 gives only 8-bit proximity domains to local "+
			"APIC structures). Set Revision to 3.")
	labelReserved = tests.NewLabel("SRATReservedBits", tests.Low, specSRAT+".1-§5.2.16.7",
		"The SRAT's table revision word is not 1, or its reserved bytes, a structure's reserved fields "+
			"or reserved flag bits are not zero. Set the word to 1 and clear the rest.")
	labelStructLength = tests.NewLabel("SRATStructureLength", tests.Medium, specSRAT,
		"An SRAT structure has a length shorter than its Type and Length fields or runs past the end of "+
			"the table, so the OS stops reading affinities there. Give each structure its real length.")
	labelStructSize = tests.NewLabel("SRATStructureSize", tests.Medium, specSRAT+".1-§5.2.16.7",
		"An SRAT structure's length is not the one its type has (16 local APIC, 40 memory, 24 x2APIC, 18 "+
			"GICC, 12 ITS, 32 generic initiator/port); Linux skips such a structure, so its processor or "+
			"memory lands on no node. Use the type's length.")
	labelMemRange = tests.NewLabel("SRATMemoryRange", tests.Medium, specSRAT+".2",
		"An enabled memory affinity structure has length 0 or a range that wraps past the top of the "+
			"address space. Give the range's real base and length, or clear its Enabled flag.")
	labelMemOverlap = tests.NewLabel("SRATMemoryOverlap", tests.High, specSRAT+".2",
		"Two enabled, not hot-pluggable memory ranges of different proximity domains overlap, so the same "+
			"memory is on two nodes; Linux rejects the overlap and may fall back to one node. Give each byte "+
			"one domain.")
	labelDupAPIC = tests.NewLabel("SRATDuplicateAPICID", tests.Medium, specSRAT+".1, §5.2.16.3",
		"Two enabled processor affinity structures give the same APIC or x2APIC ID, so one processor has "+
			"two domains (or a processor is missing). Give each processor one structure.")
	labelEmpty = tests.NewLabel("SRATNoStructures", tests.Low, specSRAT,
		"The SRAT describes no affinity. Describe the processors and memory of each domain, or publish no SRAT.")

	labelSLITMalformed = tests.NewLabel("SLITMalformed", tests.Medium, specSLIT,
		"The SLIT is shorter than its header and locality count or its Length disagrees with its bytes, "+
			"so the OS has no NUMA distances. Publish the whole table with a correct Length.")
	labelSLITRevision = tests.NewLabel("SLITRevision", tests.Low, specSLIT,
		"The SLIT revision is not 1, the one ACPI 6.5 defines. Set Revision to 1.")
	slitLabels = tablecheck.DistanceLabels{
		Length: tests.NewLabel("SLITLength", tests.Medium, specSLIT,
			"The SLIT's length does not hold exactly Number of System Localities squared distance bytes, so "+
				"the OS reads distances from beyond the table or misses some. Make the count and Length agree."),
		Self: tests.NewLabel("SLITSelfDistance", tests.Medium, specSLIT,
			"A locality's distance to itself is not 10, the value every distance is normalised to; Linux "+
				"ignores such a SLIT. Put 10 on the diagonal and scale the other distances to it."),
		Reserved: tests.NewLabel("SLITReservedDistance", tests.Medium, specSLIT,
			"A distance between two localities is one of the reserved values 0-9 (a remote locality cannot "+
				"be nearer than the local one); Linux ignores such a SLIT. Give distances above 10 (0xFF for "+
				"an unreachable locality)."),
		Outside: tests.NewLabel("SLITDomainOutside", tests.Medium, specSLIT+"; §5.2.16",
			"The SRAT names a proximity domain at or above the SLIT's Number of System Localities, so that "+
				"domain has no distances. Give the SLIT a row and column for every SRAT domain."),
	}

	labelMSCTMalformed = tests.NewLabel("MSCTMalformed", tests.Medium, specMSCT,
		"The MSCT is shorter than its 56-byte header or its Length disagrees with its bytes. Publish the "+
			"whole table with a correct Length.")
	labelMSCTRevision = tests.NewLabel("MSCTRevision", tests.Low, specMSCT,
		"The MSCT revision is not 1, the one ACPI 6.5 defines. Set Revision to 1.")
	labelMSCTOffset = tests.NewLabel("MSCTOffset", tests.Medium, specMSCT,
		"The MSCT's offset to the proximity domain information structures is below the 56-byte header or "+
			"past the end of the table, or the table's length is not a whole number of 22-byte structures "+
			"after it. Give the structures' real offset (56) and length.")
	labelMSCTStruct = tests.NewLabel("MSCTDomainStructure", tests.Low, specMSCT+".1",
		"A maximum proximity domain information structure's revision is not 1 or its length is not 22. "+
			"Use revision 1 and length 22.")
	labelMSCTRange = tests.NewLabel("MSCTDomainRange", tests.Medium, specMSCT+".1",
		"A maximum proximity domain information structure's range starts above where it ends, or ends "+
			"above the table's Maximum Number of Proximity Domains. Give the range of domains it describes.")
	labelMSCTSRAT = tests.NewLabel("MSCTSRATDomainOutside", tests.Medium, specMSCT+"; §5.2.16",
		"The SRAT names a proximity domain above the MSCT's Maximum Number of Proximity Domains, so an OS "+
			"that sizes its node tables from the MSCT has no room for it. Report the real maximum.")
)

const specHMAT = "ACPI 6.5 §5.2.28"

var (
	labelHMATMalformed = tests.NewLabel("HMATMalformed", tests.Medium, specHMAT,
		"The HMAT is shorter than its 40-byte header or its Length disagrees with its bytes. Publish the "+
			"whole table with a correct Length.")
	labelHMATRevision = tests.NewLabel("HMATRevision", tests.Low, specHMAT,
		"The HMAT revision is not 2, the layout ACPI 6.3 and later give (revision 1 had other structures). "+
			"Publish the revision-2 layout.")
	labelHMATReserved = tests.NewLabel("HMATReservedBits", tests.Low, specHMAT+".1-§5.2.28.4",
		"The HMAT's reserved header word, or a structure's reserved fields or reserved flag bits, are not "+
			"zero. Clear them.")
	labelHMATStructLength = tests.NewLabel("HMATStructureLength", tests.Medium, specHMAT,
		"An HMAT structure has a length shorter than its Type, Reserved and Length fields or runs past "+
			"the end of the table, so the OS stops reading it there. Give each structure its real length.")
	labelHMATStructSize = tests.NewLabel("HMATStructureSize", tests.Medium, specHMAT+".2-§5.2.28.4",
		"An HMAT structure's length is not the one its type and counts give (40 for proximity attributes; "+
			"32 + 4 × initiators + 4 × targets + 2 × initiators × targets for latency and bandwidth; 32 + 2 × "+
			"SMBIOS handles for a memory side cache), so its lists are read from the wrong place. Make the "+
			"length and the counts agree.")
	labelHMATDataType = tests.NewLabel("HMATDataType", tests.Medium, specHMAT+".3",
		"A latency and bandwidth structure gives a reserved data type (0-5 are defined) or memory "+
			"hierarchy (0-3 are defined), so the OS cannot tell what its numbers measure. Use a defined value.")
	labelHMATDomain = tests.NewLabel("HMATDomainNotInSRAT", tests.Medium, specHMAT+"; §5.2.16",
		"An HMAT structure names a proximity domain that no enabled SRAT structure has, so its attributes "+
			"describe no node the OS knows. Use the SRAT's proximity domains.")
	labelHMATCache = tests.NewLabel("HMATCacheAttributes", tests.Low, specHMAT+".4",
		"A memory side cache structure's attributes give more than 3 cache levels, or a cache level of 0 "+
			"or above the total. Give the cache's real level and the number of levels.")
)

var (
	hmatLabels = []*tests.Label{labelHMATMalformed, labelHMATRevision, labelHMATReserved, labelHMATStructLength,
		labelHMATStructSize, labelHMATDataType, labelHMATDomain, labelHMATCache}
	sratLabels = []*tests.Label{labelMalformed, labelRevision, labelReserved, labelStructLength, labelStructSize,
		labelMemRange, labelMemOverlap, labelDupAPIC, labelEmpty}
	slitAll = []*tests.Label{labelSLITMalformed, labelSLITRevision, slitLabels.Length, slitLabels.Self,
		slitLabels.Reserved, slitLabels.Outside}
	msctLabels = []*tests.Label{labelMSCTMalformed, labelMSCTRevision, labelMSCTOffset, labelMSCTStruct,
		labelMSCTRange, labelMSCTSRAT}
)

// confirmed are the labels whose corpus occurrences were read against the
// specification: SRATReservedBits on 3E547E3B9CE5, whose memory affinity
// structures hold 1 in the reserved word at offset 24 (ACPI 6.5 gives the
// four bytes after Length no field).
var confirmed = []*tests.Label{labelReserved}

// Check is the srat check.
var Check = &tests.Check{
	ID:       "srat",
	Title:    "SRAT processor and memory affinity structures",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     specSRAT,
	Labels:   sratLabels,
	Run:      runSRAT,
}

// SLIT is the slit check.
var SLIT = &tests.Check{
	ID:       "slit",
	Title:    "SLIT locality distances against the SRAT's proximity domains",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     specSLIT,
	Labels:   slitAll,
	Run:      runSLIT,
}

// MSCT is the msct check.
var MSCT = &tests.Check{
	ID:       "msct",
	Title:    "MSCT maximum proximity domains and their ranges",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     specMSCT,
	Labels:   msctLabels,
	Run:      runMSCT,
}

// HMAT is the hmat check.
var HMAT = &tests.Check{
	ID:       "hmat",
	Title:    "HMAT memory attributes, latencies, bandwidths and memory side caches",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     specHMAT,
	Labels:   hmatLabels,
	Run:      runHMAT,
}

func runHMAT(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(hmatLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigHMAT, "no HMAT table (the machine describes no memory attributes; it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		h, err := acpi.ParseHMAT(t)
		if h == nil {
			r.Fail(labelHMATMalformed, "%v", err)
			continue
		}
		r.Revision(labelHMATRevision, t, 2)
		if h.Reserved != 0 {
			r.Fail(labelHMATReserved, "reserved header word 0x%08x", h.Reserved)
		}
		r.Walk(labelHMATStructLength, err)
		r.NotRead(h.NotRead)
		domains := sratDomains(p)
		if domains == nil {
			p.NotChecked(r.Name+": proximity domains against the SRAT's", "the machine has no SRAT", "")
		}
		unknown := map[uint32]int{} // domain → offset of the first structure naming it
		name := func(d uint32, off int) {
			if domains != nil && !domains[d] {
				if _, ok := unknown[d]; !ok {
					unknown[d] = off
				}
			}
		}
		for _, e := range h.Entries {
			if e.WantLength == 0 {
				r.Info("structure type %d at offset %d (length %d) is reserved: not interpreted", e.Type, e.Offset, e.Length)
				continue
			}
			if uint64(e.Length) != e.WantLength {
				r.Fail(labelHMATStructSize, "structure type %d at offset %d has length %d, its counts give %d", e.Type, e.Offset, e.Length, e.WantLength)
			}
			if e.Short {
				continue
			}
			var flags uint16
			switch e.Type {
			case acpi.HMATProximity:
				// Bits 1 and 2 were defined in ACPI 6.3 (memory domain
				// valid, reservation hint) and are reserved since 6.4: a
				// revision-2 table may still set them.
				flags = 0x7
				if e.Flags&acpi.HMATInitiatorValid != 0 {
					name(e.Initiator, e.Offset)
				}
				name(e.Memory, e.Offset)
			case acpi.HMATLocality:
				flags = 0x3F // memory hierarchy 3:0, access attributes 5:4
				if e.DataType > 5 || e.Flags&0xF > 3 {
					r.Fail(labelHMATDataType, "structure at offset %d: data type %d, memory hierarchy %d", e.Offset, e.DataType, e.Flags&0xF)
				}
				for _, d := range e.InitiatorDomains {
					name(d, e.Offset)
				}
				for _, d := range e.TargetDomains {
					name(d, e.Offset)
				}
			case acpi.HMATCache:
				name(e.Memory, e.Offset)
				total, level := e.CacheAttributes&0xF, (e.CacheAttributes>>4)&0xF
				if total > 3 || level == 0 || level > total {
					r.Fail(labelHMATCache, "structure at offset %d: attributes 0x%08x (%d levels, level %d)", e.Offset, e.CacheAttributes, total, level)
				}
			}
			if e.Reserved != 0 || e.Flags&^flags != 0 {
				r.Fail(labelHMATReserved, "structure type %d at offset %d: flags 0x%04x, reserved fields %s", e.Type, e.Offset, e.Flags, tablecheck.Nonzero(e.Reserved))
			}
		}
		if len(unknown) > 0 {
			ds := make([]int, 0, len(unknown))
			for d := range unknown {
				ds = append(ds, int(d))
			}
			sort.Ints(ds)
			r.Fail(labelHMATDomain, "proximity domains %v (first at offset %d) are in no enabled SRAT structure", ds[:min(len(ds), 8)], unknown[uint32(ds[0])])
		}
		r.Done("revision %d, %d structures", t.Header.Revision, len(h.Entries))
	}
	return nil
}

func runSRAT(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(sratLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigSRAT, "no SRAT table (the machine describes no NUMA affinity; it is optional)") {
		checkSRAT(tablecheck.New(p, t, unconfirmed), t)
	}
	return nil
}

type memRange struct {
	start, end uint64 // inclusive
	domain     uint32
	offset     int
	hotplug    bool
}

func checkSRAT(r *tablecheck.T, t *acpi.Table) {
	s, err := acpi.ParseSRAT(t)
	if s == nil {
		r.Fail(labelMalformed, "%v", err)
		return
	}
	r.Revision(labelRevision, t, 1, 2, 3)
	if s.TableRevision != 1 || s.Reserved != 0 {
		r.Fail(labelReserved, "table revision word %d (must be 1), reserved bytes %s", s.TableRevision, tablecheck.Nonzero(s.Reserved))
	}
	r.Walk(labelStructLength, err)
	r.NotRead(s.NotRead)
	if len(s.Entries) == 0 && err == nil {
		r.Fail(labelEmpty, "no affinity structures")
	}
	var mem []memRange
	apic := map[uint64]int{}
	for _, e := range s.Entries {
		want := acpi.SRATStructSize(e.Type)
		if want == 0 {
			r.Info("structure type %d at offset %d (length %d) is reserved: not interpreted", e.Type, e.Offset, e.Length)
			continue
		}
		if e.Length != want {
			r.Fail(labelStructSize, "%s structure at offset %d has length %d, not %d", acpi.SRATTypeName(e.Type), e.Offset, e.Length, want)
		}
		if e.Short {
			continue
		}
		flags := uint32(acpi.SRATEnabled)
		switch e.Type {
		case acpi.SRATMemory:
			flags |= acpi.SRATHotPluggable | acpi.SRATNonVolatile
		case acpi.SRATGenericInitiator, acpi.SRATGenericPort:
			flags |= acpi.SRATArchTransactions
		}
		if e.Reserved != 0 || e.Flags&^flags != 0 {
			r.Fail(labelReserved, "%s structure at offset %d: flags 0x%08x, reserved fields %s", acpi.SRATTypeName(e.Type), e.Offset, e.Flags, tablecheck.Nonzero(e.Reserved))
		}
		if e.Flags&acpi.SRATEnabled == 0 {
			continue
		}
		switch e.Type {
		case acpi.SRATMemory:
			if e.Size == 0 || e.Base+e.Size-1 < e.Base {
				r.Fail(labelMemRange, "memory structure at offset %d (domain %d): base 0x%x, length 0x%x", e.Offset, e.Domain, e.Base, e.Size)
				continue
			}
			mem = append(mem, memRange{e.Base, e.Base + e.Size - 1, e.Domain, e.Offset, e.Flags&acpi.SRATHotPluggable != 0})
		case acpi.SRATProcessorAPIC, acpi.SRATProcessorX2APIC:
			// Local APIC IDs and x2APIC IDs name the same processors: an
			// x2APIC structure for an ID below 255 is the same processor
			// as a local APIC structure with that ID.
			if prev, dup := apic[uint64(e.ID)]; dup {
				r.Fail(labelDupAPIC, "structures at offsets %d and %d both give APIC ID %d", prev, e.Offset, e.ID)
			} else {
				apic[uint64(e.ID)] = e.Offset
			}
		}
	}
	sort.Slice(mem, func(i, j int) bool { return mem[i].start < mem[j].start })
	// At most maxPairs overlapping pairs are counted, so that a hostile
	// table of thousands of equal ranges costs no quadratic time.
	const maxPairs = 4096
	overlaps, hotplug := 0, 0
	for i := 0; i < len(mem) && overlaps+hotplug < maxPairs; i++ {
		for j := i + 1; j < len(mem) && mem[j].start <= mem[i].end && overlaps+hotplug < maxPairs; j++ {
			a, b := mem[i], mem[j]
			switch {
			case a.domain == b.domain:
			case a.hotplug || b.hotplug:
				hotplug++
			default:
				if overlaps++; overlaps <= 8 {
					r.Fail(labelMemOverlap, "memory 0x%x-0x%x (domain %d, offset %d) overlaps 0x%x-0x%x (domain %d, offset %d)",
						a.start, a.end, a.domain, a.offset, b.start, b.end, b.domain, b.offset)
				}
			}
		}
	}
	if hotplug > 0 {
		r.Info("%d pairs of memory ranges of different domains overlap where one is hot-pluggable (a window memory may be "+
			"plugged into, with devices of other domains already in it): not a failure", hotplug)
	}
	r.Done("revision %d, %d structures, %d proximity domains", t.Header.Revision, len(s.Entries), len(s.Domains()))
}

// sratDomains returns the proximity domains of the run's SRATs, nil when
// it has none that parse.
func sratDomains(p *tests.Pass) map[uint32]bool {
	var out map[uint32]bool
	for _, t := range tests.Input(p, input.ACPITables).Get(acpi.SigSRAT) {
		s, _ := acpi.ParseSRAT(t)
		if s == nil {
			continue
		}
		if out == nil {
			out = map[uint32]bool{}
		}
		for d := range s.Domains() {
			out[d] = true
		}
	}
	return out
}

func runSLIT(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(slitAll, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigSLIT, "no SLIT table (the machine gives no NUMA distances; it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		d, err := acpi.ParseSLIT(t)
		if d == nil {
			r.Fail(labelSLITMalformed, "%v", err)
			continue
		}
		r.Revision(labelSLITRevision, t, 1)
		domains := sratDomains(p)
		if domains == nil {
			p.NotChecked(r.Name+": localities against the SRAT's proximity domains", "the machine has no SRAT", "")
		}
		tablecheck.Distances(r, d, slitLabels, domains, "SRAT")
		if d.Matrix != nil {
			remoteLocal := 0
			for i := range d.N {
				for j := range d.N {
					if i != j && d.At(i, j) == 10 {
						remoteLocal++
					}
				}
			}
			if remoteLocal > 0 {
				r.Info("%d distances between two localities are 10, the local distance; Linux then ignores the SLIT", remoteLocal)
			}
		}
		r.Done("revision %d, %d localities", t.Header.Revision, d.N)
	}
	return nil
}

func runMSCT(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(msctLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigMSCT, "no MSCT table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		m, err := acpi.ParseMSCT(t)
		if m == nil {
			r.Fail(labelMSCTMalformed, "%v", err)
			continue
		}
		r.Revision(labelMSCTRevision, t, 1)
		if m.OffsetOutOfTable || m.Trailing != 0 {
			r.Fail(labelMSCTOffset, "offset %d, table length %d, %d bytes after the last whole structure", m.Offset, t.Header.Length, m.Trailing)
		}
		empty := 0
		for i, d := range m.Domains {
			if d.Revision != 1 || d.Length != acpi.MSCTDomainSize {
				r.Fail(labelMSCTStruct, "structure %d (offset %d): revision %d, length %d", i, d.Offset, d.Revision, d.Length)
			}
			if d.Low > d.High || d.High > m.MaxDomains {
				r.Fail(labelMSCTRange, "structure %d (offset %d): domains %d-%d, maximum domain %d", i, d.Offset, d.Low, d.High, m.MaxDomains)
			}
			if d.ProcessorCapacity == 0 && d.MemoryCapacity == 0 {
				empty++
			}
		}
		if empty > 0 {
			r.Info("%d of %d domain structures give no processor and no memory capacity", empty, len(m.Domains))
		}
		if doms := sratDomains(p); doms != nil {
			var over []int
			for d := range doms {
				if d > m.MaxDomains {
					over = append(over, int(d))
				}
			}
			sort.Ints(over)
			if len(over) > 0 {
				r.Fail(labelMSCTSRAT, "SRAT proximity domains %v, maximum domain %d", over[:min(len(over), 8)], m.MaxDomains)
			}
		}
		r.Done("revision %d, maximum proximity domain %d, %d domain structures, maximum physical address 0x%x",
			t.Header.Revision, m.MaxDomains, len(m.Domains), m.MaxPhysAddr)
	}
	return nil
}
