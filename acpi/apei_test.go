package acpi

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

// TestParseAPEIAndNUMACorpus: every corpus HEST, ERST, EINJ, SRAT, SLIT,
// MSCT, CRAT and CDIT parses whole (the corpus tables are well formed in
// their structure; their field findings are the checks').
func TestParseAPEIAndNUMACorpus(t *testing.T) {
	n := map[string]int{}
	for _, p := range corpusDumps(t) {
		ts, err := LoadDumpFile(p)
		require.NoError(t, err)
		for _, tb := range ts.Get(SigHEST) {
			h, err := ParseHEST(tb)
			require.NoError(t, err, p)
			assert.Equal(t, int(h.SourceCount), len(h.Sources), p)
			n[SigHEST]++
		}
		for _, sig := range []string{SigERST, SigEINJ} {
			for _, tb := range ts.Get(sig) {
				w, err := parseWHEA(tb, sig)
				require.NoError(t, err, p)
				assert.Zero(t, w.Trailing, p)
				assert.Equal(t, int(w.EntryCount), len(w.Entries), p)
				n[sig]++
			}
		}
		for _, tb := range ts.Get(SigSRAT) {
			s, err := ParseSRAT(tb)
			require.NoError(t, err, p)
			assert.NotEmpty(t, s.Domains(), p)
			n[SigSRAT]++
		}
		for _, tb := range append(ts.Get(SigSLIT), ts.Get(SigCDIT)...) {
			parse := ParseSLIT
			if tb.Signature == SigCDIT {
				parse = ParseCDIT
			}
			d, err := parse(tb)
			require.NoError(t, err, p)
			require.NotNil(t, d.Matrix, p)
			assert.Equal(t, byte(10), d.At(0, 0), p)
			n[tb.Signature]++
		}
		for _, tb := range ts.Get(SigMSCT) {
			m, err := ParseMSCT(tb)
			require.NoError(t, err, p)
			assert.NotEmpty(t, m.Domains, p)
			n[SigMSCT]++
		}
		for _, tb := range ts.Get(SigCRAT) {
			c, err := ParseCRAT(tb)
			require.NoError(t, err, p)
			assert.Equal(t, int(c.TotalEntries), len(c.Entries), p)
			n[SigCRAT]++
		}
	}
	t.Logf("tables parsed: %v", n)
}

func TestParseHEST(t *testing.T) {
	// An IA-32 corrected machine check source with one bank, then an NMI
	// source, then a source of reserved type 4.
	cmc := make([]byte, 48+28)
	cmc[0], cmc[2], cmc[7] = 1, 5, 1
	cmc[16], cmc[17] = 5, 28 // CMCI notification
	cmc[44] = 1
	cmc[48+2] = 1 // Intel 64 MCA format
	binary.LittleEndian.PutUint32(cmc[48+4:], 0x401)
	nmi := make([]byte, 20)
	nmi[0], nmi[2] = 2, 6
	body := append(binary.LittleEndian.AppendUint32(nil, 3), cmc...)
	body = append(append(body, nmi...), 4, 0, 7, 0)
	h, err := ParseHEST(table(sdt(SigHEST, 1, body)))
	var he *HESTError
	require.ErrorAs(t, err, &he)
	assert.Zero(t, he.Need)
	require.Len(t, h.Sources, 2)
	assert.Equal(t, 40+76+20, h.Unread)
	c := h.Sources[0]
	assert.Equal(t, uint16(5), c.SourceID)
	assert.Equal(t, 76, c.Length)
	assert.Equal(t, HESTNotify{Type: 5, Length: 28}, c.Notify)
	require.Len(t, c.Banks, 1)
	assert.Equal(t, HESTBank{StatusFormat: 1, ControlMSR: 0x401}, c.Banks[0])
	assert.Equal(t, uint8(1), h.Sources[1].Enabled, "an NMI source has no Enabled field and is always on")

	_, err = ParseHEST(table(sdt(SigHEST, 1, append(binary.LittleEndian.AppendUint32(nil, 1), cmc[:60]...))))
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 76, he.Need)
}

