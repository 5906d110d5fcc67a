package efi

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// GUIDs of EDK II's non-volatile variable store (MdeModulePkg's
// VariableFormat.h and SystemNvDataGuid.h).
var (
	// SystemNvDataFv is gEfiSystemNvDataFvGuid, the FileSystemGuid of the
	// firmware volume that holds the variable store.
	SystemNvDataFv = MustGUID("fff12b8d-7696-4c8b-a985-2747075b4f50")
	// VariableStoreAuth is gEfiAuthenticatedVariableGuid, the signature
	// of a store of authenticated variable records (OVMF's).
	VariableStoreAuth = MustGUID("aaf32c78-947b-439a-a180-2e144ec37792")
	// VariableStorePlain is gEfiVariableGuid, the signature of a store of
	// records without the authentication fields.
	VariableStorePlain = MustGUID("ddcf3616-3275-4164-98b6-fe85707ffe7d")
	// VariableStoreAuthOld is the signature older EDK II builds
	// (SecurityPkg's AuthenticatedVariableFormat.h) gave a store of
	// authenticated records; the records are laid out the same.
	VariableStoreAuthOld = MustGUID("515fa686-b06e-4550-9112-382bf1067bfb")
)

// Variable record states. A state byte starts erased (0xFF) and each
// step clears bits, so a record's state is the AND of the steps it went
// through: VarAdded&VarInDeletedTransition&VarDeleted (0x3C) is a record
// added, then deleted.
const (
	VarHeaderValidOnly     = 0x7F // the header is written, the name and data maybe not
	VarAdded               = 0x3F // the record is complete
	VarInDeletedTransition = 0xFE // a newer copy is being written
	VarDeleted             = 0xFD // the record is obsolete
)

// Layout of the store (all little-endian, packed).
const (
	fvHeaderMin     = 56 // EFI_FIRMWARE_VOLUME_HEADER up to its block map
	fvSignatureOff  = 40 // "_FVH"
	storeHeaderSize = 28 // VARIABLE_STORE_HEADER
	plainRecordHdr  = 32 // VARIABLE_HEADER
	authRecordHdr   = 60 // AUTHENTICATED_VARIABLE_HEADER
	varStartID      = 0x55AA
	storeFormatted  = 0x5A
	storeHealthy    = 0xFE
	fvSignature     = "_FVH"
)

// VarStore is an EDK II non-volatile variable store as it sits in flash:
// OVMF's VARS file (OVMF_VARS.fd, OVMF_VARS_4M.fd), the variable region
// of a PC's SPI flash image, or a dump of it.
//
// The store is a VARIABLE_STORE_HEADER and the variable records after it,
// each 4-byte aligned, appended in the order they were written; the rest
// up to the store's size is erased flash (0xFF). A variable is never
// rewritten in place: an update appends a new record and marks the old
// one deleted, and the deleted records' space comes back only when the
// firmware reclaims the store (rewrites it with the live records alone).
type VarStore struct {
	// FVOffset is the offset of the firmware volume header in the input,
	// -1 when the input starts with the store header.
	FVOffset int
	// FVLength is the firmware volume's length (FvLength), FVChecksumOK
	// whether its header sums to zero (0 and false without a volume).
	FVLength     uint64
	FVChecksumOK bool
	// Offset is the offset of the VARIABLE_STORE_HEADER in the input.
	Offset int
	// Signature is the store's signature GUID; Authenticated says its
	// records carry the authentication fields.
	Signature     GUID
	Authenticated bool
	// Size is the store's size from its header: the header itself and
	// the variable area.
	Size uint32
	// Format and State are the header's format (0x5A when formatted)
	// and health (0xFE when healthy) bytes.
	Format, State byte
	// Records are the variable records in store order.
	Records []VarRecord
	// LiveBytes, DeletedBytes and IncompleteBytes are the bytes the
	// records take, by kind (each record's header, name, data and
	// padding): live variables, deleted (obsolete) ones, and records of
	// another state (a write cut short). FreeBytes is the variable area
	// after the last record. HeaderSize+LiveBytes+DeletedBytes+
	// IncompleteBytes+FreeBytes is Size.
	LiveBytes, DeletedBytes, IncompleteBytes, FreeBytes int
	// DirtyFreeBytes counts the free area's bytes that are not erased
	// (not 0xFF): a store the firmware would reformat or reclaim.
	DirtyFreeBytes int
}

