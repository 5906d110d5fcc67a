// Package phat checks the Platform Health Assessment Table (ACPI 6.5
// §5.2.31): its revision and every platform telemetry record walked by
// its own length; firmware version data records' length against their
// element count; firmware health data records' fixed part, reserved
// bytes, health value, device path (a NUL-terminated UTF-16 string inside
// the record) and device-specific data offset (0, or inside the record
// after the device path). A health record that reports errors, an
// unknown state or an advisory is information: it is the platform's
// report on a component, not a defect of the table.
//
// Left out on purpose: the contents of device-specific data (their
// layout is the producer's, named by the device signature GUID; ACPI 6.5
// defines only the reset reason record, which fwcheck does not decode),
// and version element values (any 64-bit value is allowed).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	PHATMalformed       none
//	PHATRevision        none
//	PHATRecordLength    none
//	PHATRecordSize      none
//	PHATRecordRevision  none
//	PHATReserved        none
//	PHATHealthValue     none
//	PHATDevicePath      none
//	PHATDataOffset      none
package phat

import (
	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.31"

var (
	labelMalformed = tests.NewLabel("PHATMalformed", tests.Medium, spec,
		"The PHAT is shorter than its header or its Length disagrees with its bytes. Publish the whole "+
			"table with a correct Length.")
	labelRevision = tests.NewLabel("PHATRevision", tests.Low, spec,
		"The PHAT revision is not 1, the only one defined. Set Revision to 1.")
	labelRecordLength = tests.NewLabel("PHATRecordLength", tests.Medium, spec,
		"A platform telemetry record has a length shorter than its Type and Length fields or runs past "+
			"the end of the table, so the OS stops reading the records there. Give each record its "+
			"real length.")
	labelRecordSize = tests.NewLabel("PHATRecordSize", tests.Medium, spec+".1",
		"A record's length does not fit its type: a firmware version data record is 12 bytes plus 28 "+
			"for each version element its Record Count gives, and a firmware health data record at "+
			"least its 28-byte fixed part. The OS reads elements that are not there or misses some. "+
			"Make the length and the count agree.")
	labelRecordRevision = tests.NewLabel("PHATRecordRevision", tests.Low, spec+".1",
		"A firmware version or health data record's revision is not 1, the only one defined, so an "+
			"OS may read it with the wrong layout. Set the record's Revision to 1.")
	labelReserved = tests.NewLabel("PHATReserved", tests.Low, spec+".1",
		"A record's reserved bytes (3 in a version data record, 2 in a health data record) are not "+
			"zero. Clear them.")
	labelHealth = tests.NewLabel("PHATHealthValue", tests.Low, spec+".2",
		"A firmware health data record's AmHealthy value is above 3, a reserved value, so the OS "+
			"cannot tell the component's state. Report 0 (errors found), 1 (no errors), 2 (unknown) "+
			"or 3 (advisory).")
	labelPath = tests.NewLabel("PHATDevicePath", tests.Medium, spec+".2",
		"A firmware health data record's device path has no NUL terminator inside the record (or "+
			"before the device-specific data), so an OS reading it runs into the data or the next "+
			"record. End the UTF-16 device path with a NUL character.")
	labelOffset = tests.NewLabel("PHATDataOffset", tests.Medium, spec+".2",
		"A firmware health data record's Device-specific Data Offset is neither 0 nor an offset "+
			"inside the record after the device path, so an OS reads the device data from the "+
			"device path, the next record or outside the table. Give the offset of the data from "+
			"the start of the record, or 0 when there is none.")
	allLabels = []*tests.Label{labelMalformed, labelRevision, labelRecordLength, labelRecordSize, labelRecordRevision,
		labelReserved, labelHealth, labelPath, labelOffset}
)

// confirmed are the labels whose corpus occurrences were read against
// the specification (none: the 9 corpus PHATs, Intel client boards with a
// version data record and 3 or 4 health data records, follow it).
var confirmed = []*tests.Label{}

// Check is the phat check.
var Check = &tests.Check{
	ID:       "phat",
	Title:    "PHAT firmware version and health records",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   allLabels,
	Run:      run,
}

var healthNames = []string{"errors found", "no errors", "unknown", "advisory"}

func run(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(allLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigPHAT, "no PHAT table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		ph, err := acpi.ParsePHAT(t)
		if ph == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1)
		r.Walk(labelRecordLength, err)
		r.NotRead(ph.NotRead)
		versions, healths := 0, 0
		for _, rec := range ph.Records {
			switch rec.Type {
			case acpi.PHATVersionData:
				versions++
				checkVersion(r, rec)
			case acpi.PHATHealthData:
				healths++
				checkHealth(r, rec)
			default:
				r.Info("record type %d at offset %d (length %d) is reserved: not interpreted", rec.Type, rec.Offset, rec.Length)
			}
		}
		r.Done("revision %d, %d version data and %d health data records", t.Header.Revision, versions, healths)
	}
	return nil
}

func common(r *tablecheck.T, rec acpi.PHATRecord, what string) bool {
	if rec.Short {
		r.Fail(labelRecordSize, "%s record at offset %d has length %d, shorter than its fixed part", what, rec.Offset, rec.Length)
		return false
	}
	if rec.Revision != 1 {
		r.Fail(labelRecordRevision, "%s record at offset %d has revision %d", what, rec.Offset, rec.Revision)
	}
	for _, b := range rec.Reserved {
		if b != 0 {
			r.Fail(labelReserved, "%s record at offset %d: reserved bytes % x", what, rec.Offset, rec.Reserved)
			break
		}
	}
	return true
}

func checkVersion(r *tablecheck.T, rec acpi.PHATRecord) {
	if !common(r, rec, "version data") {
		return
	}
	if want := uint64(acpi.PHATVersionFixed) + uint64(rec.Count)*acpi.PHATVersionElement; want != uint64(rec.Length) {
		r.Fail(labelRecordSize, "version data record at offset %d: %d elements need length %d; length is %d", rec.Offset, rec.Count, want, rec.Length)
	}
}

func checkHealth(r *tablecheck.T, rec acpi.PHATRecord) {
	if !common(r, rec, "health data") {
		return
	}
	where := rec.Path
	if where == "" {
		where = "device " + rec.Device.String()
	}
	if int(rec.Health) < len(healthNames) {
		if rec.Health != 1 {
			r.Info("health data record at offset %d (%s) reports %s (AmHealthy %d)", rec.Offset, where, healthNames[rec.Health], rec.Health)
		}
	} else {
		r.Fail(labelHealth, "health data record at offset %d (%s): AmHealthy %d", rec.Offset, where, rec.Health)
	}
	if rec.PathEnd == 0 {
		r.Fail(labelPath, "health data record at offset %d (length %d): device path has no NUL", rec.Offset, rec.Length)
		return
	}
	if d := rec.DataOffset; d != 0 {
		if d < uint32(rec.PathEnd) || d >= uint32(rec.Length) {
			r.Fail(labelOffset, "health data record at offset %d (%s, length %d, device path ending at %d): device-specific data offset %d",
				rec.Offset, where, rec.Length, rec.PathEnd, d)
		}
	}
}
