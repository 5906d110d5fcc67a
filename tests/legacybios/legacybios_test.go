package legacybios

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/pcbios"
	"github.com/fwcheck/fwcheck/pcbios/pcbiostest"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// The structures below follow the layouts of the specifications the check
// cites; the addresses and values are those SeaBIOS 1.16 uses on QEMU's pc
// machine (MP floating pointer 0xf5ba0, configuration table 0xf5bb0,
// $PIR 0xf5c80, SMBIOS 0xf59f0, BIOS32 0xf6040, $PnP 0xf6060, EBDA
// 0x9fc00 of 1 KiB, I/O APIC 0 at 0xfec00000), as the end-to-end boot
// records them.

type machine struct {
	area    []byte
	bda     []byte
	ebda    []byte
	mp      []byte
	uefi    bool
	madt    []byte
	memmap  []memmap.Range
	smbios  []byte // sysfs entry point
	noMemap bool
}

func seabios() *machine {
	m := &machine{area: make([]byte, pcbios.AreaSize), bda: make([]byte, 256), ebda: make([]byte, 1024)}
	binary.LittleEndian.PutUint16(m.bda[0x0E:], 0x9FC0)
	binary.LittleEndian.PutUint16(m.bda[0x13:], 639)
	m.ebda[0] = 1
	m.put(0xF5BA0, mpFloating(0xF5BB0))
	m.mp = mpConfig(0xFEE00000, mpCPU(0, 3, 0), mpCPU(1, 1, 0), mpBus(0, "PCI"), mpBus(1, "ISA"), mpIOAPIC(0, 0xFEC00000), mpIOInt(1, 1, 0, 1))
	m.put(0xF5C80, pir(0xDEF8))
	m.put(0xF59F0, smbios2(0xF5A10))
	m.smbios = smbios2(0xF5A10)
	m.put(0xF6040, bios32(0xFD26C))
	m.put(0xF6060, pnp())
	m.madt = checktest.MADT(3, checktest.LAPIC(0, 0, 1), checktest.LAPIC(1, 1, 1), checktest.IOAPIC(0, 0xFEC00000))
	m.memmap = []memmap.Range{{Start: 0, End: 0x9FBFF, Type: "System RAM"}, {Start: 0x9FC00, End: 0x9FFFF, Type: "Reserved"},
		{Start: 0xF0000, End: 0xFFFFF, Type: "Reserved"}, {Start: 0x100000, End: 0x7FFDFFFF, Type: "System RAM"}}
	return m
}

func (m *machine) put(addr uint64, b []byte) { copy(m.area[addr-pcbios.AreaBase:], b) }

func (m *machine) run(t *testing.T) tests.Result {
	t.Helper()
	files := map[string][]byte{
		"fwcheck/" + input.BIOSAreaFile: m.area, "fwcheck/" + input.BDAFile: m.bda,
		"fwcheck/" + input.EBDAFile: m.ebda, "fwcheck/" + input.MPConfigFile: m.mp,
	}
	if m.uefi {
		files["sys/firmware/efi/fw_platform_size"] = []byte("64\n")
	}
	if m.madt != nil {
		files["sys/firmware/acpi/tables/APIC"] = m.madt
	}
	if m.smbios != nil {
		files["sys/firmware/dmi/tables/smbios_entry_point"] = m.smbios
		files["sys/firmware/dmi/tables/DMI"] = []byte{127, 4, 0, 0, 0, 0}
	}
	for i, r := range m.memmap {
		d := fmt.Sprintf("sys/firmware/memmap/%d/", i)
		files[d+"start"] = fmt.Appendf(nil, "0x%x\n", r.Start)
		files[d+"end"] = fmt.Appendf(nil, "0x%x\n", r.End)
		files[d+"type"] = []byte(r.Type + "\n")
	}
	return checktest.Run(t, Check, checktest.FilesMachine(t, files))
}

func TestSeaBIOS(t *testing.T) {
	r := seabios().run(t)
	assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))
	assert.Empty(t, checktest.FailLabels(r))
	n := 0
	for _, f := range r.Findings {
		if f.Kind == tests.KindPass {
			n++
		}
	}
	// EBDA, floating pointer, configuration table, MADT agreement, $PIR,
	// SMBIOS, the kernel's SMBIOS, BIOS32, PnP.
	assert.Equal(t, 9, n, tests.Render([]tests.Result{r}))
}

