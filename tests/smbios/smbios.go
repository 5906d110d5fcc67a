// Package smbios checks the SMBIOS tables: the entry point (anchor, length,
// checksums), the structure table (structure lengths, string-set
// terminators, string references, unique handles, the End-of-Table
// structure, the structure count), placeholder strings left from the BIOS
// vendor's template, unset system UUIDs, and the structures the SMBIOS
// specification requires.
//
// fwts' dmicheck test is the reference for what to look at. The rules of
// it matched here, restated: the entry point checksum (and the 32-bit
// form's intermediate "_DMI_" checksum) must sum to zero; each structure
// must be at least as long as its header and must not run past the table,
// and its strings must be terminated; string numbers must refer to strings
// the structure has; strings in the BIOS, system, baseboard and chassis
// structures must not be template text such as "To Be Filled By O.E.M." or
// "Default string"; the system UUID must not be all zeros or all ones.
// Beyond dmicheck: duplicate handles, the missing End-of-Table, the
// 32-bit entry point's structure count, the required structures, and the
// memory devices' (type 17) total against the memory map's usable RAM.
//
// Required structures: DSP0134 (since 2.3, in its conformance guidelines)
// requires BIOS (0), System (1), Enclosure (3), Processor (4), Cache (7),
// System Slots (9), Physical Memory Array (16), Memory Device (17), Memory
// Array Mapped Address (19) and System Boot (32). Tables older than 2.3
// are not held to the list. A missing System Slots structure is low
// severity (slot-less designs omit it), and in a virtual machine the
// hypervisor's choice explains what is missing (QEMU provides no Cache or
// System Slots structures).
package smbios

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/memmap"
	lib "github.com/fwcheck/fwcheck/smbios"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

const spec = "DMTF DSP0134 (SMBIOS)"

var (
	labelEntry = tests.NewLabel("SMBIOSEntryPointInvalid", tests.High, spec+" §5.2",
		"The SMBIOS entry point is malformed (its length field or intermediate anchor is wrong), so an OS may "+
			"not find the structure table. Publish an entry point exactly as the specification lays it out.")
	labelEntrySum = tests.NewLabel("SMBIOSEntryChecksum", tests.Medium, spec+" §5.2",
		"An SMBIOS entry point checksum does not sum to zero. Strict parsers reject the tables and the OS "+
			"loses the machine's inventory. Recompute the checksum after the last change to the entry point.")
	labelCount = tests.NewLabel("SMBIOSStructureCount", tests.Low, spec+" §5.2.1",
		"The 32-bit entry point states a different number of structures than the table holds. Update the count "+
			"when structures are added or removed.")
	labelLength = tests.NewLabel("SMBIOSStructureLength", tests.Medium, spec+" §6.1.2",
		"A structure's length is shorter than its header or than its type requires, or runs past the end of "+
			"the table. Parsers lose this and every following structure: fix the length byte.")
	labelStrings = tests.NewLabel("SMBIOSStringsUnterminated", tests.Medium, spec+" §6.1.3",
		"A structure's string set lacks its double-NUL terminator within the table, so the next structure "+
			"cannot be found. End every string set with an extra NUL (two NULs when there are no strings).")
	labelStrIndex = tests.NewLabel("SMBIOSBadStringIndex", tests.Low, spec+" §6.1.3",
		"A string field refers to a string number the structure does not have. Tools show garbage or nothing: "+
			"set the field to 0 for \"no string\" or add the string.")
	labelHandle = tests.NewLabel("SMBIOSDuplicateHandle", tests.Medium, spec+" §6.1.2",
		"Two structures share a handle. Handles are how structures refer to each other (memory devices to their "+
			"array, for one), so references become ambiguous. Give each structure its own handle.")
	labelEnd = tests.NewLabel("SMBIOSNoEndOfTable", tests.Low, spec+" §7.45",
		"The table does not end with an End-of-Table (type 127) structure. Add one.")
	labelPlaceholder = tests.NewLabel("SMBIOSPlaceholderString", tests.Low, spec+" §7.1-7.4",
		"An identification string still holds the BIOS vendor's template text. Asset management, support tools "+
			"and OS quirk tables key on these strings: fill in the real manufacturer, product, version and serial "+
			"number, or leave the string out.")
	labelUUID = tests.NewLabel("SMBIOSUUIDUnset", tests.Low, spec+" §7.2.1",
		"The system UUID is all zeros (present but not set) or all ones (not present). Deployment and licensing "+
			"tools identify machines by it: program a unique UUID per unit in manufacturing.")
	labelMissing = tests.NewLabel("SMBIOSMissingStructure", tests.Medium, spec+" §6.2 (required structures)",
		"A structure the SMBIOS specification requires is missing, so the OS and inventory tools cannot report "+
			"that part of the machine. Publish it.")
	labelMemSize = tests.NewLabel("SMBIOSMemorySizeMismatch", tests.Low, spec+" §7.18 (Memory Device)",
		"The memory devices (type 17) add up to a size the firmware memory map contradicts: more usable RAM than "+
			"installed, or less than half of it. Inventory tools and the OS report the wrong amount; describe "+
			"every populated slot with its real size.")
	labelMaxSize = tests.NewLabel("SMBIOS3TableMaximumSize", tests.Medium, spec+" §5.2.2 (64-bit entry point)",
		"The structures of an SMBIOS 3 table run past the Structure Table Maximum Size its 64-bit entry point "+
			"gives, so an OS that reads no further than that size (Linux does) loses the last structures and the "+
			"End-of-Table. Make the maximum size cover every structure up to and including type 127; a size equal "+
			"to the table's is right.")
	labelMissingSlots = tests.NewLabel("SMBIOSMissingSlots", tests.Low, spec+" §6.2 (required structures)",
		"There is no System Slots (type 9) structure, which the specification requires. Describe the board's "+
			"expansion slots, or confirm the design has none.")
)

