// Package madt checks the MADT: its interrupt controller structures, their
// lengths, the processors' APIC and ACPI processor IDs, and on Arm its GIC
// structures (GICC MPIDRs, UIDs and flags, one GICD, redistributors, ITSes;
// their labels are warnings: no Arm machine in the corpus confirms them).
package madt

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const madtSpec = "ACPI 6.5 §5.2.12"

var (
	labelMADTMissing = tests.NewLabel("MADTMissing", tests.High, madtSpec,
		"There is no MADT (signature APIC), so the OS knows no interrupt controllers and cannot start "+
			"other processors. Publish one through the XSDT.")
	labelMADTMalformed = tests.NewLabel("MADTMalformed", tests.High, madtSpec,
		"The MADT is too short for its fixed fields or its header length disagrees with its bytes. "+
			"Publish the whole table with a correct Length.")
	labelMADTSubtableLength = tests.NewLabel("MADTSubtableLength", tests.High, "ACPI 6.5 §5.2.12.1",
		"An interrupt controller structure has a zero length or runs past the end of the table, so "+
			"the OS cannot walk the list and loses every entry after it. Give each structure its real length.")
	labelMADTSubtableShort = tests.NewLabel("MADTSubtableShort", tests.Medium, "ACPI 6.5 §5.2.12.1",
		"An interrupt controller structure is shorter than its type defines, so the OS reads its "+
			"fields from the next entry. Use the length the specification gives for the type.")
	labelMADTSubtableLong = tests.NewLabel("MADTSubtableLengthMismatch", tests.Low, "ACPI 6.5 §5.2.12",
		"An interrupt controller structure of a fixed-size type is longer than that size. OSes step "+
			"over it by its length, but the extra bytes mean the firmware built it from the wrong "+
			"structure definition. Use the defined length.")
	labelMADTReservedType = tests.NewLabel("MADTReservedType", tests.Medium, "ACPI 6.5 §5.2.12 Table 5.21",
		"A structure uses a type the specification reserves (0x18-0x7F). OSes skip it, and a later "+
			"revision may give the type a different layout. Use a defined type, or an OEM type (0x80-0xFF).")
	labelMADTLAPICFlags = tests.NewLabel("MADTLocalAPICFlags", tests.Low, "ACPI 6.5 §5.2.12.2 Table 5.23",
		"A Local APIC or x2APIC structure sets reserved flag bits, or sets Online Capable together "+
			"with Enabled (Online Capable must then be zero), or uses Online Capable in a MADT older "+
			"than revision 5. Clear the bits the table's revision does not define.")
	labelMADTDupAPICID = tests.NewLabel("MADTDuplicateAPICID", tests.High, "ACPI 6.5 §5.2.12.2, §5.2.12.12",
		"Two usable (enabled or online-capable) processor entries share an APIC ID. Each logical "+
			"processor has a unique ID; the OS starts only one of them or misroutes interrupts. Give "+
			"each processor its own APIC ID.")
	labelMADTDupUID = tests.NewLabel("MADTDuplicateProcessorUID", tests.Medium, "ACPI 6.5 §5.2.12.2, §5.2.12.12",
		"Two usable processor entries share an ACPI Processor UID, which must match exactly one "+
			"processor object's _UID in the namespace. Give each processor a unique UID.")
	labelMADTIOAPICAddr = tests.NewLabel("MADTIOAPICAddress", tests.High, "ACPI 6.5 §5.2.12.3",
		"An I/O APIC has a zero address, or two I/O APICs share one, so the OS cannot program their "+
			"redirection tables. Give each I/O APIC its own MMIO address.")
	labelMADTDupIOAPICID = tests.NewLabel("MADTDuplicateIOAPICID", tests.Medium, "ACPI 6.5 §5.2.12.3",
		"Two I/O APICs share an I/O APIC ID. Give each a unique ID.")
	labelMADTLAPICAddr = tests.NewLabel("MADTLocalAPICAddress", tests.High, "ACPI 6.5 §5.2.12",
		"The local interrupt controller address is zero and no Local APIC Address Override gives "+
			"another. Set it to the local APIC base (0xFEE00000 on PCs).")
	labelMADTOverrideBus = tests.NewLabel("MADTOverrideBus", tests.Medium, "ACPI 6.5 §5.2.12.5",
		"An Interrupt Source Override gives a bus other than 0 (ISA), the only value defined. Set Bus to 0.")
	labelMADTNMILint = tests.NewLabel("MADTLocalAPICNMILINT", tests.Medium, "ACPI 6.5 §5.2.12.7",
		"A Local APIC NMI structure names a LINT pin other than 0 or 1; a local APIC has only LINT0 "+
			"and LINT1. Give the pin the NMI is wired to.")
	labelGICCMPIDR = tests.NewLabel("MADTGICCDuplicateMPIDR", tests.High, "ACPI 6.5 §5.2.12.14 Table 5.37",
		"Two usable GIC CPU interface structures give the same MPIDR, the processor's affinity value. "+
			"The OS identifies CPUs by it (PSCI CPU_ON takes it) and brings up only one of them. Give each "+
			"GICC its processor's MPIDR_EL1 affinity fields.")
	labelGICCFlags = tests.NewLabel("MADTGICCFlags", tests.Low, "ACPI 6.5 §5.2.12.14 Table 5.38",
		"A GICC sets reserved flag bits, sets Online Capable with Enabled, or uses Online Capable in a MADT "+
			"older than revision 6. Clear the bits the table's revision does not define.")
	labelGICD = tests.NewLabel("MADTGICDCount", tests.High, "ACPI 6.5 §5.2.12.15",
		"A MADT with GIC CPU interfaces must have exactly one GIC distributor structure; with none the OS "+
			"has no interrupt controller, with two it uses one at random. Describe the one distributor.")
	labelGICR = tests.NewLabel("MADTGICRedistributor", tests.High, "ACPI 6.5 §5.2.12.17, §5.2.12.14",
		"On a GICv3 or later system every processor needs a redistributor: the MADT has neither GIC "+
			"redistributor structures nor a GICR base address in each GICC, or a redistributor range is "+
			"empty or overlaps another. Describe the redistributor regions (or each GICC's frame) once.")
	labelGICITS = tests.NewLabel("MADTGICITS", tests.Medium, "ACPI 6.5 §5.2.12.18",
		"Two GIC ITS structures share a translation service ID or a base address, or one has base 0. "+
			"The IORT and SRAT refer to ITSes by that ID. Give each ITS its own ID and base.")
	labelMADTUnusable = tests.NewLabel("MADTProcessorsUnusable", tests.Low, "ACPI 6.5 §5.2.12.2",
		"Processor entries that are neither enabled nor online-capable describe processors the OS "+
			"will never use.")
)

