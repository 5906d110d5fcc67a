package tpm

import (
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

// Event types of the UEFI measurements this file decodes (PFP 1.05
// §10.4.1).
const (
	EvEFIBootServicesApplication = 0x80000003
	EvEFIVariableAuthority       = 0x800000e0
)

// VariableData is the UEFI_VARIABLE_DATA structure the UEFI variable
// events carry (PFP 1.05 §10.2.6): the variable's vendor GUID and name, and
// its data. For an EV_EFI_VARIABLE_AUTHORITY event the name is the key
// database that authorised an image ("db", or a shim's "Shim"/"MokListRT")
// and the data is the EFI_SIGNATURE_DATA of the entry that did.
type VariableData struct {
	GUID [16]byte
	Name string
	Data []byte
}

// maxVariableName bounds the name read, in UTF-16 code units (real names
// are a few characters; efivarfs allows 1024 bytes).
const maxVariableName = 512

// ParseVariableData decodes a UEFI_VARIABLE_DATA: VariableName (GUID),
// UnicodeNameLength and VariableDataLength (UINT64 each), then the name in
// UTF-16 without a terminator, then the data.
func ParseVariableData(b []byte) (*VariableData, error) {
	if len(b) < 32 {
		return nil, fmt.Errorf("UEFI_VARIABLE_DATA of %d bytes: shorter than its 32-byte header", len(b))
	}
	v := &VariableData{}
	copy(v.GUID[:], b)
	nameLen, dataLen := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
	if nameLen > maxVariableName {
		return nil, fmt.Errorf("UEFI_VARIABLE_DATA: UnicodeNameLength %d is more than %d characters", nameLen, maxVariableName)
	}
	rest := uint64(len(b) - 32)
	if 2*nameLen > rest || dataLen > rest-2*nameLen {
		return nil, fmt.Errorf("UEFI_VARIABLE_DATA: a %d-character name and %d bytes of data do not fit the %d bytes after the header", nameLen, dataLen, rest)
	}
	u := make([]uint16, nameLen)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[32+2*i:])
	}
	for len(u) > 0 && u[len(u)-1] == 0 { // some firmware counts a terminator
		u = u[:len(u)-1]
	}
	v.Name = string(utf16.Decode(u))
	off := 32 + 2*nameLen
	v.Data = b[off : off+dataLen]
	return v, nil
}

// Authority is one EV_EFI_VARIABLE_AUTHORITY event: the key database entry
// that authorised the load of an image (PFP 1.05 §3.3.4.8: the firmware
// measures it into PCR 7 once per distinct entry; a shim measures the
// entries of its own databases the same way).
type Authority struct {
	Seq int
	PCR uint32
	// Variable is the database the entry is in ("db", "Shim", "MokListRT").
	Variable string
	GUID     [16]byte
	// Owner is the entry's EFI_SIGNATURE_DATA owner; OwnerKnown is false
	// when the data is not an EFI_SIGNATURE_DATA (shim's "Shim" event
	// carries the bare certificate) or too short for one.
	Owner      [16]byte
	OwnerKnown bool
	// Cert is the entry's certificate when it is an X.509 one; other
	// entries (an image hash in db) leave it nil, with Data the bytes.
	Cert *x509.Certificate
	Data []byte
	// Problem says why the event could not be decoded (then only Seq and
	// PCR are set).
	Problem string
}

// maxAuthorities bounds the authority events decoded.
const maxAuthorities = 64

// Authorities decodes the log's EV_EFI_VARIABLE_AUTHORITY events, in log
// order. An event whose data does not decode is returned with Problem set.
func (l *Log) Authorities() []Authority {
	var out []Authority
	for _, e := range l.Events {
		if e.Type != EvEFIVariableAuthority {
			continue
		}
		if len(out) == maxAuthorities {
			break
		}
		a := Authority{Seq: e.Seq, PCR: e.PCR}
		v, err := ParseVariableData(e.Data)
		if err != nil {
			a.Problem = err.Error()
			out = append(out, a)
			continue
		}
		a.Variable, a.GUID, a.Data = v.Name, v.GUID, v.Data
		// An EFI_SIGNATURE_DATA: a 16-byte owner, then the entry. A bare
		// DER certificate starts with a SEQUENCE tag (0x30) instead.
		if c, err := x509.ParseCertificate(v.Data); err == nil {
			a.Cert = c
		} else if len(v.Data) >= 16 {
			copy(a.Owner[:], v.Data)
			a.OwnerKnown = true
			a.Data = v.Data[16:]
			if c, err := x509.ParseCertificate(a.Data); err == nil {
				a.Cert = c
			}
		}
		out = append(out, a)
	}
	return out
}

// ErrNoDevicePath says an image-load event carries no device path.
var ErrNoDevicePath = errors.New("no device path")

// ImageLoad is the UEFI_IMAGE_LOAD_EVENT of an EV_EFI_BOOT_SERVICES_APPLICATION
// event (PFP 1.05 §10.2.3): where the image was loaded and its device path,
// left undecoded (package efi reads device paths).
type ImageLoad struct {
	Location, Length, LinkTimeAddress uint64
	DevicePath                        []byte
}

// ParseImageLoad decodes a UEFI_IMAGE_LOAD_EVENT.
func ParseImageLoad(b []byte) (*ImageLoad, error) {
	if len(b) < 32 {
		return nil, fmt.Errorf("UEFI_IMAGE_LOAD_EVENT of %d bytes: shorter than its 32-byte header", len(b))
	}
	il := &ImageLoad{
		Location:        binary.LittleEndian.Uint64(b),
		Length:          binary.LittleEndian.Uint64(b[8:]),
		LinkTimeAddress: binary.LittleEndian.Uint64(b[16:]),
	}
	n := binary.LittleEndian.Uint64(b[24:])
	if n > uint64(len(b)-32) {
		return nil, fmt.Errorf("UEFI_IMAGE_LOAD_EVENT: a %d-byte device path does not fit the %d bytes after the header", n, len(b)-32)
	}
	if n == 0 {
		return il, ErrNoDevicePath
	}
	il.DevicePath = b[32 : 32+n]
	return il, nil
}
