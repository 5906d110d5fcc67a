package acpi

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sdt builds a table with a valid header and checksum around body.
func sdt(sig string, rev uint8, body []byte) []byte {
	b := make([]byte, HeaderSize+len(body))
	copy(b, sig)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
	b[8] = rev
	copy(b[10:], "FWCHK ")
	copy(b[16:], "TESTTABL")
	copy(b[28:], "FWCK")
	copy(b[HeaderSize:], body)
	b[9] = -Sum(b)
	return b
}

func table(raw []byte) *Table {
	ts := &Tables{}
	ts.Add(&Table{Signature: tableSignature("", raw), Raw: raw})
	return ts.List[0]
}

func TestParseDumpLenient(t *testing.T) {
	in := `Firmware Warning (ACPI): Incorrect checksum in table [GSCI] - 0x96, should be 0x6F (20200925/tbprint-234)

RSD PTR @ 0x00000000000F0490
    0000: 52 53 44 20 50 54 52 20 2A 42 4F 43 48 53 20 00  RSD PTR *BOCHS .
    0010: 00 00 00 00                                      ....

SSDT @ 0x0000000000000000
    0000: 53 53 44 54 24 00 00 00 01 00 41 42 43 44 45 46  SSDT$.....ABCDEF
    some stray line: the kernel said something
    0010: 41 42 43 44 45 46 47 48 00 00 00 00 41 42 43 44  ABCDEFGH....ABCD
    0020: 00 00 00 00                                      ....

SSDT @ 0x0000000000000000
    0000: 53 53 44 54 24 00 00 00 01 00 41 42 43 44 45 46  SSDT$.....ABCDEF
    0010: 41 42 43 44 45 46 47 48 00 00 00 00 41 42 43 44  ABCDEFGH....ABCD
    0020: 00 00 00 00                                      AB C
`
	ts, err := ParseDump(strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, ts.List, 3)
	assert.Equal(t, SigRSDP, ts.List[0].Signature)
	assert.Equal(t, "RSDP", ts.List[0].Name())
	assert.Equal(t, uint64(0xF0490), ts.List[0].Address)
	assert.Len(t, ts.List[0].Raw, 20)
	assert.Equal(t, "SSDT1", ts.List[1].Name())
	assert.Equal(t, "SSDT2", ts.List[2].Name())
	assert.Len(t, ts.List[2].Raw, 36, "the ASCII column is not read as hex")
	assert.Len(t, ts.Warnings, 2)
	r, err := ts.RSDP()
	require.NoError(t, err)
	assert.Equal(t, uint8(0), r.Revision)
	_, err = ts.XSDT()
	assert.Error(t, err, "no XSDT in the dump")
}

func TestParseDumpErrors(t *testing.T) {
	_, err := ParseDump(strings.NewReader("just words\n"))
	assert.Error(t, err)
	_, err = ParseDump(strings.NewReader("FACP @ 0x0\n  0000: 46 41\n  0020: 00\n"))
	assert.ErrorContains(t, err, "offset")
}

func TestParseDumpGzip(t *testing.T) {
	for _, p := range corpusDumps(t) {
		if !strings.HasSuffix(p, ".gz") {
			continue
		}
		f, err := os.Open(p)
		require.NoError(t, err)
		ts, err := ParseDump(f)
		f.Close()
		require.NoError(t, err)
		assert.NotNil(t, ts.First(SigDSDT), "full dumps carry the DSDT")
		return
	}
}

