// Package ecdt checks the Embedded Controller Boot Resources Table (ACPI
// 6.5 §5.2.15): revision, the command/status and data registers, the EC_ID
// string, the GPE bit against the FADT's GPE blocks, and, when the tables
// hold AML, that EC_ID names an embedded controller device (_HID PNP0C09)
// in the namespace, since the OS uses the ECDT's registers before the
// namespace is loaded and binds them to that device afterwards.
//
// The two registers are byte ports (ACPI 6.5 §12.2): a GAS that gives
// another bit width, a bit offset or an access size wider than a byte is
// ECDTRegisterSize (bit width 0 and access size 0, "not given", are
// accepted; every corpus ECDT gives width 8, offset 0, access 0).
// Left out on purpose: the UID against the device's _UID (Linux and
// Windows ignore it, and the device's _UID may be computed from hardware
// state), and the registers against the device's _CRS (the hpet-crs
// style comparison needs the evaluator's fake region values, which _CRS
// of an EC rarely depends on; a later check can add it).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	ECDTMalformed         none
//	ECDTRevision          none
//	ECDTRegister          none
//	ECDTRegistersEqual    none
//	ECDTRegisterSize      none
//	ECDTECID              2: core/252425BAB640 core/9192B985B108
//	ECDTIDNotInNamespace  none
//	ECDTGPEBit            none
package ecdt

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.15"

var (
	labelMalformed = tests.NewLabel("ECDTMalformed", tests.Medium, "ACPI 6.5 §5.2.15",
		"The ECDT is shorter than its fixed fields and an EC_ID, or its Length disagrees with its bytes. "+
			"Publish the whole table.")
	labelRevision = tests.NewLabel("ECDTRevision", tests.Low, "ACPI 6.5 §5.2.15",
		"The ECDT revision is not 1, the only one defined. Set Revision to 1.")
	labelRegister = tests.NewLabel("ECDTRegister", tests.High, "ACPI 6.5 §5.2.15",
		"The EC command/status or data register is at address 0 or in an address space other than "+
			"System I/O or System Memory, so the OS cannot talk to the embedded controller during early "+
			"boot (battery, thermal and hotkey methods that read EC fields fail). Give the EC's real "+
			"ports (usually 0x66 and 0x62), or publish no ECDT.")
	labelSameRegister = tests.NewLabel("ECDTRegistersEqual", tests.High, "ACPI 6.5 §5.2.15",
		"The EC command/status and data registers are the same address; an EC has two distinct ports. "+
			"Give each its own address.")
	labelRegisterSize = tests.NewLabel("ECDTRegisterSize", tests.Low, "ACPI 6.5 §5.2.15; §12.2; §5.2.3.2",
		"The EC command/status or data register's Generic Address Structure gives a bit width other "+
			"than 8, a bit offset, or an access size wider than a byte; the EC's registers are byte ports. "+
			"Give bit width 8, bit offset 0 and access size 1 (byte) or 0.")
	labelID = tests.NewLabel("ECDTECID", tests.Medium, "ACPI 6.5 §5.2.15",
		"EC_ID is empty, not NUL-terminated, or not a fully qualified path (it must start at the root, "+
			"\\), so the OS cannot tie the ECDT to the EC device in the namespace (ACPICA refuses a "+
			"relative path with no scope). Give the device's full path, for example \\_SB.PCI0.LPCB.EC0, "+
			"ending in a NUL.")
	labelNamespace = tests.NewLabel("ECDTIDNotInNamespace", tests.Medium, "ACPI 6.5 §5.2.15",
		"EC_ID names no object in the namespace, or an object that is not an embedded controller "+
			"device (_HID PNP0C09); the OS then runs the EC without its _GPE and _Qxx methods until it "+
			"finds the real device. Give the path of the EC device as the DSDT declares it.")
	labelGPE = tests.NewLabel("ECDTGPEBit", tests.Medium, "ACPI 6.5 §5.2.15; §5.2.9",
		"The ECDT's GPE bit is beyond the GPE blocks the FADT describes, so the OS cannot enable the "+
			"EC's SCI. Give the GPE the EC's SCI is wired to.")
)

var unconfirmed = map[*tests.Label]bool{
	labelMalformed: true, labelRevision: true, labelRegister: true, labelSameRegister: true,
	labelNamespace: true, labelGPE: true, labelRegisterSize: true,
}

// Check is the ecdt check.
var Check = &tests.Check{
	ID:       "ecdt",
	Title:    "ECDT embedded controller registers, GPE and EC_ID in the namespace",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelMalformed, labelRevision, labelRegister, labelSameRegister, labelRegisterSize, labelID, labelNamespace, labelGPE},
	Run:      run,
}

