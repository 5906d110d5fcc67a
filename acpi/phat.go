package acpi

import (
	"encoding/binary"
	"unicode/utf16"
)

// SigPHAT is the Platform Health Assessment Table's signature (ACPI 6.5
// §5.2.31).
const SigPHAT = "PHAT"

// PHAT record types and sizes (ACPI 6.5 §5.2.31.1 and §5.2.31.2).
const (
	PHATVersionData = 0 // firmware version data record
	PHATHealthData  = 1 // firmware health data record
	// PHATRecordHeader is the common record header: type (2), length
	// (2), revision (1).
	PHATRecordHeader = 5
	// PHATVersionFixed is a version data record's fixed part: the header,
	// 3 reserved bytes and the element count (4); PHATVersionElement is
	// the size of each version element (component GUID 16, version
	// value 8, producer ID 4).
	PHATVersionFixed   = 12
	PHATVersionElement = 28
	// PHATHealthFixed is a health data record's fixed part: the header,
	// 2 reserved bytes, AmHealthy (1), the device signature GUID (16) and
	// the device-specific data offset (4); the device path (a
	// NUL-terminated UTF-16 string) follows it.
	PHATHealthFixed = 28
)

// PHATRecord is one platform telemetry record. Fields past the header
// are decoded only for a record of a defined type long enough for its
// fixed part (Short is clear).
type PHATRecord struct {
	Subtable
	Revision uint8
	Short    bool
	Reserved []byte // the reserved bytes after the header (3 or 2)
	// Version data: the element count and the elements the record's
	// length holds (Elements may be fewer than Count).
	Count    uint32
	Elements []PHATVersionElem
	// Health data. Health is AmHealthy: 0 errors found, 1 no errors,
	// 2 unknown, 3 advisory; higher values are reserved.
	Health     uint8
	Device     GUIDBytes
	DataOffset uint32
	// Path is the device path; PathEnd the offset (in the record) just
	// past its NUL, 0 when no NUL is found inside the record.
	Path    string
	PathEnd int
}

// PHATVersionElem is one version element of a version data record.
type PHATVersionElem struct {
	Component GUIDBytes
	Version   uint64
	Producer  uint32
}

// PHAT is the Platform Health Assessment Table.
type PHAT struct {
	Header  Header
	Records []PHATRecord
	NotRead int
}

// ParsePHAT decodes a PHAT. When the record list is malformed it returns
// the records before the fault with a *WalkError.
func ParsePHAT(t *Table) (*PHAT, error) {
	body, err := sdtBody(t, SigPHAT, HeaderSize)
	if err != nil {
		return nil, err
	}
	subs, notRead, err := walkSubtables("PHAT record", body, HeaderSize, subtableLayout{typeSize: 2, lenOff: 2, lenSize: 2})
	p := &PHAT{Header: t.Header, NotRead: notRead}
	for _, s := range subs {
		r := PHATRecord{Subtable: s}
		if s.Length >= PHATRecordHeader {
			r.Revision = s.Raw[4]
		}
		switch s.Type {
		case PHATVersionData:
			if s.Length < PHATVersionFixed {
				r.Short = true
				break
			}
			r.Reserved = s.Raw[5:8]
			r.Count = binary.LittleEndian.Uint32(s.Raw[8:])
			for off := PHATVersionFixed; off+PHATVersionElement <= s.Length && uint64(len(r.Elements)) < uint64(r.Count); off += PHATVersionElement {
				var e PHATVersionElem
				copy(e.Component[:], s.Raw[off:])
				e.Version = binary.LittleEndian.Uint64(s.Raw[off+16:])
				e.Producer = binary.LittleEndian.Uint32(s.Raw[off+24:])
				r.Elements = append(r.Elements, e)
			}
		case PHATHealthData:
			if s.Length < PHATHealthFixed {
				r.Short = true
				break
			}
			r.Reserved = s.Raw[5:7]
			r.Health = s.Raw[7]
			copy(r.Device[:], s.Raw[8:24])
			r.DataOffset = binary.LittleEndian.Uint32(s.Raw[24:])
			var u []uint16
			for off := PHATHealthFixed; off+2 <= s.Length; off += 2 {
				c := binary.LittleEndian.Uint16(s.Raw[off:])
				if c == 0 {
					r.PathEnd = off + 2
					break
				}
				u = append(u, c)
			}
			r.Path = string(utf16.Decode(u))
		}
		p.Records = append(p.Records, r)
	}
	return p, err
}
