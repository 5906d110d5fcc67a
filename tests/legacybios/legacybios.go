// Package legacybios checks the tables a legacy PC BIOS, or the
// compatibility support module (CSM) of a UEFI firmware, leaves in low
// memory for operating systems and boot loaders that predate ACPI: the
// extended BIOS data area (EBDA), the Intel MP table, the PCI IRQ routing
// table ($PIR), the legacy SMBIOS/DMI entry points, and the BIOS32 and
// Plug and Play headers. It reads the BIOS data area, 0xE0000–0xFFFFF,
// the EBDA and the MP configuration table through the legacy-bios input
// (/dev/mem live, recorded in snapshots), and compares the MP table's
// processors and I/O APICs with the MADT and the EBDA with the memory map.
//
// A machine that booted through UEFI and has none of these structures has
// no CSM: the check is then not applicable. Structures that are optional
// (an ACPI machine needs no MP table or $PIR) are reported as absent, not
// as failures.
package legacybios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/pcbios"
	"github.com/fwcheck/fwcheck/smbios"
	"github.com/fwcheck/fwcheck/tests"
)

const (
	specBDA    = "IBM PC/AT Technical Reference, BIOS data area (0x40E EBDA segment, 0x413 base memory size)"
	specMPFP   = "Intel MultiProcessor Specification 1.4 §4.1 (MP Floating Pointer Structure)"
	specMPCT   = "Intel MultiProcessor Specification 1.4 §4.2 (MP Configuration Table Header)"
	specMPBase = "Intel MultiProcessor Specification 1.4 §4.3 (Base MP Configuration Table Entries)"
	specPIR    = "Microsoft PCI IRQ Routing Table Specification 1.0 (the $PIR table format)"
	specSMBIOS = "DMTF DSP0134 (SMBIOS) §5.2.1 (32-bit entry point), §5.2.2 (64-bit entry point)"
	specBIOS32 = "Standard BIOS 32-bit Service Directory Proposal 0.4"
	specPnP    = "Plug and Play BIOS Specification 1.0A §4.4 (Installation Check)"
)