func ecPort(g acpi.GAS) bool {
	return g.Address != 0 && (g.Space == acpi.SpaceSystemIO || g.Space == acpi.SpaceSystemMemory)
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	for _, t := range tablecheck.Tables(p, acpi.SigECDT, "no ECDT table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		e, err := acpi.ParseECDT(t)
		if err != nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1)
		for _, reg := range []struct {
			name string
			g    acpi.GAS
		}{{"command/status", e.Control}, {"data", e.Data}} {
			if !ecPort(reg.g) {
				r.Fail(labelRegister, "%s register %s", reg.name, reg.g)
			} else if (reg.g.BitWidth != 0 && reg.g.BitWidth != 8) || reg.g.BitOffset != 0 || reg.g.AccessSize > 1 {
				r.Fail(labelRegisterSize, "%s register %s", reg.name, reg.g)
			}
		}
		if ecPort(e.Control) && e.Control.Space == e.Data.Space && e.Control.Address == e.Data.Address {
			r.Fail(labelSameRegister, "both registers at 0x%x", e.Control.Address)
		}
		if e.ID == "" || !e.IDTerminated || !strings.HasPrefix(e.ID, "\\") {
			r.Fail(labelID, "EC_ID %q (NUL-terminated: %t, fully qualified: %t)", e.ID, e.IDTerminated, strings.HasPrefix(e.ID, "\\"))
		}
		if e.ID != "" {
			checkNamespace(p, r, ts, e.ID)
		}
		checkGPE(r, ts, e.GPEBit)
		r.Done("command/status %s, data %s, GPE 0x%02x, EC_ID %q", e.Control, e.Data, e.GPEBit, e.ID)
	}
	return nil
}

func checkNamespace(p *tests.Pass, r *tablecheck.T, ts *acpi.Tables, id string) {
	if len(ts.Get(acpi.SigDSDT)) == 0 {
		p.NotChecked(r.Name+": EC_ID against the namespace", "the tables hold no DSDT (this dump has the static tables only)", "give a dump with the DSDT and SSDTs")
		return
	}
	l := tests.Input(p, amlcheck.Namespace) // the run's one namespace, shared with the AML checks
	n := l.NS.Lookup(id)
	if n == nil {
		r.Fail(labelNamespace, "EC_ID %s is not in the namespace", id)
		return
	}
	if n.External {
		// Declared by External references only: the table that defines it
		// is not in the set (an SSDT loaded at run time, or left out of
		// the dump), so whether it is an EC cannot be told.
		p.NotChecked(r.Name+": whether "+id+" is an embedded controller", "the tables declare it only as External; the table that defines it is not among them", "give a dump with every SSDT, including those loaded at run time")
		return
	}
	res := amlcheck.Eval(l.NewEvaluator(), n, "_HID")
	switch {
	case res == nil:
		r.Fail(labelNamespace, "EC_ID %s has no _HID: it is not a device", id)
		return
	case res.Err != nil || res.V == nil:
		p.NotChecked(r.Name+": the _HID of "+id, fmt.Sprintf("it does not evaluate statically: %v", res.Err), "")
		return
	}
	if hid, ok := amlcheck.ID(res.V); ok && !strings.EqualFold(hid, "PNP0C09") {
		r.Fail(labelNamespace, "EC_ID %s has _HID %s, not PNP0C09", id, hid)
	}
}

// checkGPE compares the GPE bit with the GPE numbers of the FADT's GPE0
// and GPE1 blocks: each block's length is split in half between status
// and enable registers, 8 GPEs per status byte.
func checkGPE(r *tablecheck.T, ts *acpi.Tables, bit uint8) {
	f, err := ts.FADT()
	if err != nil || f.HWReduced() {
		return
	}
	gpe0 := int(f.GPE0BlkLen) / 2 * 8
	if f.GPE0Blk == 0 && f.XGPE0Blk.Address == 0 {
		gpe0 = 0
	}
	in1 := f.GPE1BlkLen > 0 && (f.GPE1Blk != 0 || f.XGPE1Blk.Address != 0) &&
		int(bit) >= int(f.GPE1Base) && int(bit) < int(f.GPE1Base)+int(f.GPE1BlkLen)/2*8
	if int(bit) >= gpe0 && !in1 {
		r.Fail(labelGPE, "GPE 0x%02x; the FADT's GPE0 block holds GPEs 0-%d and its GPE1 block %d GPEs from %d", bit, gpe0-1, int(f.GPE1BlkLen)/2*8, f.GPE1Base)
	}
}
