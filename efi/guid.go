package efi

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// GUID is an EFI_GUID in its in-memory byte order: the first three fields
// little-endian, the last eight bytes as they are.
type GUID [16]byte

// String writes the GUID in the registry format, lowercase
// ("8be4df61-93ca-11d2-aa0d-00e098032b8c").
func (g GUID) String() string {
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", binary.LittleEndian.Uint32(g[0:4]),
		binary.LittleEndian.Uint16(g[4:6]), binary.LittleEndian.Uint16(g[6:8]), g[8:10], g[10:16])
}

// ParseGUID reads a GUID in registry format (either case).
func ParseGUID(s string) (GUID, error) {
	var g GUID
	parts := strings.Split(s, "-")
	if len(parts) != 5 || len(parts[0]) != 8 || len(parts[1]) != 4 || len(parts[2]) != 4 || len(parts[3]) != 4 || len(parts[4]) != 12 {
		return g, fmt.Errorf("GUID %q: not in 8-4-4-4-12 form", s)
	}
	b, err := hex.DecodeString(strings.Join(parts, ""))
	if err != nil {
		return g, fmt.Errorf("GUID %q: %w", s, err)
	}
	binary.LittleEndian.PutUint32(g[0:4], binary.BigEndian.Uint32(b[0:4]))
	binary.LittleEndian.PutUint16(g[4:6], binary.BigEndian.Uint16(b[4:6]))
	binary.LittleEndian.PutUint16(g[6:8], binary.BigEndian.Uint16(b[6:8]))
	copy(g[8:], b[8:])
	return g, nil
}

// MustGUID is ParseGUID for constants; it panics on a malformed string.
func MustGUID(s string) GUID {
	g, err := ParseGUID(s)
	if err != nil {
		panic(err)
	}
	return g
}

// Well-known GUIDs (UEFI 2.10 §3.3, §32.4.1, §32.6.3).
var (
	// GlobalVariable is EFI_GLOBAL_VARIABLE: BootOrder, Boot####,
	// SecureBoot, PK, KEK and the other architectural variables.
	GlobalVariable = MustGUID("8be4df61-93ca-11d2-aa0d-00e098032b8c")
	// ImageSecurityDatabase is EFI_IMAGE_SECURITY_DATABASE_GUID: db, dbx.
	ImageSecurityDatabase = MustGUID("d719b2cb-3d3a-4596-a3bc-dad00e67656f")

	CertX509       = MustGUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072")
	CertSHA1       = MustGUID("826ca512-cf10-4ac9-b187-be01496631bd")
	CertSHA224     = MustGUID("0b6e5233-a65c-44c9-9407-d9ab83bfc8bd")
	CertSHA256     = MustGUID("c1c41626-504c-4092-aca9-41f936934328")
	CertSHA384     = MustGUID("ff3e5307-9fd0-48c9-85f1-8ad56c701e01")
	CertSHA512     = MustGUID("093e0fae-a6c4-4f50-9f1b-d41e2b89c19a")
	CertRSA2048    = MustGUID("3c5766e8-269c-4e34-aa14-ed776e85b3b6")
	CertX509SHA256 = MustGUID("3bd2a492-96c0-4079-b420-fcf98ef103ed")
	CertX509SHA384 = MustGUID("7076876e-80c2-4ee6-aad2-28b349a6865b")
	CertX509SHA512 = MustGUID("446dbf63-2502-4cda-bcfa-2465d2b0fe9d")
)

// sigTypes names the signature types and gives their fixed data size
// (0: variable, as for X.509 certificates).
var sigTypes = map[GUID]struct {
	name string
	size int
}{
	CertX509:       {"X509", 0},
	CertSHA1:       {"SHA1", 20},
	CertSHA224:     {"SHA224", 28},
	CertSHA256:     {"SHA256", 32},
	CertSHA384:     {"SHA384", 48},
	CertSHA512:     {"SHA512", 64},
	CertRSA2048:    {"RSA2048", 256},
	CertX509SHA256: {"X509_SHA256", 32 + 16},
	CertX509SHA384: {"X509_SHA384", 48 + 16},
	CertX509SHA512: {"X509_SHA512", 64 + 16},
}
