// Package acpitables checks what every ACPI table shares: headers,
// revisions against the ACPI version the FADT declares, tables that must be
// unique, and the root tables (RSDP, XSDT, RSDT) that list them.
//
// fwts' rsdp and xsdt tests, rule by rule (fwts names → fwcheck labels):
// RSDPBadFirstChecksum → RSDPChecksum and RSDPBadSecondChecksum →
// RSDPExtendedChecksum (the checksum check); RSDPBadOEMId →
// RSDPOEMIDNotASCII; RSDPBadRevisionId → RSDPRevision; RSDPNullRSDTPointer
// and RSDPNoAddressesFound → RSDPNoRootTable; RSDPBadLength → RSDPLength;
// the reserved bytes → RSDPReserved; XSDTEntryNull →
// ACPIRootTableNullEntry. Left out: RSDPBadAddresses (an Arm rule, that
// an arm64 RSDP must give an XSDT; the Arm issue's), fwts' note that both
// RSDT and XSDT are given (the specification allows both), and root table
// entries whose address holds no table of the run's set: a dump or sysfs
// may leave tables out, so they are reported as information, never failed.
// Added beside fwts: ACPIRootTableBadEntry, an entry that points at no
// table header, judged only where the bytes there are known: on a live
// machine and in a snapshot from the first 8 bytes read at each entry
// through /dev/mem (acpi.ProbeEntries, recorded as fwcheck/acpi/ENTRIES;
// unreadable memory proves nothing), and in an acpidump from the
// addresses it gives (an entry at the FACS or the RSDP, or inside another
// table). A warning: no corpus dump shows one (only D0292BFAFD2C has its
// root tables, and its 42 entries are all table headers or tables the
// core corpus dropped).
package acpitables

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