func TestLoadFSSysfsLayout(t *testing.T) {
	ssdt := func(n byte) []byte { b := sdt("SSDT", 2, []byte{n}); return b }
	fsys := fstest.MapFS{
		"t/FACP":           {Data: sdt("FACP", 6, make([]byte, FADTLenRev6-HeaderSize))},
		"t/SSDT1":          {Data: ssdt(1)},
		"t/SSDT2":          {Data: ssdt(2)},
		"t/SSDT10":         {Data: ssdt(10)},
		"t/dynamic/SSDT11": {Data: ssdt(11)},
		"t/data/BERT":      {Data: []byte("not a table")},
		"t/RSDP":           {Data: append([]byte("RSD PTR "), make([]byte, 12)...)},
		"t/.hidden":        {Data: []byte("x")},
	}
	ts, err := LoadFS(fsys, "t")
	require.NoError(t, err)
	var names, origins []string
	for _, tb := range ts.List {
		names = append(names, tb.Name())
		origins = append(origins, tb.Origin)
	}
	assert.Equal(t, []string{"FACP", "RSDP", "SSDT1", "SSDT2", "SSDT3", "SSDT4"}, names)
	assert.Equal(t, []string{"FACP", "RSDP", "SSDT1", "SSDT2", "SSDT10", "dynamic/SSDT11"}, origins)
	_, err = LoadFS(fstest.MapFS{"e/x": {Mode: 0o755 | 1<<31}}, "e")
	assert.Error(t, err)
}

func TestLoadFSQEMUDirIsBaseConfiguration(t *testing.T) {
	fsys := os.DirFS(filepath.Join(qemuDir(t), "q35"))
	dir, err := LoadFS(fsys, ".")
	require.NoError(t, err)
	base, err := LoadQEMU(fsys, ".", "")
	require.NoError(t, err)
	require.Len(t, dir.List, len(base.List))
	for i := range base.List {
		assert.Equal(t, base.List[i].Raw, dir.List[i].Raw)
	}
	require.Len(t, dir.Warnings, 1)
	assert.Contains(t, dir.Warnings[0], "QEMU variant")
	assert.False(t, isQEMUVariant("facp.dat"))
	assert.False(t, isQEMUVariant("SSDT1"))
	assert.True(t, isQEMUVariant("DSDT.tis.tpm12"))
}

func TestWriteFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rsdp := validRSDP(2, 0x1000, 0x2000)
	xsdt := sdt("XSDT", 1, make([]byte, 8))
	require.NoError(t, WriteFiles(dir, []*Table{
		{Signature: SigRSDP, Raw: rsdp}, {Signature: SigXSDT, Raw: xsdt},
	}))
	_, err := os.Stat(filepath.Join(dir, "RSDP"))
	require.NoError(t, err)
	ts, err := LoadFS(os.DirFS(dir), ".")
	require.NoError(t, err)
	r, err := ts.RSDP()
	require.NoError(t, err)
	assert.Equal(t, uint64(0x2000), r.XSDTAddress)
	sys := &Tables{Source: "sysfs"}
	sys.Add(&Table{Signature: SigFADT, Raw: sdt("FACP", 6, make([]byte, 240))})
	sys.MergeRoots(ts)
	assert.NotNil(t, sys.First(SigRSDP))
	assert.NotNil(t, sys.First(SigXSDT))
	assert.Len(t, sys.List, 3)
}

func validRSDP(rev uint8, rsdt uint32, xsdt uint64) []byte {
	b := make([]byte, RSDPv2Size)
	copy(b, "RSD PTR ")
	copy(b[9:], "FWCHK ")
	b[15] = rev
	binary.LittleEndian.PutUint32(b[16:], rsdt)
	binary.LittleEndian.PutUint32(b[20:], RSDPv2Size)
	binary.LittleEndian.PutUint64(b[24:], xsdt)
	b[8] = -Sum(b[:20])
	b[32] = -Sum(b)
	if rev < 2 {
		return b[:RSDPv1Size]
	}
	return b
}

func TestParseRSDP(t *testing.T) {
	r, err := ParseRSDP(validRSDP(2, 0x1234, 0x5678))
	require.NoError(t, err)
	assert.Equal(t, uint32(0x1234), r.RSDTAddress)
	assert.Equal(t, uint64(0x5678), r.XSDTAddress)
	assert.Equal(t, uint32(36), r.Length)
	_, err = ParseRSDP(validRSDP(2, 1, 2)[:30])
	assert.ErrorIs(t, err, ErrTruncated)
	_, err = ParseRSDP([]byte("RSD PTX 0123456789abcdef"))
	assert.Error(t, err)
	r, err = ParseRSDP(validRSDP(0, 0x1234, 0))
	require.NoError(t, err)
	assert.Zero(t, r.XSDTAddress)
}

