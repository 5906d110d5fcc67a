package smbios

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	lib "github.com/fwcheck/fwcheck/smbios"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// st builds a structure: type, handle, formatted area after the header
// (length = 4 + len(body)), strings.
func st(typ uint8, handle uint16, body []byte, strs ...string) []byte {
	b := []byte{typ, byte(4 + len(body)), 0, 0}
	binary.LittleEndian.PutUint16(b[2:], handle)
	b = append(b, body...)
	for _, s := range strs {
		b = append(append(b, s...), 0)
	}
	if len(strs) == 0 {
		b = append(b, 0)
	}
	return append(b, 0)
}

func sysInfo(uuid byte, strs ...string) []byte {
	body := make([]byte, 0x1B-4)
	body[0], body[1], body[2], body[3] = 1, 2, 3, 4 // manufacturer, product, version, serial
	for i := 4; i < 20; i++ {
		body[i] = uuid + byte(i)
		if uuid == 0 || uuid == 0xFF {
			body[i] = uuid
		}
	}
	return st(1, 0x100, body, strs...)
}

// table returns a clean SMBIOS 2.8 table: every required structure.
func table(sys []byte, skip ...uint8) []byte {
	var b []byte
	add := func(typ uint8, s []byte) {
		for _, k := range skip {
			if k == typ {
				return
			}
		}
		b = append(b, s...)
	}
	add(0, st(0, 0, append([]byte{1, 2, 0, 0xE8, 3, 0}, make([]byte, 0x12-10)...), "Vendor Inc.", "1.0", "01/02/2024"))
	add(1, sys)
	add(3, st(3, 0x300, []byte{1, 3, 0, 0, 0}, "Vendor Inc."))
	add(4, st(4, 0x400, append([]byte{1}, make([]byte, 0x1A-5)...), "CPU0"))
	add(7, st(7, 0x700, make([]byte, 0x0F-4)))
	add(9, st(9, 0x900, append([]byte{1}, make([]byte, 0x0C-5)...), "PCIe x16"))
	add(16, st(16, 0x1000, make([]byte, 0x0F-4)))
	dimm := make([]byte, 0x15-4)
	binary.LittleEndian.PutUint16(dimm[0x0C-4:], 512) // MiB
	add(17, st(17, 0x1100, dimm))
	add(19, st(19, 0x1300, make([]byte, 0x0F-4)))
	add(32, st(32, 0x2000, make([]byte, 0x0B-4)))
	add(127, st(127, 0xFEFF, nil))
	return b
}

func count(t []byte) int { return len(lib.Walk(t).Structures) }

// entry32 builds a 32-bit entry point for a table.
func entry32(t []byte, major, minor uint8) []byte {
	e := make([]byte, 0x1F)
	copy(e, "_SM_")
	e[5], e[6], e[7] = 0x1F, major, minor
	copy(e[0x10:], "_DMI_")
	binary.LittleEndian.PutUint16(e[0x16:], uint16(len(t)))
	binary.LittleEndian.PutUint32(e[0x18:], 0xF0000)
	binary.LittleEndian.PutUint16(e[0x1C:], uint16(count(t)))
	var s byte
	for _, x := range e[0x10:0x1F] {
		s += x
	}
	e[0x15] = -s
	s = 0
	for _, x := range e {
		s += x
	}
	e[4] = -s
	return e
}

func machine(ep, tb []byte, vendor string) *input.Machine {
	return machineRAM(ep, tb, vendor, 0x1FFDFFFF)
}

// machineRAM has usable RAM from 1 MiB to ramEnd.
func machineRAM(ep, tb []byte, vendor string, ramEnd uint64) *input.Machine {
	fs := fstest.MapFS{
		"sys/firmware/dmi/tables/smbios_entry_point": {Data: ep},
		"sys/firmware/dmi/tables/DMI":                {Data: tb},
		"sys/firmware/memmap/0/start":                {Data: []byte("0x100000\n")},
		"sys/firmware/memmap/0/end":                  {Data: []byte(fmt.Sprintf("0x%x\n", ramEnd))},
		"sys/firmware/memmap/0/type":                 {Data: []byte("System RAM\n")},
	}
	if vendor != "" {
		fs["sys/class/dmi/id/sys_vendor"] = &fstest.MapFile{Data: []byte(vendor + "\n")}
	}
	return input.New(checktest.Snapshot{FS: fs}, input.Options{})
}