// Check is the madt check.
var Check = &tests.Check{
	ID:       "madt",
	Title:    "MADT interrupt controller structures and processor IDs",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     madtSpec,
	Labels: []*tests.Label{labelMADTMissing, labelMADTMalformed, labelMADTSubtableLength, labelMADTSubtableShort, labelMADTSubtableLong, labelMADTReservedType, labelMADTLAPICFlags, labelMADTDupAPICID, labelMADTDupUID, labelMADTIOAPICAddr, labelMADTDupIOAPICID, labelMADTLAPICAddr, labelMADTOverrideBus, labelMADTNMILint, labelMADTUnusable,
		labelGICCMPIDR, labelGICCFlags, labelGICD, labelGICR, labelGICITS},
	Run: run,
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	tables := ts.Get(acpi.SigMADT)
	if len(tables) == 0 {
		if f, err := ts.FADT(); err == nil && f.HWReduced() {
			p.NotApplicable("no MADT, which a hardware-reduced platform may omit")
		} else {
			p.Fail(labelMADTMissing, "no APIC table")
		}
		return nil
	}
	for _, t := range tables {
		m, err := acpi.ParseMADT(t)
		if m == nil {
			p.Fail(labelMADTMalformed, "%s: %v", t.Name(), err)
			continue
		}
		if err != nil {
			p.Fail(labelMADTSubtableLength, "%s: %v", t.Name(), err)
		}
		if m.NotRead > 0 {
			p.NotChecked(fmt.Sprintf("%s: the %d bytes after its first %d subtables", t.Name(), m.NotRead, acpi.MaxMADTEntries),
				"more subtables than fwcheck reads (real MADTs have a few thousand at most)", "")
		}
		checkMADT(p, t.Name(), m)
	}
	return nil
}

