// Package fpdt checks the Firmware Performance Data Table (ACPI 6.5
// §5.2.24): the table's revision, its performance records walked by their
// own lengths, the two pointer records (length, revision, reserved field,
// address), and, when the run has the firmware memory map, that the
// Firmware Basic Boot Performance Table and S3 Performance Table they point
// at lie in memory the OS leaves alone. The s3 check reads the S3PT's
// values; this check judges only the pointers.
//
// Left out on purpose: a missing S3PT pointer (the record is needed only
// on platforms that support S3, which the tables alone do not tell), and
// the contents of the FBPT and S3PT, which lie outside the table (Linux
// exposes them in /sys/firmware/acpi/fpdt, which the s3 check reads).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	FPDTMalformed            none
//	FPDTRevision             none
//	FPDTRecordLength         none
//	FPDTPointerRecordLength  none
//	FPDTPointerRevision      none
//	FPDTPointerReserved      none
//	FPDTNullPointer          none
//	FPDTDuplicatePointer     none
//	FPDTNoBootPointer        none
//	FPDTNotReserved          none
package fpdt

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.24"

var (
	labelMalformed = tests.NewLabel("FPDTMalformed", tests.Medium, "ACPI 6.5 §5.2.24 Table 5.104",
		"The FPDT is shorter than its header or its Length disagrees with its bytes, so no record can "+
			"be read. Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("FPDTRevision", tests.Low, "ACPI 6.5 §5.2.24 Table 5.104",
		"The FPDT revision is not 1, the only one defined; an OS may refuse a table of a revision it "+
			"does not know. Set Revision to 1.")
	labelRecordLength = tests.NewLabel("FPDTRecordLength", tests.Medium, "ACPI 6.5 §5.2.24.1",
		"A performance record has a length shorter than its 4-byte header or runs past the end of the "+
			"table, so the OS stops reading the records there. Give each record its real length and "+
			"make the table's Length cover them all.")
	labelPointerLength = tests.NewLabel("FPDTPointerRecordLength", tests.Medium, "ACPI 6.5 §5.2.24.4, §5.2.24.5",
		"A Basic Boot or S3 Performance Table Pointer record is not the 16 bytes the specification "+
			"defines, so its address is cut off or read from the wrong place. Use length 16.")
	labelPointerRevision = tests.NewLabel("FPDTPointerRevision", tests.Low, "ACPI 6.5 §5.2.24.4, §5.2.24.5",
		"A pointer record's revision is not 1, the only one defined. Set it to 1.")
	labelPointerReserved = tests.NewLabel("FPDTPointerReserved", tests.Low, "ACPI 6.5 §5.2.24.4, §5.2.24.5",
		"The 4 reserved bytes of a pointer record are not zero. Clear them: a later revision may give "+
			"them a meaning.")
	labelNullPointer = tests.NewLabel("FPDTNullPointer", tests.Medium, "ACPI 6.5 §5.2.24.4, §5.2.24.5",
		"A pointer record gives address 0, so the OS has no boot or S3 performance data to read. Give "+
			"the physical address of the FBPT or S3PT, or leave the record out.")
	labelDuplicate = tests.NewLabel("FPDTDuplicatePointer", tests.Low, "ACPI 6.5 §5.2.24.2 Table 5.106",
		"The FPDT holds more than one pointer record of the same kind; the OS uses the first and "+
			"ignores the others. Keep one of each.")
	labelNoBoot = tests.NewLabel("FPDTNoBootPointer", tests.Low, "ACPI 6.5 §5.2.24.2 Table 5.106",
		"The FPDT has no Firmware Basic Boot Performance Table Pointer record, which every FPDT "+
			"must carry: without it the table says nothing. Add the record and the FBPT it points to.")
	labelNotReserved = tests.NewLabel("FPDTNotReserved", tests.Medium, "ACPI 6.5 §5.2.24.6, §5.2.24.9",
		"The FBPT or S3PT the FPDT points at is not in memory the firmware memory map reserves, so "+
			"the OS may hand that memory out and later read garbage (or overwrite the records the "+
			"firmware keeps updating across S3). Allocate the tables in reserved memory (EfiReservedMemoryType "+
			"or ACPI NVS) and report it so in the memory map.")
)

// unconfirmed are the labels no corpus machine has: warnings until one does.
var unconfirmed = map[*tests.Label]bool{
	labelMalformed: true, labelRevision: true, labelRecordLength: true, labelPointerLength: true,
	labelPointerRevision: true, labelPointerReserved: true, labelNullPointer: true, labelDuplicate: true,
	labelNoBoot: true, labelNotReserved: true,
}

