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
			for i := 0; i <= len(s.Str)+1; i++ {
				s.String(byte(i))
			}
		}
		if n > len(b) {
			t.Fatalf("structures cover %d bytes of %d", n, len(b))
		}
		ParseEntry(b)
	})
}
