package pcbios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/fwcheck/fwcheck/pcbios"
	"github.com/fwcheck/fwcheck/pcbios/pcbiostest"
)

var (
	mpFloating = pcbiostest.MPFloating
	mpBus      = pcbiostest.MPBus
	mpIOAPIC   = pcbiostest.MPIOAPIC
	mpIOInt    = pcbiostest.MPIOInt
	bios32     = pcbiostest.BIOS32
	pnp        = pcbiostest.PnP
	smbios2    = pcbiostest.SMBIOS2
)

func mpConfig(entries ...[]byte) []byte { return pcbiostest.MPConfig(0xFEE00000, entries...) }
func mpCPU(id, flags byte) []byte       { return pcbiostest.MPCPU(id, flags, 0) }

type slot struct {
	bus, devfn byte
	links      [4]byte
	bitmap     uint16
}

func pir(slots ...slot) []byte {
	var es [][]byte
	for _, s := range slots {
		es = append(es, pcbiostest.PIREntry(s.bus, s.devfn, s.links, s.bitmap))
	}
	return pcbiostest.PIR(0x7000, es...)
}

// area places each structure at its physical address in a BIOS area.
func area(at map[uint64][]byte) []byte {
	b := make([]byte, AreaSize)
	for a, s := range at {
		copy(b[a-AreaBase:], s)
	}
	return b
}

func TestScan(t *testing.T) {
	a := Scan(area(map[uint64][]byte{
		0xF5000: mpFloating(0xF5010), 0xF5010: mpConfig(mpCPU(0, 3)),
		0xF6000: pir(slot{0, 1 << 3, [4]byte{0x60, 0x61, 0x62, 0x63}, 0x0E20}),
		0xE8000: bios32(0xF1000), 0xF7000: pnp(), 0xF8000: smbios2(0xF8100),
		// Anchors the F segment alone may hold are not taken from the E segment.
		0xE9000: mpFloating(0xE9010),
	}), AreaBase)
	require.Len(t, a.MP, 1)
	assert.Equal(t, uint64(0xF5000), a.MP[0].Addr)
	assert.True(t, a.MP[0].ChecksumOK)
	assert.Equal(t, uint32(0xF5010), a.MP[0].ConfigAddr)
	require.Len(t, a.PIR, 1)
	assert.True(t, a.PIR[0].ChecksumOK)
	require.Len(t, a.PIR[0].Slots, 1)
	assert.Equal(t, uint8(1), a.PIR[0].Slots[0].Device())
	assert.Equal(t, [4]uint16{0x0E20, 0x0E20, 0x0E20, 0x0E20}, a.PIR[0].Slots[0].Bitmaps)
	require.Len(t, a.BIOS32, 1)
	assert.True(t, a.BIOS32[0].ChecksumOK)
	assert.Equal(t, uint32(0xF1000), a.BIOS32[0].Entry)
	require.Len(t, a.PnP, 1)
	assert.True(t, a.PnP[0].ChecksumOK)
	require.Len(t, a.SMBIOS, 1)
	assert.Empty(t, a.DMI, "the _SM_ entry point's intermediate anchor is not a DMI entry point of its own")
	assert.False(t, a.Empty())
	assert.True(t, Scan(make([]byte, AreaSize), AreaBase).Empty())
}

func TestChecksums(t *testing.T) {
	for name, b := range map[string][]byte{"_MP_": mpFloating(0x1000), "$PIR": pir(), "_32_": bios32(0xF0000), "$PnP": pnp()} {
		b[len(b)-1]++ // a reserved byte, covered by the checksum
		a := Scan(area(map[uint64][]byte{0xF4000: b}), AreaBase)
		switch name {
		case "_MP_":
			assert.False(t, a.MP[0].ChecksumOK)
		case "$PIR":
			assert.False(t, a.PIR[0].ChecksumOK)
		case "_32_":
			assert.False(t, a.BIOS32[0].ChecksumOK)
		case "$PnP":
			assert.False(t, a.PnP[0].ChecksumOK)
		}
	}
}

