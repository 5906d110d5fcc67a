// Package acpistruct checks the structure of the optional ACPI tables
// fwcheck has no field rules for yet: WDAT, SPMI, SBST, CSRT, PMTT,
// AEST, APMT, MPAM, NHLT, MCHI, UEFI, WPBT, WAET, SLIC, MSDM, ASF!, CEDT,
// VIOT, CCEL, XENV, STAO, SVKL, DRTM and iBFT. For each it
// reads the length against the table's fixed part, the revision against
// the ones its specification defines, and, where the table is a list of
// typed, length-prefixed structures, walks every structure by its own
// length (no overrun, no zero-length loop; types it does not know are
// information) and compares the count a table gives with the structures
// it holds.
//
// One check with a table of descriptions (structures below), not one
// package per table: these rules are the same for every table and only
// the numbers differ, so one label set (TableShort, TableRevision,
// TableStructureLength, TableStructureCount, TableStructureReference)
// says it, the message naming the table. A table whose fields gain rules
// of their own moves to its own check, as HEST, ERST, SRAT and the others
// did (PPTT moved to tests/pptt; PHAT, NFIT, PCCT, SDEV and MPST to
// tests/phat, tests/nfit, tests/pcct, tests/sdev and tests/mpst).
//
// Never printed: the content of MSDM and SLIC (the MSDM holds the
// Windows product key; both are checked for length only, and no message
// quotes their bytes).
//
// Left out on purpose: SLIC's and MSDM's revisions (Microsoft has not
// published the tables; corpus SLICs carry 1 and 3), SPMI's last byte
// (10 corpus machines have 65-byte SPMIs and 6 stop at 64, before the
// trailing reserved byte: 64 is the minimum taken), and DRTM's flags and
// addresses (the TCG D-RTM Architecture's rules for them are not checked
// here). Three tables have walks of their own: DRTM's three lists after
// its 96-byte fixed part (validated tables of 8 bytes each, resources of
// 16, the 16-byte DPS ID), each count prefixed, must fit in its Length
// (TableStructureCount); WDAT's instruction entries are 24 bytes each
// after the 68-byte fixed part, so its entry count must give its Length
// exactly (all 9 corpus WDATs do); and iBFT's structures are found by the
// offsets of its control structure, each of which must lead, inside the
// table, to a structure of the type its place gives
// (TableStructureReference).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	TableShort               none
//	TableRevision            none
//	TableStructureLength     8: core/4B89F57A5AA6 core/742F023DAEF2 core/795503221AEA core/D0292BFAFD2C …
//	TableStructureCount      none
//	TableStructureReference  none
package acpistruct

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// desc describes one table.
type desc struct {
	sig, spec string
	// min is the fixed part's length (header included).
	min int
	// revs are the revisions the specification defines; nil: not checked.
	revs []uint8
	// walk describes the structure list; nil for a table without one.
	walk *acpi.StructureLayout
	// typeMask is applied to a structure's type before it is compared
	// with types; lastFlag is a type bit marking the last structure (ASF!
	// sets bit 7 on its last record; what follows it is not records).
	typeMask, lastFlag uint32
	// types are the structure types defined; nil: the field is not a
	// type (CSRT's groups start with their length), nothing is said.
	types map[uint32]string
	// countOff and countSize locate a count of structures (0: none).
	countOff, countSize int
	// secret: never quote the table's bytes.
	secret bool
	// entries describes a list of fixed-size entries after the fixed
	// part, with their count at countOff (4 bytes): WDAT's instructions.
	entrySize int
	// custom walks a table whose structures are found otherwise (iBFT's,
	// by offsets); it returns what the Done line says of them.
	custom func(r *tablecheck.T, t *acpi.Table) string
}

func layout(start, typeOff, typeSize, lenOff, lenSize int) *acpi.StructureLayout {
	return &acpi.StructureLayout{Start: start, TypeOff: typeOff, TypeSize: typeSize, LenOff: lenOff, LenSize: lenSize}
}