func TestDefects(t *testing.T) {
	cases := []struct {
		name string
		mod  func(m *machine)
		want []string
	}{
		{"EBDA size 0", func(m *machine) { m.ebda[0] = 0 }, []string{"EBDASizeInvalid"}},
		{"EBDA past 640 KiB", func(m *machine) { m.ebda[0] = 2 }, []string{"EBDASizeInvalid"}},
		{"EBDA in usable RAM", func(m *machine) {
			m.memmap[0].End, m.memmap[1].Start = 0x9FFFF, 0xA0000
		}, []string{"EBDANotReserved"}},
		{"base memory over the EBDA", func(m *machine) { m.bda[0x13] = 0x80; m.bda[0x14] = 2 }, []string{"EBDABaseMemoryOverlap"}},
		{"EBDA pointer", func(m *machine) { binary.LittleEndian.PutUint16(m.bda[0x0E:], 0x1000) }, []string{"EBDAPointerInvalid"}},
		{"MP floating checksum", func(m *machine) { m.area[0xF5BA0-pcbios.AreaBase+15]++ }, []string{"MPFloatingPointerChecksum"}},
		{"MP floating revision", func(m *machine) { m.put(0xF5BA0, withRev(mpFloating(0xF5BB0), 3)) }, []string{"MPFloatingPointerInvalid"}},
		{"MP table checksum", func(m *machine) { m.mp[43]++ }, []string{"MPConfigTableChecksum"}},
		{"MP table not there", func(m *machine) { m.mp = make([]byte, 44) }, []string{"MPConfigTableInvalid"}},
		{"MP CPU not in MADT", func(m *machine) {
			m.mp = mpConfig(0xFEE00000, mpCPU(0, 3, 0), mpCPU(1, 1, 0), mpCPU(4, 1, 0), mpIOAPIC(0, 0xFEC00000))
		}, []string{"MPProcessorNotInMADT"}},
		{"two BSPs", func(m *machine) {
			m.mp = mpConfig(0xFEE00000, mpCPU(0, 3, 0), mpCPU(1, 3, 0), mpIOAPIC(0, 0xFEC00000))
		}, []string{"MPBootProcessor"}},
		{"I/O APIC address", func(m *machine) {
			m.mp = mpConfig(0xFEE00000, mpCPU(0, 3, 0), mpCPU(1, 1, 0), mpIOAPIC(0, 0xFEC01000))
		}, []string{"MPIOAPICMismatch"}},
		{"local APIC address", func(m *machine) {
			m.mp = mpConfig(0xFEE10000, mpCPU(0, 3, 0), mpCPU(1, 1, 0), mpIOAPIC(0, 0xFEC00000))
		}, []string{"MPLocalAPICAddressMismatch"}},
		{"interrupt to nowhere", func(m *machine) {
			m.mp = mpConfig(0xFEE00000, mpCPU(0, 3, 0), mpCPU(1, 1, 0), mpBus(0, "ISA"), mpIOAPIC(0, 0xFEC00000), mpIOInt(0, 4, 7, 4), mpIOInt(3, 4, 0, 4))
		}, []string{"MPInterruptUnknownTarget", "MPInterruptUnknownTarget"}},
		{"$PIR checksum", func(m *machine) { m.area[0xF5C80-pcbios.AreaBase+20]++ }, []string{"PIRChecksum"}},
		{"$PIR IRQ 0", func(m *machine) { m.put(0xF5C80, pir(0xDEF9)) }, []string{"PIRReservedIRQ", "PIRReservedIRQ", "PIRReservedIRQ", "PIRReservedIRQ"}},
		{"$PIR link without IRQs", func(m *machine) { m.put(0xF5C80, pir(0)) }, []string{"PIRLinkWithoutIRQs", "PIRLinkWithoutIRQs", "PIRLinkWithoutIRQs", "PIRLinkWithoutIRQs"}},
		{"SMBIOS checksum", func(m *machine) { m.area[0xF59F0-pcbios.AreaBase+0x1D]++ }, []string{"SMBIOSLegacyEntryPointInvalid"}},
		{"SMBIOS elsewhere", func(m *machine) { m.smbios = smbios2(0x7FFFF000) }, []string{"SMBIOSLegacyEntryPointMismatch"}},
		{"BIOS32 checksum", func(m *machine) { m.area[0xF6040-pcbios.AreaBase+12]++ }, []string{"BIOS32Checksum"}},
		{"BIOS32 entry", func(m *machine) { m.put(0xF6040, bios32(0x100000)) }, []string{"BIOS32Invalid"}},
		{"PnP checksum", func(m *machine) { m.area[0xF6060-pcbios.AreaBase+0x20]++ }, []string{"PnPChecksum"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := seabios()
			c.mod(m)
			r := m.run(t)
			assert.Equal(t, c.want, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
		})
	}
}

func withRev(b []byte, rev byte) []byte {
	b[9] = rev
	b[10] = 0
	fix(b, 10)
	return b
}

func TestProcessorsPerPackage(t *testing.T) {
	// One entry per package, with CPUID HTT: said, not warned.
	m := seabios()
	m.mp = mpConfig(0xFEE00000, mpCPU(0, 3, 1<<28), mpIOAPIC(0, 0xFEC00000))
	r := m.run(t)
	assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))
	// Without HTT: a warning.
	m.mp = mpConfig(0xFEE00000, mpCPU(0, 3, 0), mpIOAPIC(0, 0xFEC00000))
	r = m.run(t)
	assert.Equal(t, tests.StatusWarning, r.Status, tests.Render([]tests.Result{r}))
	assert.NotNil(t, checktest.FindingWith(r, "MPProcessorMissing"))
}