func TestParseWHEA(t *testing.T) {
	body := []byte{12, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0}
	e := make([]byte, 32)
	e[0], e[1], e[2] = ERSTExecute, WHEAWriteRegisterValue, WHEAPreserveRegister
	copy(e[4:], []byte{1, 8, 0, 1, 0xB2})
	binary.LittleEndian.PutUint64(e[16:], 0x9C)
	binary.LittleEndian.PutUint64(e[24:], 0xFF)
	w, err := ParseERST(table(sdt(SigERST, 1, append(append(body, e...), e[:20]...))))
	require.NoError(t, err)
	assert.Equal(t, uint32(2), w.EntryCount)
	require.Len(t, w.Entries, 1)
	assert.Equal(t, 20, w.Trailing)
	assert.Equal(t, WHEAEntry{Offset: 48, Action: ERSTExecute, Instruction: WHEAWriteRegisterValue, Flags: 1,
		Register: GAS{Space: SpaceSystemIO, BitWidth: 8, AccessSize: 1, Address: 0xB2, Present: true}, Value: 0x9C, Mask: 0xFF}, w.Entries[0])
	assert.Equal(t, "EXECUTE_OPERATION", ERSTActionName(w.Entries[0].Action))
	assert.Equal(t, "TRIGGER_ERROR", EINJActionName(EINJTriggerError))
	assert.True(t, WHEAActionKnown(SigEINJ, EINJTriggerError))
	assert.False(t, WHEAActionKnown(SigERST, 0x0C))
	assert.False(t, WHEAInstructionKnown(SigEINJ, ERSTStall))
}

func TestAPEIRegisterProblem(t *testing.T) {
	for _, c := range []struct {
		g  GAS
		ok bool
	}{
		{GAS{Space: SpaceSystemMemory, BitWidth: 64, AccessSize: 4, Address: 0xBFF68800}, true},
		{GAS{Space: SpaceSystemIO, BitWidth: 8, AccessSize: 1, Address: 0xB2}, true},
		{GAS{Space: SpaceSystemMemory, BitWidth: 32, AccessSize: 0, Address: 0xBFF68804}, true}, // the common access-size-0 register
		{GAS{Space: SpaceSystemMemory, BitWidth: 32, AccessSize: 0, Address: 0xBFF68802}, false},
		{GAS{Space: SpaceSystemMemory, BitWidth: 8, AccessSize: 0, Address: 0xBFF68800}, false},
		{GAS{Space: SpaceSystemMemory, BitWidth: 16, AccessSize: 2}, false},
		{GAS{Space: SpacePCIConfig, BitWidth: 16, AccessSize: 2, Address: 0x10}, false},
		{GAS{Space: SpaceSystemIO, BitWidth: 8, BitOffset: 4, AccessSize: 1, Address: 0xB2}, false},
		{GAS{Space: SpaceSystemIO, BitWidth: 8, AccessSize: 7, Address: 0xB2}, false},
	} {
		assert.Equal(t, c.ok, APEIRegisterProblem(c.g) == "", "%v: %s", c.g, APEIRegisterProblem(c.g))
	}
}

func TestParseNUMA(t *testing.T) {
	// A revision-2 SRAT's local APIC structure carries a 32-bit domain.
	lapic := []byte{0, 16, 0x01, 4, 1, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0}
	s, err := ParseSRAT(table(sdt(SigSRAT, 2, append(append([]byte{1, 0, 0, 0}, make([]byte, 8)...), lapic...))))
	require.NoError(t, err)
	require.Len(t, s.Entries, 1)
	assert.Equal(t, uint32(0x201), s.Entries[0].Domain)
	s, _ = ParseSRAT(table(sdt(SigSRAT, 1, append(append([]byte{1, 0, 0, 0}, make([]byte, 8)...), lapic...))))
	assert.Equal(t, uint32(1), s.Entries[0].Domain, "revision 1 has only the low 8 bits")

	d, err := ParseSLIT(table(sdt(SigSLIT, 1, append(binary.LittleEndian.AppendUint64(nil, 2), 10, 20, 21, 10))))
	require.NoError(t, err)
	assert.Equal(t, byte(21), d.At(1, 0))
	d, err = ParseCDIT(table(sdt(SigCDIT, 1, append(binary.LittleEndian.AppendUint32(nil, 0xFFFFFFFF), 10))))
	require.NoError(t, err)
	assert.Nil(t, d.Matrix)
	assert.NotZero(t, d.Missing)
}