var (
	labelEBDAPointer = tests.NewLabel("EBDAPointerInvalid", tests.Medium, specBDA,
		"The BIOS data area's EBDA segment (0x40E) points outside 512-640 KiB, where an EBDA must lie. Boot loaders "+
			"and kernels that look for the MP table or reserve the EBDA follow this pointer; store the EBDA's real segment, "+
			"or 0 when there is none.")
	labelEBDASize = tests.NewLabel("EBDASizeInvalid", tests.Medium, specBDA,
		"The EBDA's first byte, its size in KiB, is 0 or makes the EBDA run past 640 KiB. Software that relocates "+
			"or reserves the EBDA uses that size; record the size the firmware actually allocated.")
	labelEBDANotReserved = tests.NewLabel("EBDANotReserved", tests.High, specBDA+"; ACPI 6.5 §15 (System Address Map Interfaces)",
		"Part of the EBDA lies in memory the firmware memory map reports as usable RAM, so the OS may hand it out "+
			"while SMM or the BIOS still writes there. Report the whole EBDA as reserved in the E820 map.")
	labelEBDABaseMem = tests.NewLabel("EBDABaseMemoryOverlap", tests.Medium, specBDA,
		"The BDA's base memory size (0x413, in KiB) reaches past the EBDA's start, so software that trusts it "+
			"(real-mode boot loaders) may place data over the EBDA. Lower the base memory size to the EBDA's address.")
	labelMPFPChecksum = tests.NewLabel("MPFloatingPointerChecksum", tests.Medium, specMPFP,
		"The MP floating pointer's bytes do not sum to zero. Operating systems that use the MP table skip a "+
			"pointer whose checksum fails and run with one CPU; fix the checksum byte at offset 10.")
	labelMPFPInvalid = tests.NewLabel("MPFloatingPointerInvalid", tests.Medium, specMPFP,
		"The MP floating pointer's fields are wrong: its length must be 1 (16 bytes), its revision 1 (MP 1.1) or "+
			"4 (MP 1.4), and it must either name a default configuration or give the configuration table's address.")
	labelMPCTChecksum = tests.NewLabel("MPConfigTableChecksum", tests.Medium, specMPCT,
		"The MP configuration table's base or extended checksum fails. Operating systems reject such a table; "+
			"recompute the checksums after the firmware edits the entries.")
	labelMPCTInvalid = tests.NewLabel("MPConfigTableInvalid", tests.Medium, specMPCT,
		"The MP configuration table is malformed (no PCMP signature where the floating pointer points, lengths "+
			"past its end, an unknown entry type, or an entry count that disagrees with the entries). Build the table "+
			"from entries of the specification's types and state its lengths and count exactly.")
	labelMPBSP = tests.NewLabel("MPBootProcessor", tests.Medium, specMPBase,
		"The MP table does not name exactly one enabled bootstrap processor, or gives two processors the same "+
			"local APIC ID. The OS starts the application processors by their IDs; list each CPU once with its "+
			"real APIC ID and flag the boot CPU alone as BSP.")
	labelMPCPUMismatch = tests.NewLabel("MPProcessorNotInMADT", tests.Medium, specMPBase+"; ACPI 6.5 §5.2.12.2 (Processor Local APIC)",
		"The MP table lists an enabled processor whose local APIC ID the MADT does not list as enabled. The two "+
			"descriptions of the same CPUs disagree; generate both from the CPUs actually present.")
	labelMPCPUMissing = tests.NewLabel("MPProcessorMissing", tests.Low, specMPBase+"; ACPI 6.5 §5.2.12.2 (Processor Local APIC)",
		"The MADT lists enabled processors that the MP table leaves out, so an OS booted without ACPI starts "+
			"fewer CPUs. Some firmware lists one CPU per package on purpose for old operating systems; otherwise "+
			"list every enabled CPU.")
	labelMPIOAPIC = tests.NewLabel("MPIOAPICMismatch", tests.Medium, specMPBase+"; ACPI 6.5 §5.2.12.3 (I/O APIC Structure)",
		"The MP table's I/O APICs (ID and address) differ from the MADT's. An OS programs interrupts through the "+
			"I/O APIC at the address given for that ID; describe the same I/O APICs in both tables.")
	labelMPLAPICAddr = tests.NewLabel("MPLocalAPICAddressMismatch", tests.Low, specMPCT+"; ACPI 6.5 §5.2.12",
		"The MP table's local APIC address differs from the MADT's. Both should give the address the CPUs' local "+
			"APICs actually decode (normally 0xFEE00000).")
	labelMPIntTarget = tests.NewLabel("MPInterruptUnknownTarget", tests.Low, specMPBase+" (I/O Interrupt Assignment Entries)",
		"An I/O interrupt assignment entry names a source bus or destination I/O APIC that no entry of the table "+
			"defines, so the OS cannot route that interrupt. Use the bus and I/O APIC IDs of the table's own entries.")
	labelPIRChecksum = tests.NewLabel("PIRChecksum", tests.Medium, specPIR,
		"The $PIR table's bytes do not sum to zero; operating systems that route PCI interrupts from it ignore "+
			"it then. Recompute the checksum byte (offset 31) over the whole table.")
	labelPIRInvalid = tests.NewLabel("PIRInvalid", tests.Medium, specPIR,
		"The $PIR header is wrong: the version must be 1.0 (0x0100) and the size 32 bytes plus 16 per entry, "+
			"within the BIOS area.")
	labelPIRNoIRQs = tests.NewLabel("PIRLinkWithoutIRQs", tests.Medium, specPIR,
		"A $PIR entry connects an interrupt pin to a link but allows no IRQ for it (bitmap 0), or allows IRQs for "+
			"an unconnected pin. The OS cannot route that pin; give each connected pin the IRQs its router can steer it to.")
	labelPIRReservedIRQ = tests.NewLabel("PIRReservedIRQ", tests.Low, specPIR,
		"A $PIR entry lets a PCI interrupt be routed to IRQ 0, 2 or 8, which the PC/AT architecture reserves for the "+
			"timer, the cascade and the RTC. Leave those IRQs out of the bitmaps.")
	labelPIRDuplicate = tests.NewLabel("PIRDuplicateDevice", tests.Low, specPIR,
		"Two $PIR entries describe the same PCI device (bus and device number); the OS uses one of them at random. "+
			"Describe each device once.")
	labelSMBIOSChecksum = tests.NewLabel("SMBIOSLegacyEntryPointInvalid", tests.Medium, specSMBIOS,
		"A legacy SMBIOS or DMI entry point in 0xF0000-0xFFFFF has a bad checksum, a bad intermediate \"_DMI_\" anchor "+
			"or checksum, or a wrong length. Tools and kernels that find SMBIOS by this scan then ignore the tables; "+
			"fix the entry point's checksums after filling it in.")
	labelSMBIOSMismatch = tests.NewLabel("SMBIOSLegacyEntryPointMismatch", tests.Medium, specSMBIOS,
		"The SMBIOS entry points in the F segment point at a different structure table than the one the kernel "+
			"found. Keep one SMBIOS table and point every entry point at it.")
	labelBIOS32Checksum = tests.NewLabel("BIOS32Checksum", tests.Medium, specBIOS32,
		"The BIOS32 service directory header's checksum fails; 32-bit callers (the PCI BIOS users) skip it. "+
			"Fix the checksum byte at offset 10.")
	labelBIOS32Invalid = tests.NewLabel("BIOS32Invalid", tests.Low, specBIOS32,
		"The BIOS32 service directory header's revision is not 0, its length is not one paragraph, or its entry "+
			"point lies outside the BIOS area 0xE0000-0xFFFFF.")
	labelPnPChecksum = tests.NewLabel("PnPChecksum", tests.Medium, specPnP,
		"The Plug and Play BIOS installation structure's checksum fails, so PnP-aware operating systems cannot use "+
			"the PnP BIOS calls. Fix the checksum byte at offset 8.")
	labelPnPInvalid = tests.NewLabel("PnPInvalid", tests.Low, specPnP,
		"The Plug and Play installation structure's version is not 0x10 or its length is not 0x21.")
)

