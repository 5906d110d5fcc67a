package efi

import (
	"archive/tar"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func node(t, st byte, data ...byte) []byte {
	b := []byte{t, st, 0, 0}
	binary.LittleEndian.PutUint16(b[2:], uint16(4+len(data)))
	return append(b, data...)
}

func end() []byte { return node(0x7f, 0xff) }

func u16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func ucs2z(s string) []byte {
	var b []byte
	for _, c := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return append(b, 0, 0)
}

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func TestGUID(t *testing.T) {
	g := GlobalVariable
	assert.Equal(t, "8be4df61-93ca-11d2-aa0d-00e098032b8c", g.String())
	assert.Equal(t, []byte{0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11, 0xaa, 0x0d}, g[:10], "mixed-endian layout")
	_, err := ParseGUID("8be4df61-93ca-11d2-aa0d-00e098032b8")
	assert.Error(t, err)
}

func TestDevicePathText(t *testing.T) {
	sata := cat(node(2, 1, cat(u32(0x0a0341d0), u32(0))...), node(1, 1, 2, 0x1f),
		node(3, 18, cat(u16(0), u16(0xffff), u16(0))...), end())
	dp, rest, err := ParseDevicePath(sata)
	require.NoError(t, err)
	assert.Empty(t, rest)
	assert.True(t, dp.Ended())
	assert.Equal(t, "PciRoot(0x0)/Pci(0x1F,0x2)/Sata(0x0,0xFFFF,0x0)", dp.String())

	fv := MustGUID("7cb8bdc9-f8eb-4f34-aaea-3ee4af6516a1")
	ff := MustGUID("462caa21-7614-4503-836e-8ab6f4662331")
	dp, _, err = ParseDevicePath(cat(node(4, 7, fv[:]...), node(4, 6, ff[:]...), end()))
	require.NoError(t, err)
	assert.Equal(t, "Fv(7cb8bdc9-f8eb-4f34-aaea-3ee4af6516a1)/FvFile(462caa21-7614-4503-836e-8ab6f4662331)", dp.String())

	part := MustGUID("0f0e0d0c-0b0a-0908-0706-050403020100")
	hd := cat(u32(1), u64(0x800), u64(0x100000), part[:], []byte{2, 2})
	dp, _, err = ParseDevicePath(cat(node(4, 1, hd...), node(4, 4, ucs2z(`\EFI\BOOT\BOOTX64.EFI`)...), end()))
	require.NoError(t, err)
	assert.Equal(t, `HD(1,GPT,0f0e0d0c-0b0a-0908-0706-050403020100,0x800,0x100000)/\EFI\BOOT\BOOTX64.EFI`, dp.String())

	mac := append([]byte{0x52, 0x54, 0, 0x12, 0x34, 0x56}, make([]byte, 26)...)
	mac = append(mac, 1)
	ip := make([]byte, 23)
	dp, _, err = ParseDevicePath(cat(node(2, 1, cat(u32(0x0a0341d0), u32(0))...), node(1, 1, 0, 3), node(3, 11, mac...), node(3, 12, ip...), end()))
	require.NoError(t, err)
	assert.Equal(t, "PciRoot(0x0)/Pci(0x3,0x0)/MAC(525400123456,0x1)/IPv4(0.0.0.0,0x0,DHCP,0.0.0.0,0.0.0.0,0.0.0.0)", dp.String())

	// Two instances, an unknown node kind, and a node too short for its kind.
	dp, _, err = ParseDevicePath(cat(node(1, 1, 0, 1), node(0x7f, 0x01), node(3, 200, 0xab), node(1, 1, 9), end()))
	require.NoError(t, err)
	assert.Equal(t, "Pci(0x1,0x0),Msg(200,AB)/HardwarePath(1,09)", dp.String())
	assert.False(t, dp[2].Known())
}

func TestDevicePathMalformed(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":         nil,
		"no end":        node(1, 1, 2, 0x1f),
		"short header":  {1, 1, 4},
		"length 2":      {1, 1, 2, 0},
		"past the end":  {1, 1, 40, 0, 1, 2},
		"end truncated": cat(node(1, 1, 0, 0), []byte{0x7f, 0xff}),
	} {
		_, _, err := ParseDevicePath(b)
		assert.Error(t, err, name)
	}
}