func TestParseRootTables(t *testing.T) {
	body := make([]byte, 20)
	binary.LittleEndian.PutUint64(body, 0x1_0000_1000)
	binary.LittleEndian.PutUint64(body[8:], 0x2000)
	x, err := ParseXSDT(table(sdt("XSDT", 1, body)))
	require.NoError(t, err)
	assert.Equal(t, []uint64{0x1_0000_1000, 0x2000}, x.Entries)
	assert.Equal(t, 4, x.Trailing)
	r, err := ParseRSDT(table(sdt("RSDT", 1, body[:8])))
	require.NoError(t, err)
	assert.Equal(t, []uint64{0x1000, 1}, r.Entries)
}

func TestParseFADTRevisions(t *testing.T) {
	for _, n := range []int{FADTLenRev1, 129, FADTLenRev3, FADTLenRev5, FADTLenRev6} {
		body := make([]byte, n-HeaderSize)
		binary.LittleEndian.PutUint32(body[40-HeaderSize:], 0xCAFE0000) // DSDT
		binary.LittleEndian.PutUint32(body[76-HeaderSize:], 0x408)      // PM_TMR_BLK
		body[91-HeaderSize] = 4
		if n >= 129 {
			copy(body[116-HeaderSize:], []byte{1, 8, 0, 1, 0xF9, 0x0C, 0, 0, 0, 0, 0, 0})
			body[128-HeaderSize] = 6
		}
		if n >= 244 {
			binary.LittleEndian.PutUint64(body[140-HeaderSize:], 0x1_CAFE_0000) // X_DSDT
			copy(body[208-HeaderSize:], []byte{1, 32, 0, 3, 0x08, 0x18, 0, 0, 0, 0, 0, 0})
		}
		f, err := ParseFADT(table(sdt("FACP", 1, body)))
		require.NoError(t, err, n)
		assert.Equal(t, n, f.Length)
		tmr := f.Effective(PMTmr)
		if n >= 244 {
			assert.Equal(t, uint64(0x1_CAFE_0000), f.DSDTAddress(), "X_DSDT wins")
			assert.Equal(t, uint64(0x1808), tmr.Address, "X_PM_TMR_BLK wins")
		} else {
			assert.Equal(t, uint64(0xCAFE0000), f.DSDTAddress())
			assert.Equal(t, GAS{Space: SpaceSystemIO, BitWidth: 32, Address: 0x408, Present: true}, tmr)
			assert.False(t, f.XPMTmrBlk.Present)
		}
		assert.Equal(t, n >= 129, f.HasResetReg())
		if n >= 129 {
			assert.Equal(t, uint64(0xCF9), f.ResetReg.Address)
			assert.Equal(t, SpaceSystemIO, f.ResetReg.Space)
			assert.Equal(t, uint8(6), f.ResetValue)
		}
	}
	_, err := ParseFADT(table(sdt("FACP", 1, make([]byte, 50))))
	assert.ErrorIs(t, err, ErrTruncated)
	short := sdt("FACP", 6, make([]byte, FADTLenRev6-HeaderSize))
	_, err = ParseFADT(table(short[:200]))
	assert.ErrorIs(t, err, ErrTruncated, "header length beyond the bytes")
}

func TestFADTSpecVersion(t *testing.T) {
	for rev, want := range map[uint8][2]int{1: {1, 0}, 2: {1, 0}, 3: {2, 0}, 4: {4, 0}, 5: {5, 1}, 6: {6, 1}} {
		body := make([]byte, FADTLenRev6-HeaderSize)
		body[131-HeaderSize] = 1
		f, err := ParseFADT(table(sdt("FACP", rev, body)))
		require.NoError(t, err)
		if rev < 5 {
			want[1] = 1 // the minor field is read as found
		}
		maj, min := f.SpecVersion()
		assert.Equal(t, want[0], maj, rev)
		_ = min
	}
}

