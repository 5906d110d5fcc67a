// Package pcct checks the Platform Communications Channel Table (ACPI
// 6.5 §14.1): its revision, global flags and reserved bytes, every
// subspace walked by its own length, each subspace type's length (types
// 0 and 1: 62 bytes; 2: 90; 3 and 4: 164; 5: 96), reserved bytes and
// reserved platform interrupt flag bits, the doorbell register of the
// generic and HW-reduced subspaces (types 0 to 2: present, in System
// Memory or System I/O space), the shared memory range (a base, and for
// types 0 to 2 room for its 8-byte header), and the platform
// interrupt flag against the subspace type: when the table says the
// platform interrupts on command completion, a subspace of type 2, 3 or
// 4 whose interrupt is level-triggered must give the acknowledge
// register the OS clears it with. Subspace types ACPI 6.5 does not
// define are information.
//
// Left out on purpose: the doorbell and registers of types 3 to 5 (their
// registers may be absent, all-zero GAS, when the subspace signals
// otherwise), the platform interrupt GSIV (which interrupts are valid is
// the MADT's and the platform's to say; 0 is a valid GSIV on x86),
// nominal latency and access rates (any value is allowed), and PCC
// register references from the namespace (`_CPC` and PCC operation
// regions name subspaces by index; that is the AML checks' ground).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	PCCTMalformed       none
//	PCCTRevision        none
//	PCCTReserved        none
//	PCCTSubspaceLength  none
//	PCCTSubspaceSize    none
//	PCCTDoorbell        none
//	PCCTSharedMemory    none
//	PCCTInterruptAck    none
package pcct

import (
	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §14.1"

var (
	labelMalformed = tests.NewLabel("PCCTMalformed", tests.Medium, spec,
		"The PCCT is shorter than its 48-byte fixed part or its Length disagrees with its bytes. "+
			"Publish the whole table with a correct Length.")
	labelRevision = tests.NewLabel("PCCTRevision", tests.Low, spec,
		"The PCCT revision is not 1 or 2, the ones defined (2 since ACPI 6.2). Set the revision "+
			"the table's layout follows.")
	labelReserved = tests.NewLabel("PCCTReserved", tests.Low, spec,
		"A reserved field of the PCCT or a subspace, a reserved global flag bit (31:1) or a reserved "+
			"platform interrupt flag bit (7:2) is not zero. Clear it.")
	labelSubLength = tests.NewLabel("PCCTSubspaceLength", tests.Medium, spec+".2",
		"A subspace has a length shorter than its Type and Length bytes or runs past the end of the "+
			"table, so the OS stops reading the subspaces there and the channels after it are lost. "+
			"Give each subspace its real length.")
	labelSize = tests.NewLabel("PCCTSubspaceSize", tests.Medium, spec+".2",
		"A subspace's length is not the one its type defines (types 0 and 1: 62 bytes; 2: 90; 3 and "+
			"4: 164; 5: 96), so the OS reads its registers from the wrong place or rejects the channel. "+
			"Use the type's length.")
	labelDoorbell = tests.NewLabel("PCCTDoorbell", tests.Medium, spec+".3",
		"A generic or HW-reduced subspace's doorbell register is empty or not in System Memory or "+
			"System I/O space, the only spaces the specification allows for it, so the OS cannot ring "+
			"the platform and no command on the channel completes. Give the doorbell's real address "+
			"in one of those spaces.")
	labelMemory = tests.NewLabel("PCCTSharedMemory", tests.Medium, spec+".3",
		"A subspace's shared memory range has base 0, or (generic and HW-reduced subspaces) a length "+
			"under 8 bytes, too short for the signature, command and status fields every such region "+
			"starts with. Give the range's real base and length.")
	labelAck = tests.NewLabel("PCCTInterruptAck", tests.Medium, spec+".5",
		"The PCCT says the platform interrupts on command completion (global flag bit 0), and a "+
			"subspace of type 2, 3 or 4 has a level-triggered platform interrupt but no platform "+
			"interrupt acknowledge register: the OS cannot clear the interrupt, which then fires "+
			"without end. Give the acknowledge register, or make the interrupt edge-triggered.")
	allLabels = []*tests.Label{labelMalformed, labelRevision, labelReserved, labelSubLength, labelSize, labelDoorbell, labelMemory, labelAck}
)

// confirmed: none; no linuxhw machine and no QEMU configuration ships a
// PCCT.
var confirmed = []*tests.Label{}

// Check is the pcct check.
var Check = &tests.Check{
	ID:       "pcct",
	Title:    "PCCT communication subspaces: lengths, doorbells, shared memory and interrupt acknowledge",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   allLabels,
	Run:      run,
}

func run(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(allLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigPCCT, "no PCCT table (the platform has no communication channel; it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		pc, err := acpi.ParsePCCT(t)
		if pc == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1, 2)
		if pc.Flags&^acpi.PCCTPlatformIntFlag != 0 || pc.Reserved != 0 {
			r.Fail(labelReserved, "global flags 0x%08x, reserved 0x%016x", pc.Flags, pc.Reserved)
		}
		r.Walk(labelSubLength, err)
		r.NotRead(pc.NotRead)
		interrupts := pc.Flags&acpi.PCCTPlatformIntFlag != 0
		for i, s := range pc.Subspaces {
			check(r, i, s, interrupts)
		}
		r.Done("revision %d, %d subspaces, platform interrupt %v", t.Header.Revision, len(pc.Subspaces), interrupts)
	}
	return nil
}

func check(r *tablecheck.T, i int, s acpi.PCCTSubspace, interrupts bool) {
	size := acpi.PCCTSubspaceSize(s.Type)
	if size == 0 {
		r.Info("subspace %d (type %d at offset %d, length %d) is of a reserved type: not interpreted", i, s.Type, s.Offset, s.Length)
		return
	}
	if s.Length != size {
		r.Fail(labelSize, "subspace %d (type %d at offset %d) has length %d; the type is %d bytes", i, s.Type, s.Offset, s.Length, size)
	}
	if s.Short {
		return
	}
	if s.Reserved != 0 || s.IntFlags&^3 != 0 {
		r.Fail(labelReserved, "subspace %d (type %d): reserved bytes 0x%x, platform interrupt flags 0x%02x", i, s.Type, s.Reserved, s.IntFlags)
	}
	if s.Type <= acpi.PCCTHWReduced2 {
		d := s.Doorbell
		if d.IsZero() || d.Address == 0 || (d.Space != acpi.SpaceSystemMemory && d.Space != acpi.SpaceSystemIO) {
			r.Fail(labelDoorbell, "subspace %d (type %d): doorbell %s", i, s.Type, d)
		}
	}
	if s.Base == 0 || (s.Type <= acpi.PCCTHWReduced2 && s.Size < 8) {
		r.Fail(labelMemory, "subspace %d (type %d): shared memory base 0x%x, length %d", i, s.Type, s.Base, s.Size)
	}
	if interrupts && s.Type >= acpi.PCCTHWReduced2 && s.Type <= acpi.PCCTExtendedSlave &&
		s.IntFlags&acpi.PCCTIntModeEdge == 0 && s.Ack.IsZero() {
		r.Fail(labelAck, "subspace %d (type %d): platform interrupt %d level-triggered (flags 0x%02x), acknowledge register %s",
			i, s.Type, s.Interrupt, s.IntFlags, s.Ack)
	}
}