func loadOption(attr uint32, desc string, paths []byte, opt []byte) []byte {
	return cat(u32(attr), u16(uint16(len(paths))), ucs2z(desc), paths, opt)
}

func TestLoadOption(t *testing.T) {
	p := cat(node(2, 1, cat(u32(0x0a0341d0), u32(0))...), node(1, 1, 2, 0x1f), end())
	o, err := ParseLoadOption(loadOption(1, "UEFI QEMU DVD-ROM", p, []byte("opt")))
	require.NoError(t, err)
	assert.True(t, o.Active())
	assert.Equal(t, "UEFI QEMU DVD-ROM", o.Description)
	assert.Equal(t, "PciRoot(0x0)/Pci(0x1F,0x2)", o.FilePath.String())
	assert.Equal(t, []byte("opt"), o.OptionalData)

	_, err = ParseLoadOption(loadOption(1, "x", p[:len(p)-4], nil))
	assert.ErrorIs(t, err, ErrNoEnd, "path without an end node")
	b := loadOption(1, "x", p, nil)
	binary.LittleEndian.PutUint16(b[4:], 200)
	_, err = ParseLoadOption(b)
	assert.ErrorContains(t, err, "FilePathListLength 200")
	_, err = ParseLoadOption([]byte{1, 0, 0, 0, 4, 0, 'a', 0})
	assert.ErrorContains(t, err, "not NUL-terminated")
}

// testCert makes a self-signed certificate with the given subject CN.
func testCert(t testing.TB, cn string, notAfter time.Time) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: notAfter.AddDate(-1, 0, 0), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	require.NoError(t, err)
	return der
}

// SigList builds an EFI_SIGNATURE_LIST of one type from entries of equal size.
func sigList(typ GUID, owner GUID, entries ...[]byte) []byte {
	size := 16 + len(entries[0])
	b := cat(typ[:], u32(uint32(28+size*len(entries))), u32(0), u32(uint32(size)))
	for _, e := range entries {
		b = cat(b, owner[:], e)
	}
	return b
}