func TestParseFACS(t *testing.T) {
	b := make([]byte, 64)
	copy(b, "FACS")
	binary.LittleEndian.PutUint32(b[4:], 64)
	binary.LittleEndian.PutUint64(b[24:], 0x9000)
	b[32] = 2
	f, err := ParseFACS(b)
	require.NoError(t, err)
	assert.Equal(t, uint64(0x9000), f.XFirmwareWakingVector)
	assert.Equal(t, uint8(2), f.Version)
	_, err = ParseFACS(b[:40])
	assert.ErrorIs(t, err, ErrTruncated)
	binary.LittleEndian.PutUint32(b[4:], 10)
	_, err = ParseFACS(b)
	assert.Error(t, err)
}

func TestParseMADT(t *testing.T) {
	body := []byte{0, 0, 0xE0, 0xFE, 1, 0, 0, 0}
	body = append(body, 0, 8, 0, 0, 1, 0, 0, 0) // LAPIC uid 0 id 0 enabled
	body = append(body, 0, 8, 1, 2, 2, 0, 0, 0) // LAPIC uid 1 id 2 online capable
	body = append(body, 1, 12, 3, 0, 0, 0, 0xC0, 0xFE, 0, 0, 0, 0)
	body = append(body, 2, 10, 0, 0, 2, 0, 0, 0, 0, 0)
	body = append(body, 4, 6, 0xFF, 0, 0, 1)
	body = append(body, 9, 16, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0)
	body = append(body, 0x90, 4, 0xAA, 0xBB) // OEM type, preserved
	body = append(body, 0, 4, 0, 0)          // LAPIC too short
	m, err := ParseMADT(table(sdt("APIC", 5, body)))
	require.NoError(t, err)
	assert.Equal(t, uint32(0xFEE00000), m.LocalAPICAddress)
	require.Len(t, m.Entries, 8)
	require.Len(t, m.LocalAPICs, 2)
	assert.Equal(t, uint8(2), m.LocalAPICs[1].APICID)
	assert.Equal(t, uint32(LAPICOnlineCapable), m.LocalAPICs[1].Flags)
	require.Len(t, m.IOAPICs, 1)
	assert.Equal(t, uint32(0xFEC00000), m.IOAPICs[0].Address)
	assert.Equal(t, uint32(2), m.Overrides[0].GSI)
	assert.Equal(t, uint8(0xFF), m.LocalAPICNMIs[0].ProcessorUID)
	assert.Equal(t, uint32(0x100), m.X2APICs[0].X2APICID)
	assert.Equal(t, []byte{0x90, 4, 0xAA, 0xBB}, m.Entries[6].Raw)
	assert.Equal(t, "OEM 0x90", MADTTypeName(m.Entries[6].Type))
	assert.True(t, m.Entries[7].Short)

	bad := append(append([]byte{}, body[:8+16]...), 1, 40, 0)
	m, err = ParseMADT(table(sdt("APIC", 5, bad)))
	assert.ErrorIs(t, err, ErrTruncated)
	require.NotNil(t, m)
	assert.Len(t, m.Entries, 2, "entries before the fault are kept")
	zero := append(append([]byte{}, body[:8]...), 0, 0, 0, 0)
	_, err = ParseMADT(table(sdt("APIC", 5, zero)))
	assert.ErrorContains(t, err, "length 0")
}

