// Package hest checks the Hardware Error Source Table (ACPI 6.5 §18.3.2):
// revision, the error source count against the sources the table holds,
// each source walked by the length its type gives (error sources carry no
// length field, so a source of a reserved type ends the walk, reported as
// not checked), unique source IDs, reserved bytes and flag bits, the
// record and section counts, notification structures, machine check
// banks, PCIe AER device addresses, and a generic source's error status
// address, error status block length and (version 2) read-ack register.
// Linux's GHES driver reads every generic source through these fields and
// drops a source whose register or notification it cannot use, so a
// machine's hardware errors then go unreported.
//
// Left out on purpose: the Enabled byte's values other than 0 and 1 (the
// specification says only what 1 and 0 mean, and OSes test for nonzero);
// notification types that exist only on Arm (SEA, SEI, SDEI) on an x86
// machine, which the table alone cannot tell; the capacity fields (max raw
// data length, error thresholds), for which the specification gives no
// bounds; and the AER mask and severity registers, whose every value is a
// policy choice.
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	HESTMalformed           none
//	HESTRevision            none
//	HESTSourceLength        none
//	HESTSourceCount         none
//	HESTDuplicateSourceID   none
//	HESTReservedBits        10: core/22C25EDFF9A3 core/40AECBFF4573 core/41B1E7A57925 core/58E82626C3C5 …
//	HESTRecordCounts        none
//	HESTNotification        none
//	HESTPollInterval        6: core/40AECBFF4573 core/41B1E7A57925 core/CE92DF29C87C full/40AECBFF4573 …
//	HESTErrorStatusAddress  none
//	HESTErrorStatusLength   none
//	HESTRelatedSource       none
//	HESTBank                none
//	HESTAERDevice           none
//	HESTReadAck             none
package hest

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §18.3.2"

var (
	labelMalformed = tests.NewLabel("HESTMalformed", tests.Medium, spec,
		"The HEST is shorter than its 40-byte header or its Length disagrees with its bytes, so the OS "+
			"learns of no error source. Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("HESTRevision", tests.Low, spec,
		"The HEST revision is neither 1 nor 2. Set the revision of the specification the table follows.")
	labelLength = tests.NewLabel("HESTSourceLength", tests.Medium, spec,
		"An error source runs past the end of the table: the length of each source is fixed by its type "+
			"(plus 28 bytes per machine check bank), and the table ends inside one. Make the table's Length "+
			"cover every source, or correct the bank count.")
	labelCount = tests.NewLabel("HESTSourceCount", tests.Medium, spec,
		"The Error Source Count disagrees with the error sources the table holds; an OS that trusts the "+
			"count skips sources or reads past the last one. Set the count to the number of sources.")
	labelDupID = tests.NewLabel("HESTDuplicateSourceID", tests.Medium, spec,
		"Two error sources share a Source ID; records, alternates and OS interfaces name a source by its "+
			"ID, so one of them cannot be told apart. Give each source its own ID.")
	labelReserved = tests.NewLabel("HESTReservedBits", tests.Low, spec+".1-§18.3.2.8",
		"An error source's reserved bytes, reserved flag bits or reserved notification "+
			"configuration-write-enable bits (15:6) are not zero; for a generic hardware error source the whole "+
			"flags byte is reserved (FIRMWARE_FIRST and GLOBAL are PCIe AER and IA-32 flags). Clear them: a "+
			"later revision may give them a meaning.")
	labelRecords = tests.NewLabel("HESTRecordCounts", tests.Medium, spec+".1-§18.3.2.8",
		"An enabled error source asks for 0 records to pre-allocate or allows 0 sections per record; the "+
			"specification requires at least 1 of each, and an OS that sizes its buffers from them has no "+
			"room for the error. Give the counts the source needs (at least 1).")
	labelNotify = tests.NewLabel("HESTNotification", tests.Medium, spec+".9",
		"An error source's notification structure has a reserved type or a length other than 28, so the "+
			"OS cannot tell how the error is signalled. Use a defined notification type and length 28.")
	labelPoll = tests.NewLabel("HESTPollInterval", tests.Medium, spec+".9",
		"An enabled error source is polled but its poll interval is 0; Linux disables such a source, so "+
			"its errors are never seen. Give the interval in milliseconds at which the OS should poll.")
	labelStatusAddr = tests.NewLabel("HESTErrorStatusAddress", tests.High, spec+".7",
		"An enabled generic error source's Error Status Address is not a usable register (System Memory "+
			"or System I/O, nonzero, width within its access size); Linux refuses the source and the errors it "+
			"reports are lost. Point it at the 64-bit register that holds the error status block's address.")
	labelStatusLen = tests.NewLabel("HESTErrorStatusLength", tests.Medium, spec+".7",
		"A generic error source's Error Status Block Length is shorter than the 20-byte block header, so "+
			"the block cannot hold an error. Give the length of the block firmware reserves.")
	labelRelated = tests.NewLabel("HESTRelatedSource", tests.Low, spec+".7",
		"A generic error source's Related Source ID is neither 0xFFFF (none) nor the ID of another source "+
			"of the table. Name the source this one is an alternate for, or use 0xFFFF.")
	labelBank = tests.NewLabel("HESTBank", tests.Low, spec+".1.1",
		"A machine check bank structure has a reserved status data format (0 IA-32, 1 Intel 64, 2 AMD64 "+
			"are defined) or a nonzero reserved byte, or two banks of a source share a bank number. Use a "+
			"defined format and a distinct number per bank.")
	labelAER = tests.NewLabel("HESTAERDevice", tests.Medium, spec+".4-§18.3.2.6",
		"A PCIe AER error source without the GLOBAL flag names a device above 31, a function above 7, or "+
			"sets bits 31:24 of its bus field, which no PCI device has; the OS cannot find the device. Give its "+
			"segment, bus, device and function, or set GLOBAL.")
	labelReadAck = tests.NewLabel("HESTReadAck", tests.High, spec+".8",
		"An enabled version-2 generic error source's Read Ack Register is not a usable register; the OS "+
			"cannot acknowledge an error, and firmware then reports no further one. Give the register the OS "+
			"writes to say it has read the error status block.")
)