func TestSignatureLists(t *testing.T) {
	owner := MustGUID("77fa9abd-0359-4d32-bd60-28f4e78f784b")
	der := testCert(t, "Test PK DO NOT TRUST", time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	h := make([]byte, 32)
	b := cat(sigList(CertX509, owner, der), sigList(CertSHA256, owner, h, h, h))
	ls, err := ParseSignatureLists(b)
	require.NoError(t, err)
	require.Len(t, ls, 2)
	assert.Equal(t, "X509", ls[0].TypeName())
	require.NotNil(t, ls[0].Signatures[0].Cert)
	assert.Equal(t, "Test PK DO NOT TRUST", ls[0].Signatures[0].Cert.Subject.CommonName)
	assert.Equal(t, owner, ls[0].Signatures[0].Owner)
	assert.Equal(t, map[string]int{"X509": 1, "SHA256": 3}, Counts(ls))
	assert.Len(t, Certificates(ls), 1)

	bad := sigList(CertX509, owner, []byte("not a certificate"))
	ls, err = ParseSignatureLists(bad)
	require.NoError(t, err, "an unparsable certificate is a finding about the entry")
	assert.Error(t, ls[0].Signatures[0].CertErr)

	wrong := sigList(CertSHA256, owner, make([]byte, 20))
	_, err = ParseSignatureLists(wrong)
	assert.ErrorContains(t, err, "SHA256 entries must be 48 bytes")
	trunc := b[:len(b)-5]
	ls, err = ParseSignatureLists(trunc)
	assert.ErrorContains(t, err, "runs past")
	assert.Len(t, ls, 1, "the lists before the problem are kept")
}

func TestReadVars(t *testing.T) {
	g := GlobalVariable.String()
	fsys := fstest.MapFS{
		VarsDir + "/BootOrder-" + g:  {Data: cat(u32(7), u16(1), u16(0))},
		VarsDir + "/SecureBoot-" + g: {Data: cat(u32(6), []byte{1})},
		VarsDir + "/Broken-" + g:     {Data: []byte{1, 2}},
		VarsDir + "/no-guid-here":    {Data: cat(u32(7), []byte{1})},
	}
	v, err := ReadVars(fsys, VarsDir)
	require.NoError(t, err)
	bo := v.Global("BootOrder")
	require.NotNil(t, bo)
	assert.Equal(t, "NV+BS+RT", bo.Attributes.String())
	order, err := Uint16s(bo.Data)
	require.NoError(t, err)
	assert.Equal(t, []uint16{1, 0}, order)
	sb, err := Bool(v.Global("SecureBoot").Data)
	require.NoError(t, err)
	assert.True(t, sb)
	assert.Len(t, v.Problems, 2)
	_, err = ReadVars(fstest.MapFS{}, VarsDir)
	assert.ErrorIs(t, err, ErrNoVars)
}

func TestReadESRT(t *testing.T) {
	d := ESRTDir + "/"
	e := d + "entries/entry0/"
	fsys := fstest.MapFS{
		d + "fw_resource_count":           {Data: []byte("1\n")},
		d + "fw_resource_count_max":       {Data: []byte("2\n")},
		d + "fw_resource_version":         {Data: []byte("1\n")},
		e + "fw_class":                    {Data: []byte("1e4b1a2c-6b3e-4c6d-9a53-8f4fa8a1a4b1\n")},
		e + "fw_type":                     {Data: []byte("1\n")},
		e + "fw_version":                  {Data: []byte("65536\n")},
		e + "lowest_supported_fw_version": {Data: []byte("1\n")},
		e + "capsule_flags":               {Data: []byte("0x8010\n")},
		e + "last_attempt_version":        {Data: []byte("0\n")},
		e + "last_attempt_status":         {Data: []byte("0\n")},
	}
	es, err := ReadESRT(fsys, ESRTDir)
	require.NoError(t, err)
	assert.Empty(t, es.Problems)
	require.Len(t, es.Entries, 1)
	assert.Equal(t, uint32(65536), es.Entries[0].Version)
	assert.Equal(t, uint32(0x8010), es.Entries[0].CapsuleFlags)
	assert.Equal(t, "1e4b1a2c-6b3e-4c6d-9a53-8f4fa8a1a4b1", es.Entries[0].Class.String())
	_, err = ReadESRT(fstest.MapFS{}, ESRTDir)
	assert.ErrorIs(t, err, ErrNoESRT)
}

func FuzzDevicePath(f *testing.F) {
	f.Add(cat(node(2, 1, cat(u32(0x0a0341d0), u32(0))...), node(1, 1, 2, 0x1f), node(3, 18, cat(u16(0), u16(0xffff), u16(0))...), end()))
	f.Add(cat(node(4, 1, make([]byte, 38)...), node(4, 4, ucs2z(`\a`)...), node(0x7f, 1), node(3, 11, make([]byte, 33)...), end()))
	f.Add(cat(node(2, 2, make([]byte, 15)...), node(3, 13, make([]byte, 56)...), node(5, 1, 2, 0, 0, 0, 'x', 0), end()))
	// The real OVMF variables' paths and load options.
	v, err := ReadVars(snapshotFS(f, "../tests/all/testdata/efitpm/ovmf-q35-tpm-crb.tar.gz"), VarsDir)
	require.NoError(f, err)
	for _, x := range v.List {
		f.Add(x.Data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dp, _, err := ParseDevicePath(b)
		_ = dp.String()
		if err == nil && !dp.Ended() {
			t.Fatal("parsed without an end node")
		}
		_, _ = ParseLoadOption(b)
	})
}

func FuzzSignatureLists(f *testing.F) {
	owner := MustGUID("77fa9abd-0359-4d32-bd60-28f4e78f784b")
	f.Add(cat(sigList(CertX509, owner, testCert(f, "seed", time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))), sigList(CertSHA256, owner, make([]byte, 32))))
	f.Add(sigList(CertSHA1, owner, make([]byte, 20), make([]byte, 20)))
	ms := snapshotFS(f, "../tests/all/testdata/efitpm/ovmf-q35-ms-vars.tar.gz")
	v, err := ReadVars(ms, VarsDir)
	require.NoError(f, err)
	for _, n := range []string{"PK", "KEK"} {
		f.Add(v.Global(n).Data)
	}
	for _, n := range []string{"db", "dbx"} {
		f.Add(v.Get(n, ImageSecurityDatabase).Data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ls, err := ParseSignatureLists(b)
		n := 0
		for _, l := range ls {
			n += 28 + int(l.HeaderSize) + len(l.Signatures)*int(l.SignatureSize)
		}
		if err == nil && n != len(b) {
			t.Fatalf("lists cover %d of %d bytes", n, len(b))
		}
	})
}