func names(n ...string) map[uint32]string {
	m := map[uint32]string{}
	for i, s := range n {
		if s != "" {
			m[uint32(i)] = s
		}
	}
	return m
}

// tables are the descriptions, by signature. The layouts are the
// specifications' (ACPI 6.5 sections, or the table's own document).
var tables = []desc{
	{sig: "WDAT", spec: "Microsoft Hardware Watchdog Timers Design Specification 1.0 (WDAT)", min: 68, revs: []uint8{1},
		countOff: 64, countSize: 4, entrySize: 24},
	{sig: "SPMI", spec: "IPMI 2.0 Appendix C3 (SPMI)", min: 64, revs: []uint8{5}},
	{sig: "SBST", spec: "ACPI 6.5 §5.2.14", min: 48, revs: []uint8{1}},
	{sig: "CSRT", spec: "Microsoft Core System Resources Table (CSRT)", min: 36, revs: []uint8{0, 1}, walk: layout(36, 4, 4, 0, 4)},
	{sig: "PMTT", spec: "ACPI 6.5 §5.2.22.12", min: 40, revs: []uint8{1, 2}, walk: layout(40, 0, 1, 2, 2),
		types: names("socket", "memory controller", "DIMM")},
	{sig: "AEST", spec: "Arm DEN 0085 (AEST) 2.0", min: 36, revs: []uint8{1, 2}, walk: layout(36, 0, 1, 1, 2),
		types: names("processor error node", "memory error node", "SMMU error node", "vendor error node", "GIC error node",
			"PCIe error node", "proxy error node")},
	{sig: "APMT", spec: "Arm DEN 0117 (APMT) 1.0", min: 36, revs: []uint8{0}, walk: layout(36, 3, 1, 0, 2),
		types: names("memory controller PMU", "SMMU PMU", "PCIe root PMU", "ACPI device PMU", "CPU cache PMU")},
	{sig: "MPAM", spec: "Arm DEN 0065 (MPAM ACPI) 2.0", min: 36, revs: []uint8{0, 1}, walk: layout(36, 2, 1, 0, 2)},
	{sig: "NHLT", spec: "Intel Non-HDA Link Table (NHLT)", min: 37, revs: []uint8{0, 1}, walk: layout(37, 4, 1, 0, 4),
		types: names("HD-Audio link", "DSP", "PDM", "SSP"), countOff: 36, countSize: 1},
	{sig: "MCHI", spec: "DMTF DSP0256 MCTP Host Interface (MCHI)", min: 36, revs: []uint8{1}},
	{sig: "UEFI", spec: "UEFI 2.10 Appendix O (UEFI ACPI data table)", min: 54, revs: []uint8{1}},
	{sig: "WPBT", spec: "Microsoft Windows Platform Binary Table (WPBT)", min: 52, revs: []uint8{1}},
	{sig: "WAET", spec: "Microsoft Windows ACPI Emulated Devices Table (WAET)", min: 40, revs: []uint8{1}},
	{sig: "SLIC", spec: "Microsoft Software Licensing Description Table (SLIC)", min: 36, secret: true},
	{sig: "MSDM", spec: "Microsoft Software Licensing Tables (MSDM)", min: 56, secret: true},
	{sig: "ASF!", spec: "DMTF DSP0136 ASF 2.0 §4.1", min: 36, revs: []uint8{0x10, 0x20}, walk: layout(36, 0, 1, 2, 2), typeMask: 0x7F, lastFlag: 0x80,
		types: names("ASF_INFO", "ASF_ALRT", "ASF_RCTL", "ASF_RMCP", "ASF_ADDR")},
	{sig: "CEDT", spec: "CXL 3.0 §9.17.1", min: 36, revs: []uint8{1}, walk: layout(36, 0, 1, 2, 2),
		types: names("CXL host bridge", "CXL fixed memory window", "CXL XOR interleave math", "RCEC downstream port")},
	{sig: "VIOT", spec: "Virtual I/O Translation Table (VIOT) 1.0", min: 48, revs: []uint8{0}, walk: layout(48, 0, 1, 2, 2),
		types: names("", "PCI range", "MMIO endpoint", "virtio-iommu-pci", "virtio-iommu-mmio"), countOff: 36, countSize: 2},
	{sig: "CCEL", spec: "ACPI 6.5 §5.2.34", min: 56, revs: []uint8{1}},
	{sig: "XENV", spec: "Xen Environment Table (XENV)", min: 56, revs: []uint8{1}},
	{sig: "STAO", spec: "Status Override Table (STAO) 1.0", min: 37, revs: []uint8{1}},
	{sig: "SVKL", spec: "ACPI 6.5 §5.2.35", min: 40, revs: []uint8{1}},
	{sig: "DRTM", spec: "TCG D-RTM Architecture 1.0 (DRTM)", min: drtmFixed, revs: []uint8{1}, custom: walkDRTM},
	{sig: "IBFT", spec: "iSCSI Boot Firmware Table 1.03", min: 48, revs: []uint8{1}, custom: walkIBFT},
}