// Check is the fpdt check.
var Check = &tests.Check{
	ID:       "fpdt",
	Title:    "FPDT performance records and the FBPT/S3PT pointers",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Optional: []input.Decl{input.MemoryMap},
	Spec:     spec,
	Labels: []*tests.Label{labelMalformed, labelRevision, labelRecordLength, labelPointerLength, labelPointerRevision,
		labelPointerReserved, labelNullPointer, labelDuplicate, labelNoBoot, labelNotReserved},
	Run: run,
}

func run(p *tests.Pass) error {
	for _, t := range tablecheck.Tables(p, acpi.SigFPDT, "no FPDT table (it is optional)") {
		check(p, t)
	}
	return nil
}

func check(p *tests.Pass, t *acpi.Table) {
	r := tablecheck.New(p, t, unconfirmed)
	f, err := acpi.ParseFPDT(t)
	if f == nil {
		r.Fail(labelMalformed, "%v", err)
		return
	}
	r.Revision(labelRevision, t, 1)
	switch {
	case errors.Is(err, acpi.ErrTooManyRecords):
		p.NotChecked("FPDT records past the first "+strconv.Itoa(acpi.MaxSubtables), err.Error(), "")
	case err != nil:
		r.Fail(labelRecordLength, "%v", err)
	}
	seen := map[uint16]int{}
	type target struct {
		sig  string
		addr uint64
	}
	var targets []target
	for _, rec := range f.Records {
		var sig string
		switch rec.Type {
		case acpi.FPDTFBPTPointer:
			sig = acpi.SigFBPT
		case acpi.FPDTS3PTPointer:
			sig = acpi.SigS3PT
		default:
			r.Info("record type 0x%04x (%s) at offset %d, length %d, not interpreted", rec.Type, recordRange(rec.Type), rec.Offset, rec.Length)
			continue
		}
		where := fmt.Sprintf("%s pointer record at offset %d", sig, rec.Offset)
		if rec.Length != acpi.FPDTPointerRecordSize {
			r.Fail(labelPointerLength, "%s has length %d, defined as %d", where, rec.Length, acpi.FPDTPointerRecordSize)
		}
		if rec.Short {
			continue
		}
		if rec.Revision != 1 {
			r.Fail(labelPointerRevision, "%s has revision %d", where, rec.Revision)
		}
		raw := rec.Raw
		if res := uint32(raw[4]) | uint32(raw[5])<<8 | uint32(raw[6])<<16 | uint32(raw[7])<<24; res != 0 {
			r.Fail(labelPointerReserved, "%s: reserved field 0x%08x", where, res)
		}
		addr := uint64(0)
		for i := 15; i >= 8; i-- {
			addr = addr<<8 | uint64(raw[i])
		}
		if seen[rec.Type]++; seen[rec.Type] > 1 {
			r.Fail(labelDuplicate, "%s is the %s of its kind (address 0x%x)", where, ordinal(seen[rec.Type]), addr)
			continue
		}
		if addr == 0 {
			r.Fail(labelNullPointer, "%s gives address 0", where)
			continue
		}
		targets = append(targets, target{sig, addr})
	}
	if seen[acpi.FPDTFBPTPointer] == 0 && err == nil {
		r.Fail(labelNoBoot, "no FBPT pointer record among its %d records", len(f.Records))
	}
	if len(targets) > 0 {
		if mm := tablecheck.MemoryMap(p, t.Name()+": the FBPT/S3PT addresses against the memory map"); mm != nil {
			for _, tg := range targets {
				// The 8-byte header is what the memory map must cover
				// at least; the table's full length is in memory only.
				if ok, what := tablecheck.Reserved(mm, tg.addr, tg.addr+acpi.PerfTableHeaderSize-1); !ok {
					r.Fail(labelNotReserved, "the %s at 0x%x is covered by %s", tg.sig, tg.addr, what)
				}
			}
		}
	}
	r.Done("revision %d, %d records, FBPT at 0x%x, S3PT at 0x%x", t.Header.Revision, len(f.Records), f.FBPTAddress, f.S3PTAddress)
}

// recordRange names the range of FPDT record types a type falls in
// (ACPI 6.5 §5.2.24.2 Table 5.106).
func recordRange(typ uint16) string {
	switch {
	case typ < 0x1000:
		return "reserved"
	case typ < 0x2000:
		return "reserved for platform firmware vendors"
	case typ < 0x3000:
		return "reserved for hardware vendors"
	case typ < 0x4000:
		return "reserved for BIOS vendors"
	}
	return "reserved"
}

func ordinal(n int) string {
	switch n {
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return fmt.Sprintf("%dth", n)
}