// HeaderSize is the size of the VARIABLE_STORE_HEADER.
const HeaderSize = storeHeaderSize

// VarRecord is one variable record of a VarStore.
type VarRecord struct {
	Name       string
	GUID       GUID
	Attributes Attributes
	// State is the record's state byte (see VarAdded).
	State byte
	// Offset is the record's offset in the input; Size the bytes it
	// takes up to the next record (header, name, data and padding).
	Offset, Size int
	// Data is the variable's data (a copy).
	Data []byte
	// MonotonicCount, TimeStamp and PubKeyIndex are the authenticated
	// format's fields (zero in the other format); TimeStamp is the raw
	// EFI_TIME.
	MonotonicCount uint64
	TimeStamp      [16]byte
	PubKeyIndex    uint32
	// Shadowed: the record is in deleted transition and a complete copy
	// of the same variable follows, so it is obsolete.
	Shadowed bool
}

// Live reports whether the record holds a current variable: it was
// completely added and not deleted (an update in transition still
// counts until its newer copy is complete).
func (r *VarRecord) Live() bool {
	return (r.State == VarAdded || r.State == VarAdded&VarInDeletedTransition) && !r.Shadowed
}

// Deleted reports whether the record is obsolete: marked deleted, or in
// deleted transition with a newer complete copy.
func (r *VarRecord) Deleted() bool {
	return r.State&^VarDeleted == 0 || r.Shadowed
}

// StateName names the record's state: "added", "deleted", "added, in
// deleted transition", "header valid only", or the byte in hex.
func (r *VarRecord) StateName() string {
	switch {
	case r.State == VarAdded:
		return "added"
	case r.State == VarAdded&VarInDeletedTransition:
		if r.Shadowed {
			return "added, in deleted transition (superseded)"
		}
		return "added, in deleted transition"
	case r.State&^VarDeleted == 0:
		return "deleted"
	case r.State == VarHeaderValidOnly:
		return "header valid only"
	}
	return fmt.Sprintf("state 0x%02X", r.State)
}

// ErrNoVarStore is returned when the input holds no variable store.
var ErrNoVarStore = errors.New("no EDK II variable store (no firmware volume with gEfiSystemNvDataFvGuid, no variable store header)")

// ParseVarStore parses the EDK II variable store at the start of b: a
// firmware volume whose file system is gEfiSystemNvDataFvGuid followed by
// the store, as in OVMF's VARS files, or a bare VARIABLE_STORE_HEADER.
// Every size is checked against b; a store that does not fit or is
// malformed is an error.
func ParseVarStore(b []byte) (*VarStore, error) {
	if len(b) >= fvHeaderMin && string(b[fvSignatureOff:fvSignatureOff+4]) == fvSignature {
		return parseFV(b, 0)
	}
	if isStoreSignature(b) {
		return parseStore(b, 0, len(b), -1)
	}
	return nil, ErrNoVarStore
}

