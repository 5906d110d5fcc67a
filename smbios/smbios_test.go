package smbios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWalk(t *testing.T) {
	b := []byte{
		0, 5, 0, 0, 1, 'A', 'M', 'I', 0, 0, // type 0, one string
		1, 4, 1, 0, 0, 0, // type 1, no strings
		127, 4, 0xFF, 0xFE, 0, 0, // end
		0xAA, // trailing
	}
	tb := Walk(b)
	require.Empty(t, tb.Problems)
	require.Len(t, tb.Structures, 3)
	s, ok := tb.Structures[0].String(1)
	assert.True(t, ok)
	assert.Equal(t, "AMI", s)
	_, ok = tb.Structures[0].String(2)
	assert.False(t, ok)
	assert.True(t, tb.EndOfTable)
	assert.Equal(t, 1, tb.Trailing)
	assert.Len(t, tb.Of(1), 1)

	bad := Walk([]byte{0, 3, 0, 0, 0, 0})
	assert.Equal(t, "length", bad.Problems[0].Kind)
	unterminated := Walk([]byte{0, 4, 0, 0, 'x'})
	assert.Equal(t, "strings", unterminated.Problems[0].Kind)
	dup := Walk([]byte{1, 4, 7, 0, 0, 0, 2, 4, 7, 0, 0, 0})
	assert.Equal(t, "handle", dup.Problems[0].Kind)
}

func TestParseEntry(t *testing.T) {
	e := []byte("_SM3_\x00\x18\x03\x02\x01\x01\x00\x00\x10\x00\x00\x00\x00\x0f\x00\x00\x00\x00\x00")
	var s byte
	for _, x := range e {
		s += x
	}
	e[5] = -s
	got, err := ParseEntry(e)
	require.NoError(t, err)
	assert.Equal(t, 64, got.Bits)
	assert.True(t, got.ChecksumOK)
	assert.Equal(t, 302, got.Version())
	assert.Equal(t, uint32(0x1000), got.TableLength)
	e[5]++
	got, _ = ParseEntry(e)
	assert.False(t, got.ChecksumOK)
	_, err = ParseEntry([]byte("_SM_ too short"))
	assert.Error(t, err)
}

func FuzzWalk(f *testing.F) {
	f.Add([]byte{0, 5, 0, 0, 1, 'A', 'M', 'I', 0, 0, 127, 4, 0xFF, 0xFE, 0, 0})
	f.Add([]byte("_SM_\x00\x1f\x02\x08"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := Walk(b)
		n := 0
		for _, s := range tb.Structures {
			n += len(s.Raw)
			for i := 0; i <= len(s.Str)+1 && i < 256; i++ {
				str, ok := s.String(byte(i))
				if got := s.StringBytes(byte(i)); ok && i > 0 && string(got) != str {
					t.Fatalf("string %d: bytes %q, string %q", i, got, str)
				}
			}
			s.MemoryDeviceSize()
		}
		if n > len(b) {
			t.Fatalf("structures cover %d bytes of %d", n, len(b))
		}
		tb.SystemUUID()
		ParseEntry(b)
	})
}

// TestDecodedFields: the string bytes lie inside the table (redaction
// writes through them), the UUID's first three fields print byte-swapped,
// and a memory device's size follows its unit bit and Extended Size.
func TestDecodedFields(t *testing.T) {
	sys := []byte{1, 0x19, 1, 0, 1, 2, 3, 4, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 6}
	b := append(append([]byte{}, sys...), "Maker\x00Model\x00\x00"...)
	handle := byte(1)
	mem := func(size uint16, ext uint32, length byte) []byte {
		m := make([]byte, length)
		handle++
		m[0], m[1], m[2] = 17, length, handle
		m[0x0C], m[0x0D] = byte(size), byte(size>>8)
		if length >= 0x20 {
			m[0x1C], m[0x1D], m[0x1E], m[0x1F] = byte(ext), byte(ext>>8), byte(ext>>16), byte(ext>>24)
		}
		return append(m, 0, 0)
	}
	b = append(b, mem(8192, 0, 0x22)...)   // 8 GiB in MiB
	b = append(b, mem(0x8200, 0, 0x15)...) // 512 KiB
	b = append(b, mem(0x7FFF, 65536, 0x28)...)
	b = append(b, mem(0xFFFF, 0, 0x28)...)
	b = append(b, mem(0x7FFF, 0, 0x15)...)
	b = append(b, mem(0, 0, 0x15)...)
	b = append(b, 127, 4, 0, 0, 0, 0)
	tb := Walk(b)
	require.Empty(t, tb.Problems)

	s := &tb.Structures[0]
	got := s.StringBytes(2)
	assert.Equal(t, "Model", string(got))
	got[0] = 'X'
	assert.Equal(t, "Xodel", string(b[0x19+6:0x19+11]), "the bytes are the table's")
	assert.Nil(t, s.StringBytes(3))
	assert.Nil(t, s.StringBytes(0))
	u, ok := tb.SystemUUID()
	require.True(t, ok)
	assert.Equal(t, "33221100-5544-7766-8899-aabbccddeeff", u.String())

	type size struct {
		n  uint64
		ok bool
	}
	var sizes []size
	for _, d := range tb.Of(17) {
		n, ok := d.MemoryDeviceSize()
		sizes = append(sizes, size{n, ok})
	}
	assert.Equal(t, []size{{8 << 30, true}, {512 << 10, true}, {64 << 30, true}, {0, false}, {0, false}, {0, true}}, sizes)
	_, ok = tb.Structures[0].MemoryDeviceSize()
	assert.False(t, ok, "not a memory device")
	_, ok = Walk([]byte{1, 8, 0, 0, 0, 0, 0, 0, 0, 0}).SystemUUID()
	assert.False(t, ok, "SMBIOS 2.0's System Information has no UUID")
}