func TestParseHPETAndMCFG(t *testing.T) {
	body := make([]byte, HPETSize-HeaderSize)
	binary.LittleEndian.PutUint32(body, 0x8086A201)
	copy(body[4:], []byte{0, 64, 0, 0, 0, 0, 0xD0, 0xFE, 0, 0, 0, 0})
	binary.LittleEndian.PutUint16(body[53-HeaderSize:], 0x80)
	body[55-HeaderSize] = 1
	h, err := ParseHPET(table(sdt("HPET", 1, body)))
	require.NoError(t, err)
	assert.Equal(t, uint8(2), h.ComparatorField())
	assert.Equal(t, uint16(0x8086), h.VendorID())
	assert.True(t, h.LegacyReplacement())
	assert.True(t, h.Counter64())
	assert.Equal(t, uint64(0xFED00000), h.BaseAddress.Address)
	assert.Equal(t, uint16(0x80), h.MinClockTick)
	assert.Equal(t, uint8(1), h.Protection())
	_, err = ParseHPET(table(sdt("HPET", 1, body[:10])))
	assert.ErrorIs(t, err, ErrTruncated)

	mb := make([]byte, 8+16+3)
	binary.LittleEndian.PutUint64(mb[8:], 0xE0000000)
	mb[8+11] = 0xFF
	m, err := ParseMCFG(table(sdt("MCFG", 1, mb)))
	require.NoError(t, err)
	require.Len(t, m.Entries, 1)
	assert.Equal(t, uint64(256<<20), m.Entries[0].Size())
	assert.Equal(t, 3, m.Trailing)
}

// sparseMem is a physical-memory image: reads of unmapped bytes fail, as
// they do on /dev/mem.
type sparseMem map[uint64][]byte

func (m sparseMem) ReadAt(p []byte, off int64) (int, error) {
	for base, b := range m {
		if uint64(off) >= base && uint64(off)-base < uint64(len(b)) {
			n := copy(p, b[uint64(off)-base:])
			if n < len(p) {
				return n, io.EOF
			}
			return n, nil
		}
	}
	return 0, errors.New("unmapped")
}

// TestReadMemRealAddresses places the tables of the one corpus dump that
// recorded real addresses (RSDP, XSDT, RSDT included) at those addresses
// and walks them back from the RSDP.
func TestReadMemRealAddresses(t *testing.T) {
	dump, err := LoadDumpFile(filepath.Join(sharedDir(t), "corpus", "acpi", "linuxhw", "core", "D0292BFAFD2C.acpidump.txt"))
	require.NoError(t, err)
	mem := sparseMem{}
	for _, tb := range dump.List {
		mem[tb.Address] = tb.Raw
	}
	rsdp := dump.First(SigRSDP)
	require.NotNil(t, rsdp)

	for name, systab := range map[string][]byte{
		"efi":    []byte("SMBIOS=0x9fb0e000\nACPI20=0x9fbfe014\nACPI=0x9fbfe000\n"),
		"legacy": nil,
	} {
		t.Run(name, func(t *testing.T) {
			m := sparseMem{}
			for k, v := range mem {
				m[k] = v
			}
			if systab == nil {
				area := make([]byte, biosAreaEnd-biosAreaStart)
				copy(area[0x10490:], rsdp.Raw)
				m[biosAreaStart] = area
			}
			ts, err := ReadMem(m, systab)
			require.NoError(t, err)
			// The core corpus dropped the DSDT and SSDTs: exactly those
			// addresses are reported unreadable, and nothing is invented.
			for _, w := range ts.Warnings {
				assert.Contains(t, w, "unmapped")
			}
			assert.Len(t, ts.Warnings, 12)
			assert.Nil(t, ts.First(SigDSDT))
			for _, want := range dump.List {
				got := findByAddr(ts, want.Signature)
				require.NotNil(t, got, want.Name())
				assert.Equal(t, want.Raw, got.Raw, want.Name())
			}
			assert.Len(t, ts.List, len(dump.List))
			roots, err := ReadRoots(m, systab)
			require.NoError(t, err)
			assert.Len(t, roots.List, 3)
		})
	}
}

func findByAddr(ts *Tables, sig string) *Table { return ts.First(sig) }