// madtFixedLength lists the structure types whose length the
// specification fixes (types whose size grew across revisions are left out).
var madtFixedLength = map[uint8]int{
	acpi.MADTLocalAPIC: 8, acpi.MADTIOAPIC: 12, acpi.MADTIntSrcOverride: 10, acpi.MADTNMISource: 8,
	acpi.MADTLocalAPICNMI: 6, acpi.MADTLocalAPICOverride: 12, acpi.MADTIOSAPIC: 16, acpi.MADTPlatformIntSrc: 16,
	acpi.MADTLocalX2APIC: 16, acpi.MADTLocalX2APICNMI: 12, acpi.MADTGICD: 24, acpi.MADTGICMSIFrame: 24,
	acpi.MADTGICR: 16, acpi.MADTGICITS: 20,
}

type procEntry struct {
	kind  string
	id    uint32
	uid   uint32
	flags uint32
}

func checkMADT(p *tests.Pass, name string, m *acpi.MADT) {
	counts := map[uint8]int{}
	for _, e := range m.Entries {
		counts[e.Type]++
		switch {
		case e.Short:
			p.Fail(labelMADTSubtableShort, "%s: %s at offset %d has length %d, its type needs %d",
				name, acpi.MADTTypeName(e.Type), e.Offset, e.Length, acpi.MADTTypeMinLength(e.Type))
		case madtFixedLength[e.Type] != 0 && int(e.Length) != madtFixedLength[e.Type]:
			p.Fail(labelMADTSubtableLong, "%s: %s at offset %d has length %d, defined as %d",
				name, acpi.MADTTypeName(e.Type), e.Offset, e.Length, madtFixedLength[e.Type])
		case e.Type >= acpi.MADTFirstReserved && e.Type < acpi.MADTFirstOEM:
			p.Fail(labelMADTReservedType, "%s: structure type 0x%02x at offset %d", name, e.Type, e.Offset)
		case e.Type >= acpi.MADTFirstOEM:
			p.Info(nil, "%s: OEM structure type 0x%02x at offset %d (length %d), kept as raw bytes", name, e.Type, e.Offset, e.Length)
		}
	}
	var parts []string
	types := make([]int, 0, len(counts))
	for t := range counts {
		types = append(types, int(t))
	}
	sort.Ints(types)
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("%d %s", counts[uint8(t)], acpi.MADTTypeName(uint8(t))))
	}
	p.Info(nil, "%s: revision %d, %d structures: %s", name, m.Header.Revision, len(m.Entries), strings.Join(parts, ", "))

	if m.LocalAPICAddress == 0 && m.LocalAPICOverride == 0 && (len(m.LocalAPICs) > 0 || len(m.X2APICs) > 0) {
		p.Fail(labelMADTLAPICAddr, "%s: local APIC address 0", name)
	}

	var procs []procEntry
	for _, l := range m.LocalAPICs {
		procs = append(procs, procEntry{"Local APIC", uint32(l.APICID), uint32(l.ProcessorUID), l.Flags})
	}
	for _, x := range m.X2APICs {
		procs = append(procs, procEntry{"x2APIC", x.X2APICID, x.ProcessorUID, x.Flags})
	}
	ids, uids := map[uint32]int{}, map[uint32]int{}
	unusable := 0
	for _, pr := range procs {
		enabled, online := pr.flags&acpi.LAPICEnabled != 0, pr.flags&acpi.LAPICOnlineCapable != 0
		reserved := pr.flags &^ (acpi.LAPICEnabled | acpi.LAPICOnlineCapable)
		if m.Header.Revision < 5 {
			reserved = pr.flags &^ acpi.LAPICEnabled
		}
		switch {
		case reserved != 0:
			p.Fail(labelMADTLAPICFlags, "%s: %s ID %d (UID %d) flags 0x%x set reserved bits 0x%x (MADT revision %d)",
				name, pr.kind, pr.id, pr.uid, pr.flags, reserved, m.Header.Revision)
		case enabled && online:
			p.Fail(labelMADTLAPICFlags, "%s: %s ID %d (UID %d) is both Enabled and Online Capable", name, pr.kind, pr.id, pr.uid)
		}
		if !enabled && !online {
			unusable++
			continue
		}
		ids[pr.id]++
		uids[pr.uid]++
	}
	for _, id := range sortedDups(ids) {
		p.Fail(labelMADTDupAPICID, "%s: APIC ID %d is used by %d usable processor entries", name, id, ids[id])
	}
	for _, uid := range sortedDups(uids) {
		p.Fail(labelMADTDupUID, "%s: processor UID %d is used by %d usable processor entries", name, uid, uids[uid])
	}
	if unusable > 0 {
		p.Info(labelMADTUnusable, "%s: %d of %d processor entries are neither enabled nor online-capable; the OS ignores them", name, unusable, len(procs))
	}
	if len(procs) > 0 && len(sortedDups(ids)) == 0 {
		p.Passed("%s: %d usable processors with unique APIC IDs", name, len(procs)-unusable)
	}

	addrs, ioids := map[uint32]int{}, map[uint32]int{}
	for _, io := range m.IOAPICs {
		if io.Address == 0 {
			p.Fail(labelMADTIOAPICAddr, "%s: I/O APIC ID %d has address 0", name, io.ID)
			continue
		}
		addrs[io.Address]++
		ioids[uint32(io.ID)]++
	}
	for _, a := range sortedDups(addrs) {
		p.Fail(labelMADTIOAPICAddr, "%s: %d I/O APICs at address 0x%x", name, addrs[a], a)
	}
	for _, id := range sortedDups(ioids) {
		p.Fail(labelMADTDupIOAPICID, "%s: I/O APIC ID %d is used %d times", name, id, ioids[id])
	}
	for _, o := range m.Overrides {
		if o.Bus != 0 {
			p.Fail(labelMADTOverrideBus, "%s: override of source %d on bus %d", name, o.Source, o.Bus)
		}
	}
	for _, n := range m.LocalAPICNMIs {
		if n.LINT > 1 {
			p.Fail(labelMADTNMILint, "%s: Local APIC NMI for UID 0x%02x on LINT%d", name, n.ProcessorUID, n.LINT)
		}
	}
	for _, n := range m.X2APICNMIs {
		if n.LINT > 1 {
			p.Fail(labelMADTNMILint, "%s: Local x2APIC NMI for UID 0x%x on LINT%d", name, n.ProcessorUID, n.LINT)
		}
	}
	checkGIC(p, name, m)
}