const specAll = "ACPI 6.5 §5.2.6 and each table's specification"

var (
	labelShort = tests.NewLabel("TableShort", tests.Medium, specAll,
		"The table is shorter than its fixed fields (or than its Length says), so an OS reads them from "+
			"beyond the table. Publish the whole table with a Length covering its fields.")
	labelRevision = tests.NewLabel("TableRevision", tests.Low, specAll,
		"The table's revision is not one its specification defines, so an OS may read it with the wrong "+
			"layout. Set the revision the table's layout follows.")
	labelStructLength = tests.NewLabel("TableStructureLength", tests.Medium, specAll,
		"A structure of the table has a length shorter than its own type and length fields, or runs past "+
			"the end of the table, so the OS stops reading the structures there. Give each structure its "+
			"real length.")
	labelCount = tests.NewLabel("TableStructureCount", tests.Low, specAll,
		"The table's count of structures is larger than the structures it holds (for a list of "+
			"fixed-size entries, the count and the table's length disagree), so an OS reads past the "+
			"entries or misses some. Make the count and the structures agree.")
	labelReference = tests.NewLabel("TableStructureReference", tests.Medium, specAll,
		"A structure the table finds by offset (iBFT's control structure and the initiator, NIC and "+
			"target structures it points to) lies outside the table or is not of the type its place "+
			"says, so the OS boots from the wrong iSCSI target or none. Point each offset at its "+
			"structure, or make it 0 for a structure that is absent.")
	allLabels = []*tests.Label{labelShort, labelRevision, labelStructLength, labelCount, labelReference}
)

// confirmed are the labels whose corpus occurrences were read against
// the specifications: TableStructureLength on the 165-byte ASF! tables of
// seven machines (4B89F57A5AA6 and others), whose RMCP boot options
// record (23 bytes, ASF 2.0 §4.1.2.4) is followed at offset 143 by bytes
// that give a record of type 0 and length 160, running past the end of
// the table, and no record before it has the last-record bit; ACPICA's
// disassembler reads the same structure and runs out of table too.
var confirmed = []*tests.Label{labelStructLength}

// Check is the acpi-structure check.
var Check = &tests.Check{
	ID:       "acpi-structure",
	Title:    "structure of the optional tables without a check of their own (NHLT, ASF!, UEFI, …)",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     specAll,
	Labels:   allLabels,
	Run:      run,
}

// Signatures lists the tables the check reads.
func Signatures() []string {
	out := make([]string, len(tables))
	for i, d := range tables {
		out[i] = d.sig
	}
	return out
}

// Spec returns the specification (and section) the check cites for the
// table with signature sig, "" for a table it does not read.
func Spec(sig string) string {
	for _, d := range tables {
		if d.sig == sig {
			return d.spec
		}
	}
	return ""
}

