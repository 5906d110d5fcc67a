package input

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSPIRoot builds a root whose sysfs holds one PCI function's config
// at addr and whose dev/mem is a file holding regs at base+offset.
func fakeSPIRoot(t *testing.T, addr string, cfg []byte, base uint64, regs map[int]uint32) string {
	root := t.TempDir()
	dir := filepath.Join(root, pciDevices, addr)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config"), cfg, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "dev"), 0o755))
	mem := make([]byte, base+0x3000)
	for o, v := range regs {
		binary.LittleEndian.PutUint32(mem[base+uint64(o):], v)
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "dev/mem"), mem, 0o644))
	return root
}

func pciCfg(vendor, device uint16, set map[int]uint32) []byte {
	b := make([]byte, 256)
	binary.LittleEndian.PutUint16(b, vendor)
	binary.LittleEndian.PutUint16(b[2:], device)
	for o, v := range set {
		binary.LittleEndian.PutUint32(b[o:], v)
	}
	return b
}

// The recorder finds the register block through the SPI function's BAR0
// (300 Series) and through the LPC bridge's RCBA (7 Series), and reads the
// layout's registers from it.
func TestRecordSPI(t *testing.T) {
	root := fakeSPIRoot(t, "0000:00:1f.5", pciCfg(0x8086, 0xa324, map[int]uint32{0x10: 0x00011000}), 0x11000,
		map[int]uint32{0x04: 0x0000e008, 0x50: 0x00000a0b, 0x58: 0x07ff0500, 0x84: 0x87ff0500})
	s, err := SPIFlash.Get(New(Live(root), Options{}))
	require.NoError(t, err)
	assert.Equal(t, "0000:00:1f.5", s.Addr)
	assert.Equal(t, uint64(0x11000), s.Base)
	assert.Equal(t, uint32(0xe008), s.Regs[0x04])
	assert.Equal(t, uint32(0x87ff0500), s.Regs[0x84])
	assert.Contains(t, s.Regs, 0x94, "all five protected ranges are read")

	// RCBA 0x0001c001: the SPI block at 0x1c000+0x3800, inside a page.
	root = fakeSPIRoot(t, "0000:00:1f.0", pciCfg(0x8086, 0x1e55, map[int]uint32{0xf0: 0x0001c001}), 0x1f800,
		map[int]uint32{0x04: 0x0000e000, 0x74: 0x87ff0500})
	s, err = SPIFlash.Get(New(Live(root), Options{}))
	require.NoError(t, err)
	assert.Equal(t, uint64(0x1f800), s.Base)
	assert.Equal(t, uint32(0x87ff0500), s.Regs[0x74])

	// RCBA not enabled: an error, not registers.
	root = fakeSPIRoot(t, "0000:00:1f.0", pciCfg(0x8086, 0x1e55, map[int]uint32{0xf0: 0x0001c000}), 0, nil)
	_, err = SPIFlash.Get(New(Live(root), Options{}))
	assert.ErrorContains(t, err, "RCBA")

	// QEMU's ICH9: no SPI controller fwcheck knows, said as such.
	root = fakeSPIRoot(t, "0000:00:1f.0", pciCfg(0x8086, 0x2918, nil), 0, nil)
	s, err = SPIFlash.Get(New(Live(root), Options{}))
	require.NoError(t, err)
	assert.Contains(t, s.Absent, "8086:2918")
	assert.Empty(t, s.Regs)

	// No /dev/mem: the error names it, for the remedy.
	root = fakeSPIRoot(t, "0000:00:1f.5", pciCfg(0x8086, 0xa324, map[int]uint32{0x10: 0x00011000}), 0, nil)
	require.NoError(t, os.Remove(filepath.Join(root, "dev/mem")))
	_, err = SPIFlash.Get(New(Live(root), Options{}))
	assert.ErrorContains(t, err, "dev/mem")
}

