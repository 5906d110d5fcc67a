// Package tpm2table checks the ACPI tables that describe the TPM to the OS:
// TPM2 (TPM 2.0: start method, control area, event log area) and TCPA (TPM
// 1.2: event log area).
//
// What is checked was confirmed on the TPM2 and TCPA tables of the corpus's
// real machines and of QEMU: revision 3 tables are 52 bytes; revision 4
// ones 52 bytes, or 76 with the 12 bytes of start-method parameters and the
// log area (LAML, LASA); a revision 5 Pluton table is 68 bytes. The table's
// length is therefore only required to hold the fixed fields; the log area
// is judged when present.
package tpm2table

import (
	"encoding/binary"
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const spec = "TCG ACPI Specification 1.3 §8 (TPM2 table), §7 (TCPA table)"

var (
	labelLength = tests.NewLabel("TPM2TableLength", tests.High, spec,
		"The TPM2 table is shorter than its 52 bytes of fixed fields (or TCPA than its 50), so the "+
			"OS cannot find the TPM's interface or the event log. Publish the complete table.")
	labelStart = tests.NewLabel("TPM2StartMethod", tests.High, spec,
		"The TPM2 table's start method is 0 (not allowed) or a value the TCG ACPI specification "+
			"reserves, so the OS does not know how to send commands to the TPM (Linux's tpm_crb and "+
			"tpm_tis drivers refuse it). Give the start method of the TPM's real interface: 6 for "+
			"FIFO/TIS, 7 for CRB, 2 or 8 for CRB with an ACPI start method.")
	labelControl = tests.NewLabel("TPM2ControlArea", tests.High, spec,
		"The start method uses a command/response buffer, but the control area address is 0: the OS "+
			"cannot reach the TPM. Give the physical address of the CRB control area.")
	labelLogArea = tests.NewLabel("TPMLogArea", tests.Medium, spec,
		"The table gives a log area length (LAML) but its start address (LASA) is 0 or all ones, so "+
			"the OS reading the event log through ACPI reads from a bogus address or finds none. "+
			"Give the address of the memory the firmware logged into, or set both fields to 0.")
)

// Check is the tpm2-table check.
var Check = &tests.Check{
	ID:       "tpm2-table",
	Title:    "TPM2 and TCPA ACPI tables: start method, control area, log area",
	Category: tests.TPM,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelLength, labelStart, labelControl, labelLogArea},
	Run:      run,
}

// startMethods names the start methods the TCG ACPI specification defines;
// crb marks those that use a command/response buffer with a control area.
var startMethods = map[uint32]struct {
	name string
	crb  bool
}{
	2:  {"ACPI start method", true},
	6:  {"FIFO/TIS (memory-mapped I/O)", false},
	7:  {"command response buffer (CRB)", true},
	8:  {"CRB with ACPI start method", true},
	11: {"CRB with ARM SMC", true},
	13: {"CRB with Pluton", true},
	15: {"CRB with ARM FF-A", true},
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	tpm2, tcpa := ts.Get("TPM2"), ts.Get("TCPA")
	if len(tpm2) == 0 && len(tcpa) == 0 {
		p.NotApplicable("no TPM2 or TCPA table: the firmware describes no TPM")
		return nil
	}
	for _, t := range tpm2 {
		checkTPM2(p, t)
	}
	for _, t := range tcpa {
		checkTCPA(p, t)
	}
	return nil
}

func checkTPM2(p *tests.Pass, t *acpi.Table) {
	r := t.Raw
	if len(r) < 52 {
		p.Fail(labelLength, "%s: %d bytes, revision %d", t.Name(), len(r), t.Header.Revision)
		return
	}
	before := p.Failures()
	ctrl := binary.LittleEndian.Uint64(r[40:])
	start := binary.LittleEndian.Uint32(r[48:])
	sm, known := startMethods[start]
	switch {
	case start == 0:
		p.Fail(labelStart, "%s: start method 0 (not allowed)", t.Name())
	case !known:
		p.Fail(labelStart, "%s: start method %d is reserved", t.Name(), start)
	case sm.crb && ctrl == 0:
		p.Fail(labelControl, "%s: start method %d (%s) with control area address 0", t.Name(), start, sm.name)
	}
	summary := fmt.Sprintf("%s: revision %d, %d bytes, start method %d", t.Name(), t.Header.Revision, len(r), start)
	if known {
		summary += " (" + sm.name + ")"
	}
	summary += fmt.Sprintf(", control area 0x%x", ctrl)
	if len(r) >= 76 {
		laml, lasa := binary.LittleEndian.Uint32(r[64:]), binary.LittleEndian.Uint64(r[68:])
		summary += fmt.Sprintf(", log area %d bytes at 0x%x", laml, lasa)
		logArea(p, t, laml, lasa)
	} else {
		summary += ", no log area (the event log comes from the UEFI configuration table, if at all)"
	}
	if p.Failures() == before {
		p.Passed("%s", summary)
	} else {
		p.Info(nil, "%s", summary)
	}
}

func logArea(p *tests.Pass, t *acpi.Table, laml uint32, lasa uint64) {
	if laml != 0 && (lasa == 0 || lasa == ^uint64(0)) {
		p.Fail(labelLogArea, "%s: log area of %d bytes at address 0x%x", t.Name(), laml, lasa)
	}
}

func checkTCPA(p *tests.Pass, t *acpi.Table) {
	r := t.Raw
	if len(r) < 50 {
		p.Fail(labelLength, "%s: %d bytes, revision %d", t.Name(), len(r), t.Header.Revision)
		return
	}
	class := binary.LittleEndian.Uint16(r[36:])
	if class != 0 {
		// The server table places its log area fields elsewhere.
		p.Info(nil, "%s: revision %d, %d bytes, server platform class: its fields are not checked", t.Name(), t.Header.Revision, len(r))
		p.NotChecked(t.Name()+" (server class)", "the server TCPA layout is not decoded", "")
		return
	}
	before := p.Failures()
	laml, lasa := binary.LittleEndian.Uint32(r[38:]), binary.LittleEndian.Uint64(r[42:])
	logArea(p, t, laml, lasa)
	summary := fmt.Sprintf("%s: revision %d, client, log area %d bytes at 0x%x", t.Name(), t.Header.Revision, laml, lasa)
	if p.Failures() == before {
		p.Passed("%s", summary)
	} else {
		p.Info(nil, "%s", summary)
	}
}