// Check is the smbios check.
var Check = &tests.Check{
	ID: "smbios", Title: "SMBIOS entry point, structure table, strings and required structures",
	Category: tests.BIOS,
	Inputs:   []input.Decl{input.SMBIOS},
	Optional: []input.Decl{input.DMI, input.KernelLog, input.CPUInfo, input.MemoryMap, input.IOMem},
	Spec:     spec,
	Labels: []*tests.Label{labelEntry, labelEntrySum, labelCount, labelLength, labelStrings, labelStrIndex,
		labelHandle, labelEnd, labelPlaceholder, labelUUID, labelMissing, labelMissingSlots, labelMemSize, labelMaxSize},
	Run: run,
}

// required are the structure types DSP0134 requires from version 2.3 on.
var required = []uint8{0, 1, 3, 4, 7, 9, 16, 17, 19, 32}

var typeNames = map[uint8]string{0: "BIOS Information", 1: "System Information", 2: "Baseboard", 3: "System Enclosure",
	4: "Processor Information", 7: "Cache Information", 9: "System Slots", 16: "Physical Memory Array",
	17: "Memory Device", 19: "Memory Array Mapped Address", 32: "System Boot Information", 127: "End-of-Table"}

// stringFields lists, per type, the offsets of string fields worth
// checking for references and placeholders, with their names.
var stringFields = map[uint8][]struct {
	off  int
	name string
}{
	0:  {{4, "vendor"}, {5, "BIOS version"}, {8, "BIOS release date"}},
	1:  {{4, "manufacturer"}, {5, "product name"}, {6, "version"}, {7, "serial number"}, {0x19, "SKU number"}, {0x1A, "family"}},
	2:  {{4, "manufacturer"}, {5, "product"}, {6, "version"}, {7, "serial number"}, {8, "asset tag"}},
	3:  {{4, "manufacturer"}, {6, "version"}, {7, "serial number"}, {8, "asset tag"}},
	4:  {{4, "socket designation"}, {7, "manufacturer"}, {0x10, "version"}},
	17: {{0x10, "device locator"}, {0x17, "manufacturer"}, {0x18, "serial number"}, {0x1A, "part number"}},
}

// placeholders are template strings BIOS vendors ship (compared without
// case and surrounding blanks).
var placeholders = []string{
	"To Be Filled By O.E.M.", "Default string", "System Product Name", "System manufacturer",
	"System Version", "System Serial Number", "Base Board Serial Number", "Chassis Serial Number",
	"0123456789", "123456789", "Type1ProductConfigId", "Type2 - Board Serial Number",
}

func isPlaceholder(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range placeholders {
		if strings.EqualFold(s, p) {
			return true
		}
	}
	return false
}

func vmWhy(p *tests.Pass) string {
	dmi, _ := tests.Load(p, input.DMI)
	var recs []klog.Record
	recs, _ = tests.KernelRecords(p)
	var cpus []cpuinfo.CPU
	cpus, _ = tests.Load(p, input.CPUInfo)
	return vm.Evidence(dmi, recs, cpus)
}

// tableVM names a virtual machine from the table's own System Information
// (type 1) when no other input shows one: a snapshot without sysfs DMI or
// a kernel log still carries the hypervisor's manufacturer and product.
func tableVM(t *lib.Table) string {
	sys := t.Of(1)
	if len(sys) == 0 || len(sys[0].Data) < 6 {
		return ""
	}
	maker, _ := sys[0].String(sys[0].Data[4])
	product, _ := sys[0].String(sys[0].Data[5])
	id := maker + " " + product
	if klog.EnvFromLog([]klog.Record{{Text: "DMI: " + id}}).VM == "" {
		return ""
	}
	return "virtual machine (SMBIOS System Information: " + id + ")"
}

