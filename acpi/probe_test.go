package acpi

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func xsdtOf(addrs ...uint64) []byte {
	body := make([]byte, 8*len(addrs))
	for i, a := range addrs {
		binary.LittleEndian.PutUint64(body[8*i:], a)
	}
	return sdt(SigXSDT, 1, body)
}

func TestProbeEntries(t *testing.T) {
	facs := make([]byte, 64)
	copy(facs, "FACS")
	binary.LittleEndian.PutUint32(facs[4:], 64)
	mem := sparseMem{
		0x1000: sdt("APIC", 1, make([]byte, 8)),
		0x2000: []byte("\xff\xff\xff\xff\xff\xff\xff\xff"),
		0x3000: facs,
		0x4000: []byte("HPET\x04\x00\x00\x00"),
		0x5000: []byte("RSD PTR \x00"),
	}
	ts := &Tables{}
	ts.Add(&Table{Signature: SigXSDT, Raw: xsdtOf(0x1000, 0, 0x2000, 0x3000, 0x4000, 0x5000, 0x9000)})
	ps := ProbeEntries(mem, ts)
	require.Len(t, ps, 6, "the zero entry is not probed")
	var bad []string
	for _, p := range ps {
		bad = append(bad, p.Bad())
	}
	assert.Equal(t, "", bad[0], "a table")
	assert.Contains(t, bad[1], "no table signature")
	assert.Contains(t, bad[2], "FACS")
	assert.Contains(t, bad[3], "impossible length 4")
	assert.Contains(t, bad[4], "RSDP")
	assert.Equal(t, "", bad[5], "unreadable memory proves nothing")
	assert.Nil(t, ps[5].Head)
	assert.Equal(t, 6, ps[5].Index)

	// The record round-trips.
	got, err := ParseProbes(FormatProbes(ps))
	require.NoError(t, err)
	assert.Equal(t, ps, got)
	for _, b := range []string{"XSDT 0 0x10\n", "FADT 0 0x10 -\n", "XSDT x 0x10 -\n", "XSDT 0 10 -\n", "XSDT 0 0x10 abcd\n", "XSDT -1 0x10 -\n"} {
		_, err := ParseProbes([]byte(b))
		assert.Error(t, err, "%q", b)
	}
	ps, err = ParseProbes(nil)
	assert.NoError(t, err)
	assert.Empty(t, ps)
}

// TestProbeEntriesRealAddresses: the one corpus dump with real addresses,
// its tables placed at them, probes every XSDT and RSDT entry with no bad
// one (the entries the core corpus dropped the tables of are unreadable,
// which proves nothing).
func TestProbeEntriesRealAddresses(t *testing.T) {
	dump, err := LoadDumpFile(filepath.Join(sharedDir(t), "corpus", "acpi", "linuxhw", "core", "D0292BFAFD2C.acpidump.txt"))
	require.NoError(t, err)
	mem := sparseMem{}
	for _, tb := range dump.List {
		mem[tb.Address] = tb.Raw
	}
	ps := ProbeEntries(mem, dump)
	assert.Len(t, ps, 42)
	read := 0
	for _, p := range ps {
		assert.Empty(t, p.Bad(), "%s entry %d at 0x%x", p.Root, p.Index, p.Address)
		if p.Head != nil {
			read++
		}
	}
	assert.Equal(t, 20, read)
}

func FuzzParseProbes(f *testing.F) {
	f.Add([]byte("XSDT 0 0x9fbfc000 4641435014010000\nRSDT 3 0x0 -\n"))
	f.Add([]byte("XSDT 4095 0xffffffffffffffff -\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := ParseProbes(b)
		if err != nil {
			return
		}
		for _, p := range ps {
			_ = p.Bad()
		}
		again, err := ParseProbes(FormatProbes(ps))
		if err != nil {
			t.Fatalf("a parsed record does not parse again: %v", err)
		}
		if len(again) != len(ps) {
			t.Fatalf("round trip: %d entries, then %d", len(ps), len(again))
		}
	})
}