func run(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(allLabels, confirmed)
	ts := tests.Input(p, input.ACPITables)
	n := 0
	for _, d := range tables {
		for _, t := range ts.Get(d.sig) {
			n++
			check(tablecheck.New(p, t, unconfirmed), t, d)
		}
	}
	if n == 0 {
		p.NotApplicable("none of the %d tables it reads is present", len(tables))
	}
	return nil
}

func check(r *tablecheck.T, t *acpi.Table, d desc) {
	length := int(t.Header.Length)
	if length < d.min || length > len(t.Raw) {
		r.Fail(labelShort, "Length %d, %d bytes present, its fixed fields need %d", length, len(t.Raw), d.min)
		return
	}
	if d.revs != nil {
		r.Revision(labelRevision, t, d.revs...)
	}
	if d.entrySize > 0 {
		count := uint64(binary.LittleEndian.Uint32(t.Raw[d.countOff:]))
		if want := uint64(d.min) + count*uint64(d.entrySize); want != uint64(length) {
			r.Fail(labelCount, "%d entries of %d bytes need Length %d; Length is %d", count, d.entrySize, want, length)
		}
		r.Done("revision %d, %d bytes, %d entries of %d bytes", t.Header.Revision, length, count, d.entrySize)
		return
	}
	if d.custom != nil {
		r.Done("revision %d, %d bytes, %s", t.Header.Revision, length, d.custom(r, t))
		return
	}
	if d.walk == nil {
		if d.secret {
			r.Done("revision %d, %d bytes (content not shown)", t.Header.Revision, length)
		} else {
			r.Done("revision %d, %d bytes", t.Header.Revision, length)
		}
		return
	}
	subs, notRead, err := acpi.WalkStructures(d.sig+" structure", t, *d.walk)
	count := -1
	if d.countSize > 0 {
		b := t.Raw[d.countOff:]
		count = int(b[0])
		if d.countSize == 2 {
			count |= int(b[1]) << 8
		}
	}
	if d.lastFlag != 0 {
		for i, s := range subs {
			if s.Type&d.lastFlag != 0 {
				subs, err = subs[:i+1], nil // the fault, if any, lies after the last record
				break
			}
		}
	}
	var we *acpi.WalkError
	switch {
	case count >= 0 && len(subs) >= count:
		// A fault after the counted structures is in data that follows
		// them (NHLT's OEM configuration blob), not in a structure.
		subs = subs[:count]
	case count >= 0 && errors.As(err, &we):
		r.Walk(labelStructLength, err)
	case count >= 0:
		r.Fail(labelCount, "count %d, the table holds %d structures", count, len(subs))
	default:
		r.Walk(labelStructLength, err)
	}
	r.NotRead(notRead)
	unknown := 0
	for _, s := range subs {
		if d.types == nil {
			continue
		}
		if _, ok := d.types[s.Type&maskOf(d)]; !ok {
			if unknown++; unknown <= 4 {
				r.Info("structure type %d at offset %d (length %d) is not one fwcheck knows: not interpreted", s.Type&maskOf(d), s.Offset, s.Length)
			}
		}
	}
	if unknown > 4 {
		r.Info("%d more structures of types fwcheck does not know", unknown-4)
	}
	r.Done("revision %d, %d bytes, %s", t.Header.Revision, length, plural(len(subs), "structure"))
}

