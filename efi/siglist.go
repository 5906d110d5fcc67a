package efi

import (
	"crypto/x509"
	"encoding/binary"
	"fmt"
)

// SignatureList is one EFI_SIGNATURE_LIST of a key database (PK, KEK, db,
// dbx; UEFI 2.10 §32.4.1).
type SignatureList struct {
	Type          GUID
	HeaderSize    uint32
	SignatureSize uint32
	Signatures    []Signature
}

// TypeName names the list's signature type ("X509", "SHA256"), or gives
// its GUID when the type is not one the specification defines.
func (l *SignatureList) TypeName() string {
	if t, ok := sigTypes[l.Type]; ok {
		return t.name
	}
	return l.Type.String()
}

// Signature is one EFI_SIGNATURE_DATA: its owner and data; for an X.509
// list, the certificate parsed from the data (or why it did not parse).
type Signature struct {
	Owner GUID
	Data  []byte
	// Cert is the parsed certificate of an X.509 list entry; CertErr says
	// why it is nil.
	Cert    *x509.Certificate
	CertErr error
}

// maxSignatures bounds the entries of one database (a real dbx holds a few
// hundred hashes; every entry is at least 16 bytes).
const maxSignatures = 1 << 16

// ParseSignatureLists decodes the signature lists that make up a key
// database variable's data. Lists are parsed in order; a list whose sizes
// do not fit is an error, returned with the lists read before it.
// Certificates that do not parse are kept with CertErr set: that is a
// finding about the entry, not a reason to stop.
func ParseSignatureLists(b []byte) ([]SignatureList, error) {
	var out []SignatureList
	total := 0
	for off := 0; off < len(b); {
		if len(b)-off < 28 {
			return out, fmt.Errorf("list %d at offset %d: %d bytes left, shorter than the 28-byte list header", len(out), off, len(b)-off)
		}
		var l SignatureList
		copy(l.Type[:], b[off:])
		size := binary.LittleEndian.Uint32(b[off+16:])
		l.HeaderSize = binary.LittleEndian.Uint32(b[off+20:])
		l.SignatureSize = binary.LittleEndian.Uint32(b[off+24:])
		switch {
		case uint64(size) > uint64(len(b)-off):
			return out, fmt.Errorf("list %d at offset %d: SignatureListSize %d runs past the %d bytes left", len(out), off, size, len(b)-off)
		case uint64(size) < 28+uint64(l.HeaderSize):
			return out, fmt.Errorf("list %d at offset %d: SignatureListSize %d is smaller than its header (28+%d)", len(out), off, size, l.HeaderSize)
		case l.SignatureSize < 16:
			return out, fmt.Errorf("list %d at offset %d: SignatureSize %d is smaller than the 16-byte owner GUID", len(out), off, l.SignatureSize)
		case (size-28-l.HeaderSize)%l.SignatureSize != 0:
			return out, fmt.Errorf("list %d at offset %d: %d bytes of signatures are not a whole number of %d-byte entries", len(out), off, size-28-l.HeaderSize, l.SignatureSize)
		}
		if t, ok := sigTypes[l.Type]; ok && t.size != 0 && int(l.SignatureSize) != 16+t.size {
			return out, fmt.Errorf("list %d at offset %d: %s entries must be %d bytes, SignatureSize is %d", len(out), off, t.name, 16+t.size, l.SignatureSize)
		}
		body := b[off+28+int(l.HeaderSize) : off+int(size)]
		n := len(body) / int(l.SignatureSize)
		if total += n; total > maxSignatures {
			return out, fmt.Errorf("more than %d signatures", maxSignatures)
		}
		for i := range n {
			e := body[i*int(l.SignatureSize) : (i+1)*int(l.SignatureSize)]
			s := Signature{Data: e[16:]}
			copy(s.Owner[:], e)
			if l.Type == CertX509 {
				s.Cert, s.CertErr = x509.ParseCertificate(s.Data)
			}
			l.Signatures = append(l.Signatures, s)
		}
		out = append(out, l)
		off += int(size)
	}
	return out, nil
}

// Certificates returns the parsed certificates of every X.509 list.
func Certificates(ls []SignatureList) []*x509.Certificate {
	var out []*x509.Certificate
	for _, l := range ls {
		for _, s := range l.Signatures {
			if s.Cert != nil {
				out = append(out, s.Cert)
			}
		}
	}
	return out
}

// Counts returns how many entries the lists hold per signature type name.
func Counts(ls []SignatureList) map[string]int {
	m := map[string]int{}
	for _, l := range ls {
		m[l.TypeName()] += len(l.Signatures)
	}
	return m
}
