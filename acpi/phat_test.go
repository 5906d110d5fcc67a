package acpi

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePHAT(t *testing.T) {
	ver := make([]byte, 12+28)
	binary.LittleEndian.PutUint16(ver[2:], uint16(len(ver)))
	ver[4] = 1
	binary.LittleEndian.PutUint32(ver[8:], 1)
	ver[12] = 0xAB
	binary.LittleEndian.PutUint64(ver[28:], 0x0102)
	hl := make([]byte, 28, 40)
	hl[0], hl[4], hl[7] = 1, 1, 1
	hl = append(hl, 'A', 0, 'B', 0, 0, 0, 9, 9, 9, 9)
	binary.LittleEndian.PutUint16(hl[2:], uint16(len(hl)))
	binary.LittleEndian.PutUint32(hl[24:], 34)
	p, err := ParsePHAT(table(sdt(SigPHAT, 1, append(ver, hl...))))
	require.NoError(t, err)
	require.Len(t, p.Records, 2)
	v, h := p.Records[0], p.Records[1]
	require.Equal(t, uint32(1), v.Count)
	require.Len(t, v.Elements, 1)
	require.Equal(t, byte(0xAB), v.Elements[0].Component[0])
	require.Equal(t, uint64(0x0102), v.Elements[0].Version)
	require.Equal(t, "AB", h.Path)
	require.Equal(t, 34, h.PathEnd)
	require.Equal(t, uint32(34), h.DataOffset)
	require.Equal(t, uint8(1), h.Health)
}

// FuzzParsePHAT: the PHAT parser never panics, keeps its records inside
// the table and decodes no more version elements than a record holds.
func FuzzParsePHAT(f *testing.F) {
	seedTables(f, SigPHAT)
	f.Add(sdt(SigPHAT, 1, []byte{0, 0, 40, 0, 1, 0, 0, 0, 1, 0, 0, 0}))
	f.Add(sdt(SigPHAT, 1, append([]byte{1, 0, 34, 0, 1, 0, 0, 1}, make([]byte, 26)...)))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePHAT(table(b))
		if p == nil {
			require.Error(t, err)
			return
		}
		for _, r := range p.Records {
			require.LessOrEqual(t, r.Offset+r.Length, int(p.Header.Length))
			require.LessOrEqual(t, PHATVersionFixed+len(r.Elements)*PHATVersionElement, max(r.Length, PHATVersionFixed))
			require.LessOrEqual(t, r.PathEnd, r.Length)
		}
	})
}
