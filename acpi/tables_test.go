package acpi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWalkSubtables(t *testing.T) {
	l := subtableLayout{typeSize: 2, lenOff: 2, lenSize: 2}
	subs, n, err := walkSubtables("x", []byte{1, 0, 4, 0, 2, 0, 6, 0, 9, 9}, 0, l)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	require.Len(t, subs, 2)
	assert.Equal(t, Subtable{Type: 2, Length: 6, Offset: 4, Raw: []byte{2, 0, 6, 0, 9, 9}}, subs[1])

	var we *WalkError
	for _, c := range []struct {
		b    []byte
		kept int
	}{{[]byte{1, 0, 0, 0, 1, 0, 4, 0}, 0}, {[]byte{1, 0, 4, 0, 1, 0, 9, 0}, 1}, {[]byte{1, 0, 4, 0, 1}, 1}} {
		subs, _, err = walkSubtables("x", c.b, 0, l)
		require.True(t, errors.As(err, &we), "%v", c.b)
		assert.Len(t, subs, c.kept, "the structures before the fault are kept")
	}
	big := make([]byte, 4*(MaxSubtables+3))
	for i := 0; i < len(big); i += 4 {
		big[i+2] = 4
	}
	subs, n, err = walkSubtables("x", big, 0, l)
	require.NoError(t, err)
	assert.Len(t, subs, MaxSubtables)
	assert.Equal(t, 12, n)
}

func TestParseDMARCorpus(t *testing.T) {
	n := 0
	for _, p := range corpusDumps(t) {
		ts, err := LoadDumpFile(p)
		require.NoError(t, err)
		for _, tb := range ts.Get(SigDMAR) {
			d, err := ParseDMAR(tb)
			require.NoError(t, err, p)
			require.NotEmpty(t, d.Structures, p)
			for _, s := range d.Structures {
				assert.False(t, s.Short, p)
				assert.NoError(t, s.ScopeErr, p)
			}
			n++
		}
	}
	t.Logf("%d DMAR tables parsed", n)
}

func TestParseDMAR(t *testing.T) {
	body := []byte{38, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 24, 0, 1, 0, 0, 0, 0, 0x10, 0xD9, 0xFE, 0, 0, 0, 0, // DRHD, INCLUDE_PCI_ALL
		3, 8, 0, 0, 2, 0xF0, 0x1F, 0, // I/O APIC 2
		4, 0, 17, 0, 0, 0, 0, 1, '\\', '_', 'S', 'B', '.', 'I', '2', 'C', 0} // ANDD 1
	d, err := ParseDMAR(table(sdt(SigDMAR, 1, body)))
	require.NoError(t, err)
	assert.Equal(t, uint8(38), d.HostAddressWidth)
	require.Len(t, d.Structures, 2)
	u := d.Structures[0]
	assert.Equal(t, uint64(0xFED91000), u.Base)
	assert.Equal(t, uint8(1), u.Flags)
	require.Len(t, u.Scopes, 1)
	assert.Equal(t, DeviceScope{Type: ScopeIOAPIC, Length: 8, EnumerationID: 2, StartBus: 0xF0, Path: [][2]uint8{{0x1F, 0}}, Offset: 64}, u.Scopes[0])
	a := d.Structures[1]
	assert.Equal(t, `\_SB.I2C`, a.ObjectName)
	assert.True(t, a.NameTerminated)
	assert.Equal(t, uint8(1), a.DeviceNumber)
}

func TestParseBGRTAndWSMT(t *testing.T) {
	b, err := ParseBGRT(table(sdt(SigBGRT, 1, []byte{1, 0, 3, 0, 0, 0x20, 0x9C, 0xB4, 0, 0, 0, 0, 0xD3, 1, 0, 0, 0x46, 1, 0, 0})))
	require.NoError(t, err)
	assert.Equal(t, &BGRT{Header: b.Header, Version: 1, Status: 3, ImageAddress: 0xB49C2000, OffsetX: 0x1D3, OffsetY: 0x146}, b)
	assert.True(t, b.Displayed())
	assert.Equal(t, 90, b.Orientation())
	_, err = ParseBGRT(table(sdt(SigBGRT, 1, make([]byte, 19))))
	assert.ErrorIs(t, err, ErrTruncated)

	w, err := ParseWSMT(table(sdt(SigWSMT, 1, []byte{5, 0, 0, 0x80})))
	require.NoError(t, err)
	assert.Equal(t, []string{"FIXED_COMM_BUFFERS", "SYSTEM_RESOURCE_PROTECTION", "reserved 0x80000000"}, WSMTFlagNames(w.ProtectionFlags))
}