func TestSMBIOS(t *testing.T) {
	good := sysInfo(0x11, "Vendor Inc.", "Model 7", "1.0", "SN12345")
	cases := []struct {
		name string
		ep   func(tb []byte) []byte
		tb   []byte
		want []string
	}{
		{"clean", nil, table(good), nil},
		{"placeholders", nil, table(sysInfo(0x11, "To Be Filled By O.E.M.", "System Product Name", "Default string", "0123456789")),
			[]string{"SMBIOSPlaceholderString", "SMBIOSPlaceholderString", "SMBIOSPlaceholderString", "SMBIOSPlaceholderString"}},
		{"UUID zeros", nil, table(sysInfo(0, "A", "B", "C", "D")), []string{"SMBIOSUUIDUnset"}},
		{"UUID ones", nil, table(sysInfo(0xFF, "A", "B", "C", "D")), []string{"SMBIOSUUIDUnset"}},
		{"string index past the set", nil, table(sysInfo(0x11, "A", "B", "C")), []string{"SMBIOSBadStringIndex"}},
		{"no cache, no slots", nil, table(good, 7, 9), []string{"SMBIOSMissingStructure", "SMBIOSMissingSlots"}},
		{"no end of table", func(tb []byte) []byte { return entry32(tb, 2, 8) }, table(good, 127), []string{"SMBIOSNoEndOfTable"}},
		{"bad checksum", func(tb []byte) []byte { e := entry32(tb, 2, 8); e[4]++; return e }, table(good), []string{"SMBIOSEntryChecksum"}},
		{"bad intermediate checksum", func(tb []byte) []byte { e := entry32(tb, 2, 8); e[0x15]++; e[4]--; return e }, table(good), []string{"SMBIOSEntryChecksum"}},
		{"count", func(tb []byte) []byte {
			e := entry32(tb, 2, 8)
			e[0x1C]++
			e[0x15]-- // both checksums still hold
			return e
		}, table(good), []string{"SMBIOSStructureCount"}},
		{"2.2 is not held to the required list", func(tb []byte) []byte { return entry32(tb, 2, 2) }, table(good, 7, 9, 32), nil},
		{"duplicate handle", nil, append(st(1, 0x100, nil), table(good)...), []string{"SMBIOSDuplicateHandle", "SMBIOSStructureLength"}},
		{"unterminated strings", nil, append(table(good, 127), 0x7F, 4, 0, 0, 'x'), []string{"SMBIOSStringsUnterminated"}},
		{"length past the end", nil, append(table(good, 127), 0x7F, 40, 0, 0), []string{"SMBIOSStructureLength"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := entry32(c.tb, 2, 8)
			if c.ep != nil {
				ep = c.ep(c.tb)
			}
			r := checktest.Run(t, Check, machine(ep, c.tb, ""))
			assert.Equal(t, c.want, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
			if c.want == nil {
				assert.Equal(t, tests.StatusPassed, r.Status)
			}
		})
	}
}

// TestVMExplains: in a QEMU guest the missing cache and slot structures
// and the unset UUID are the hypervisor's choice: explained, not failed.
func TestVMExplains(t *testing.T) {
	tb := table(sysInfo(0, "QEMU", "Standard PC", "pc", "x"), 7, 9)
	r := checktest.Run(t, Check, machine(entry32(tb, 2, 8), tb, "QEMU"))
	assert.Equal(t, []string{"SMBIOSUUIDUnset", "SMBIOSMissingStructure", "SMBIOSMissingSlots"}, checktest.FailLabels(r))
	for _, f := range r.Findings {
		if f.Kind == tests.KindFail {
			assert.Contains(t, f.Explained, "virtual machine (DMI: QEMU")
		}
	}
	assert.NotEqual(t, tests.StatusFailed, r.Status)
}

// TestVMFromTable: with no DMI in sysfs and no kernel log, the table's own
// System Information names the hypervisor, and that is the evidence given.
func TestVMFromTable(t *testing.T) {
	tb := table(sysInfo(0, "QEMU", "Standard PC (Q35 + ICH9, 2009)", "pc-q35", "x"), 7, 9)
	r := checktest.Run(t, Check, machine(entry32(tb, 2, 8), tb, ""))
	assert.Equal(t, []string{"SMBIOSUUIDUnset", "SMBIOSMissingStructure", "SMBIOSMissingSlots"}, checktest.FailLabels(r))
	for _, f := range r.Findings {
		if f.Kind == tests.KindFail {
			assert.Contains(t, f.Explained, "virtual machine (SMBIOS System Information: QEMU Standard PC (Q35 + ICH9, 2009))")
		}
	}
	assert.NotEqual(t, tests.StatusFailed, r.Status)
	// A real vendor's table is not taken for a VM.
	tb = table(sysInfo(0x11, "Vendor Inc.", "Model 7", "1.0", "SN1"), 7)
	r = checktest.Run(t, Check, machine(entry32(tb, 2, 8), tb, ""))
	f := checktest.FindingWith(r, "SMBIOSMissingStructure")
	require.NotNil(t, f)
	assert.Empty(t, f.Explained)
}

func TestMemorySize(t *testing.T) {
	tb := table(sysInfo(0x11, "A", "B", "C", "D"))
	for _, c := range []struct {
		end  uint64
		want []string
	}{{0x1FFFFFFF, nil}, {0x3FFFFFFF, []string{"SMBIOSMemorySizeMismatch"}}, {0x0FFFFFFF, []string{"SMBIOSMemorySizeMismatch"}}} {
		r := checktest.Run(t, Check, machineRAM(entry32(tb, 2, 8), tb, "", c.end))
		assert.Equal(t, c.want, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
	}
}

func TestNotAnEntryPoint(t *testing.T) {
	r := checktest.Run(t, Check, machine([]byte("garbage"), nil, ""))
	assert.Equal(t, []string{"SMBIOSEntryPointInvalid"}, checktest.FailLabels(r))
}

func FuzzCheck(f *testing.F) {
	tb := table(sysInfo(0x11, "A", "B", "C", "D"))
	f.Add(entry32(tb, 2, 8), tb)
	f.Add([]byte("_SM3_\x00\x18\x03\x02\x00\x01\x00\x00\x10\x00\x00\x00\x00\x0f\x00\x00\x00\x00\x00"), tb[:40])
	f.Fuzz(func(t *testing.T, ep, tb []byte) {
		r := tests.RunOne(&tests.Env{Machine: machine(ep, tb, "")}, Check)
		if r.Status == tests.StatusAborted {
			t.Fatalf("aborted: %s", r.Reason)
		}
	})
}

// entry64 builds an SMBIOS 3 (64-bit) entry point with the given
// Structure Table Maximum Size.
func entry64(maxSize uint32, major, minor uint8) []byte {
	e := make([]byte, 0x18)
	copy(e, "_SM3_")
	e[6], e[7], e[8], e[10] = 0x18, major, minor, 1
	binary.LittleEndian.PutUint32(e[0xC:], maxSize)
	binary.LittleEndian.PutUint64(e[0x10:], 0x7F000000)
	var s byte
	for _, x := range e {
		s += x
	}
	e[5] = -s
	return e
}

// TestSMBIOS3MaximumSize: the 64-bit entry point's size is a maximum. A
// table exactly that long is valid (the case fwts' dmicheck wrongly
// rejects, and what QEMU builds), one shorter too; structures running past
// it are reported.
func TestSMBIOS3MaximumSize(t *testing.T) {
	tb := table(sysInfo(1, "Acme", "Box"))
	for _, c := range []struct {
		name string
		max  int
		warn bool
	}{{"equal", len(tb), false}, {"larger", len(tb) + 64, false}, {"smaller", len(tb) - 1, true}} {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, machine(entry64(uint32(c.max), 3, 2), tb, ""))
			var got []tests.Finding
			for _, f := range r.Findings {
				if f.Label == "SMBIOS3TableMaximumSize" {
					got = append(got, f)
				}
			}
			if !c.warn {
				assert.Empty(t, got, tests.Render([]tests.Result{r}))
				assert.Contains(t, tests.Render([]tests.Result{r}), fmt.Sprintf("within the maximum size %d", c.max))
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, tests.KindWarning, got[0].Kind)
			assert.Contains(t, got[0].Message, fmt.Sprintf("end at byte %d, past the 64-bit entry point's maximum size %d", len(tb), c.max))
		})
	}
}