func TestNotApplicable(t *testing.T) {
	// UEFI without a CSM: nothing in the area.
	m := &machine{area: make([]byte, pcbios.AreaSize), bda: make([]byte, 256), uefi: true}
	r := m.run(t)
	assert.Equal(t, tests.StatusNotApplicable, r.Status, tests.Render([]tests.Result{r}))
	// UEFI with a CSM: checked.
	m = seabios()
	m.uefi = true
	r = m.run(t)
	assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))
	// A legacy BIOS whose area cannot be read: skipped, not passed.
	r = checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"proc/version": []byte("Linux")}))
	assert.Equal(t, tests.StatusSkipped, r.Status)
}

func TestHostileSnapshot(t *testing.T) {
	m := seabios()
	m.area = m.area[:100]
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.BIOSAreaFile: m.area}))
	assert.Equal(t, tests.StatusSkipped, r.Status)
	assert.Contains(t, r.Reason, "not 131072")
}

// FuzzCheck runs the check over a BIOS area and MP table of arbitrary
// bytes (with the SeaBIOS EBDA and MADT): it must not abort.
func FuzzCheck(f *testing.F) {
	s := seabios()
	f.Add(s.area[0xF5000-pcbios.AreaBase:0xF7000-pcbios.AreaBase], s.mp)
	f.Fuzz(func(t *testing.T, seg, mp []byte) {
		m := seabios()
		copy(m.area[0xF5000-pcbios.AreaBase:], seg)
		if len(mp) > pcbios.MaxMPTable {
			mp = mp[:pcbios.MaxMPTable]
		}
		m.mp = mp
		r := m.run(t)
		require.NotEqual(t, tests.StatusAborted, r.Status)
	})
}

var (
	mpFloating = pcbiostest.MPFloating
	mpConfig   = pcbiostest.MPConfig
	mpCPU      = pcbiostest.MPCPU
	mpBus      = pcbiostest.MPBus
	mpIOAPIC   = pcbiostest.MPIOAPIC
	mpIOInt    = pcbiostest.MPIOInt
	bios32     = pcbiostest.BIOS32
	pnp        = pcbiostest.PnP
	smbios2    = pcbiostest.SMBIOS2
	fix        = pcbiostest.Fix
)

// pir is SeaBIOS's PIIX table shape: the router at 00:01.0, one on-board
// entry per device 1-4 with links 0x60-0x63 rotated, each pin allowed the
// IRQs of bitmap.
func pir(bitmap uint16) []byte {
	var es [][]byte
	for dev := 1; dev <= 4; dev++ {
		var links [4]byte
		for pin := range links {
			links[pin] = byte(0x60 + (dev+pin)%4)
		}
		es = append(es, pcbiostest.PIREntry(0, byte(dev<<3), links, bitmap))
	}
	return pcbiostest.PIR(0x122E, es...)
}