func maskOf(d desc) uint32 {
	if d.typeMask != 0 {
		return d.typeMask
	}
	return ^uint32(0)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// iBFT structure IDs (iSCSI Boot Firmware Table 1.03 §3.3-§3.8).
const (
	ibftControl   = 1
	ibftInitiator = 2
	ibftNIC       = 3
	ibftTarget    = 4
	ibftHeader    = 6 // ID, version, length (2), index, flags
)

var ibftNames = map[uint8]string{ibftControl: "control", ibftInitiator: "initiator", ibftNIC: "NIC", ibftTarget: "target", 5: "extensions"}

// walkIBFT reads the iBFT's control structure (after the 48-byte table
// header) and follows its offsets: the initiator structure, then NIC and
// target structures in pairs. Each must lie inside the table, with a
// header and its own length, and have the ID its place gives.
func walkIBFT(r *tablecheck.T, t *acpi.Table) string {
	b := t.Raw[:t.Header.Length]
	at := func(off int, want uint8, what string) bool {
		if off+ibftHeader > len(b) {
			r.Fail(labelReference, "%s structure at offset %d: past the table's end (%d bytes)", what, off, len(b))
			return false
		}
		n := int(binary.LittleEndian.Uint16(b[off+2:]))
		switch {
		case b[off] != want:
			got := ibftNames[b[off]]
			if got == "" {
				got = fmt.Sprintf("unknown (ID %d)", b[off])
			}
			r.Fail(labelReference, "%s structure at offset %d has ID %d, a %s structure", what, off, b[off], got)
			return false
		case n < ibftHeader || off+n > len(b):
			r.Fail(labelStructLength, "%s structure at offset %d has length %d; %d bytes of table follow it", what, off, n, len(b)-off)
			return false
		}
		return true
	}
	const ctl = 48
	if len(b) < ctl+ibftHeader {
		return "no control structure"
	}
	if !at(ctl, ibftControl, "control") {
		return "the control structure unreadable"
	}
	n := int(binary.LittleEndian.Uint16(b[ctl+2:]))
	found := 0
	// Offsets from byte 8 of the control structure: the initiator's,
	// then a NIC's and a target's for each pair.
	for i, o := 0, ctl+8; o+2 <= ctl+n; i, o = i+1, o+2 {
		off := int(binary.LittleEndian.Uint16(b[o:]))
		if off == 0 {
			continue
		}
		want, what := uint8(ibftInitiator), "initiator"
		if i > 0 {
			want, what = ibftNIC, fmt.Sprintf("NIC %d", (i-1)/2)
			if i%2 == 0 {
				want, what = ibftTarget, fmt.Sprintf("target %d", (i-1)/2)
			}
		}
		if at(off, want, what) {
			found++
		}
	}
	return plural(found, "structure") + " the control structure points to"
}

// drtmFixed is the DRTM's fixed part: the header, entry base and length,
// 32- and 64-bit entry addresses, exit address, log area address and
// length, architecture-dependent address and flags.
const drtmFixed = 96

// walkDRTM reads the DRTM's three lists after its fixed part: the
// validated tables list (a 4-byte count of 8-byte addresses), the
// resources list (a 4-byte count of 16-byte descriptors) and the DPS ID
// (a 4-byte length and 16 bytes); each must fit in the table.
func walkDRTM(r *tablecheck.T, t *acpi.Table) string {
	b := t.Raw[:t.Header.Length]
	off := uint64(drtmFixed)
	lists := []struct {
		what string
		size uint64
	}{{"validated tables", 8}, {"resources", 16}}
	counts := make([]uint64, 0, 2)
	for _, l := range lists {
		if off+4 > uint64(len(b)) {
			r.Fail(labelCount, "the %s list's count at offset %d lies past the table's end (%d bytes)", l.what, off, len(b))
			return "lists cut short"
		}
		n := uint64(binary.LittleEndian.Uint32(b[off:]))
		if end := off + 4 + n*l.size; end > uint64(len(b)) {
			r.Fail(labelCount, "%d %s of %d bytes from offset %d need %d bytes; the table has %d", n, l.what, l.size, off+4, end, len(b))
			return "lists cut short"
		}
		counts = append(counts, n)
		off += 4 + n*l.size
	}
	if off+4+16 > uint64(len(b)) {
		r.Fail(labelCount, "the DPS ID at offset %d (a length and 16 bytes) runs past the table's end (%d bytes)", off, len(b))
		return "lists cut short"
	}
	return fmt.Sprintf("%d validated tables, %d resources, a DPS ID", counts[0], counts[1])
}
