package mtrr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sdmExample is the variable-range example of Intel SDM Vol. 3A §12.11.3.1
// on a 36-bit CPU: 64 MiB WB at 0, 32 MiB WB at 64 MiB, 4 MiB UC at
// 96 MiB (carved out of nothing: uncovered memory takes the default UC),
// and an 8 MiB WC frame buffer at 0xA0000000.
func sdmExample() *State {
	return FromMSRs(0x50A, 0xC00, nil, [][2]uint64{
		{0x0000000000000006, 0x0000000FFC000800},
		{0x0000000004000006, 0x0000000FFE000800},
		{0x0000000006000000, 0x0000000FFFC00800},
		{0x00000000A0000001, 0x0000000FFF800800},
	}, 36)
}

func TestSDMExample(t *testing.T) {
	s := sdmExample()
	assert.True(t, s.Enabled)
	assert.True(t, s.FixedSupported)
	for _, c := range []struct {
		addr uint64
		want Type
		src  string
	}{
		{0, WB, "variable"}, {0x3FFFFFF, WB, "variable"}, {0x4000000, WB, "variable"}, {0x5FFFFFF, WB, "variable"},
		{0x6000000, UC, "variable"}, {0x63FFFFF, UC, "variable"}, {0x6400000, UC, "default"},
		{0xA0000000, WC, "variable"}, {0xA07FFFFF, WC, "variable"}, {0xA0800000, UC, "default"},
	} {
		seg := s.TypeAt(c.addr)
		assert.Equal(t, c.want, seg.Type, "0x%x", c.addr)
		assert.Equal(t, c.src, seg.Source, "0x%x", c.addr)
	}
	segs := s.Segments(0, 0xFFFFFFFFF)
	var got []string
	for _, g := range segs {
		got = append(got, g.Type.String())
	}
	// FE is clear in this example, so the first MiB is variable-range WB too.
	assert.Equal(t, []string{"WB", "UC", "UC", "WC", "UC"}, got)
	assert.Equal(t, uint64(0x5FFFFFF), segs[0].End)
	for _, v := range s.Var {
		assert.True(t, v.Contiguous(s.PhysMask()), "%v", v)
		assert.True(t, v.Aligned(s.PhysMask()), "%v", v)
	}
}

func TestOverlapRules(t *testing.T) {
	for _, c := range []struct {
		in       []Type
		want     Type
		conflict bool
	}{
		{[]Type{WB}, WB, false},
		{[]Type{WB, WB}, WB, false},
		{[]Type{UC, WB}, UC, false},
		{[]Type{WC, UC}, UC, false},
		{[]Type{WB, WT}, WT, false},
		{[]Type{WT, WB, WT}, WT, false},
		{[]Type{WC, WB}, UC, true},
		{[]Type{WP, WT}, UC, true},
		{[]Type{WB, WT, UC}, UC, false},
	} {
		got, conflict := Combine(c.in)
		assert.Equal(t, c.want, got, "%v", c.in)
		assert.Equal(t, c.conflict, conflict, "%v", c.in)
	}
	// As registers: 0-2 GiB WB overlapped by 1-2 GiB WC is undefined.
	s := FromMSRs(0x508, 0xC06, nil, [][2]uint64{{0x6, 0xF80000800}, {0x40000001, 0xFC0000800}}, 36)
	seg := s.TypeAt(0x50000000)
	assert.True(t, seg.Conflict)
	assert.Equal(t, []Type{WC, WB}, seg.Types)
}

func TestFixedRangesAndDisable(t *testing.T) {
	fixed := make([]uint64, len(FixedMSRs))
	fixed[0] = 0x0606060606060606 // 0-512K WB
	fixed[1] = 0x0606060606060606 // 512K-640K WB
	fixed[2] = 0x0000000000000000 // A0000-BFFFF UC
	for i := 3; i < 11; i++ {
		fixed[i] = 0x0505050505050505 // C0000-FFFFF WP
	}
	fixed[3] = 0x0505050505050518 // AMD RdMem/WrMem on the first 4K; type UC
	s := FromMSRs(0x508, 0xC00, fixed, [][2]uint64{{0x6, 0xF80000800}}, 36)
	assert.Equal(t, WB, s.TypeAt(0x9FFFF).Type)
	assert.Equal(t, "fixed", s.TypeAt(0x9FFFF).Source)
	assert.Equal(t, UC, s.TypeAt(0xB8000).Type)
	assert.Equal(t, UC, s.TypeAt(0xC0000).Type)
	assert.Equal(t, uint8(0x18), s.Fixed[24].RdWrMem)
	assert.Equal(t, WP, s.TypeAt(0xF0000).Type)
	assert.Equal(t, WB, s.TypeAt(0x100000).Type, "above 1 MiB the variable ranges decide")
	// FE clear: the first MiB follows the variable ranges.
	s2 := FromMSRs(0x508, 0x800, fixed, [][2]uint64{{0x6, 0xF80000800}}, 36)
	assert.Equal(t, WB, s2.TypeAt(0xB8000).Type)
	// E clear: everything is UC.
	s3 := FromMSRs(0x508, 0x406, fixed, [][2]uint64{{0x6, 0xF80000800}}, 36)
	assert.Equal(t, UC, s3.TypeAt(0x1000).Type)
	assert.Equal(t, "disabled", s3.TypeAt(0x1000).Source)
}