func TestReadMemErrors(t *testing.T) {
	_, err := ReadMem(sparseMem{}, nil)
	assert.Error(t, err, "no RSDP anywhere")
	// An RSDP pointing at unmapped memory: the root is kept, the rest noted.
	m := sparseMem{0x1000: validRSDP(2, 0x5000, 0x6000)}
	ts, err := ReadMem(m, []byte("ACPI20=0x1000\n"))
	require.NoError(t, err)
	assert.Len(t, ts.List, 1)
	assert.Len(t, ts.Warnings, 2)
	a, ok := SystabRSDP([]byte("ACPI=0x10\n"))
	assert.True(t, ok)
	assert.Equal(t, uint64(0x10), a)
}

// seedTables adds the raw bytes of every table with signature sig in the
// first few corpus dumps (and the QEMU tables) to a fuzz corpus.
func seedTables(f *testing.F, sigs ...string) {
	if os.Getenv("FWCHECK_SHARED") == "" {
		if _, err := os.Stat(filepath.Join("..", "..", "shared", "corpus", "acpi")); err != nil {
			return
		}
	}
	dumps := corpusDumps(f)
	for i, p := range dumps {
		if i%8 != 0 {
			continue
		}
		ts, err := LoadDumpFile(p)
		if err != nil {
			continue
		}
		for _, sig := range sigs {
			for _, tb := range ts.Get(sig) {
				f.Add(tb.Raw)
			}
		}
	}
	for _, machine := range []string{"pc", "q35", "microvm", "virt"} {
		ts, err := LoadQEMU(os.DirFS(filepath.Join(qemuDir(f), machine)), ".", "")
		if err != nil {
			continue
		}
		for _, sig := range sigs {
			for _, tb := range ts.Get(sig) {
				f.Add(tb.Raw)
			}
		}
	}
}

func FuzzParseDump(f *testing.F) {
	for i, p := range corpusDumpsIfAny(f) {
		if i%10 != 0 || strings.HasSuffix(p, ".gz") {
			continue
		}
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b[:min(len(b), 4096)])
		}
	}
	f.Add([]byte("FACP @ 0x0\n  0000: 46 41 43 50  FACP\n"))
	// A length field far beyond the rows that follow (the allocation at
	// the declared length is bounded), and the same gzip-compressed.
	huge := "DSDT @ 0x0\n    0000: 44 53 44 54 FF FF FF 01 02 00 00 00 00 00 00 00  DSDT............\n    0010: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n"
	f.Add([]byte(huge))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(huge))
	zw.Close()
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := ParseDump(bytes.NewReader(b))
		if err != nil {
			return
		}
		parseAll(ts)
		var buf bytes.Buffer
		require.NoError(t, WriteDump(&buf, ts))
		back, err := ParseDump(&buf)
		require.NoError(t, err)
		require.Len(t, back.List, len(ts.List))
	})
}

func corpusDumpsIfAny(f *testing.F) []string {
	root := os.Getenv("FWCHECK_SHARED")
	if root == "" {
		root = filepath.Join("..", "..", "shared")
	}
	core, _ := filepath.Glob(filepath.Join(root, "corpus", "acpi", "linuxhw", "core", "*.txt"))
	return core
}

func FuzzParseRSDP(f *testing.F) {
	f.Add(validRSDP(2, 1, 2))
	f.Add(validRSDP(0, 1, 0))
	seedTables(f, SigRSDP)
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = ParseRSDP(b) })
}

func FuzzParseRootTable(f *testing.F) {
	seedTables(f, SigXSDT, SigRSDT)
	f.Add(sdt("XSDT", 1, make([]byte, 12)))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := table(b)
		_, _ = ParseXSDT(tb)
		_, _ = ParseRSDT(tb)
	})
}

func FuzzParseFADT(f *testing.F) {
	seedTables(f, SigFADT)
	f.Fuzz(func(t *testing.T, b []byte) {
		fa, err := ParseFADT(table(b))
		if err != nil {
			return
		}
		for _, bl := range Blocks {
			fa.Effective(bl)
		}
		fa.SpecVersion()
	})
}

