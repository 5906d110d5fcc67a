package chipset

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLookupSPI(t *testing.T) {
	c := LookupSPIBehindRCBA(0x8086, 0x1E55)
	if assert.NotNil(t, c) {
		assert.Equal(t, 0x74, c.Layout.PR0)
		assert.Equal(t, 13, c.Layout.AddrBits)
	}
	assert.Nil(t, LookupSPIBehindRCBA(0x8086, 0x2918), "QEMU's ICH9 has no SPI controller to read")
	f := LookupSPIFunction(0x8086, 0xA324)
	if assert.NotNil(t, f) {
		assert.Equal(t, 0x84, f.Layout.PR0)
		assert.Equal(t, 0xDC, f.BIOSControl.Offset)
		assert.NotEmpty(t, f.Source)
	}
	assert.Nil(t, LookupSPIFunction(0x8086, 0xA124), "not in the table: never guessed")
	assert.Nil(t, LookupSPIFunction(0x1022, 0xA324))
	for i, a := range spiControllers {
		assert.NotEmpty(t, a.Source)
		assert.NotNil(t, LookupLPCBridge(a.Vendor, a.From), "%s: the LPC bridge table knows its BIOS_CNTL", a.Name)
		for _, b := range spiControllers[i+1:] {
			assert.False(t, a.From <= b.To && b.From <= a.To, "%s overlaps %s", a.Name, b.Name)
		}
	}
	seen := map[uint16]bool{}
	for _, f := range spiFunctions {
		assert.False(t, seen[f.ID], "%04x twice", f.ID)
		seen[f.ID] = true
	}
}

func TestSPIRange(t *testing.T) {
	b, l, ok := ich9Style.Range(0x07FF0500)
	assert.True(t, ok)
	assert.Equal(t, uint64(0x500000), b)
	assert.Equal(t, uint64(0x7FFFFF), l)
	_, _, ok = ich9Style.Range(0x00001FFF)
	assert.False(t, ok, "base above limit: region unused")
	b, l, _ = pch100Style.Range(0x7FFF0800)
	assert.Equal(t, uint64(0x800000), b)
	assert.Equal(t, uint64(0x7FFFFFF), l, "15-bit limit")
	_, l, _ = ich9Style.Range(0xFFFF0000)
	assert.Equal(t, uint64(0x1FFFFFF), l, "13 bits: reserved bits above are not address")
	offs := pch100Style.Offsets()
	assert.Equal(t, []int{0x00, 0x04, 0x50, 0x54, 0x58, 0x5c, 0x60, 0x64, 0x84, 0x88, 0x8c, 0x90, 0x94}, offs)
}