// checkGIC checks the GIC structures of an Arm MADT. Its labels have no
// real occurrence yet (the shared corpus has no Arm machine), so they
// are warnings.
func checkGIC(p *tests.Pass, name string, m *acpi.MADT) {
	if len(m.GICCs) == 0 && len(m.GICDs) == 0 {
		return
	}
	warned := false
	warn := func(l *tests.Label, format string, args ...any) {
		warned = true
		p.Warn(l, format, args...)
	}
	mpidrs, uids := map[uint64]int{}, map[uint32]int{}
	usable := 0
	for _, g := range m.GICCs {
		valid := uint32(acpi.GICCEnabled | acpi.GICCPerfEdge | acpi.GICCVGICEdge)
		if m.Header.Revision >= 6 {
			valid |= acpi.GICCOnlineCapable
		}
		switch {
		case g.Flags&^valid != 0:
			warn(labelGICCFlags, "%s: GICC UID %d flags 0x%x set bits 0x%x that MADT revision %d does not define", name, g.ProcessorUID, g.Flags, g.Flags&^valid, m.Header.Revision)
		case g.Flags&acpi.GICCEnabled != 0 && g.Flags&acpi.GICCOnlineCapable != 0:
			warn(labelGICCFlags, "%s: GICC UID %d is both Enabled and Online Capable", name, g.ProcessorUID)
		}
		if g.Flags&(acpi.GICCEnabled|acpi.GICCOnlineCapable) == 0 {
			continue
		}
		usable++
		mpidrs[g.MPIDR]++
		uids[g.ProcessorUID]++
	}
	for _, k := range sortedDups64(mpidrs) {
		warn(labelGICCMPIDR, "%s: MPIDR 0x%x is given by %d usable GICCs", name, k, mpidrs[k])
	}
	for _, uid := range sortedDups(uids) {
		warn(labelMADTDupUID, "%s: processor UID %d is used by %d usable GICCs", name, uid, uids[uid])
	}
	if len(m.GICCs) > 0 && len(m.GICDs) != 1 {
		warn(labelGICD, "%s: %d GIC distributor structures, %d GICCs", name, len(m.GICDs), len(m.GICCs))
	}
	version := uint8(0)
	if len(m.GICDs) > 0 {
		version = m.GICDs[0].Version
	}
	type span struct{ lo, hi uint64 }
	var spans []span
	for _, r := range m.GICRs {
		if r.DiscoveryBase == 0 || r.Length == 0 {
			warn(labelGICR, "%s: redistributor range at 0x%x, length 0x%x", name, r.DiscoveryBase, r.Length)
			continue
		}
		spans = append(spans, span{r.DiscoveryBase, r.DiscoveryBase + uint64(r.Length) - 1})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo <= spans[i-1].hi {
			warn(labelGICR, "%s: redistributor ranges 0x%x-0x%x and 0x%x-0x%x overlap", name, spans[i-1].lo, spans[i-1].hi, spans[i].lo, spans[i].hi)
		}
	}
	if version >= 3 && len(m.GICRs) == 0 {
		for _, g := range m.GICCs {
			if g.Flags&(acpi.GICCEnabled|acpi.GICCOnlineCapable) != 0 && g.GICRBase == 0 {
				warn(labelGICR, "%s: GICv%d, no GIC redistributor structure, and GICC UID %d has GICR base 0", name, version, g.ProcessorUID)
			}
		}
	}
	ids, bases := map[uint32]int{}, map[uint64]int{}
	for _, i := range m.GICITSs {
		if i.PhysicalBase == 0 {
			warn(labelGICITS, "%s: GIC ITS %d has base 0", name, i.ID)
			continue
		}
		ids[i.ID]++
		bases[i.PhysicalBase]++
	}
	for _, id := range sortedDups(ids) {
		warn(labelGICITS, "%s: GIC ITS ID %d is used %d times", name, id, ids[id])
	}
	for _, b := range sortedDups64(bases) {
		warn(labelGICITS, "%s: %d GIC ITSes at base 0x%x", name, bases[b], b)
	}
	done := p.Passed
	if warned {
		done = func(format string, args ...any) { p.Info(nil, format, args...) }
	}
	done("%s: GIC version %d, %d usable GICCs of %d, %d distributors, %d redistributor ranges, %d ITSes, %d MSI frames",
		name, version, usable, len(m.GICCs), len(m.GICDs), len(m.GICRs), len(m.GICITSs), len(m.GICMSIFrames))
}

// sortedDups returns the keys seen more than once, sorted.
func sortedDups(m map[uint32]int) []uint32 {
	var out []uint32
	for k, n := range m {
		if n > 1 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// sortedDups64 is sortedDups for 64-bit keys.
func sortedDups64(m map[uint64]int) []uint64 {
	var out []uint64
	for k, n := range m {
		if n > 1 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