var (
	labelTableTooShort = tests.NewLabel("ACPITableTooShort", tests.High, "ACPI 6.5 §5.2.6",
		"The table is shorter than the 36-byte common header every System Description Table starts "+
			"with, so nothing in it can be trusted. Publish the complete table.")
	labelHeaderLength = tests.NewLabel("ACPIHeaderLength", tests.High, "ACPI 6.5 §5.2.6",
		"The header's Length field is smaller than the header itself. Length must count the whole "+
			"table, header included; fix the value the firmware writes there.")
	labelTableTruncated = tests.NewLabel("ACPITableTruncated", tests.High, "ACPI 6.5 §5.2.6",
		"The header's Length field claims more bytes than the table holds, so an OS reads past its "+
			"end. Make Length match the table's real size.")
	labelTableExtraBytes = tests.NewLabel("ACPITableExtraBytes", tests.Low, "ACPI 6.5 §5.2.6",
		"More bytes were published for this table than its Length field covers. OSes use Length, so "+
			"the rest is ignored; make Length count every byte that belongs to the table.")
	labelSignature = tests.NewLabel("ACPISignatureInvalid", tests.Medium, "ACPI 6.5 §5.2.6",
		"The table signature is not four printable ASCII characters. OSes find tables by signature; "+
			"use the signature the specification (or the vendor's reservation) defines.")
	labelOEMField = tests.NewLabel("ACPIOEMFieldNotASCII", tests.Low, "ACPI 6.5 §5.2.6",
		"The OEM ID or OEM Table ID string holds bytes that are not printable ASCII "+
			"(trailing NUL padding is fine). Tools and OSes match these strings to apply quirks; "+
			"fill them with printable ASCII, padded with spaces or NULs.")
	labelRevisionNewer = tests.NewLabel("ACPITableRevisionNewerThanFADT", tests.Low, "ACPI 6.5 §5.2.6, §5.2.9",
		"The table uses a revision that a later ACPI version introduced than the one the FADT "+
			"declares. An OS that trusts the FADT may misread it. Raise the FADT to the ACPI version "+
			"the tables follow, or build the table to the declared version.")
	labelRevisionUnknown = tests.NewLabel("ACPITableRevisionUnknown", tests.Low, "ACPI 6.5 §5.2",
		"The table's revision is higher than any ACPI 6.5 defines for it, so its layout is not one "+
			"an OS knows. Use a revision the specification defines.")
	labelDuplicate = tests.NewLabel("ACPITableDuplicate", tests.Medium, "ACPI 6.5 §5.2",
		"A table that must exist once appears more than once. Operating systems use one (usually "+
			"the first) and ignore the rest, so which one wins is an accident. Publish a single copy.")
	labelRSDPLength = tests.NewLabel("RSDPLength", tests.Medium, "ACPI 6.5 §5.2.5.3",
		"An ACPI 2.0+ RSDP must give its own Length as 36. Set the Length field to 36.")
	labelRSDPRevision = tests.NewLabel("RSDPRevision", tests.Low, "ACPI 6.5 §5.2.5.3",
		"The RSDP revision is neither 0 (ACPI 1.0, 20-byte structure) nor 2 (ACPI 2.0 and later). "+
			"OSes decide from it whether the XSDT fields exist; use 2 for an ACPI 2.0+ RSDP.")
	labelRSDPNoRoot = tests.NewLabel("RSDPNoRootTable", tests.Critical, "ACPI 6.5 §5.2.5.3",
		"The RSDP points to neither an XSDT nor an RSDT, so the OS cannot find any table. Fill in "+
			"the XSDT address (and the RSDT address for ACPI 1.0 operating systems).")
	labelRSDPAddrMismatch = tests.NewLabel("RSDPRootAddressMismatch", tests.High, "ACPI 6.5 §5.2.5.3",
		"The address the RSDP gives for the XSDT or RSDT is not where that table was found. Point "+
			"the RSDP at the table the OS should use.")
	labelRSDPReserved = tests.NewLabel("RSDPReserved", tests.Low, "ACPI 6.5 §5.2.5.3",
		"The three reserved bytes at the end of an ACPI 2.0+ RSDP are not zero. Clear them.")
	labelRSDPOEMID = tests.NewLabel("RSDPOEMIDNotASCII", tests.Low, "ACPI 6.5 §5.2.5.3",
		"The RSDP's OEM ID holds bytes that are not printable ASCII (trailing NUL padding is fine). Fill "+
			"it with the same printable OEM ID the tables carry.")
	labelRootLength = tests.NewLabel("ACPIRootTableLength", tests.Medium, "ACPI 6.5 §5.2.7, §5.2.8",
		"The RSDT/XSDT length leaves a partial entry after the header: the RSDT holds 4-byte and the "+
			"XSDT 8-byte addresses. Make Length equal the header plus a whole number of entries.")
	labelRootNullEntry = tests.NewLabel("ACPIRootTableNullEntry", tests.Medium, "ACPI 6.5 §5.2.7, §5.2.8",
		"An RSDT/XSDT entry is zero. OSes skip it or warn; remove empty entries instead of leaving "+
			"a zero pointer.")
	labelRootDupEntry = tests.NewLabel("ACPIRootTableDuplicateEntry", tests.Low, "ACPI 6.5 §5.2.7, §5.2.8",
		"The same table address is listed twice in the RSDT/XSDT, so the OS loads that table twice. "+
			"List each table once.")
	labelRootBadEntry = tests.NewLabel("ACPIRootTableBadEntry", tests.Medium, "ACPI 6.5 §5.2.7, §5.2.8",
		"An RSDT/XSDT entry points at memory that holds no description table: no valid signature "+
			"and length there, the middle of another table, or the FACS or RSDP (which no root table "+
			"lists). The OS maps what the entry gives and skips it or warns. Point every entry at "+
			"the header of a table the firmware publishes, and remove stale entries.")
	labelRootTruncation = tests.NewLabel("ACPIRSDTPointerTruncated", tests.High, "ACPI 6.5 §5.2.7, §5.2.8",
		"An XSDT entry lies above 4 GiB and the RSDT lists its low 32 bits instead, which points at "+
			"unrelated memory. A table above 4 GiB cannot be listed in the RSDT: place the tables an "+
			"RSDT lists below 4 GiB, or leave them out of the RSDT.")
	labelRootMismatch = tests.NewLabel("ACPIRootTablesMismatch", tests.Low, "ACPI 6.5 §5.2.7, §5.2.8",
		"The XSDT and the RSDT list different tables, so an ACPI 1.0 OS and a modern one see "+
			"different firmware. Keep both lists the same.")
)