func run(p *tests.Pass) error {
	raw := tests.Input(p, input.SMBIOS)
	e, err := lib.ParseEntry(raw.EntryPoint)
	if err != nil {
		p.Fail(labelEntry, "%v", err)
		return nil
	}
	ver := fmt.Sprintf("%d.%d", e.Major, e.Minor)
	want := map[int]int{32: 0x1F, 64: 0x18}[e.Bits]
	entryOK := true
	if e.Length != want && !(e.Bits == 32 && e.Length == 0x1E) { // 0x1E: a known 2.1 misreading, tolerated by all parsers
		p.Fail(labelEntry, "%d-bit entry point length %d, expected %d", e.Bits, e.Length, want)
		entryOK = false
	}
	if !e.IntAnchorOK {
		p.Fail(labelEntry, "32-bit entry point: no _DMI_ intermediate anchor at offset 0x10")
		entryOK = false
	}
	if !e.ChecksumOK {
		p.Fail(labelEntrySum, "%d-bit entry point checksum does not sum to zero", e.Bits)
		entryOK = false
	}
	if e.Bits == 32 && e.IntAnchorOK && !e.IntChecksumOK {
		p.Fail(labelEntrySum, "32-bit entry point intermediate (_DMI_) checksum does not sum to zero")
		entryOK = false
	}
	if entryOK {
		p.Passed("SMBIOS %s %d-bit entry point: length and checksums hold", ver, e.Bits)
	}

	t := lib.Walk(raw.Table)
	before := p.Failures()
	for _, pr := range t.Problems {
		switch pr.Kind {
		case "length":
			p.Fail(labelLength, "offset 0x%x: %s", pr.Offset, pr.Msg)
		case "strings":
			p.Fail(labelStrings, "offset 0x%x: %s", pr.Offset, pr.Msg)
		case "handle":
			p.Fail(labelHandle, "%s", pr.Msg)
		}
	}
	for i := range t.Structures {
		s := &t.Structures[i]
		if m, ok := lib.MinLength[s.Type]; ok && int(s.Length) < m {
			p.Fail(labelLength, "type %d (%s) structure, handle 0x%04x: length %d, the type needs at least %d",
				s.Type, typeNames[s.Type], s.Handle, s.Length, m)
		}
		for _, f := range stringFields[s.Type] {
			if f.off >= int(s.Length) {
				continue
			}
			idx := s.Data[f.off]
			str, ok := s.String(idx)
			if !ok {
				p.Fail(labelStrIndex, "type %d (%s) handle 0x%04x: %s refers to string %d of %d",
					s.Type, typeNames[s.Type], s.Handle, f.name, idx, len(s.Str))
				continue
			}
			if s.Type <= 3 && isPlaceholder(str) {
				p.Fail(labelPlaceholder, "type %d (%s) handle 0x%04x: %s is %q", s.Type, typeNames[s.Type], s.Handle, f.name, str)
			}
		}
	}
	if len(t.Problems) == 0 && t.EndOfTable && e.Bits == 32 && int(e.Count) != len(t.Structures) {
		p.Fail(labelCount, "the entry point states %d structures; the table holds %d", e.Count, len(t.Structures))
	}
	if !t.EndOfTable && len(t.Problems) == 0 {
		p.Fail(labelEnd, "%d structures and no type 127 at the end", len(t.Structures))
	}
	if p.Failures() == before {
		p.Passed("%d structures (%d bytes): lengths, strings, string references and handles are sound", len(t.Structures), len(raw.Table))
	}

	checkMaxSize(p, e, t, len(raw.Table))
	checkUUID(p, t)
	checkMemory(p, t)

	why := vmWhy(p)
	if why == "" {
		why = tableVM(t)
	}
	if e.Version() < 203 {
		p.Info(nil, "SMBIOS %s predates the required-structure list of version 2.3: not held to it", ver)
	} else {
		missing := 0
		for _, typ := range required {
			if len(t.Of(typ)) > 0 {
				continue
			}
			missing++
			l := labelMissing
			if typ == 9 {
				l = labelMissingSlots
			}
			w := why
			if w != "" {
				w += ": the hypervisor decides which structures a guest gets"
			}
			p.Explained(l, w, "no type %d (%s) structure (required since SMBIOS 2.3; this table is %s)", typ, typeNames[typ], ver)
		}
		if missing == 0 {
			p.Passed("every structure SMBIOS %s requires is present (types 0, 1, 3, 4, 7, 9, 16, 17, 19, 32)", ver)
		}
	}
	return nil
}