// Check is the legacy-bios check.
var Check = &tests.Check{
	ID: "legacy-bios", Title: "legacy BIOS tables: EBDA, MP table vs the MADT, $PIR, SMBIOS/DMI entry points, BIOS32 and PnP headers",
	Category: tests.BIOS,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.LegacyBIOS},
	Optional: []input.Decl{input.MemoryMap, input.ACPITables, input.SMBIOS},
	Spec:     "Intel MultiProcessor Specification 1.4; PCI IRQ Routing Table Specification 1.0; Plug and Play BIOS Specification 1.0A",
	Labels: []*tests.Label{labelEBDAPointer, labelEBDASize, labelEBDANotReserved, labelEBDABaseMem,
		labelMPFPChecksum, labelMPFPInvalid, labelMPCTChecksum, labelMPCTInvalid, labelMPBSP, labelMPCPUMismatch,
		labelMPCPUMissing, labelMPIOAPIC, labelMPLAPICAddr, labelMPIntTarget,
		labelPIRChecksum, labelPIRInvalid, labelPIRNoIRQs, labelPIRReservedIRQ, labelPIRDuplicate,
		labelSMBIOSChecksum, labelSMBIOSMismatch, labelBIOS32Checksum, labelBIOS32Invalid, labelPnPChecksum, labelPnPInvalid},
	Run: run,
}

func run(p *tests.Pass) error {
	s := tests.Input(p, input.LegacyBIOS)
	if s.Area == nil {
		p.NotApplicable("the machine booted through UEFI and 0xE0000-0xFFFFF could not be read (%s); a UEFI firmware without a CSM keeps no legacy tables there", s.AreaErr)
		return nil
	}
	area := pcbios.Scan(s.Area, pcbios.AreaBase)
	ebdaAddr, ebdaOK := input.EBDAAddress(s.BDA)
	var ebdaScan *pcbios.Area
	if len(s.EBDA) > 0 {
		ebdaScan = pcbios.Scan(s.EBDA[:min(len(s.EBDA), 1024)], s.EBDAAddr)
	}
	if s.UEFI && area.Empty() && (ebdaScan == nil || ebdaScan.Empty()) {
		p.NotApplicable("UEFI firmware without a compatibility support module: no MP, $PIR, SMBIOS, DMI, BIOS32 or PnP structure in 0xE0000-0xFFFFF or the EBDA")
		return nil
	}
	checkEBDA(p, s, ebdaAddr, ebdaOK)
	checkMP(p, s, area, ebdaScan)
	checkPIR(p, area.PIR)
	checkSMBIOS(p, s, area)
	checkBIOS32(p, area.BIOS32)
	checkPnP(p, area.PnP)
	return nil
}