func TestParseSPI(t *testing.T) {
	s, err := ParseSPI([]byte("# fwcheck spi 1\ncontroller 0000:00:1f.0 8086:1e55 base 0xfed1f800\nreg 0x04 0x0000e000\nreg 0x74 0x87ff0500\n"))
	require.NoError(t, err)
	assert.Equal(t, uint16(0x1e55), s.Device)
	v, ok := s.Reg(0x74)
	assert.True(t, ok)
	assert.Equal(t, uint32(0x87ff0500), v)
	_, ok = s.Reg(0x78)
	assert.False(t, ok)
	for _, bad := range []string{
		"reg 0x04 0x1\n", // no controller
		"controller 0000:00:1f.5 8086:a324 base 0x1001\n",
		"controller 0000:00:1f.5 8086:a324 base 0x1000\nreg 0x06 0x1\n",
		"controller 0000:00:1f.5 8086:a324 base 0x1000\nreg 0x1000 0x1\n",
		"controller 0000:00:1f.5 8086:a324 base 0x1000\nabsent x\n",
		"controller 0000:00:1f.5 8086:a324 base 0x1000\ncontroller 0000:00:1f.5 8086:a324 base 0x1000\n",
		"spi 1\n",
	} {
		_, err := ParseSPI([]byte(bad))
		assert.Error(t, err, bad)
	}
	s, err = ParseSPI([]byte("absent no SPI \x1b[2J\n"))
	require.NoError(t, err)
	assert.Equal(t, "no SPI ?[2J", s.Absent)
}

func FuzzParseSPI(f *testing.F) {
	f.Add([]byte("controller 0000:00:1f.5 8086:a324 base 0xfe010000\nreg 0x04 0x0000e008\nreg 0x84 0x87ff0500\n"))
	f.Add([]byte("absent none\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSPI(b)
		if err != nil {
			return
		}
		if len(s.Regs) > maxSPIRegs {
			t.Fatalf("%d registers", len(s.Regs))
		}
		for o := range s.Regs {
			if o%4 != 0 || o >= 0x1000 {
				t.Fatalf("offset 0x%x", o)
			}
		}
	})
}

// The TXT recorder reads the public space only on an Intel CPU with SMX.
func TestRecordTXT(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "proc"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "dev"), 0o755))
	cpuinfo := filepath.Join(root, "proc/cpuinfo")
	require.NoError(t, os.WriteFile(cpuinfo, []byte("processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu svm\n\n"), 0o644))
	s, err := TXT.Get(New(Live(root), Options{}))
	require.NoError(t, err)
	assert.Contains(t, s.Absent, "not an Intel CPU")

	require.NoError(t, os.WriteFile(cpuinfo, []byte("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vmx\n\n"), 0o644))
	s, err = TXT.Get(New(Live(root), Options{}))
	require.NoError(t, err)
	assert.Contains(t, s.Absent, "no SMX")

	require.NoError(t, os.WriteFile(cpuinfo, []byte("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vmx smx\n\n"), 0o644))
	f, err := os.Create(filepath.Join(root, "dev/mem"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(TXTBase+0x2000)) // sparse
	var w [4]byte
	binary.LittleEndian.PutUint32(w[:], 0xb0018086)
	_, err = f.WriteAt(w[:], TXTBase+TXTDIDVID)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	s, err = TXT.Get(New(Live(root), Options{}))
	require.NoError(t, err)
	assert.Equal(t, uint32(0xb0018086), s.Regs[TXTDIDVID])
	assert.Len(t, s.Regs, len(txtRegs))
}

func FuzzParseTXT(f *testing.F) {
	f.Add([]byte("reg 0x000 0x00000092\nreg 0x110 0xb0018086\n"))
	f.Add([]byte("absent no TXT\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseTXT(b)
		if err == nil && len(s.Regs) > 16 {
			t.Fatalf("%d registers", len(s.Regs))
		}
	})
}