func TestMaskShape(t *testing.T) {
	pm := uint64(1)<<36 - 1
	assert.False(t, Var{Mask: 0xF7F000000, Valid: true}.Contiguous(pm), "a hole in the mask")
	assert.False(t, Var{Mask: 0x7FF000000, Valid: true}.Contiguous(pm), "top bit missing")
	v := Var{Base: 0xFFF60000, Mask: 0xFFFC00000, Valid: true}
	assert.True(t, v.Contiguous(pm))
	assert.False(t, v.Aligned(pm), "base 0xfff60000 is not a multiple of 4 MiB")
	assert.True(t, v.Contains(0xFFC00000, pm), "the CPU ignores the low base bits")
}

func TestAMDTOM2(t *testing.T) {
	s := FromMSRs(0x508, 0xC00, nil, [][2]uint64{{0x6, 0xF80000800}}, 40)
	assert.Equal(t, UC, s.TypeAt(1<<32).Type)
	s.TOM2WB, s.TOM2 = true, 0x440000000
	assert.Equal(t, WB, s.TypeAt(1<<32).Type)
	assert.Equal(t, "tom2", s.TypeAt(0x43FFFFFFF).Source)
	assert.Equal(t, UC, s.TypeAt(0x440000000).Type)
}

func TestParseProc(t *testing.T) {
	s, err := ParseProc([]byte("reg00: base=0x000000000 (    0MB), size= 2048MB, count=1: write-back\n" +
		"reg01: base=0x080000000 ( 2048MB), size= 1024MB, count=1: write-back\n" +
		"reg02: base=0x0bf700000 ( 3063MB), size=    1MB, count=1: uncachable\n" +
		"reg03: base=0x0d0000000 ( 3328MB), size=  512KB, count=1: write-combining\n"))
	require.NoError(t, err)
	require.Len(t, s.Var, 4)
	assert.False(t, s.HaveDefault)
	assert.Equal(t, WB, s.TypeAt(0x7FFFFFFF).Type)
	assert.Equal(t, UC, s.TypeAt(0xBF700000).Type)
	assert.Equal(t, WC, s.TypeAt(0xD007FFFF).Type)
	assert.Equal(t, uint64(512<<10), s.Var[3].Size(s.PhysMask()))
	_, err = ParseProc([]byte("reg00: base=zzz\n"))
	assert.Error(t, err)
}

func TestFromLog(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "hp-nc6340.dmesg.txt"))
	require.NoError(t, err)
	texts := strings.Split(string(b), "\n")
	for i, l := range texts {
		if _, rest, ok := strings.Cut(l, "] "); ok {
			texts[i] = rest
		}
	}
	s := FromLog(texts)
	require.NotNil(t, s)
	assert.True(t, s.Enabled && s.FixedEnabled)
	assert.Equal(t, UC, s.Default)
	assert.Equal(t, 36, s.PhysBits)
	require.Len(t, s.Var, 8)
	assert.False(t, s.Var[3].Valid)
	assert.Equal(t, WB, s.TypeAt(0x3F7FFFFF).Type)
	assert.Equal(t, UC, s.TypeAt(0x3F800000).Type)
	assert.Equal(t, WP, s.TypeAt(0xC0000).Type)
	assert.Equal(t, UC, s.TypeAt(0xFEDA0000).Type)
	assert.Equal(t, []string{"variable", "fixed"}, Inconsistent(texts))
	assert.Nil(t, FromLog([]string{"nothing here"}))
	assert.False(t, CleanedUp(texts))
	assert.True(t, CleanedUp([]string{"Found optimal setting for mtrr clean up"}))
}

func FuzzParseProc(f *testing.F) {
	f.Add([]byte("reg00: base=0x000000000 (    0MB), size= 2048MB, count=1: write-back\n"))
	f.Add([]byte("reg03: base=0x0d0000000 ( 3328MB), size=  512KB, count=1: write-combining\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseProc(b)
		if err == nil {
			s.Segments(0, s.PhysMask())
		}
	})
}

func FuzzFromLog(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("testdata", "hp-nc6340.dmesg.txt"))
	f.Add(string(b))
	f.Add("MTRR default type: write-back\nMTRR variable ranges enabled:\n  0 base 0000000000 mask F000000000 write-through\n  1 base 0000000000 mask F800000000 uncachable\n")
	f.Fuzz(func(t *testing.T, s string) {
		texts := strings.Split(s, "\n")
		if st := FromLog(texts); st != nil {
			segs := st.Segments(0, st.PhysMask())
			for i := 1; i < len(segs); i++ {
				if segs[i].Start != segs[i-1].End+1 {
					t.Fatalf("segments not contiguous: %+v %+v", segs[i-1], segs[i])
				}
			}
		}
		Inconsistent(texts)
		VendorFromLog(texts)
	})
}

// BenchmarkSegments maps the whole address space of a 10-range state.
func BenchmarkSegments(b *testing.B) {
	vars := [][2]uint64{}
	for i := uint64(0); i < 10; i++ {
		vars = append(vars, [2]uint64{i<<32 | 6, 0xFF00000000 | 0x800})
	}
	s := FromMSRs(0x50A, 0xC00, nil, vars, 40)
	for i := 0; i < b.N; i++ {
		s.Segments(0, s.PhysMask())
	}
}
