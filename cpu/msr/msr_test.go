package msr

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormatParseRoundTrip(t *testing.T) {
	d := NewDump()
	d.Set(0, 0x2FF, 0xC06)
	d.Set(1, 0x2FF, 0xC00)
	d.Set(0, 0xFE, 0x508)
	d.SetError(1, 0xC0010010, "input/output error")
	var b bytes.Buffer
	require.NoError(t, d.Format(&b))
	assert.Equal(t, "# fwcheck msr dump 1\ncpu 0 0xfe 0x0000000000000508\ncpu 0 0x2ff 0x0000000000000c06\n"+
		"cpu 1 0x2ff 0x0000000000000c00\ncpu 1 0xc0010010 error: input/output error\n", b.String())
	e, err := Parse(b.Bytes())
	require.NoError(t, err)
	assert.Equal(t, d, e)
	assert.Equal(t, []int{0, 1}, e.CPUs())
	for _, bad := range []string{"cpu x 0x1 0x2\n", "cpu 0 0x1\n", "cpu 0 zz 0x2\n", "cpu 0 0x1 0xzz\n", "core 0 0x1 0x2\n", "cpu -1 0x1 0x2\n"} {
		_, err := Parse([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestNames(t *testing.T) {
	assert.Equal(t, "IA32_MTRR_PHYSBASE3", Name(0x206))
	assert.Equal(t, "IA32_MTRR_PHYSMASK0", Name(0x201))
	assert.Equal(t, "IA32_FEATURE_CONTROL", Name(0x3A))
	assert.Equal(t, "MSR 0x10", Name(0x10))
}

// TestReadCPU reads a sparse file laid out like /dev/cpu/N/msr: 8 bytes at
// each register's offset; registers past the end fail as on a CPU that
// lacks them.
func TestReadCPU(t *testing.T) {
	p := filepath.Join(t.TempDir(), "msr")
	f, err := os.Create(p)
	require.NoError(t, err)
	put := func(a uint32, v uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		_, err := f.WriteAt(b[:], int64(a))
		require.NoError(t, err)
	}
	// A file cannot hold registers one byte apart, as the device does:
	// these are 8 or more apart.
	put(0xFE, 0x502)
	put(0x300, 0xF80000800)
	put(0x308, 0)
	require.NoError(t, f.Close())
	d := NewDump()
	more := func(cpu int, d *Dump) []uint32 {
		c, _ := d.Get(cpu, 0xFE)
		var out []uint32
		for i := uint32(0); i < uint32(c&0xFF); i++ {
			out = append(out, 0x300+8*i)
		}
		return out
	}
	require.NoError(t, ReadCPU(d, 3, p, []uint32{0xFE, 0x10000}, more))
	v, ok := d.Get(3, 0x300)
	assert.True(t, ok)
	assert.Equal(t, uint64(0xF80000800), v)
	_, ok = d.Get(3, 0x308)
	assert.True(t, ok)
	assert.Contains(t, d.Errors[3], uint32(0x10000))
	assert.Error(t, ReadCPU(d, 4, filepath.Join(t.TempDir(), "absent"), nil, nil))
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("# fwcheck msr dump 1\ncpu 0 0xfe 0x0000000000000508\ncpu 1 0xc0010010 error: input/output error\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Parse(b)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := d.Format(&out); err != nil {
			t.Fatal(err)
		}
		e, err := Parse(out.Bytes())
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(e.CPUs()) != len(d.CPUs()) {
			t.Fatal("round trip lost CPUs")
		}
	})
}

func TestEmptyErrorRoundTrip(t *testing.T) {
	d := NewDump()
	d.SetError(0, 1, "")
	var b bytes.Buffer
	require.NoError(t, d.Format(&b))
	e, err := Parse(b.Bytes())
	require.NoError(t, err)
	assert.Equal(t, d, e)
}