func TestMPConfig(t *testing.T) {
	b := mpConfig(mpCPU(0, MPCPUEnabled|MPCPUBSP), mpCPU(1, MPCPUEnabled), mpBus(0, "PCI"), mpBus(1, "ISA"),
		mpIOAPIC(2, 0xFEC00000), mpIOInt(1, 0, 2, 2))
	c, err := ParseMPConfig(b)
	require.NoError(t, err)
	assert.True(t, c.ChecksumOK)
	assert.True(t, c.ExtChecksumOK)
	assert.Empty(t, c.Problems)
	assert.Equal(t, "BOCHSCPU", c.OEM)
	assert.Equal(t, "0.1", c.Product)
	assert.Len(t, c.Processors, 2)
	assert.Equal(t, "ISA", c.Bus(1).Type)
	assert.Equal(t, []MPIOAPIC{{ID: 2, Version: 0x11, Flags: 1, Address: 0xFEC00000}}, c.IOAPICs)
	assert.Equal(t, []MPInterrupt{{SrcBus: 1, DstID: 2, DstPin: 2}}, c.IOInts)
	assert.Equal(t, len(b), ConfigLength(b))

	// An unknown type ends the walk; the count then disagrees.
	bad := mpConfig(mpCPU(0, 3), []byte{9, 0, 0, 0, 0, 0, 0, 0})
	c, err = ParseMPConfig(bad)
	require.NoError(t, err)
	assert.Len(t, c.Problems, 2, "%q", c.Problems)
	bad[len(bad)-1] = 1
	c, _ = ParseMPConfig(bad)
	assert.False(t, c.ChecksumOK)

	_, err = ParseMPConfig([]byte("PCMX"))
	assert.Error(t, err)
}

func TestFindMP(t *testing.T) {
	ebda := make([]byte, 2048)
	copy(ebda[0x400:], mpFloating(0x9FC80)) // past the first KiB: not searched
	_, ok := FindMP(ebda, 0x9F800, make([]byte, AreaSize))
	assert.False(t, ok)
	copy(ebda[0x100:], mpFloating(0x9F900))
	f, ok := FindMP(ebda, 0x9F800, make([]byte, AreaSize))
	require.True(t, ok)
	assert.Equal(t, uint64(0x9F900), f.Addr)
	f, ok = FindMP(nil, 0, area(map[uint64][]byte{0xFFF00: mpFloating(0xF0000)}))
	require.True(t, ok)
	assert.Equal(t, uint64(0xFFF00), f.Addr)
}

func TestPIRProblems(t *testing.T) {
	b := pir(slot{0, 8, [4]byte{1, 2, 3, 4}, 0xDEF8})
	b[6] = 40 // not 32 + 16n
	p, err := ParsePIR(b, 0xF0000)
	require.NoError(t, err)
	assert.Len(t, p.Problems, 1)
	assert.Empty(t, p.Slots, "no whole entry within 40 bytes")
}

// FuzzParsers runs every parser over arbitrary bytes: none may panic,
// and what they keep stays within the data and the limits.
func FuzzParsers(f *testing.F) {
	for _, s := range [][]byte{mpFloating(0xF0010), mpConfig(mpCPU(0, 3), mpIOAPIC(1, 0xFEC00000)), pir(slot{0, 8, [4]byte{1}, 0x20}),
		bios32(0xF0000), pnp(), smbios2(0xF1000), []byte("_DMI_0123456789ABCDEF")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a := Scan(b, FSegment)
		assert.LessOrEqual(t, len(a.MP)+len(a.PIR)+len(a.PnP), 3*MaxFound)
		_, _ = ParseMPFloating(b, 0)
		if c, err := ParseMPConfig(b); err == nil {
			assert.LessOrEqual(t, c.Entries, MaxEntries)
			assert.LessOrEqual(t, c.Entries*8, len(b))
		}
		if p, err := ParsePIR(b, 0); err == nil {
			assert.LessOrEqual(t, len(p.Slots)*PIRSlotSize, len(b))
		}
		_, _ = ParseBIOS32(b, 0)
		_, _ = ParsePnP(b, 0)
		_, _ = ParseDMI(b, 0)
		FindMP(b, 0x9F000, b)
		_ = ConfigLength(b)
	})
}
