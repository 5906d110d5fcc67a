package acpi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParsePCCTSDEVMPST: the PCCT, SDEV and MPST parsers never panic,
// keep what they decode inside the table, and decode a subspace's or a
// structure's fields only when it holds them.
func FuzzParsePCCTSDEVMPST(f *testing.F) {
	seedTables(f, SigSDEV)
	f.Add(sdt(SigPCCT, 2, append(make([]byte, 12), append([]byte{0, 62}, make([]byte, 60)...)...)))
	f.Add(sdt(SigSDEV, 1, []byte{1, 0, 24, 0, 0, 0, 0, 0, 16, 0, 2, 0, 18, 0, 6, 0, 5, 0, 1, 2, 3, 4, 5, 6}))
	f.Add(sdt(SigMPST, 1, append([]byte{3, 0, 0, 0, 1, 0, 0, 0, 3, 0, 1, 0, 34, 0, 0, 0}, make([]byte, 34)...)))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := table(b)
		if p, _ := ParsePCCT(tb); p != nil {
			for _, s := range p.Subspaces {
				require.LessOrEqual(t, s.Offset+s.Length, int(p.Header.Length))
				require.True(t, s.Short || PCCTSubspaceSize(s.Type) == 0 || s.Length >= PCCTSubspaceSize(s.Type))
			}
		}
		if d, _ := ParseSDEV(tb); d != nil {
			for _, s := range d.Structures {
				require.LessOrEqual(t, s.Offset+s.Length, int(d.Header.Length))
				require.LessOrEqual(t, len(s.DeviceID), s.Length)
			}
		}
		if m, _ := ParseMPST(tb); m != nil {
			require.LessOrEqual(t, m.End, int(m.Header.Length))
			for _, n := range m.Nodes {
				require.LessOrEqual(t, len(n.States)+len(n.ComponentID), int(m.Header.Length))
			}
		}
	})
}