// TestMemoryFromIOMem: an arm64 kernel has no /sys/firmware/memmap (only
// x86 fills it), so the memory devices are held to /proc/iomem's
// top-level System RAM, laid out as on QEMU's virt board with AAVMF (the
// runtime services' regions are top-level "reserved").
func TestMemoryFromIOMem(t *testing.T) {
	tb := table(sysInfo(0x11, "Vendor Inc.", "Model 7", "1.0", "SN12345"))
	iomem := func(ramEnd uint64) string {
		return "09000000-09000fff : pl011@9000000\n" +
			"40000000-5bc9ffff : System RAM\n" +
			"  40210000-41a6ffff : Kernel code\n" +
			"5bca0000-5bd1ffff : reserved\n" +
			fmt.Sprintf("5bd20000-%08x : System RAM\n", ramEnd) +
			"  5c000000-5c0fffff : reserved\n"
	}
	run := func(ramEnd uint64) tests.Result {
		fs := fstest.MapFS{
			"sys/firmware/dmi/tables/smbios_entry_point": {Data: entry32(tb, 2, 8)},
			"sys/firmware/dmi/tables/DMI":                {Data: tb},
			"proc/iomem":                                 {Data: []byte(iomem(ramEnd))},
		}
		return checktest.Run(t, Check, input.New(checktest.Snapshot{FS: fs}, input.Options{}))
	}
	// 512 MiB installed; 0x40000000-0x5fffffff less 0.5 MiB reserved.
	r := run(0x5fffffff)
	assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))
	assert.NotNil(t, findingContaining(r, "1 memory devices (512 MiB) agree with /proc/iomem's 511 MiB of usable RAM"), "%+v", r.Findings)
	// 2 GiB of RAM against 512 MiB of memory devices.
	r = run(0xbfffffff)
	assert.Equal(t, []string{"SMBIOSMemorySizeMismatch"}, checktest.FailLabels(r))
	assert.NotNil(t, findingContaining(r, "/proc/iomem has 2047 MiB of usable RAM"), "%+v", r.Findings)

	// Neither source: not checked, as before.
	fs := fstest.MapFS{
		"sys/firmware/dmi/tables/smbios_entry_point": {Data: entry32(tb, 2, 8)},
		"sys/firmware/dmi/tables/DMI":                {Data: tb},
		"proc/iomem":                                 {Data: []byte("00000000-00000000 : System RAM\n")},
	}
	r = checktest.Run(t, Check, input.New(checktest.Snapshot{FS: fs}, input.Options{}))
	if assert.Len(t, r.Unchecked, 1) {
		assert.Equal(t, "memory devices match the memory map", r.Unchecked[0].What)
	}
}

func findingContaining(r tests.Result, s string) *tests.Finding {
	for i := range r.Findings {
		if strings.Contains(r.Findings[i].Message, s) {
			return &r.Findings[i]
		}
	}
	return nil
}