// FindVarStore finds the first variable store in b, a whole flash image
// or part of one: a firmware volume with gEfiSystemNvDataFvGuid at an
// 8-byte aligned offset (the alignment firmware volumes have).
func FindVarStore(b []byte) (*VarStore, error) {
	var firstErr error
	for off := 0; off+fvHeaderMin <= len(b); off += 8 {
		if string(b[off+fvSignatureOff:off+fvSignatureOff+4]) != fvSignature {
			continue
		}
		if g, _ := guidAt(b, off+16); g != SystemNvDataFv {
			continue
		}
		s, err := parseFV(b, off)
		if err == nil {
			return s, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, ErrNoVarStore
}

func isStoreSignature(b []byte) bool {
	g, ok := guidAt(b, 0)
	return ok && (g == VariableStoreAuth || g == VariableStorePlain || g == VariableStoreAuthOld)
}

// parseFV parses the firmware volume at off and the store in it.
func parseFV(b []byte, off int) (*VarStore, error) {
	fv := b[off:]
	if len(fv) < fvHeaderMin {
		return nil, fmt.Errorf("firmware volume at 0x%x: %d bytes, shorter than its %d-byte header", off, len(fv), fvHeaderMin)
	}
	if g, _ := guidAt(fv, 16); g != SystemNvDataFv {
		return nil, fmt.Errorf("firmware volume at 0x%x: file system %v, not gEfiSystemNvDataFvGuid %v", off, g, SystemNvDataFv)
	}
	length, _ := le64(fv, 32)
	hlen, _ := le16(fv, 48)
	if int(hlen) < fvHeaderMin || int(hlen) > len(fv) || uint64(hlen) > length {
		return nil, fmt.Errorf("firmware volume at 0x%x: header length %d out of range (at least %d, at most the volume's %d and the input's %d bytes)",
			off, hlen, fvHeaderMin, length, len(fv))
	}
	var sum uint16
	for i := 0; i+1 < int(hlen); i += 2 {
		sum += binary.LittleEndian.Uint16(fv[i:])
	}
	end := len(b)
	if length < uint64(len(fv)) {
		end = off + int(length)
	}
	s, err := parseStore(b, off+int(hlen), end, off)
	if err != nil {
		return nil, fmt.Errorf("firmware volume at 0x%x: %w", off, err)
	}
	s.FVLength, s.FVChecksumOK = length, sum == 0
	return s, nil
}

// parseStore parses the store whose header is at off; the store must end
// by end (the volume's end or the input's).
func parseStore(b []byte, off, end, fvOff int) (*VarStore, error) {
	if off+storeHeaderSize > end {
		return nil, fmt.Errorf("variable store header at 0x%x: needs %d bytes, %d left", off, storeHeaderSize, max(0, end-off))
	}
	h := b[off:end]
	s := &VarStore{FVOffset: fvOff, Offset: off}
	s.Signature, _ = guidAt(h, 0)
	switch s.Signature {
	case VariableStoreAuth, VariableStoreAuthOld:
		s.Authenticated = true
	case VariableStorePlain:
	default:
		return nil, fmt.Errorf("variable store at 0x%x: signature %v is neither gEfiAuthenticatedVariableGuid nor gEfiVariableGuid", off, s.Signature)
	}
	s.Size, _ = le32(h, 16)
	s.Format, s.State = h[20], h[21]
	if s.Size < storeHeaderSize || uint64(s.Size) > uint64(len(h)) {
		return nil, fmt.Errorf("variable store at 0x%x: size %d out of range (at least its %d-byte header, at most the %d bytes there)", off, s.Size, storeHeaderSize, len(h))
	}
	if s.Format != storeFormatted {
		return nil, fmt.Errorf("variable store at 0x%x: format 0x%02X, not formatted (0x%02X)", off, s.Format, storeFormatted)
	}
	area := h[:s.Size]
	hdr := plainRecordHdr
	if s.Authenticated {
		hdr = authRecordHdr
	}
	pos := align4(storeHeaderSize)
	// Each record takes at least a header, so the loop ends within
	// len(area)/hdr iterations.
	for pos+hdr <= len(area) {
		if v, _ := le16(area, pos); v != varStartID {
			break
		}
		r, size, err := parseRecord(area, pos, hdr)
		if err != nil {
			return nil, fmt.Errorf("variable store at 0x%x: record at 0x%x: %w", off, off+pos, err)
		}
		r.Offset = off + pos
		r.Size = size
		s.Records = append(s.Records, r)
		pos += size
	}
	pos = min(pos, len(area))
	s.FreeBytes = len(area) - pos
	for _, c := range area[pos:] {
		if c != 0xFF {
			s.DirtyFreeBytes++
		}
	}
	s.markShadowed()
	for i := range s.Records {
		r := &s.Records[i]
		switch {
		case r.Live():
			s.LiveBytes += r.Size
		case r.Deleted():
			s.DeletedBytes += r.Size
		default:
			s.IncompleteBytes += r.Size
		}
	}
	return s, nil
}

// parseRecord parses the record at pos of area, whose header is hdr
// bytes, and returns it with the bytes it takes up to the next record.
func parseRecord(area []byte, pos, hdr int) (VarRecord, int, error) {
	h := area[pos : pos+hdr]
	r := VarRecord{State: h[2]}
	attrs, _ := le32(h, 4)
	r.Attributes = Attributes(attrs)
	o := 8
	if hdr == authRecordHdr {
		r.MonotonicCount, _ = le64(h, 8)
		copy(r.TimeStamp[:], h[16:32])
		r.PubKeyIndex, _ = le32(h, 32)
		o = 36
	}
	nameSize, _ := le32(h, o)
	dataSize, _ := le32(h, o+4)
	r.GUID, _ = guidAt(h, o+8)
	// A header whose state or sizes are still erased was cut short while
	// being written: EDK II takes its name and data as empty.
	if r.State == 0xFF || nameSize == ^uint32(0) || dataSize == ^uint32(0) || attrs == ^uint32(0) {
		return r, align4(hdr), nil
	}
	left := uint64(len(area) - pos - hdr)
	if uint64(nameSize)+uint64(dataSize) > left {
		return r, 0, fmt.Errorf("name of %d and data of %d bytes, %d bytes left in the store", nameSize, dataSize, left)
	}
	name := area[pos+hdr : pos+hdr+int(nameSize)]
	r.Name = ucs2All(name)
	d := pos + hdr + int(nameSize)
	r.Data = append([]byte(nil), area[d:d+int(dataSize)]...)
	size := align4(hdr + int(nameSize) + int(dataSize))
	// The padding of the last record may run past an unaligned end.
	if pos+size > len(area) {
		size = len(area) - pos
	}
	return r, size, nil
}

// markShadowed marks the records in deleted transition that a complete
// copy of the same variable follows.
func (s *VarStore) markShadowed() {
	type key struct {
		name string
		g    GUID
	}
	added := map[key]bool{}
	for _, r := range s.Records {
		if r.State == VarAdded {
			added[key{r.Name, r.GUID}] = true
		}
	}
	for i := range s.Records {
		r := &s.Records[i]
		if r.State == VarAdded&VarInDeletedTransition && added[key{r.Name, r.GUID}] {
			r.Shadowed = true
		}
	}
}

func align4(n int) int { return (n + 3) &^ 3 }

// Live returns the live records (the store's current variables).
func (s *VarStore) Live() []VarRecord {
	var out []VarRecord
	for _, r := range s.Records {
		if r.Live() {
			out = append(out, r)
		}
	}
	return out
}

// Find returns the live record of name under g, or nil.
func (s *VarStore) Find(name string, g GUID) *VarRecord {
	for i := range s.Records {
		if r := &s.Records[i]; r.Live() && r.Name == name && r.GUID == g {
			return r
		}
	}
	return nil
}

// Used is the bytes the records take (live, deleted and incomplete).
func (s *VarStore) Used() int { return s.LiveBytes + s.DeletedBytes + s.IncompleteBytes }

// RecordsStart is the offset in the input of the store's first record.
func (s *VarStore) RecordsStart() int { return s.Offset + align4(storeHeaderSize) }

// RuntimeRemaining is what EDK II's QueryVariableInfo reports as the
// remaining storage after ExitBootServices, where it counts every record
// (deleted ones too, until a reclaim): the variable area less all
// records. Before ExitBootServices it leaves deleted records out. (A
// build that sets space aside for hardware error records reports that
// part separately; OVMF's does not.)
func (s *VarStore) RuntimeRemaining() int { return int(s.Size) - storeHeaderSize - s.Used() }