var allLabels = []*tests.Label{labelMalformed, labelRevision, labelLength, labelCount, labelDupID, labelReserved,
	labelRecords, labelNotify, labelPoll, labelStatusAddr, labelStatusLen, labelRelated, labelBank, labelAER, labelReadAck}

// confirmed are the labels whose corpus occurrences were read against the
// specification: HESTReservedBits on the generic sources whose reserved
// flags byte is 0x03 (ACPI 6.5 gives that byte of a generic source no
// field; ACPICA's disassembler prints it as Reserved), and on
// 58E82626C3C5, whose polled source's configuration write enable is
// 0x603E (bits 13 and 14 are reserved); HESTPollInterval on the polled
// generic sources with PollInterval 0 (40AECBFF4573, 41B1E7A57925,
// CE92DF29C87C), which Linux's GHES driver disables with "Poll interval is
// 0".
var confirmed = []*tests.Label{labelReserved, labelPoll}

// Check is the hest check.
var Check = &tests.Check{
	ID:       "hest",
	Title:    "HEST hardware error sources, their notifications and registers",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   allLabels,
	Run:      run,
}

func run(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(allLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigHEST, "no HEST table (it is optional; the platform reports hardware errors by other means)") {
		check(tablecheck.New(p, t, unconfirmed), t)
	}
	return nil
}

func check(r *tablecheck.T, t *acpi.Table) {
	h, err := acpi.ParseHEST(t)
	if h == nil {
		r.Fail(labelMalformed, "%v", err)
		return
	}
	r.Revision(labelRevision, t, 1, 2)
	if err != nil {
		if h.Unread > 0 {
			r.Info("%v", err)
			r.P.NotChecked(r.Name+": the error sources from the reserved type on", "their length is unknown, so the sources after it cannot be found", "")
		} else {
			r.Fail(labelLength, "%v", err)
		}
	}
	if err == nil && uint64(h.SourceCount) != uint64(len(h.Sources)) {
		r.Fail(labelCount, "Error Source Count %d, the table holds %d sources", h.SourceCount, len(h.Sources))
	}
	ids := map[uint16]int{}
	for _, s := range h.Sources {
		if prev, dup := ids[s.SourceID]; dup {
			r.Fail(labelDupID, "sources at offsets %d and %d share Source ID %d", prev, s.Offset, s.SourceID)
		} else {
			ids[s.SourceID] = s.Offset
		}
	}
	enabled := 0
	for _, s := range h.Sources {
		if checkSource(r, s, ids) {
			enabled++
		}
	}
	r.Done("revision %d, %d error sources, %d enabled", t.Header.Revision, len(h.Sources), enabled)
}

