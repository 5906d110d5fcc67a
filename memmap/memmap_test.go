package memmap

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if _, rest, ok := strings.Cut(l, "] "); ok && strings.HasPrefix(l, "[") {
			l = rest
		}
		out = append(out, l)
	}
	return out
}

func TestE820FromLog(t *testing.T) {
	m := E820FromLog(lines(`[    0.000000] e820: BIOS-provided physical RAM map:
[    0.000000] BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable
[    0.000000] BIOS-e820: [mem 0x000000000009fc00-0x000000000009ffff] reserved
[    0.000000] BIOS-e820: [mem 0x000000fd00000000-0x000000ffffffffff] reserved
[    0.000000] NX (Execute Disable) protection: active
[    0.000000] BIOS-e820: [mem 0x0000000000000000-0x000000000009ffff] usable`))
	require.Len(t, m, 3, "the second map (a later boot) is left out")
	assert.Equal(t, Range{0, 0x9fbff, "usable"}, m[0])
	assert.True(t, Usable(m[0].Type))
	assert.Equal(t, uint64(0x400), m[1].Size())
	old := E820FromLog(lines("BIOS-e820: 0000000000000000 - 000000000009f800 (usable)\nBIOS-e820: 00000000000f0000 - 0000000000100000 (reserved)"))
	assert.Equal(t, []Range{{0, 0x9f7ff, "usable"}, {0xf0000, 0xfffff, "reserved"}}, old)
}

func TestParseIOMem(t *testing.T) {
	r, err := ParseIOMem([]byte("00000000-00000fff : Reserved\n00001000-0009fbff : System RAM\n000a0000-000bffff : PCI Bus 0000:00\n  000a0000-000bffff : Video RAM area\n"))
	require.NoError(t, err)
	require.Len(t, r, 4)
	assert.Equal(t, 1, r[3].Depth)
	assert.Equal(t, "Video RAM area", r[3].Type)
	_, err = ParseIOMem([]byte("00000000-00000000 : Reserved\n00000000-00000000 : System RAM\n"))
	assert.ErrorContains(t, err, "non-root")
	_, err = ParseIOMem([]byte("garbage\n"))
	assert.Error(t, err)
}

func TestSysfsResource(t *testing.T) {
	b, err := ParseSysfsResource("0000:00:02.0", []byte(
		"0x00000000fd000000 0x00000000fdffffff 0x0000000000042208\n"+
			"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"+
			"0x00000000febf0000 0x00000000febf0fff 0x0000000000040200\n"+
			"0x000000000000c000 0x000000000000c01f 0x0000000000040101\n"+
			"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"+
			"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"+
			"0x00000000000c0000 0x00000000000dffff 0x0000000000000212\n"))
	require.NoError(t, err)
	require.Len(t, b, 3)
	assert.True(t, b[0].Prefetchable)
	assert.False(t, b[1].Prefetchable)
	assert.Equal(t, 2, b[1].Index)
	assert.Equal(t, 6, b[2].Index)
	_, err = ParseSysfsResource("x", []byte("0x1 0x2\n"))
	assert.Error(t, err)
}

func TestBARsAndMMIOFromLog(t *testing.T) {
	texts := lines(`[    0.306565] pci 0000:00:02.1: reg 0x10: [mem 0xe8200000-0xe827ffff]
[    0.306566] pci 0000:00:02.0: reg 0x18: [mem 0xd0000000-0xdfffffff 64bit pref]
[    0.306567] pci 0000:00:02.0: reg 0x30: [mem 0xfffe0000-0xffffffff pref]
[    0.310685] pci 0000:00:01.0: BAR 0 [mem 0x4000000000-0x400007ffff 64bit]
[    0.310686] pci 0000:00:01.0: BAR 0 [mem 0x5000000000-0x500007ffff 64bit]
[    0.000000] IOAPIC[0]: apic_id 8, version 32, address 0xfec00000, GSI 0-23
[    1.000000] hpet0: at MMIO 0xfed00000, IRQs 2, 8, 0
[    0.100000] PCI: MMCONFIG for domain 0000 [bus 00-ff] at [mem 0xe0000000-0xefffffff] (base 0xe0000000)
[    0.100000] PCI: ECAM [mem 0xb0000000-0xbfffffff] (base 0xb0000000) for domain 0001 [bus 00-ff]`)
	b := BARsFromLog(texts)
	require.Len(t, b, 4)
	assert.Equal(t, 2, b[1].Index)
	assert.True(t, b[1].Prefetchable && b[1].Bits64)
	assert.Equal(t, 6, b[2].Index)
	assert.Equal(t, uint64(0x4000000000), b[3].Start, "the first line for a BAR wins")
	m := MMIOFromLog(texts)
	require.Len(t, m, 4)
	assert.Equal(t, "IOAPIC 0", m[0].What)
	assert.Equal(t, uint64(0xfed00fff), m[1].End)
	assert.Equal(t, "ECAM segment 0000 buses 00-ff", m[2].What)
	assert.Equal(t, Range{0xb0000000, 0xbfffffff, "ECAM"}, m[3].Range)
}

func TestACPITablesFromLog(t *testing.T) {
	r := ACPITablesFromLog(lines(`[    0.000000] ACPI: RSDP 0x00000000000F7F80 000024 (v02 HP    )
[    0.000000] ACPI: FACS 0x000000003F7F7E80 000040
[    0.000000] ACPI: FACS 0x000000003F7F7E80 000040
[    0.000000] ACPI: Early table checksum verification disabled`))
	assert.Equal(t, []Range{{0xF7F80, 0xF7FA3, "RSDP"}, {0x3F7F7E80, 0x3F7F7EBF, "FACS"}}, r)
}

func FuzzLogParsers(f *testing.F) {
	f.Add("BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\npci 0000:00:02.0: reg 0x30: [mem 0xfffe0000-0xffffffff pref]\nhpet0: at MMIO 0xfed00000, IRQs 2, 8, 0\n")
	f.Add("BIOS-e820: 0000000000000000 - 0000000000000000 (usable)\nPCI: ECAM [mem 0xb0000000-0xbfffffff] (base 0xb0000000) for domain 0001 [bus 00-ff]\n")
	f.Fuzz(func(t *testing.T, s string) {
		texts := strings.Split(s, "\n")
		E820FromLog(texts)
		BARsFromLog(texts)
		MMIOFromLog(texts)
		ACPITablesFromLog(texts)
	})
}

func FuzzParseIOMem(f *testing.F) {
	f.Add([]byte("00000000-00000fff : Reserved\n  000a0000-000bffff : Video RAM area\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseIOMem(b)
		ParseSysfsResource("d", b)
	})
}
