package acpi

import "fmt"

// This file covers the I/O Virtualization Reporting Structure (AMD I/O
// Virtualization Technology (IOMMU) Specification, revision 3.08, §5.2):
// the IVRS header, its I/O virtualization definition blocks (IVHD types
// 10h, 11h and 40h; IVMD types 20h-22h), each walked by its own length,
// and the device entries of every IVHD, walked by the size their type
// gives. Unknown block and entry types are kept raw.

// SigIVRS is the IVRS's signature.
const SigIVRS = "IVRS"

// IVRSHeaderSize is the IVRS's fixed part: the SDT header, IVinfo and 8
// reserved bytes.
const IVRSHeaderSize = 48

// IVRS block types.
const (
	IVHDFixed    = 0x10
	IVHDVariable = 0x11
	IVHDUnified  = 0x40 // IVHD type 40h: as 11h, with ACPI HID device entries
	IVMDAll      = 0x20
	IVMDDevice   = 0x21
	IVMDRange    = 0x22
	// IVMDSize is every IVMD's length.
	IVMDSize = 32
)

// IVHDHeaderSize is the fixed part of an IVHD of type t (0 for other
// types).
func IVHDHeaderSize(t uint32) int {
	switch t {
	case IVHDFixed:
		return 24
	case IVHDVariable, IVHDUnified:
		return 40
	}
	return 0
}

// IVHD device entry types (AMD IOMMU 3.08 §5.2.2.2-§5.2.2.4).
const (
	IVEntryPad        = 0
	IVEntryAll        = 1
	IVEntrySelect     = 2
	IVEntryStart      = 3
	IVEntryEnd        = 4
	IVEntryAliasSel   = 66
	IVEntryAliasStart = 67
	IVEntryExtSel     = 70
	IVEntryExtStart   = 71
	IVEntrySpecial    = 72
	IVEntryACPIHID    = 240
)

// Special device varieties.
const (
	IVSpecialIOAPIC = 1
	IVSpecialHPET   = 2
)

// IVDeviceEntry is one device entry of an IVHD.
type IVDeviceEntry struct {
	Type     uint8
	Length   int
	DeviceID uint16
	DTE      uint8
	// Offset is where the entry starts in the table.
	Offset int
	// Handle, SourceID and Variety are the special device entry's: the
	// I/O APIC ID or HPET number, the PCI requester ID and 1 (I/O APIC)
	// or 2 (HPET).
	Handle   uint8
	SourceID uint16
	Variety  uint8
	// HID, CID and UID are the ACPI HID device entry's.
	HID, CID, UID string
}

// IVRSBlock is one I/O virtualization definition block.
type IVRSBlock struct {
	Subtable
	Flags    uint8
	DeviceID uint16
	// Short is set when the block is shorter than its type's fixed part
	// (or, for an IVMD, not 32 bytes long); it is then not decoded.
	Short bool
	// IVHD fields.
	CapOffset  uint16
	Base       uint64
	Segment    uint16
	Info       uint16
	Attributes uint32
	Entries    []IVDeviceEntry
	// EntryErr is why the device entries stopped early, nil when they
	// were read to the block's end.
	EntryErr error
	// IVMD fields.
	AuxData     uint16
	Reserved    uint64
	Start, Size uint64
}

// IVRS is the I/O Virtualization Reporting Structure.
type IVRS struct {
	Header   Header
	IVInfo   uint32
	Reserved uint64
	Blocks   []IVRSBlock
	NotRead  int
}

// ParseIVRS decodes an IVRS. When the block list is malformed it returns
// the blocks before the fault with a *WalkError.
func ParseIVRS(t *Table) (*IVRS, error) {
	body, err := sdtBody(t, SigIVRS, IVRSHeaderSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	v := &IVRS{Header: t.Header, IVInfo: r.u32(36), Reserved: r.u64(40)}
	subs, notRead, err := walkSubtables("IVRS block", body, IVRSHeaderSize, subtableLayout{typeSize: 1, lenOff: 2, lenSize: 2})
	v.NotRead = notRead
	for _, s := range subs {
		v.Blocks = append(v.Blocks, decodeIVRSBlock(s))
	}
	return v, err
}

func decodeIVRSBlock(s Subtable) IVRSBlock {
	r := le(s.Raw)
	b := IVRSBlock{Subtable: s, Flags: r.u8(1), DeviceID: r.u16(4)}
	switch s.Type {
	case IVHDFixed, IVHDVariable, IVHDUnified:
		hs := IVHDHeaderSize(s.Type)
		if s.Length < hs {
			b.Short = true
			return b
		}
		b.CapOffset, b.Base, b.Segment, b.Info, b.Attributes = r.u16(6), r.u64(8), r.u16(16), r.u16(18), r.u32(20)
		b.Entries, b.EntryErr = ivDeviceEntries(s.Raw, hs, s.Offset)
	case IVMDAll, IVMDDevice, IVMDRange:
		if s.Length != IVMDSize {
			b.Short = true
			return b
		}
		b.AuxData, b.Reserved, b.Start, b.Size = r.u16(6), r.u64(8), r.u64(16), r.u64(24)
	}
	return b
}

// ivEntrySize is the size of a fixed-size device entry type: 4 bytes for
// types 0-63, 8 for 64-127, 16 for 128-191, 32 for 192-255 (§5.2.2.1).
func ivEntrySize(t uint8) int {
	switch {
	case t < 64:
		return 4
	case t < 128:
		return 8
	case t < 192:
		return 16
	}
	return 32
}

// IVEntryError says a device entry runs past its IVHD.
type IVEntryError struct {
	Offset int
	Type   uint8
	Need   int
	End    int
}

func (e *IVEntryError) Error() string {
	return fmt.Sprintf("IVHD device entry type %d at offset %d needs %d bytes, the block ends at %d", e.Type, e.Offset, e.Need, e.End)
}

func ivDeviceEntries(b []byte, off, base int) ([]IVDeviceEntry, error) {
	var out []IVDeviceEntry
	for off < len(b) && len(out) < MaxSubtables {
		t := b[off]
		n := ivEntrySize(t)
		if t == IVEntryACPIHID {
			n = 22
			if off+22 <= len(b) {
				n += int(b[off+21])
			}
		}
		if off+n > len(b) {
			return out, &IVEntryError{Offset: base + off, Type: t, Need: n, End: base + len(b)}
		}
		r := le(b[off : off+n])
		e := IVDeviceEntry{Type: t, Length: n, DeviceID: r.u16(1), DTE: r.u8(3), Offset: base + off}
		switch t {
		case IVEntrySpecial:
			e.Handle, e.SourceID, e.Variety = r.u8(4), r.u16(5), r.u8(7)
		case IVEntryACPIHID:
			e.HID, _ = cString(b[off+4 : off+12])
			e.CID, _ = cString(b[off+12 : off+20])
			if uid := b[off+22 : off+n]; b[off+20] == 1 { // an integer
				var v uint64
				for i := len(uid) - 1; i >= 0; i-- {
					v = v<<8 | uint64(uid[i])
				}
				e.UID = fmt.Sprint(v)
			} else {
				e.UID, _ = cString(uid)
			}
		}
		out = append(out, e)
		off += n
	}
	return out, nil
}