// Check is the acpitables check.
var Check = &tests.Check{
	ID:       "acpi-tables",
	Aliases:  []string{"acpitables"},
	Title:    "ACPI table headers, revisions, duplicates and the RSDP/XSDT/RSDT",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     "ACPI 6.5 §5.2.5-§5.2.8",
	Labels: []*tests.Label{labelTableTooShort, labelHeaderLength, labelTableTruncated, labelTableExtraBytes,
		labelSignature, labelOEMField, labelRevisionNewer, labelRevisionUnknown, labelDuplicate, labelRSDPLength,
		labelRSDPRevision, labelRSDPNoRoot, labelRSDPAddrMismatch, labelRSDPReserved, labelRSDPOEMID, labelRootLength, labelRootNullEntry, labelRootBadEntry,
		labelRootDupEntry, labelRootTruncation, labelRootMismatch},
	Run: run,
}

// uniqueTables must appear at most once. The FACS is not listed: a dump
// holds two when the FADT's two FACS pointers differ, which the fadt check
// reports.
var uniqueTables = []string{acpi.SigFADT, acpi.SigDSDT, acpi.SigMADT, acpi.SigMCFG,
	acpi.SigXSDT, acpi.SigRSDT, acpi.SigRSDP, "BGRT", "FPDT", "ECDT", "SBST", "SLIT", "SRAT", "WAET", "HMAT", "BERT", "EINJ", "ERST", "MSCT"}

// specVersion is an ACPI version as major*10+minor (65 is ACPI 6.5).
type specVersion int

func (v specVersion) String() string { return fmt.Sprintf("%d.%d", v/10, v%10) }

// tableRevisions gives, for tables whose layout follows the ACPI version,
// the ACPI version that introduced each revision; the last one is the
// highest ACPI 6.5 defines.
var tableRevisions = map[string][]struct {
	rev   uint8
	since specVersion
}{
	acpi.SigMADT: {{1, 10}, {2, 30}, {3, 40}, {4, 60}, {5, 63}, {6, 65}},
	acpi.SigDSDT: {{1, 10}, {2, 20}},
	acpi.SigSSDT: {{1, 10}, {2, 20}},
	acpi.SigXSDT: {{1, 20}},
	acpi.SigRSDT: {{1, 10}},
	acpi.SigFADT: {{1, 10}, {2, 10}, {3, 20}, {4, 30}, {5, 50}, {6, 60}},
}

// maxRevisions is the highest revision defined for tables whose layout is
// versioned by their own specification rather than by the ACPI version.
var maxRevisions = map[string]uint8{
	acpi.SigMCFG: 1, acpi.SigHPET: 1, "BGRT": 1, "FPDT": 1, "ECDT": 1, "SBST": 1, "SLIT": 1, "WAET": 1,
}

// fadtVersion is the ACPI version the FADT declares (revision 4 stood for
// both 3.0 and 4.0; the later is assumed).
func fadtVersion(f *acpi.FADT) specVersion {
	maj, min := f.SpecVersion()
	if maj < 5 {
		min = 0
	}
	return specVersion(maj*10 + min)
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	// What the loader tolerated or could not read (stray dump lines, root
	// tables /dev/mem would not give): the reasons behind later "not
	// checked" notes.
	for _, w := range ts.Warnings {
		p.Info(nil, "loading: %s", w)
	}
	before := p.Failures()
	for _, t := range ts.List {
		checkTableHeader(p, t)
	}
	if p.Failures() == before {
		p.Passed("%d tables have well-formed headers", len(ts.List))
	}
	checkRevisions(p, ts)
	before = p.Failures()
	for _, sig := range uniqueTables {
		if n := len(ts.Get(sig)); n > 1 {
			p.Fail(labelDuplicate, "%s appears %d times", displaySig(sig), n)
		}
	}
	if p.Failures() == before {
		p.Passed("no table that must be unique appears twice")
	}
	if n := len(ts.Get(acpi.SigFACS)); n > 1 {
		p.Info(nil, "%d FACS structures in this table set (the FADT's FIRMWARE_CTRL and X_FIRMWARE_CTRL differ?)", n)
	}
	checkRoots(p, ts)
	return nil
}

