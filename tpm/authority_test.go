package tpm

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"math/big"
	"os"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// variableData writes a UEFI_VARIABLE_DATA for name and data.
func variableData(guid [16]byte, name string, data []byte) []byte {
	u := utf16.Encode([]rune(name))
	b := append([]byte{}, guid[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(u)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(data)))
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return append(b, data...)
}

func testCert(t *testing.T, cn string) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	require.NoError(t, err)
	return der
}

var (
	dbGUID   = [16]byte{0xcb, 0xb2, 0x19, 0xd7, 0x3a, 0x3d, 0x96, 0x45, 0xa3, 0xbc, 0xda, 0xd0, 0x0e, 0x67, 0x65, 0x6f}
	shimGUID = [16]byte{0x50, 0xab, 0x5d, 0x60, 0x46, 0xe0, 0x00, 0x43, 0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23}
	owner    = [16]byte{0xbd, 0x9a, 0xfa, 0x77, 0x59, 0x03, 0x32, 0x4d, 0xbd, 0x60, 0x28, 0xf4, 0xe7, 0x8f, 0x78, 0x4b}
)

// A firmware's db authority (an EFI_SIGNATURE_DATA: owner and certificate)
// and a shim's (the bare certificate) are both decoded; one whose lengths
// do not fit is kept with its problem.
func TestAuthorities(t *testing.T) {
	ca, vendor := testCert(t, "Test UEFI CA"), testCert(t, "Test Distribution CA")
	bad := variableData(dbGUID, "db", nil)
	binary.LittleEndian.PutUint64(bad[24:], 1<<40)
	log, err := Parse(newLog().
		event(7, EvEFIVariableAuthority, variableData(dbGUID, "db", append(owner[:], ca...))).
		event(4, EvEFIBootServicesApplication, make([]byte, 32)).
		event(7, EvEFIVariableAuthority, variableData(shimGUID, "Shim", vendor)).
		event(7, EvEFIVariableAuthority, bad).
		bytes())
	require.NoError(t, err)
	as := log.Authorities()
	require.Len(t, as, 3)

	assert.Equal(t, "db", as[0].Variable)
	assert.Equal(t, dbGUID, as[0].GUID)
	assert.True(t, as[0].OwnerKnown)
	assert.Equal(t, owner, as[0].Owner)
	require.NotNil(t, as[0].Cert)
	assert.Equal(t, "Test UEFI CA", as[0].Cert.Subject.CommonName)
	assert.Equal(t, ca, as[0].Data)
	assert.Equal(t, uint32(7), as[0].PCR)
	assert.Equal(t, 1, as[0].Seq)

	assert.Equal(t, "Shim", as[1].Variable)
	assert.False(t, as[1].OwnerKnown)
	require.NotNil(t, as[1].Cert)
	assert.Equal(t, "Test Distribution CA", as[1].Cert.Subject.CommonName)
	assert.Equal(t, 3, as[1].Seq)

	assert.Contains(t, as[2].Problem, "do not fit")
	assert.Empty(t, as[2].Variable)
}

func TestParseVariableData(t *testing.T) {
	v, err := ParseVariableData(variableData(dbGUID, "db\x00", []byte{1, 2, 3}))
	require.NoError(t, err)
	assert.Equal(t, "db", v.Name, "a counted terminator is dropped")
	assert.Equal(t, []byte{1, 2, 3}, v.Data)

	_, err = ParseVariableData(make([]byte, 31))
	assert.ErrorContains(t, err, "shorter than its 32-byte header")
	long := variableData(dbGUID, "x", nil)
	binary.LittleEndian.PutUint64(long[16:], maxVariableName+1)
	_, err = ParseVariableData(long)
	assert.ErrorContains(t, err, "more than 512 characters")
	wrap := variableData(dbGUID, "x", []byte{1})
	binary.LittleEndian.PutUint64(wrap[24:], ^uint64(0))
	_, err = ParseVariableData(wrap)
	assert.ErrorContains(t, err, "do not fit")
}

func TestParseImageLoad(t *testing.T) {
	b := binary.LittleEndian.AppendUint64(nil, 0x1000)
	b = binary.LittleEndian.AppendUint64(b, 0x2000)
	b = binary.LittleEndian.AppendUint64(b, 0)
	b = binary.LittleEndian.AppendUint64(b, 4)
	il, err := ParseImageLoad(append(b, 0x7f, 0xff, 4, 0))
	require.NoError(t, err)
	assert.Equal(t, uint64(0x2000), il.Length)
	assert.Equal(t, []byte{0x7f, 0xff, 4, 0}, il.DevicePath)
	_, err = ParseImageLoad(b)
	assert.ErrorContains(t, err, "does not fit")
	binary.LittleEndian.PutUint64(b[24:], 0)
	_, err = ParseImageLoad(b)
	assert.ErrorIs(t, err, ErrNoDevicePath)
}

func FuzzParseVariableData(f *testing.F) {
	f.Add(variableData(dbGUID, "db", append(owner[:], 0x30, 0x82)))
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseVariableData(b)
		if err == nil && len(v.Data) > len(b) {
			t.Fatalf("data of %d bytes from %d", len(v.Data), len(b))
		}
		_, _ = ParseImageLoad(b)
	})
}

func FuzzAuthorities(f *testing.F) {
	f.Add(newLog().event(7, EvEFIVariableAuthority, variableData(dbGUID, "db", append(owner[:], 1, 2))).bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Parse(b)
		if err != nil {
			return
		}
		if as := l.Authorities(); len(as) > maxAuthorities {
			t.Fatalf("%d authorities", len(as))
		}
	})
}

// A real log: OVMF with Secure Boot on and Microsoft's keys booting the
// fwcheck stick through Debian's shim and GRUB (recorded by
// image/secureboot_e2e_test.go's boot). The firmware names the db entry
// that let shim in, shim the SBAT level it enforced and the key in its
// MokListRT (Debian's CA, built into shim) that let GRUB in.
func TestAuthoritiesOVMFShim(t *testing.T) {
	b, err := os.ReadFile("testdata/ovmf-secureboot-shim.bin")
	require.NoError(t, err)
	log, err := Parse(b)
	require.NoError(t, err)
	as := log.Authorities()
	require.Len(t, as, 3)
	assert.Equal(t, "db", as[0].Variable)
	assert.Equal(t, dbGUID, as[0].GUID)
	require.NotNil(t, as[0].Cert)
	assert.Equal(t, "Microsoft Corporation UEFI CA 2011", as[0].Cert.Subject.CommonName)
	assert.True(t, as[0].OwnerKnown)
	assert.Equal(t, "SbatLevel", as[1].Variable)
	assert.Nil(t, as[1].Cert)
	assert.Contains(t, string(as[1].Data), "shim,")
	assert.Equal(t, "MokListRT", as[2].Variable)
	require.NotNil(t, as[2].Cert)
	assert.Equal(t, "Debian Secure Boot CA", as[2].Cert.Subject.CommonName)
	for _, a := range as {
		assert.Equal(t, uint32(7), a.PCR)
		assert.Empty(t, a.Problem)
	}
}