// checkMaxSize holds the structures of a 64-bit (SMBIOS 3) table within
// the entry point's Structure Table Maximum Size. The size is a bound,
// not the length: a table exactly that long is right (fwts' dmicheck
// rejects that case; it is valid, and QEMU's tables are built so). The
// label is a warning until a real table that breaks it is seen.
func checkMaxSize(p *tests.Pass, e *lib.Entry, t *lib.Table, n int) {
	if e.Bits != 64 || !t.EndOfTable {
		return
	}
	used := n - t.Trailing
	if used > int(e.TableLength) {
		p.Warn(labelMaxSize, "the structures end at byte %d, past the 64-bit entry point's maximum size %d", used, e.TableLength)
		return
	}
	p.Passed("SMBIOS 3 structures end at byte %d, within the maximum size %d", used, e.TableLength)
}

// checkUUID judges the system UUID.
func checkUUID(p *tests.Pass, t *lib.Table) {
	uuid, ok := t.SystemUUID()
	if !ok {
		return // no UUID field (SMBIOS 2.0) or no System Information: judged elsewhere
	}
	zero, ones := true, true
	for _, b := range uuid {
		zero = zero && b == 0
		ones = ones && b == 0xFF
	}
	switch {
	case zero:
		p.Explained(labelUUID, uuidWhy(p, t), "system UUID is all zeros (present but not set)")
	case ones:
		p.Explained(labelUUID, uuidWhy(p, t), "system UUID is all ones (not present)")
	default:
		p.Passed("system UUID %s is set", uuid)
	}
}

func uuidWhy(p *tests.Pass, t *lib.Table) string {
	w := vmWhy(p)
	if w == "" {
		w = tableVM(t)
	}
	if w != "" {
		return w + ": the guest's UUID is what the VM was started with (QEMU: -uuid)"
	}
	return ""
}

// checkMemory compares the memory devices' sizes with the usable RAM of
// the firmware memory map: usable RAM may fall short of what is installed
// (firmware reservations, graphics memory, the MMIO hole's lost RAM) but
// not by half, and cannot exceed it beyond 64 MiB of rounding. A table
// the walk could not finish may hide devices, so it is not compared.
// Without /sys/firmware/memmap, which only x86 kernels fill (from the
// E820 map), the top-level System RAM ranges of /proc/iomem stand in: on
// arm64 they are the UEFI memory map's RAM, less what the kernel must not
// map (the runtime services' regions).
func checkMemory(p *tests.Pass, t *lib.Table) {
	const what = "memory devices match the memory map"
	src := "the memory map"
	mm, err := tests.Load(p, input.MemoryMap)
	if err != nil {
		io, ierr := tests.Load(p, input.IOMem)
		ram := topLevelRAM(io)
		if ierr != nil || len(ram) == 0 {
			p.NotChecked(what, err.Error(), p.Machine().Remedy(err, "run as root"))
			return
		}
		mm, src = ram, "/proc/iomem"
	}
	devs := t.Of(17)
	if len(devs) == 0 {
		return // a missing type 17 is reported as a missing structure
	}
	if len(t.Problems) > 0 {
		p.NotChecked(what, "the structure table is malformed (see its failures), so memory devices past the defect may be missing", "")
		return
	}
	var installed, usable uint64
	unknown := 0
	for _, d := range devs {
		n, ok := d.MemoryDeviceSize()
		if !ok {
			unknown++
			continue
		}
		installed += n
	}
	if unknown > 0 {
		p.NotChecked(what, fmt.Sprintf("%d of %d memory devices state no size (unknown, or a structure too short for the field)", unknown, len(devs)), "")
		return
	}
	for _, r := range mm {
		if r.Type == "System RAM" && r.End >= r.Start {
			usable += r.End - r.Start + 1
		}
	}
	switch {
	case installed == 0:
		p.NotChecked("memory devices match the memory map", "no memory device states a size", "")
	case usable > installed+64<<20 || usable < installed/2:
		p.Fail(labelMemSize, "%d memory devices add up to %d MiB; %s has %d MiB of usable RAM", len(devs), installed>>20, src, usable>>20)
	default:
		p.Passed("%d memory devices (%d MiB) agree with %s's %d MiB of usable RAM", len(devs), installed>>20, src, usable>>20)
	}
}

// topLevelRAM returns the top-level System RAM resources of /proc/iomem
// (nested ones are parts of those).
func topLevelRAM(io []memmap.Resource) []memmap.Range {
	var out []memmap.Range
	for _, r := range io {
		if r.Depth == 0 && r.Type == "System RAM" {
			out = append(out, r.Range)
		}
	}
	return out
}