func checkEBDA(p *tests.Pass, s *input.LegacyBIOSState, addr uint64, ok bool) {
	if s.BDA == nil {
		p.NotChecked("the EBDA", "the BIOS data area could not be read", "run as root on the machine (the BDA is read through /dev/mem)")
		return
	}
	seg := uint16(s.BDA[0x0E]) | uint16(s.BDA[0x0F])<<8
	switch {
	case seg == 0:
		p.Info(nil, "no EBDA (the BDA's EBDA segment at 0x40E is 0)")
		return
	case !ok && s.UEFI:
		// Without a CSM the BDA is not the firmware's to fill.
		p.Info(nil, "the BDA's EBDA segment 0x%04x points outside 512-640 KiB; the machine booted through UEFI, which keeps no EBDA", seg)
		return
	case !ok:
		p.Fail(labelEBDAPointer, "the BDA's EBDA segment 0x%04x gives address 0x%x, outside 0x80000-0x9ffff", seg, addr)
		return
	case len(s.EBDA) == 0:
		p.NotChecked("the EBDA's size and reservation", "the EBDA could not be read", "run as root on the machine")
		return
	}
	before := p.Failures()
	kib := uint64(s.EBDA[0])
	end := addr + kib*1024 // exclusive
	if kib == 0 || end > pcbios.BaseMemoryEnd {
		p.Fail(labelEBDASize, "EBDA at 0x%x states a size of %d KiB (ending at 0x%x, 640 KiB is 0xa0000)", addr, kib, end)
		end = pcbios.BaseMemoryEnd
	}
	base := uint64(s.BDA[0x13]) | uint64(s.BDA[0x14])<<8
	if base*1024 > addr {
		p.Fail(labelEBDABaseMem, "the BDA's base memory size is %d KiB (to 0x%x), past the EBDA at 0x%x", base, base*1024, addr)
	}
	mm, err := tests.Load(p, input.MemoryMap)
	if err != nil || len(mm) == 0 {
		reason := "no firmware memory map"
		if err != nil {
			reason = err.Error()
		}
		p.NotChecked("the EBDA lies in reserved memory", reason, "run on the machine (the map is /sys/firmware/memmap)")
	} else {
		r := memmap.Range{Start: addr, End: end - 1}
		var reserved []string
		for _, mr := range mm {
			if !mr.Overlaps(r) {
				continue
			}
			if memmap.Usable(mr.Type) {
				p.Fail(labelEBDANotReserved, "EBDA 0x%x-0x%x overlaps usable RAM %s", r.Start, r.End, mr)
			} else {
				reserved = append(reserved, mr.String())
			}
		}
		if p.Failures() == before {
			p.Passed("EBDA at 0x%x, %d KiB, below 640 KiB and in reserved memory (%s); base memory %d KiB ends at or before it",
				addr, kib, strings.Join(reserved, ", "), base)
		}
		return
	}
	if p.Failures() == before {
		p.Passed("EBDA at 0x%x, %d KiB, below 640 KiB; base memory %d KiB ends at or before it", addr, kib, base)
	}
}

