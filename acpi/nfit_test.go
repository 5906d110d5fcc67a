package acpi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseNFIT: the NFIT parser never panics and keeps its structures
// inside the table.
func FuzzParseNFIT(f *testing.F) {
	f.Add(sdt(SigNFIT, 1, append(make([]byte, 4), append([]byte{0, 0, 56, 0, 4, 0, 3, 0}, make([]byte, 48)...)...)))
	f.Add(sdt(SigNFIT, 1, append(make([]byte, 4), append([]byte{4, 0, 32, 0, 5, 0}, make([]byte, 26)...)...)))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseNFIT(table(b))
		if n == nil {
			require.Error(t, err)
			return
		}
		for _, s := range n.Structures {
			require.LessOrEqual(t, s.Offset+s.Length, int(n.Header.Length))
			_ = NFITRangeTypeName(s.RangeType)
		}
	})
}
