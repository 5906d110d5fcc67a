package pci

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// q35Host is a q35 host bridge (8086:29c0) with SMRAM (0x9d) = 0x1a:
// D_LCK, G_SMRAME and C_BASE_SEG = 2.
func q35Host() []byte {
	b := make([]byte, 256)
	copy(b, []byte{0x86, 0x80, 0xc0, 0x29, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06})
	b[0x9d] = 0x1a
	return b
}

func TestFormatParseRoundTrip(t *testing.T) {
	d := &Dump{}
	require.NoError(t, d.Add("0000:00:1f.0", []byte{0x86, 0x80, 0x18, 0x29}))
	require.NoError(t, d.Add("0000:00:00.0", q35Host()))
	var b bytes.Buffer
	require.NoError(t, d.Format(&b))
	assert.True(t, strings.HasPrefix(b.String(), "# fwcheck pci config 1\n0000:00:00.0 8680c029"))
	e, err := Parse(b.Bytes())
	require.NoError(t, err)
	assert.Equal(t, d, e)
	h := e.Find("0000:00:00.0")
	require.NotNil(t, h)
	v, dv := h.ID()
	assert.Equal(t, uint16(0x8086), v)
	assert.Equal(t, uint16(0x29c0), dv)
	assert.Equal(t, uint32(0x060000), h.Class())
	s, ok := h.U8(0x9d)
	assert.True(t, ok)
	assert.Equal(t, uint8(0x1a), s)
	// Beyond the recorded bytes, nothing is read.
	lpc := e.Find("0000:00:1f.0")
	_, ok = lpc.U8(0xdc)
	assert.False(t, ok)
	assert.Nil(t, e.Find("0000:00:02.0"))
}

func TestParseRefusesDamage(t *testing.T) {
	for _, bad := range []string{
		"0000:00:00.0\n",
		"00:00.0 8680\n",
		"0000:00:00.0 86z0\n",
		"0000:00:00.0 868\n",
		"0000:00:00.0 " + strings.Repeat("00", MaxConfigSize+1) + "\n",
	} {
		_, err := Parse([]byte(bad))
		assert.Error(t, err, "%.40q", bad)
	}
}

func TestCapabilityWalkIsBounded(t *testing.T) {
	b := make([]byte, 256)
	b[6] = 0x10 // capability list
	b[0x34] = 0x40
	b[0x40], b[0x41] = 0x01, 0x50 // PM -> 0x50
	b[0x50], b[0x51] = 0x10, 0x40 // PCIe -> back to 0x40: a loop
	dev := &Device{Address: "0000:00:01.0", Config: b}
	assert.Equal(t, 0x50, dev.Capability(0x10))
	assert.Equal(t, 0x40, dev.Capability(0x01))
	assert.Equal(t, 0, dev.Capability(0x05), "a looping list ends")
	dev.Config = b[:0x42]
	assert.Equal(t, 0, dev.Capability(0x10), "a pointer beyond the recorded bytes ends the walk")
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("# fwcheck pci config 1\n0000:00:00.0 8680c0291000000000000006\n"))
	f.Add([]byte("0000:00:1f.0 86801829\n0000:00:1f.0 8680\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Parse(b)
		if err != nil {
			return
		}
		if len(d.Devices) > MaxDevices {
			t.Fatalf("%d devices", len(d.Devices))
		}
		for i := range d.Devices {
			dev := &d.Devices[i]
			dev.ID()
			dev.Class()
			dev.Capability(0x10)
		}
		var out bytes.Buffer
		if err := d.Format(&out); err != nil {
			t.Fatal(err)
		}
		e, err := Parse(out.Bytes())
		if err != nil || len(e.Devices) != len(d.Devices) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