func checkMP(p *tests.Pass, s *input.LegacyBIOSState, area, ebda *pcbios.Area) {
	var fps []*pcbios.MPFloating
	if ebda != nil {
		fps = append(fps, ebda.MP...)
	}
	fps = append(fps, area.MP...)
	if len(fps) == 0 {
		p.Info(nil, "no MP floating pointer in the EBDA's first KiB or 0xF0000-0xFFFFF (the MP table is optional where ACPI describes the CPUs)")
		return
	}
	before := p.Failures()
	for _, f := range fps {
		if !f.ChecksumOK {
			p.Fail(labelMPFPChecksum, "MP floating pointer at 0x%x: checksum fails", f.Addr)
		}
		if f.Paragraphs != 1 || (f.Revision != 1 && f.Revision != 4) {
			p.Fail(labelMPFPInvalid, "MP floating pointer at 0x%x: length %d paragraphs (want 1), revision %d (want 1 or 4)", f.Addr, f.Paragraphs, f.Revision)
		}
		if !f.DefaultConfig() && f.ConfigAddr == 0 {
			p.Fail(labelMPFPInvalid, "MP floating pointer at 0x%x names neither a default configuration nor a configuration table", f.Addr)
		}
	}
	f := fps[0]
	if p.Failures() == before {
		p.Passed("MP floating pointer at 0x%x: checksum holds, revision 1.%d", f.Addr, f.Revision)
	}
	if f.DefaultConfig() {
		p.Info(nil, "the MP floating pointer names default configuration %d (no configuration table)", f.Features[0])
		return
	}
	if f.ConfigAddr == 0 {
		return
	}
	if s.MPConfig == nil {
		p.NotChecked("the MP configuration table", fmt.Sprintf("the table at 0x%x was not recorded", f.ConfigAddr), "take the snapshot again with this version of fwcheck")
		return
	}
	c, err := pcbios.ParseMPConfig(s.MPConfig)
	if err != nil {
		p.Fail(labelMPCTInvalid, "at 0x%x (from the floating pointer at 0x%x): %v", f.ConfigAddr, f.Addr, err)
		return
	}
	before = p.Failures()
	if !c.ChecksumOK {
		p.Fail(labelMPCTChecksum, "MP configuration table at 0x%x: base table checksum fails (%d bytes)", f.ConfigAddr, c.Length)
	}
	if !c.ExtChecksumOK {
		p.Fail(labelMPCTChecksum, "MP configuration table at 0x%x: extended table checksum fails (%d bytes)", f.ConfigAddr, c.ExtLength)
	}
	for _, pr := range c.Problems {
		p.Fail(labelMPCTInvalid, "MP configuration table at 0x%x: %s", f.ConfigAddr, pr)
	}
	checkMPEntries(p, c)
	if p.Failures() == before {
		p.Passed("MP configuration table at 0x%x (%q %q, revision 1.%d): checksums hold; %d processors, %d buses, %d I/O APICs, %d I/O interrupt entries",
			f.ConfigAddr, c.OEM, c.Product, c.Revision, len(c.Processors), len(c.Buses), len(c.IOAPICs), len(c.IOInts))
	}
	compareMADT(p, c)
}

func checkMPEntries(p *tests.Pass, c *pcbios.MPConfig) {
	bsps := 0
	seen := map[uint8]bool{}
	for _, cpu := range c.Processors {
		if cpu.Flags&pcbios.MPCPUEnabled == 0 {
			continue
		}
		if cpu.Flags&pcbios.MPCPUBSP != 0 {
			bsps++
		}
		if seen[cpu.LAPICID] {
			p.Fail(labelMPBSP, "two enabled processors have local APIC ID %d", cpu.LAPICID)
		}
		seen[cpu.LAPICID] = true
	}
	if bsps != 1 {
		p.Fail(labelMPBSP, "%d enabled processors are flagged as the bootstrap processor, not 1", bsps)
	}
	ioapics := map[uint8]bool{}
	for _, io := range c.IOAPICs {
		ioapics[io.ID] = true
	}
	for i, e := range c.IOInts {
		switch {
		case c.Bus(e.SrcBus) == nil:
			p.Fail(labelMPIntTarget, "I/O interrupt entry %d: source bus %d has no bus entry", i, e.SrcBus)
		case e.DstID != 0xFF && !ioapics[e.DstID]:
			p.Fail(labelMPIntTarget, "I/O interrupt entry %d (bus %d IRQ %d): destination I/O APIC %d has no I/O APIC entry", i, e.SrcBus, e.SrcIRQ, e.DstID)
		}
	}
}

