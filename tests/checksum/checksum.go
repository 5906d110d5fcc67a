// Package checksum checks that every ACPI table, and the RSDP with its
// extended checksum, sums to zero.
//
// fwts' checksum test, rule by rule: a table's checksum → ACPITableChecksum,
// the RSDP's first and extended checksums → RSDPChecksum and
// RSDPExtendedChecksum. Nothing of it is left out; the FACS, which has no
// checksum, is not summed.
package checksum

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

var (
	labelTableChecksum = tests.NewLabel("ACPITableChecksum", tests.Medium, "ACPI 6.5 §5.2.6",
		"The bytes of this table do not add up to zero (mod 256), so its Checksum byte is stale: "+
			"the firmware changed the table after computing it, or computed it over the wrong length. "+
			"Operating systems may reject or distrust the table. Recompute the checksum after the "+
			"last change to the table, over exactly Length bytes.")
	labelRSDPChecksum = tests.NewLabel("RSDPChecksum", tests.High, "ACPI 6.5 §5.2.5.3",
		"The first 20 bytes of the RSDP do not sum to zero. An OS that searches for the RSDP "+
			"ignores a pointer with a bad checksum and may then find no ACPI tables at all. "+
			"Set the Checksum field so that bytes 0-19 add up to zero.")
	labelRSDPExtChecksum = tests.NewLabel("RSDPExtendedChecksum", tests.High, "ACPI 6.5 §5.2.5.3",
		"The RSDP's Extended Checksum does not make the whole structure (Length bytes) sum to zero. "+
			"ACPI 2.0+ operating systems check it before using the XSDT address. Recompute it after "+
			"filling in the XSDT address and Length.")
)

// Check is the checksum check.
var Check = &tests.Check{
	ID:       "checksum",
	Title:    "ACPI table and RSDP checksums",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     "ACPI 6.5 §5.2.5.3, §5.2.6",
	Labels:   []*tests.Label{labelTableChecksum, labelRSDPChecksum, labelRSDPExtChecksum},
	Run:      run,
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	checked, bad := 0, 0
	for _, t := range ts.List {
		if t.Signature == acpi.SigRSDP {
			continue
		}
		if !t.HasHeader() {
			continue // the FACS has no checksum
		}
		n := t.DeclaredLength()
		if n < acpi.HeaderSize || int(n) > len(t.Raw) {
			p.NotChecked(t.Name()+" checksum", fmt.Sprintf("its header gives length %d and %d bytes are present", n, len(t.Raw)), "")
			continue
		}
		checked++
		if sum := acpi.Sum(t.Raw[:n]); sum != 0 {
			bad++
			p.Fail(labelTableChecksum, "%s: checksum byte is 0x%02X, expected 0x%02X (the %d bytes sum to 0x%02X)",
				t.Name(), t.Raw[9], t.Raw[9]-sum, n, sum)
		}
	}
	if checked > 0 && bad == 0 {
		p.Passed("%d tables sum to zero", checked)
	}
	checkRSDPChecksums(p, ts)
	return nil
}

func checkRSDPChecksums(p *tests.Pass, ts *acpi.Tables) {
	t := ts.First(acpi.SigRSDP)
	if t == nil {
		reason, remedy := ts.RootAbsence(acpi.SigRSDP)
		p.NotChecked("RSDP checksums", reason, remedy)
		return
	}
	r, err := acpi.ParseRSDP(t.Raw)
	if err != nil {
		p.NotChecked("RSDP checksums", err.Error(), "")
		return
	}
	if sum := acpi.Sum(t.Raw[:acpi.RSDPv1Size]); sum != 0 {
		p.Fail(labelRSDPChecksum, "RSDP: checksum byte is 0x%02X, expected 0x%02X (bytes 0-19 sum to 0x%02X)",
			r.Checksum, r.Checksum-sum, sum)
	} else {
		p.Passed("RSDP: 20-byte checksum holds")
	}
	if r.Revision < 2 {
		return
	}
	n := int(r.Length)
	if n < acpi.RSDPv2Size || n > len(t.Raw) {
		// A bad Length is the acpi-tables check's to report; check the
		// ACPI 2.0 structure itself.
		n = acpi.RSDPv2Size
	}
	if sum := acpi.Sum(t.Raw[:n]); sum != 0 {
		p.Fail(labelRSDPExtChecksum, "RSDP: extended checksum byte is 0x%02X, expected 0x%02X (the %d bytes sum to 0x%02X)",
			r.ExtendedChecksum, r.ExtendedChecksum-sum, n, sum)
	} else {
		p.Passed("RSDP: extended checksum holds")
	}
}