// FuzzParseDMAR: the DMAR parser never panics, keeps every structure and
// scope inside the table, and walks them in order.
func FuzzParseDMAR(f *testing.F) {
	seedTables(f, SigDMAR)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseDMAR(table(b))
		if d == nil {
			require.Error(t, err)
			return
		}
		off := DMARHeaderSize
		for _, s := range d.Structures {
			require.Equal(t, off, s.Offset)
			require.GreaterOrEqual(t, s.Length, 4)
			off += s.Length
			end := s.Offset + s.Length
			for _, ds := range s.Scopes {
				require.LessOrEqual(t, ds.Offset+ds.Length, end)
				require.Greater(t, ds.Length, 1)
			}
		}
		require.LessOrEqual(t, off, int(d.Header.Length))
	})
}

// FuzzParseBGRTWSMT: the BGRT and WSMT parsers never panic.
func FuzzParseBGRTWSMT(f *testing.F) {
	seedTables(f, SigBGRT, SigWSMT)
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := table(b)
		if _, err := ParseBGRT(tb); err == nil {
			require.GreaterOrEqual(t, len(tb.Raw), BGRTSize)
		}
		if _, err := ParseWSMT(tb); err == nil {
			require.GreaterOrEqual(t, len(tb.Raw), WSMTSize)
		}
	})
}

// FuzzParseLPIT: the LPIT parser never panics and walks its structures in
// order, inside the table.
func FuzzParseLPIT(f *testing.F) {
	seedTables(f, SigLPIT)
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLPIT(table(b))
		if l == nil {
			require.Error(t, err)
			return
		}
		off := HeaderSize
		for _, s := range l.States {
			require.Equal(t, off, s.Offset)
			require.GreaterOrEqual(t, s.Length, 8)
			off += s.Length
		}
		require.LessOrEqual(t, off, int(l.Header.Length))
	})
}

// FuzzParseIVRS: the IVRS parser never panics, walks its blocks in order
// and keeps every device entry inside its block.
func FuzzParseIVRS(f *testing.F) {
	seedTables(f, SigIVRS)
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseIVRS(table(b))
		if v == nil {
			require.Error(t, err)
			return
		}
		off := IVRSHeaderSize
		for _, blk := range v.Blocks {
			require.Equal(t, off, blk.Offset)
			off += blk.Length
			for _, e := range blk.Entries {
				require.LessOrEqual(t, e.Offset+e.Length, blk.Offset+blk.Length)
				require.Positive(t, e.Length)
			}
		}
		require.LessOrEqual(t, off, int(v.Header.Length))
	})
}

func TestParseIVRSCorpus(t *testing.T) {
	n := 0
	for _, p := range corpusDumps(t) {
		ts, err := LoadDumpFile(p)
		require.NoError(t, err)
		for _, tb := range ts.Get(SigIVRS) {
			v, err := ParseIVRS(tb)
			require.NoError(t, err, p)
			for _, b := range v.Blocks {
				assert.False(t, b.Short, p)
				assert.NoError(t, b.EntryErr, p)
				for _, e := range b.Entries {
					if e.Type == IVEntryACPIHID {
						assert.NotEmpty(t, e.HID, p)
					}
				}
			}
			n++
		}
	}
	t.Logf("%d IVRS tables parsed", n)
}

// FuzzParseDebugTables: the DBG2, DBGP and SPCR parsers never panic and
// keep every DBG2 device inside the table.
func FuzzParseDebugTables(f *testing.F) {
	seedTables(f, SigDBG2, SigDBGP, SigSPCR)
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := table(b)
		if d, _ := ParseDBG2(tb); d != nil {
			for _, dev := range d.Devices {
				require.LessOrEqual(t, dev.Offset+dev.Length, int(d.Header.Length))
				require.GreaterOrEqual(t, dev.Length, DBG2DeviceHeaderSize)
				if dev.RegistersOK {
					require.Len(t, dev.Registers, int(dev.NumGAS))
				}
			}
		}
		_, _ = ParseDBGP(tb)
		_, _ = ParseSPCR(tb)
	})
}

// FuzzParseErrorStatusBlock: the boot error region decoder never panics
// and keeps its entries inside the data length.
func FuzzParseErrorStatusBlock(f *testing.F) {
	f.Add(make([]byte, 20))
	f.Add(append([]byte{0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 1, 0, 0, 0}, make([]byte, 64)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseErrorStatusBlock(b)
		if s == nil {
			require.Error(t, err)
			return
		}
		require.LessOrEqual(t, len(s.Entries)*64, int(s.DataLength))
		_, _ = ParseBERT(table(b))
	})
}
