package sysdev

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// space builds a 256-byte configuration space with a power-management
// capability at 0x80 and, when pcie, a PCI Express capability at 0x40
// pointing on to it.
func space(pcie bool) []byte {
	b := make([]byte, 256)
	binary.LittleEndian.PutUint16(b[6:], 0x10)
	b[0x34] = 0x80
	b[0x80] = 0x01
	if pcie {
		b[0x34] = 0x40
		b[0x40], b[0x41] = 0x10, 0x80
		binary.LittleEndian.PutUint16(b[0x42:], 0x0042)     // version 2, root port
		binary.LittleEndian.PutUint32(b[0x44:], 0x00008001) // MPSS 256
		binary.LittleEndian.PutUint16(b[0x48:], 0x2020)     // MRRS 512, MPS 256
		binary.LittleEndian.PutUint32(b[0x4c:], 0x05000C13) // ASPM L0s L1, x1, 8 GT/s
		binary.LittleEndian.PutUint16(b[0x50:], 0x0042)     // common clock, L1
	}
	return b
}

func TestPCIeCap(t *testing.T) {
	c, err := PCIeCap(space(true))
	require.NoError(t, err)
	require.NotNil(t, c)
	assert.Equal(t, 0x40, c.Offset)
	assert.Equal(t, PCIeRootPort, c.PortType)
	assert.Equal(t, 1, c.MaxPayload())
	assert.Equal(t, 2, c.MaxReadRequest())
	assert.Equal(t, 1, c.MaxPayloadSupported())
	assert.Equal(t, 3, c.ASPMSupport())
	assert.Equal(t, 2, c.ASPMControl())
	assert.True(t, c.HasLink)
	assert.Equal(t, "L0s L1", ASPMName(c.ASPMSupport()))
	assert.Equal(t, 512, PayloadBytes(c.MaxReadRequest()))
	assert.Zero(t, PayloadBytes(6))

	c, err = PCIeCap(space(false))
	assert.NoError(t, err)
	assert.Nil(t, c, "no PCI Express capability")

	_, err = PCIeCap(space(true)[:32])
	assert.ErrorContains(t, err, "shorter than the 64-byte header")
	c, err = PCIeCap(space(true)[:64])
	assert.NoError(t, err)
	assert.Nil(t, c, "the capability lies past what was read")

	loop := space(false)
	loop[0x81] = 0x80
	_, err = PCIeCap(loop)
	assert.ErrorContains(t, err, "loops back to 0x80")
	bad := space(true)
	bad[0x34] = 0x20
	_, err = PCIeCap(bad)
	assert.ErrorContains(t, err, "outside 0x40-0xfc")
}

func TestParentOf(t *testing.T) {
	assert.Equal(t, "0000:00:1c.0", ParentOf("../../../devices/pci0000:00/0000:00:1c.0/0000:01:00.0"))
	assert.Equal(t, "", ParentOf("../../../devices/pci0000:00/0000:00:02.0"))
	assert.Equal(t, "", ParentOf("0000:00:02.0"))
}

func TestPCIRoundTrip(t *testing.T) {
	in := []PCIDevice{{Addr: "0000:00:1c.0", Config: space(true)}, {Addr: "0000:01:00.0", Parent: "0000:00:1c.0", Config: space(false)}}
	out, err := ParsePCI(FormatPCI(in))
	require.NoError(t, err)
	assert.Equal(t, in, out)
	for _, bad := range []string{"0000:00:1c.0 - zz", "0000:00:1c.0 0000:00:1c.0 00", "x - 00", "0000:00:1c.0 -", "0000:00:1c.0 - 00\n0000:00:1c.0 - 00"} {
		_, err := ParsePCI([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func FuzzPCIeCap(f *testing.F) {
	f.Add(space(true))
	f.Add(space(false))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := PCIeCap(b)
		if err == nil && c != nil {
			assert.Less(t, c.Offset, len(b))
			_ = PayloadBytes(c.MaxPayload()) + PayloadBytes(c.MaxReadRequest())
		}
	})
}

func FuzzParsePCI(f *testing.F) {
	f.Add(FormatPCI([]PCIDevice{{Addr: "0000:00:1c.0", Config: space(true)}, {Addr: "0000:01:00.0", Parent: "0000:00:1c.0", Config: []byte{1}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		devs, err := ParsePCI(b)
		if err != nil {
			return
		}
		again, err := ParsePCI(FormatPCI(devs))
		require.NoError(t, err)
		assert.Equal(t, len(devs), len(again))
	})
}

func FuzzParseCPUIdle(f *testing.F) {
	d := NewDump()
	d.Attrs["cpu0.state1/name"] = "C1"
	d.Attrs["cpu0.state1/usage"] = "5"
	d.Attrs["cpu0.state1/usage.after"] = "9"
	d.Attrs["cpuidle/current_driver"] = "intel_idle"
	f.Add(d.Marshal())
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Unmarshal(b)
		if err != nil {
			return
		}
		s := ParseCPUIdle(d)
		for _, c := range s.CPUs {
			assert.NotEmpty(t, c.States)
		}
	})
}

func TestPCIDeviceRegisters(t *testing.T) {
	b := make([]byte, 256)
	copy(b, []byte{0x86, 0x80, 0xc0, 0x29, 0, 0, 0, 0, 0, 0, 0, 0x06})
	b[0x9d] = 0x1a
	b[0xb8], b[0xbb] = 0x01, 0xcb
	d := &PCIDevice{Addr: "0000:00:00.0", Config: b}
	v, dv := d.ID()
	assert.Equal(t, [2]uint16{0x8086, 0x29c0}, [2]uint16{v, dv})
	assert.Equal(t, uint32(0x060000), d.Class())
	x, ok := d.U8(0x9d)
	assert.True(t, ok)
	assert.Equal(t, uint8(0x1a), x)
	y, _ := d.U32(0xb8)
	assert.Equal(t, uint32(0xcb000001), y)
	d.Config = b[:64]
	_, ok = d.U8(0x9d)
	assert.False(t, ok, "a register past the recorded bytes is not there")
	var none *PCIDevice
	v, _ = none.ID()
	assert.Equal(t, uint16(0xFFFF), v)
	assert.Zero(t, none.Class())
}