// checkSource checks one error source and reports whether it is enabled.
func checkSource(r *tablecheck.T, s acpi.HESTSource, ids map[uint16]int) bool {
	name := func() string { return fmt.Sprintf("%s %d", acpi.HESTTypeName(s.Type), s.SourceID) }
	var allowed uint8
	switch s.Type {
	case acpi.HESTIA32MCE, acpi.HESTIA32CMC, acpi.HESTIA32DeferredMC:
		allowed = acpi.HESTFirmwareFirst | acpi.HESTGHESAssist
	case acpi.HESTAERRootPort, acpi.HESTAEREndpoint, acpi.HESTAERBridge:
		allowed = acpi.HESTFirmwareFirst | acpi.HESTGlobal
	}
	if s.Reserved != 0 || s.Flags&^allowed != 0 {
		what := "reserved bytes " + tablecheck.Nonzero(s.Reserved)
		if s.Type == acpi.HESTGHES || s.Type == acpi.HESTGHESv2 {
			what = "reserved flags byte " + tablecheck.Nonzero(s.Reserved)
		} else if s.Flags&^allowed != 0 {
			what += fmt.Sprintf(", flags 0x%02x", s.Flags)
		}
		r.Fail(labelReserved, "%s: %s", name(), what)
	}
	if s.Enabled == 0 {
		r.Info("%s is disabled", name())
		return false
	}
	if s.RecordsPrealloc == 0 || s.MaxSections == 0 {
		r.Fail(labelRecords, "%s: %d records to pre-allocate, %d sections per record", name(), s.RecordsPrealloc, s.MaxSections)
	}
	if s.HasNotify {
		n := s.Notify
		if n.ConfigWriteEnable&^0x3F != 0 {
			r.Fail(labelReserved, "%s: notification configuration write enable 0x%04x sets reserved bits 15:6", name(), n.ConfigWriteEnable)
		}
		if n.Type > acpi.HESTNotifyTypeMax || n.Length != acpi.HESTNotifySize {
			r.Fail(labelNotify, "%s: notification type %d (%s), length %d", name(), n.Type, acpi.HESTNotifyName(n.Type), n.Length)
		} else if n.Type == 0 && n.PollInterval == 0 {
			r.Fail(labelPoll, "%s: polled, with poll interval 0", name())
		}
	}
	seen := map[uint8]bool{}
	for i, b := range s.Banks {
		if b.StatusFormat > 2 || b.Reserved != 0 || seen[b.Number] {
			r.Fail(labelBank, "%s bank %d: number %d, status data format %d, reserved byte 0x%02x", name(), i, b.Number, b.StatusFormat, b.Reserved)
		}
		seen[b.Number] = true
	}
	switch s.Type {
	case acpi.HESTAERRootPort, acpi.HESTAEREndpoint, acpi.HESTAERBridge:
		if s.Flags&acpi.HESTGlobal == 0 && (s.Device > 31 || s.Function > 7 || s.Bus>>24 != 0) {
			r.Fail(labelAER, "%s: bus field 0x%08x, device %d, function %d", name(), s.Bus, s.Device, s.Function)
		}
	case acpi.HESTGHES, acpi.HESTGHESv2:
		if why := acpi.APEIRegisterProblem(s.ErrorStatus); why != "" {
			r.Fail(labelStatusAddr, "%s: error status address %s: %s", name(), s.ErrorStatus, why)
		}
		if s.ErrorStatusLength < acpi.HESTErrorStatusHeaderSize {
			r.Fail(labelStatusLen, "%s: error status block length %d", name(), s.ErrorStatusLength)
		}
		if s.RelatedSourceID != 0xFFFF {
			if _, ok := ids[s.RelatedSourceID]; !ok || s.RelatedSourceID == s.SourceID {
				r.Fail(labelRelated, "%s: related source ID %d", name(), s.RelatedSourceID)
			}
		}
		if s.Type == acpi.HESTGHESv2 {
			if why := acpi.APEIRegisterProblem(s.ReadAck); why != "" {
				r.Fail(labelReadAck, "%s: read ack register %s: %s", name(), s.ReadAck, why)
			}
		}
	}
	return true
}