func ids(m map[uint32]bool) string {
	var l []uint32
	for k := range m {
		l = append(l, k)
	}
	slices.Sort(l)
	var s []string
	for _, v := range l {
		s = append(s, fmt.Sprint(v))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}

func compareMADT(p *tests.Pass, c *pcbios.MPConfig) {
	ts, err := tests.Load(p, input.ACPITables)
	if err != nil || ts == nil {
		reason := "no ACPI tables"
		if err != nil {
			reason = err.Error()
		}
		p.NotChecked("the MP table agrees with the MADT", reason, "run as root on the machine")
		return
	}
	t := ts.First(acpi.SigMADT)
	if t == nil {
		p.Info(nil, "no MADT to compare the MP table with")
		return
	}
	madt, err := acpi.ParseMADT(t)
	if err != nil {
		p.NotChecked("the MP table agrees with the MADT", "the MADT does not parse: "+err.Error(), "see the madt check")
		return
	}
	before := p.Failures()
	mp, ac := map[uint32]bool{}, map[uint32]bool{}
	for _, cpu := range c.Processors {
		if cpu.Flags&pcbios.MPCPUEnabled != 0 {
			mp[uint32(cpu.LAPICID)] = true
		}
	}
	for _, l := range madt.LocalAPICs {
		if l.Flags&acpi.LAPICEnabled != 0 {
			ac[uint32(l.APICID)] = true
		}
	}
	for _, x := range madt.X2APICs {
		if x.Flags&acpi.LAPICEnabled != 0 && x.X2APICID < 0xFF {
			ac[x.X2APICID] = true
		}
	}
	extra, missing := map[uint32]bool{}, map[uint32]bool{}
	for id := range mp {
		if !ac[id] {
			extra[id] = true
		}
	}
	for id := range ac {
		if !mp[id] {
			missing[id] = true
		}
	}
	if len(extra) > 0 {
		p.Fail(labelMPCPUMismatch, "enabled in the MP table but not in the MADT: local APIC IDs %s (MP: %s; MADT: %s)", ids(extra), ids(mp), ids(ac))
	}
	htt := len(c.Processors) > 0
	for _, cpu := range c.Processors {
		htt = htt && cpu.Features&cpuidHTT != 0
	}
	switch {
	case len(missing) > 0 && len(extra) == 0 && htt:
		// SeaBIOS does this on purpose: operating systems of the MP era
		// count packages, and find the other logical CPUs by CPUID.
		p.Info(nil, "the MP table lists %d of the MADT's %d enabled processors (APIC IDs %s; MADT: %s), each with the CPUID HTT flag: one entry per package, the other logical processors found through CPUID",
			len(mp), len(ac), ids(mp), ids(ac))
	case len(missing) > 0:
		p.Warn(labelMPCPUMissing, "the MP table lists %d of the MADT's %d enabled processors: APIC IDs %s are missing (MP: %s; MADT: %s)",
			len(mp)-len(extra), len(ac), ids(missing), ids(mp), ids(ac))
	}
	type ioapic struct {
		id   uint8
		addr uint32
	}
	var mpIO, acIO []ioapic
	for _, io := range c.IOAPICs {
		if io.Flags&1 != 0 {
			mpIO = append(mpIO, ioapic{io.ID, io.Address})
		}
	}
	for _, io := range madt.IOAPICs {
		acIO = append(acIO, ioapic{io.ID, io.Address})
	}
	less := func(a, b ioapic) int { return int(a.id) - int(b.id) }
	slices.SortFunc(mpIO, less)
	slices.SortFunc(acIO, less)
	if !slices.Equal(mpIO, acIO) {
		str := func(l []ioapic) string {
			var s []string
			for _, x := range l {
				s = append(s, fmt.Sprintf("ID %d at 0x%x", x.id, x.addr))
			}
			if len(s) == 0 {
				return "none"
			}
			return strings.Join(s, ", ")
		}
		p.Fail(labelMPIOAPIC, "MP table I/O APICs: %s; MADT I/O APICs: %s", str(mpIO), str(acIO))
	}
	lapic := uint64(madt.LocalAPICAddress)
	if madt.LocalAPICOverride != 0 {
		lapic = madt.LocalAPICOverride
	}
	if uint64(c.LAPICAddr) != lapic {
		p.Fail(labelMPLAPICAddr, "MP table local APIC address 0x%x, MADT 0x%x", c.LAPICAddr, lapic)
	}
	if p.Failures() == before {
		p.Passed("the MP table agrees with the MADT: processors with APIC IDs %s enabled in both, %d I/O APICs (IDs and addresses), local APIC at 0x%x",
			ids(mp), len(mpIO), c.LAPICAddr)
	}
}

// cpuidHTT is CPUID.1:EDX bit 28, multiple logical processors per
// package, as a processor entry's feature flags carry it.
const cpuidHTT = 1 << 28

// reservedIRQs are IRQs a PCI link must not be routed to on a PC: the
// timer (0), the cascade (2) and the RTC (8).
const reservedIRQs = 1<<0 | 1<<2 | 1<<8

func irqList(bm uint16) string {
	var s []string
	for i := 0; i < 16; i++ {
		if bm&(1<<i) != 0 {
			s = append(s, fmt.Sprint(i))
		}
	}
	return strings.Join(s, ",")
}

func checkPIR(p *tests.Pass, pirs []*pcbios.PIR) {
	if len(pirs) == 0 {
		p.Info(nil, "no $PIR table in 0xF0000-0xFFFFF (optional where ACPI _PRT methods route PCI interrupts)")
		return
	}
	for _, t := range pirs {
		before := p.Failures()
		if !t.ChecksumOK {
			p.Fail(labelPIRChecksum, "$PIR at 0x%x: checksum over %d bytes fails", t.Addr, t.Size)
		}
		if t.Version != 0x0100 {
			p.Fail(labelPIRInvalid, "$PIR at 0x%x: version 0x%04x, not 0x0100", t.Addr, t.Version)
		}
		for _, pr := range t.Problems {
			p.Fail(labelPIRInvalid, "$PIR at 0x%x: %s", t.Addr, pr)
		}
		seen := map[[2]uint8]int{}
		byLink := map[[2]uint16][]string{}
		var order [][2]uint16
		for i, sl := range t.Slots {
			key := [2]uint8{sl.Bus, sl.Device()}
			if j, ok := seen[key]; ok {
				p.Fail(labelPIRDuplicate, "$PIR at 0x%x: entries %d and %d both describe bus %d device %d", t.Addr, j, i, sl.Bus, sl.Device())
			} else {
				seen[key] = i
			}
			for pin := 0; pin < 4; pin++ {
				link, bm := sl.Links[pin], sl.Bitmaps[pin]
				name := "INT" + string(rune('A'+pin)) + "#"
				if link == 0 && bm != 0 {
					p.Fail(labelPIRNoIRQs, "$PIR entry %d (bus %d device %d) %s: not connected, yet IRQs %s allowed", i, sl.Bus, sl.Device(), name, irqList(bm))
					continue
				}
				if link != 0 && (bm == 0 || bm&reservedIRQs != 0) {
					k := [2]uint16{uint16(link), bm}
					if byLink[k] == nil {
						order = append(order, k)
					}
					byLink[k] = append(byLink[k], fmt.Sprintf("entry %d (bus %d device %d) %s", i, sl.Bus, sl.Device(), name))
				}
			}
		}
		// One finding per link and bitmap: a link is one router input,
		// shared by every pin wired to it.
		for _, k := range order {
			pins := byLink[k]
			where := pins[0]
			if len(pins) > 1 {
				where = fmt.Sprintf("%s and %d more pins", pins[0], len(pins)-1)
			}
			if k[1] == 0 {
				p.Fail(labelPIRNoIRQs, "$PIR at 0x%x: link 0x%02x (%s) allows no IRQ", t.Addr, k[0], where)
			} else {
				p.Fail(labelPIRReservedIRQ, "$PIR at 0x%x: link 0x%02x (%s): bitmap 0x%04x allows IRQs %s", t.Addr, k[0], where, k[1], irqList(k[1]&reservedIRQs))
			}
		}
		if p.Failures() == before {
			p.Passed("$PIR at 0x%x: version 1.0, checksum holds, %d entries with consistent links and IRQ bitmaps; router at %02x:%02x.%d (%04x:%04x)",
				t.Addr, len(t.Slots), t.RouterBus, t.RouterDevFn>>3, t.RouterDevFn&7, t.RouterVendor, t.RouterDevice)
		}
	}
}

func checkSMBIOS(p *tests.Pass, s *input.LegacyBIOSState, area *pcbios.Area) {
	if len(area.SMBIOS) == 0 && len(area.DMI) == 0 {
		p.Info(nil, "no SMBIOS or DMI entry point in 0xF0000-0xFFFFF")
		return
	}
	before := p.Failures()
	var addrs []uint64
	var found []string
	for _, f := range area.SMBIOS {
		e, err := smbios.ParseEntry(f.Data)
		if err != nil {
			p.Fail(labelSMBIOSChecksum, "entry point at 0x%x: %v", f.Addr, err)
			continue
		}
		var bad []string
		if !e.ChecksumOK {
			bad = append(bad, "checksum fails")
		}
		if e.Bits == 32 {
			if !e.IntAnchorOK {
				bad = append(bad, "no \"_DMI_\" intermediate anchor at offset 0x10")
			}
			if !e.IntChecksumOK {
				bad = append(bad, "intermediate checksum fails")
			}
			if e.Length != 0x1F && e.Length != 0x1E {
				bad = append(bad, fmt.Sprintf("length 0x%x, not 0x1f", e.Length))
			}
		} else if e.Length != 0x18 {
			bad = append(bad, fmt.Sprintf("length 0x%x, not 0x18", e.Length))
		}
		if len(bad) > 0 {
			p.Fail(labelSMBIOSChecksum, "%d-bit SMBIOS %d.%d entry point at 0x%x: %s", e.Bits, e.Major, e.Minor, f.Addr, strings.Join(bad, "; "))
		}
		addrs = append(addrs, e.TableAddr)
		found = append(found, fmt.Sprintf("SMBIOS %d.%d (%d-bit) at 0x%x, table at 0x%x", e.Major, e.Minor, e.Bits, f.Addr, e.TableAddr))
	}
	for _, d := range area.DMI {
		if !d.ChecksumOK {
			p.Fail(labelSMBIOSChecksum, "legacy DMI entry point at 0x%x: checksum fails", d.Addr)
		}
		addrs = append(addrs, uint64(d.TableAddr))
		found = append(found, fmt.Sprintf("DMI %d.%d at 0x%x, table at 0x%x", d.BCDRevision>>4, d.BCDRevision&0xF, d.Addr, d.TableAddr))
	}
	if p.Failures() == before {
		p.Passed("legacy entry points hold: %s", strings.Join(found, "; "))
	}
	if s.UEFI {
		// The kernel found SMBIOS through the EFI system table; the CSM's
		// copy need not be the same table.
		return
	}
	st, err := tests.Load(p, input.SMBIOS)
	if err != nil || st == nil {
		return
	}
	k, err := smbios.ParseEntry(st.EntryPoint)
	if err != nil {
		return
	}
	if !slices.Contains(addrs, k.TableAddr) {
		slices.Sort(addrs)
		var l []string
		for _, a := range addrs {
			l = append(l, fmt.Sprintf("0x%x", a))
		}
		p.Fail(labelSMBIOSMismatch, "the kernel's entry point names the table at 0x%x; the F segment's name %s", k.TableAddr, strings.Join(l, ", "))
		return
	}
	p.Passed("the kernel's SMBIOS entry point names the same table (0x%x)", k.TableAddr)
}

func checkBIOS32(p *tests.Pass, hs []*pcbios.BIOS32) {
	if len(hs) == 0 {
		p.Info(nil, "no BIOS32 service directory in 0xE0000-0xFFFFF")
		return
	}
	for _, h := range hs {
		before := p.Failures()
		if !h.ChecksumOK {
			p.Fail(labelBIOS32Checksum, "BIOS32 header at 0x%x: checksum fails", h.Addr)
		}
		if h.Revision != 0 || h.Paragraphs != 1 {
			p.Fail(labelBIOS32Invalid, "BIOS32 header at 0x%x: revision %d (want 0), length %d paragraphs (want 1)", h.Addr, h.Revision, h.Paragraphs)
		}
		if h.Entry < pcbios.AreaBase || h.Entry >= pcbios.AreaBase+pcbios.AreaSize {
			p.Fail(labelBIOS32Invalid, "BIOS32 header at 0x%x: entry point 0x%x lies outside 0xE0000-0xFFFFF", h.Addr, h.Entry)
		}
		if p.Failures() == before {
			p.Passed("BIOS32 service directory at 0x%x: checksum holds, entry point 0x%x", h.Addr, h.Entry)
		}
	}
}

func checkPnP(p *tests.Pass, hs []*pcbios.PnP) {
	if len(hs) == 0 {
		p.Info(nil, "no Plug and Play BIOS installation structure in 0xF0000-0xFFFFF")
		return
	}
	for _, h := range hs {
		before := p.Failures()
		if !h.ChecksumOK {
			p.Fail(labelPnPChecksum, "$PnP at 0x%x: checksum over %d bytes fails", h.Addr, h.Length)
		}
		if h.Version != 0x10 || h.Length != pcbios.PnPLength {
			p.Fail(labelPnPInvalid, "$PnP at 0x%x: version 0x%02x (want 0x10), length 0x%02x (want 0x21)", h.Addr, h.Version, h.Length)
		}
		if p.Failures() == before {
			p.Passed("$PnP installation structure at 0x%x: version 1.0, checksum holds, real-mode entry %04x:%04x", h.Addr, h.RealSeg, h.RealOff)
		}
	}
}