func FuzzParseFACS(f *testing.F) {
	seedTables(f, SigFACS)
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = ParseFACS(b) })
}

func FuzzParseMADT(f *testing.F) {
	seedTables(f, SigMADT)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMADT(table(b))
		if m == nil {
			require.Error(t, err)
			return
		}
		off := MADTMinLength
		for _, e := range m.Entries {
			require.Equal(t, off, e.Offset)
			require.Len(t, e.Raw, int(e.Length))
			off += int(e.Length)
		}
	})
}

func FuzzParseHPET(f *testing.F) {
	seedTables(f, SigHPET)
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = ParseHPET(table(b)) })
}

func FuzzParseMCFG(f *testing.F) {
	seedTables(f, SigMCFG)
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = ParseMCFG(table(b)) })
}

func FuzzParseGAS(f *testing.F) {
	f.Add([]byte{1, 8, 0, 1, 0xF9, 0x0C, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseGAS(b)
		if err == nil {
			_ = g.String()
		}
	})
}

// FuzzReadMem walks a memory image made of one fuzzed region holding an
// RSDP pointer chain.
func FuzzReadMem(f *testing.F) {
	const base = 0x10000
	img := make([]byte, 0x200)
	copy(img, validRSDP(2, base+0x40, base+0x80))
	copy(img[0x40:], sdt("RSDT", 1, []byte{0xC0, 0, 1, 0}))
	copy(img[0x80:], sdt("XSDT", 1, []byte{0xC0, 0, 1, 0, 0, 0, 0, 0}))
	copy(img[0xC0:], sdt("APIC", 1, make([]byte, 8)))
	f.Add(img)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadMem(sparseMem{base: b}, []byte("ACPI20=0x10000\n"))
		_, _ = ReadMem(sparseMem{biosAreaStart: b}, nil)
	})
}

func TestParseDumpTruncatedFile(t *testing.T) {
	ts := &Tables{}
	ts.Add(&Table{Signature: "APIC", Raw: sdt("APIC", 4, make([]byte, 40))})
	ts.Add(&Table{Signature: "HPET", Raw: sdt("HPET", 1, make([]byte, 20))})
	var b bytes.Buffer
	require.NoError(t, WriteDump(&b, ts))
	text := b.String()

	// Cut the file after the first row of the last table (HPET, 56 bytes).
	cut := strings.LastIndex(text, "    0010:")
	require.Positive(t, cut)
	tr, err := ParseDump(strings.NewReader(text[:cut]))
	require.NoError(t, err)
	require.Len(t, tr.List, 1, "the cut-off table is left out")
	assert.Equal(t, "APIC", tr.List[0].Signature)
	require.NotEmpty(t, tr.Warnings)
	assert.Equal(t, "acpidump ends inside HPET after 16 of 56 bytes: the file is truncated, so HPET is left out", tr.Warnings[len(tr.Warnings)-1])

	// The whole file loses nothing.
	whole, err := ParseDump(strings.NewReader(text))
	require.NoError(t, err)
	assert.Len(t, whole.List, 2)
	assert.Empty(t, whole.Warnings)
}

func TestDumpLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i <= MaxTables; i++ {
		fmt.Fprintf(&b, "SSDT @ 0x0\n    0000: 53 53 44 54 24 00 00 00 01 00 00 00 00 00 00 00  SSDT$...........\n")
	}
	_, err := ParseDump(strings.NewReader(b.String()))
	assert.ErrorContains(t, err, "more than 4096 tables")
	// internal/hostile tries MaxTableData with a gzip bomb of hex rows.
}

func TestDumpWithAnEndlessLine(t *testing.T) {
	_, err := ParseDump(io.LimitReader(zeros{}, 4<<20))
	assert.EqualError(t, err, "acpidump line 1: longer than 1 MiB: not acpidump text")
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }
