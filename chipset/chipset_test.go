package chipset

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLookupHostBridge(t *testing.T) {
	q := LookupHostBridge(0x8086, 0x29C0)
	if assert.NotNil(t, q) {
		assert.Equal(t, 0x9D, q.SMRAM.SMRAMC)
		assert.Equal(t, 0x9E, q.SMRAM.ESMRAMC)
		assert.Zero(t, q.SMRAM.TSEGMB)
	}
	skl := LookupHostBridge(0x8086, 0x191F)
	if assert.NotNil(t, skl) {
		assert.Equal(t, 0x88, skl.SMRAM.SMRAMC)
		assert.Equal(t, 0xB8, skl.SMRAM.TSEGMB)
	}
	assert.Nil(t, LookupHostBridge(0x8086, 0x9A14), "an unknown bridge is not guessed")
	assert.Nil(t, LookupHostBridge(0x1022, 0x29C0), "the vendor must match")
	assert.Equal(t, "8086:29c0", ID(0x8086, 0x29C0))
}

// Every device ID belongs to one family: a second entry would make the
// layout depend on table order.
func TestHostBridgeIDsUnique(t *testing.T) {
	seen := map[[2]uint16]string{}
	for _, h := range hostBridges {
		assert.NotEmpty(t, h.Source, h.Name)
		for _, d := range h.Devices {
			k := [2]uint16{h.Vendor, d}
			assert.Empty(t, seen[k], "%s in %s and %s", ID(h.Vendor, d), seen[k], h.Name)
			seen[k] = h.Name
		}
	}
}

func TestLookupLPCBridge(t *testing.T) {
	q := LookupLPCBridge(0x8086, 0x2918)
	if assert.NotNil(t, q) {
		assert.Equal(t, 0xDC, q.Control.Offset)
		assert.False(t, q.Control.HasSMMBWP, "ICH9 has no SMM_BWP")
	}
	spt := LookupLPCBridge(0x8086, 0xA145)
	if assert.NotNil(t, spt) {
		assert.True(t, spt.Control.HasSMMBWP)
	}
	assert.Nil(t, LookupLPCBridge(0x8086, 0xA305), "300 Series moved BIOS_CNTL to the SPI controller")
	for i, a := range lpcBridges {
		assert.NotEmpty(t, a.Source)
		for _, b := range lpcBridges[i+1:] {
			assert.False(t, a.Vendor == b.Vendor && a.From <= b.To && b.From <= a.To, "%s overlaps %s", a.Name, b.Name)
		}
	}
}