func displaySig(sig string) string {
	if sig == acpi.SigRSDP {
		return "RSDP"
	}
	return sig
}

func checkTableHeader(p *tests.Pass, t *acpi.Table) {
	if !t.HasHeader() {
		return
	}
	if len(t.Raw) < acpi.HeaderSize {
		p.Fail(labelTableTooShort, "%s: %d bytes", t.Name(), len(t.Raw))
		return
	}
	h := t.Header
	if !printable(h.Signature, false) {
		p.Fail(labelSignature, "%s: signature bytes %q", t.Name(), h.Signature)
	}
	switch {
	case h.Length < acpi.HeaderSize:
		p.Fail(labelHeaderLength, "%s: Length is %d", t.Name(), h.Length)
	case int(h.Length) > len(t.Raw):
		p.Fail(labelTableTruncated, "%s: Length is %d but %d bytes are present", t.Name(), h.Length, len(t.Raw))
	case int(h.Length) < len(t.Raw):
		p.Fail(labelTableExtraBytes, "%s: Length is %d but %d bytes were published", t.Name(), h.Length, len(t.Raw))
	}
	var bad []string
	// The Creator ID is a vendor ID, not defined as a string; only the two
	// OEM strings are checked.
	for _, f := range []struct{ name, v string }{{"OEM ID", h.OEMID}, {"OEM Table ID", h.OEMTableID}} {
		if !printable(f.v, true) {
			bad = append(bad, fmt.Sprintf("%s %q", f.name, f.v))
		}
	}
	if len(bad) > 0 {
		p.Fail(labelOEMField, "%s: %s", t.Name(), strings.Join(bad, ", "))
	}
}