// TestOVMFVariables reads the efivarfs of a real OVMF guest (q35, Debian's
// OVMF 2022.11, captured by the image tests): every variable reads, and the
// console and boot paths decode to the texts EDK2 itself prints.
func TestOVMFVariables(t *testing.T) {
	fsys := snapshotFS(t, "../tests/all/testdata/efitpm/ovmf-q35-tpm-crb.tar.gz")
	v, err := ReadVars(fsys, VarsDir)
	require.NoError(t, err)
	assert.Empty(t, v.Problems)
	assert.Len(t, v.List, 26)
	o, err := ParseLoadOption(v.Global("Boot0000").Data)
	require.NoError(t, err)
	assert.Equal(t, "UiApp", o.Description)
	assert.Equal(t, "Fv(7cb8bdc9-f8eb-4f34-aaea-3ee4af6516a1)/FvFile(462caa21-7614-4503-836e-8ab6f4662331)", o.FilePath.String())
	o, err = ParseLoadOption(v.Global("PlatformRecovery0000").Data)
	require.NoError(t, err)
	assert.Equal(t, `\EFI\BOOT\BOOTX64.EFI`, o.FilePath.String())
	out, _, err := ParseDevicePath(v.Global("ConOut").Data)
	require.NoError(t, err)
	assert.Equal(t, "PciRoot(0x0)/Pci(0x1,0x0)/AcpiAdr(0x80010100),PciRoot(0x0)/Pci(0x1F,0x0)/Serial(0x0)/Uart(115200,8,N,1)/VenPcAnsi()", out.String())
	in, _, err := ParseDevicePath(v.Global("ConIn").Data)
	require.NoError(t, err)
	assert.Equal(t, "PciRoot(0x0)/Pci(0x1F,0x0)/Acpi(PNP0303,0x0),PciRoot(0x0)/Pci(0x1F,0x0)/Serial(0x0)/Uart(115200,8,N,1)/VenPcAnsi(),UsbClass(0xFFFF,0xFFFF,0x3,0x1,0x1)", in.String())
	order, err := Uint16s(v.Global("BootOrder").Data)
	require.NoError(t, err)
	assert.Equal(t, []uint16{0}, order)
}

// snapshotFS unpacks a .tar.gz snapshot into a directory.
func snapshotFS(t testing.TB, p string) fs.FS {
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	dir := t.TempDir()
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		full := filepath.Join(dir, filepath.FromSlash(h.Name))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(full, b, 0o644))
	}
	return os.DirFS(dir)
}