// FuzzParseHEST: the HEST parser never panics and its sources tile the
// table from the header on.
func FuzzParseHEST(f *testing.F) {
	seedTables(f, SigHEST)
	f.Add(sdt(SigHEST, 1, append([]byte{1, 0, 0, 0, 0, 0, 0, 0}, make([]byte, 40)...)))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHEST(table(b))
		if h == nil {
			require.Error(t, err)
			return
		}
		off := HESTHeaderSize
		for _, s := range h.Sources {
			require.Equal(t, off, s.Offset)
			require.Equal(t, HESTFixedSize(s.Type)+s.BankCount*HESTBankSize, s.Length)
			off += s.Length
		}
		require.LessOrEqual(t, off, int(h.Header.Length))
	})
}

// FuzzParseWHEA: the ERST/EINJ parser never panics and reads only whole
// entries inside the table.
func FuzzParseWHEA(f *testing.F) {
	seedTables(f, SigERST, SigEINJ)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, parse := range []func(*Table) (*WHEATable, error){ParseERST, ParseEINJ} {
			w, err := parse(table(b))
			if w == nil {
				require.Error(t, err)
				continue
			}
			require.Equal(t, int(w.Header.Length), WHEAHeaderSize+len(w.Entries)*WHEAEntrySize+w.Trailing+w.NotRead)
			for _, e := range w.Entries {
				_ = APEIRegisterProblem(e.Register)
			}
		}
	})
}

// FuzzParseNUMA: the SRAT, SLIT, CDIT, MSCT, CRAT and HMAT parsers never panic,
// keep their structures inside the table, and a matrix is N×N.
func FuzzParseNUMA(f *testing.F) {
	seedTables(f, SigSRAT, SigSLIT, SigMSCT, SigCRAT, SigCDIT)
	if r := corpus.Root(); r != "" {
		if raw, err := os.ReadFile(filepath.Join(r, "acpi", "qemu", "pc", "HMAT.acpihmat")); err == nil {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := table(b)
		if s, _ := ParseSRAT(tb); s != nil {
			for _, e := range s.Entries {
				require.LessOrEqual(t, e.Offset+e.Length, int(s.Header.Length))
			}
			all := s.Domains()
			for d := range s.MemoryDomains() {
				require.True(t, all[d], "memory domain %d is an enabled structure's", d)
			}
		}
		for _, parse := range []func(*Table) (*Distances, error){ParseSLIT, ParseCDIT} {
			if d, _ := parse(tb); d != nil && d.Matrix != nil {
				require.Equal(t, d.N*d.N, uint64(len(d.Matrix)))
			}
		}
		if m, _ := ParseMSCT(tb); m != nil {
			for _, d := range m.Domains {
				require.LessOrEqual(t, d.Offset+MSCTDomainSize, int(m.Header.Length))
			}
		}
		if h, _ := ParseHMAT(tb); h != nil {
			for _, e := range h.Entries {
				require.LessOrEqual(t, e.Offset+e.Length, int(h.Header.Length))
				require.LessOrEqual(t, uint64(len(e.InitiatorDomains)+len(e.TargetDomains))*4, uint64(e.Length))
			}
		}
		if c, _ := ParseCRAT(tb); c != nil {
			for _, e := range c.Entries {
				require.LessOrEqual(t, e.Offset+e.Length, int(c.Header.Length))
			}
		}
	})
}

// FuzzWalkStructures: the generic walker never panics and tiles the
// bytes it walks, whatever the layout.
func FuzzWalkStructures(f *testing.F) {
	f.Add(sdt("ASF!", 32, []byte{0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x84, 0, 4, 0}), uint8(36), uint8(0), uint8(0), uint8(2), uint8(1))
	f.Add(sdt("NHLT", 0, []byte{1, 8, 0, 0, 0, 2, 0, 0, 0}), uint8(37), uint8(4), uint8(0), uint8(0), uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, start, typeOff, typeSize, lenOff, lenSize uint8) {
		sizes := []int{1, 2, 4}
		l := StructureLayout{Start: int(start), TypeOff: int(typeOff % 8), TypeSize: sizes[typeSize%3], LenOff: int(lenOff % 8), LenSize: sizes[lenSize%3]}
		subs, _, err := WalkStructures("x", table(b), l)
		if subs == nil && err != nil {
			return
		}
		off := l.Start
		for _, s := range subs {
			require.Equal(t, off, s.Offset)
			require.Len(t, s.Raw, s.Length)
			off += s.Length
		}
	})
}