// printable reports whether s is printable ASCII; with padding, trailing
// NULs are allowed.
func printable(s string, padding bool) bool {
	if padding {
		s = strings.TrimRight(s, "\x00")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func checkRevisions(p *tests.Pass, ts *acpi.Tables) {
	f, err := ts.FADT()
	if err != nil {
		p.NotChecked("table revisions against the ACPI version", err.Error(), "")
	}
	before := p.Failures()
	defer func() {
		if p.Failures() == before {
			p.Passed("table revisions are defined ones")
		}
	}()
	for _, t := range ts.List {
		if !t.HasHeader() || len(t.Raw) < acpi.HeaderSize {
			continue
		}
		rev := t.Header.Revision
		if max, ok := maxRevisions[t.Signature]; ok && rev > max {
			p.Fail(labelRevisionUnknown, "%s: revision %d; its specification defines up to %d", t.Name(), rev, max)
		}
		hist, ok := tableRevisions[t.Signature]
		if !ok {
			continue
		}
		last := hist[len(hist)-1]
		// A definition block's revision also selects the AML integer
		// width: every value of 2 and above means 64 bits (ACPI 6.5
		// §5.2.11.1), so higher revisions are not unknown.
		aml := t.Signature == acpi.SigDSDT || t.Signature == acpi.SigSSDT
		if rev > last.rev && !aml {
			p.Fail(labelRevisionUnknown, "%s: revision %d; ACPI 6.5 defines up to %d", t.Name(), rev, last.rev)
			continue
		}
		if f == nil || t.Signature == acpi.SigFADT {
			continue
		}
		var since specVersion
		for _, h := range hist {
			if h.rev <= rev {
				since = h.since
			}
		}
		if v := fadtVersion(f); since > v {
			p.Fail(labelRevisionNewer, "%s: revision %d is from ACPI %s; the FADT (revision %d) declares ACPI %s",
				t.Name(), rev, since, f.Header.Revision, v)
		}
	}
}

func checkRoots(p *tests.Pass, ts *acpi.Tables) {
	rt := ts.First(acpi.SigRSDP)
	var rsdp *acpi.RSDP
	if rt == nil {
		reason, remedy := ts.RootAbsence(acpi.SigRSDP)
		p.NotChecked("RSDP", reason, remedy)
	} else if r, err := acpi.ParseRSDP(rt.Raw); err != nil {
		p.Fail(labelTableTooShort, "RSDP: %v", err)
	} else {
		rsdp = r
		if r.Revision != 0 && r.Revision != 2 {
			p.Fail(labelRSDPRevision, "RSDP revision is %d", r.Revision)
		}
		if r.Revision >= 2 && r.Length != acpi.RSDPv2Size {
			p.Fail(labelRSDPLength, "RSDP revision %d has Length %d", r.Revision, r.Length)
		}
		// The corpus holds one RSDP, a clean one: these two labels are
		// warnings until a real occurrence is read.
		if r.Revision >= 2 && r.Reserved != [3]byte{} {
			p.Warn(labelRSDPReserved, "RSDP reserved bytes %x", r.Reserved[:])
		}
		if !printable(r.OEMID, true) {
			p.Warn(labelRSDPOEMID, "RSDP OEM ID %q", r.OEMID)
		}
		if r.RSDTAddress == 0 && (r.Revision < 2 || r.XSDTAddress == 0) {
			p.Fail(labelRSDPNoRoot, "RSDP revision %d: RSDT address 0x%x, XSDT address 0x%x", r.Revision, r.RSDTAddress, r.XSDTAddress)
		} else {
			p.Passed("RSDP revision %d, length %d, points at a root table", r.Revision, r.Length)
		}
	}
	xt, rs := ts.First(acpi.SigXSDT), ts.First(acpi.SigRSDT)
	if xt == nil && rs == nil {
		reason, remedy := ts.RootAbsence(acpi.SigXSDT)
		p.NotChecked("XSDT and RSDT", reason, remedy)
		return
	}
	if rsdp != nil {
		if xt != nil && xt.Address != 0 && rsdp.Revision >= 2 && rsdp.XSDTAddress != xt.Address {
			p.Fail(labelRSDPAddrMismatch, "RSDP gives XSDT address 0x%x, the XSDT was found at 0x%x", rsdp.XSDTAddress, xt.Address)
		}
		if rs != nil && rs.Address != 0 && uint64(rsdp.RSDTAddress) != rs.Address {
			p.Fail(labelRSDPAddrMismatch, "RSDP gives RSDT address 0x%x, the RSDT was found at 0x%x", rsdp.RSDTAddress, rs.Address)
		}
	}
	// Addresses of the tables we hold, when the source recorded them.
	byAddr := map[uint64]*acpi.Table{}
	for _, t := range ts.List {
		if t.Address != 0 {
			byAddr[t.Address] = t
		}
	}
	var xe, re []uint64
	if xt != nil {
		if x, err := acpi.ParseXSDT(xt); err == nil {
			boundEntries(p, "XSDT", x)
			xe = x.Entries
			checkRootEntries(p, "XSDT", x, byAddr, ts)
		}
	}
	if rs != nil {
		if r, err := acpi.ParseRSDT(rs); err == nil {
			boundEntries(p, "RSDT", r)
			re = r.Entries
			checkRootEntries(p, "RSDT", r, byAddr, ts)
		}
	}
	if xe == nil || re == nil {
		return
	}
	inRSDT := map[uint64]bool{}
	for _, a := range re {
		inRSDT[a] = true
	}
	inXSDT, truncated := map[uint64]bool{}, map[uint64]bool{}
	for _, a := range xe {
		if a>>32 != 0 {
			truncated[a&0xFFFFFFFF] = true
		}
	}
	for _, a := range xe {
		inXSDT[a] = true
		switch {
		case a>>32 != 0 && inRSDT[a&0xFFFFFFFF]:
			p.Fail(labelRootTruncation, "XSDT entry 0x%x appears in the RSDT as 0x%x", a, a&0xFFFFFFFF)
		case a>>32 == 0 && !inRSDT[a]:
			p.Fail(labelRootMismatch, "XSDT entry 0x%x (%s) is not in the RSDT", a, tableAt(byAddr, a))
		}
	}
	for _, a := range re {
		if !inXSDT[a] && !truncated[a] {
			p.Fail(labelRootMismatch, "RSDT entry 0x%x (%s) is not in the XSDT", a, tableAt(byAddr, a))
		}
	}
}

// boundEntries keeps the first acpi.MaxTables entries of a root table
// and reports the rest as not checked: a machine has under 100 tables, and
// a crafted XSDT of millions of entries would cost seconds and gigabytes.
func boundEntries(p *tests.Pass, name string, r *acpi.RootTable) {
	if n := len(r.Entries); n > acpi.MaxTables {
		p.NotChecked(fmt.Sprintf("%s entries %d to %d", name, acpi.MaxTables, n-1),
			fmt.Sprintf("the %s lists %d tables, more than the %d fwcheck reads (real machines have under 100)", name, n, acpi.MaxTables),
			"")
		r.Entries = r.Entries[:acpi.MaxTables]
	}
}

func tableAt(byAddr map[uint64]*acpi.Table, a uint64) string {
	if t := byAddr[a]; t != nil {
		return t.Name()
	}
	return "unknown table"
}

func checkRootEntries(p *tests.Pass, name string, r *acpi.RootTable, byAddr map[uint64]*acpi.Table, ts *acpi.Tables) {
	if r.Trailing != 0 {
		p.Fail(labelRootLength, "%s: %d bytes after the last whole entry", name, r.Trailing)
	}
	// What the source read at each entry's address (live /dev/mem or a
	// snapshot's record), by entry index.
	probed := map[int]acpi.EntryProbe{}
	for _, pr := range ts.Probes {
		if pr.Root == name {
			probed[pr.Index] = pr
		}
	}
	seen := map[uint64]bool{}
	var absent []string
	for i, a := range r.Entries {
		bad := ""
		if pr, ok := probed[i]; ok && pr.Address == a {
			bad = pr.Bad()
		}
		if bad == "" && a != 0 {
			bad = badInDump(byAddr, a)
		}
		switch {
		case a == 0:
			p.Fail(labelRootNullEntry, "%s entry %d is zero", name, i)
		case seen[a]:
			p.Fail(labelRootDupEntry, "%s entry %d repeats address 0x%x", name, i, a)
		case bad != "":
			// A warning until a real machine shows one (no corpus dump
			// records what lies at its entries).
			p.Warn(labelRootBadEntry, "%s entry %d (0x%x) points at %s", name, i, a, bad)
		case len(byAddr) > 1 && byAddr[a] == nil:
			absent = append(absent, fmt.Sprintf("0x%x", a))
		}
		seen[a] = true
	}
	if len(absent) > 0 {
		// Only meaningful when the source recorded table addresses; a
		// dump may have left tables out, so this is no failure.
		p.Info(nil, "%s: %d of %d entries point at tables not in this table set: %s",
			name, len(absent), len(r.Entries), strings.Join(absent, " "))
	}
	p.Passed("%s lists %d tables", name, len(r.Entries))
}

// badInDump says, from the addresses an acpidump recorded, why the table
// address a is no table's ("" when it is one, or when the dump cannot
// tell): the FACS's or RSDP's address, or an address inside another
// table. An address no dumped table covers proves nothing: a dump may
// leave tables out.
func badInDump(byAddr map[uint64]*acpi.Table, a uint64) string {
	if t := byAddr[a]; t != nil {
		switch t.Signature {
		case acpi.SigFACS:
			return "the FACS, which the FADT points to and no root table may list"
		case acpi.SigRSDP:
			return "the RSDP, which is no description table"
		}
		return ""
	}
	// The table starting last below a (tables do not overlap; where they
	// do, the nearest start is named).
	var in *acpi.Table
	for _, t := range byAddr {
		if t.Address < a && (in == nil || t.Address > in.Address) {
			in = t
		}
	}
	if in != nil && a-in.Address < uint64(len(in.Raw)) {
		return fmt.Sprintf("byte %d of %s (at 0x%x), not a table's start", a-in.Address, in.Name(), in.Address)
	}
	return ""
}
