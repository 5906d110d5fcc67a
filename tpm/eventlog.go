// Package tpm reads what the firmware measured into the TPM: the TCG event
// log (the crypto-agile format of TCG PC Client Platform Firmware Profile
// 1.05 §10.2, and the SHA-1-only format before it), its replay per PCR bank,
// and the PCR values read from the TPM through github.com/google/go-tpm
// (TPM2_PCR_Read on /dev/tpmrm0), stored as JSON so a snapshot replays
// offline. authority.go decodes the UEFI event data the Secure Boot
// check needs: UEFI_VARIABLE_DATA (the EV_EFI_VARIABLE_AUTHORITY events that
// name the key database entry that authorised each boot image) and
// UEFI_IMAGE_LOAD_EVENT.
//
// The parser is fwcheck's own. github.com/google/go-eventlog (tcg) and
// go-attestation were considered and are used in the tests as a second
// opinion on real logs, but not in the product: go-eventlog's tcg package
// links google.golang.org/protobuf into the binary (a dependency the live
// image's size budget and the project's dependency list do not admit); its
// parser gives up on the whole log at the first truncated or malformed
// event, where fwcheck must report the truncation and still replay the
// events before it; and its Verify passes a PCR when any one bank matches,
// quietly applies known-firmware-bug workarounds, and names failing PCRs
// without their bank — fwcheck reports each bank's mismatch on its own.
// go-attestation builds on the same code and adds more dependencies.
package tpm

import (
	"bytes"
	"crypto"
	_ "crypto/sha1" // the SHA-1 bank
	_ "crypto/sha256"
	_ "crypto/sha512" // SHA-384 and SHA-512 banks
	"encoding/binary"
	"fmt"
	"sort"
)

// Event types (TCG PC Client PFP 1.05 §10.4.1).
const (
	EvPrebootCert     = 0x00
	EvPostCode        = 0x01
	EvNoAction        = 0x03
	EvSeparator       = 0x04
	EvAction          = 0x05
	EvSCRTMContents   = 0x07
	EvSCRTMVersion    = 0x08
	EvEFIVariableBoot = 0x80000002
)

var eventNames = map[uint32]string{
	0x00: "EV_PREBOOT_CERT", 0x01: "EV_POST_CODE", 0x02: "EV_UNUSED", 0x03: "EV_NO_ACTION",
	0x04: "EV_SEPARATOR", 0x05: "EV_ACTION", 0x06: "EV_EVENT_TAG", 0x07: "EV_S_CRTM_CONTENTS",
	0x08: "EV_S_CRTM_VERSION", 0x09: "EV_CPU_MICROCODE", 0x0a: "EV_PLATFORM_CONFIG_FLAGS",
	0x0b: "EV_TABLE_OF_DEVICES", 0x0c: "EV_COMPACT_HASH", 0x0d: "EV_IPL", 0x0e: "EV_IPL_PARTITION_DATA",
	0x0f: "EV_NONHOST_CODE", 0x10: "EV_NONHOST_CONFIG", 0x11: "EV_NONHOST_INFO",
	0x12: "EV_OMIT_BOOT_DEVICE_EVENTS", 0x13: "EV_POST_CODE2",
	0x80000001: "EV_EFI_VARIABLE_DRIVER_CONFIG", 0x80000002: "EV_EFI_VARIABLE_BOOT",
	0x80000003: "EV_EFI_BOOT_SERVICES_APPLICATION", 0x80000004: "EV_EFI_BOOT_SERVICES_DRIVER",
	0x80000005: "EV_EFI_RUNTIME_SERVICES_DRIVER", 0x80000006: "EV_EFI_GPT_EVENT",
	0x80000007: "EV_EFI_ACTION", 0x80000008: "EV_EFI_PLATFORM_FIRMWARE_BLOB",
	0x80000009: "EV_EFI_HANDOFF_TABLES", 0x8000000a: "EV_EFI_PLATFORM_FIRMWARE_BLOB2",
	0x8000000b: "EV_EFI_HANDOFF_TABLES2", 0x8000000c: "EV_EFI_VARIABLE_BOOT2",
	0x8000000d: "EV_EFI_GPT_EVENT2", 0x80000010: "EV_EFI_HCRTM_EVENT",
	0x800000e0: "EV_EFI_VARIABLE_AUTHORITY", 0x800000e1: "EV_EFI_SPDM_FIRMWARE_BLOB",
	0x800000e2: "EV_EFI_SPDM_FIRMWARE_CONFIG", 0x800000e3: "EV_EFI_SPDM_DEVICE_POLICY",
	0x800000e4: "EV_EFI_SPDM_DEVICE_AUTHORITY",
}

// EventTypeName names an event type, or gives it in hex when the PFP does
// not define it.
func EventTypeName(t uint32) string {
	if n, ok := eventNames[t]; ok {
		return n
	}
	return fmt.Sprintf("0x%08x", t)
}

// KnownEventType reports whether the PFP defines event type t.
func KnownEventType(t uint32) bool { _, ok := eventNames[t]; return ok }

// Alg is a TPM hash algorithm ID (TPM_ALG_ID).
type Alg uint16

// The hash algorithms of PCR banks.
const (
	SHA1   Alg = 0x0004
	SHA256 Alg = 0x000b
	SHA384 Alg = 0x000c
	SHA512 Alg = 0x000d
	SM3    Alg = 0x0012
)

var algInfo = map[Alg]struct {
	name string
	hash crypto.Hash
	size int
}{
	SHA1: {"sha1", crypto.SHA1, 20}, SHA256: {"sha256", crypto.SHA256, 32},
	SHA384: {"sha384", crypto.SHA384, 48}, SHA512: {"sha512", crypto.SHA512, 64},
	SM3: {"sm3_256", 0, 32},
}

func (a Alg) String() string {
	if i, ok := algInfo[a]; ok {
		return i.name
	}
	return fmt.Sprintf("alg-0x%04x", uint16(a))
}

// ParseAlg reads a bank name as String writes it.
func ParseAlg(s string) (Alg, bool) {
	for a, i := range algInfo {
		if i.name == s {
			return a, true
		}
	}
	return 0, false
}

// Size is the digest size of the algorithm, 0 if unknown.
func (a Alg) Size() int { return algInfo[a].size }

// Event is one event of the log.
type Event struct {
	// Seq is the event's position in the log, from 0 (the first, header
	// event).
	Seq     int
	Offset  int
	PCR     uint32
	Type    uint32
	Digests map[Alg][]byte
	Data    []byte
}

// Log is a parsed event log.
type Log struct {
	// CryptoAgile is true for a TCG2 log (a Spec ID Event03 header).
	CryptoAgile bool
	// Algs are the digest algorithms the header declares, in its order
	// (SHA-1 alone for the old format).
	Algs []Alg
	// SpecVersion is the header's spec version ("2.0 errata 0"), if any.
	SpecVersion string
	// Events are the measured events after the header.
	Events []Event
	// Truncated is set when the log ends inside an event: Events holds
	// those before it, Problems says where.
	Truncated bool
	// Padding counts the zero (or 0xFF) bytes that filled the log's end.
	Padding int
	// Problems are malformed parts of the log, one line each.
	Problems []string

	sizes []int // digest sizes, as the header declares them
}

// maxEvents bounds the events read (real logs hold a few hundred; a
// crypto-agile event is at least 16 bytes).
const maxEvents = 1 << 16

// maxDigests bounds the digests of one event.
const maxDigests = 8

// Parse reads an event log. Only a log whose header cannot be read is an
// error; problems after it (a truncated event, an undeclared algorithm) end
// the parse where they are and are recorded in Problems.
func Parse(b []byte) (*Log, error) {
	l := &Log{}
	if len(b) < 32 {
		return nil, fmt.Errorf("event log of %d bytes: shorter than its first event's header", len(b))
	}
	pcr, typ := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	size := binary.LittleEndian.Uint32(b[28:])
	if uint64(size) > uint64(len(b)-32) {
		return nil, fmt.Errorf("first event: size %d runs past the log's %d bytes", size, len(b))
	}
	first := b[32 : 32+size]
	off := 32 + int(size)
	if typ == EvNoAction && pcr == 0 && bytes.HasPrefix(first, []byte("Spec ID Event03\x00")) {
		if err := l.parseSpecID(first); err != nil {
			return nil, fmt.Errorf("Spec ID event: %w", err)
		}
	} else {
		l.Algs = []Alg{SHA1}
		off = 0
	}
	for seq := 1; off < len(b); seq++ {
		if len(l.Events) >= maxEvents {
			l.Problems = append(l.Problems, fmt.Sprintf("more than %d events: the rest is not read", maxEvents))
			break
		}
		if pad(b[off:]) {
			l.Padding = len(b) - off
			break
		}
		e, n, err := l.parseEvent(b[off:])
		if err != nil {
			l.Truncated = true
			l.Problems = append(l.Problems, fmt.Sprintf("event %d at offset %d: %v", seq, off, err))
			break
		}
		e.Seq, e.Offset = seq, off
		l.Events = append(l.Events, e)
		off += n
	}
	return l, nil
}

// pad reports whether b is all zeros or all 0xFF (the unused end of a
// fixed-size log area).
func pad(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	c := b[0]
	if c != 0 && c != 0xff {
		return false
	}
	for _, x := range b {
		if x != c {
			return false
		}
	}
	// An event for PCR 0 of type EV_PREBOOT_CERT with zero digests starts
	// with zeros too, but a whole tail of zeros is no event.
	return len(b) >= 8
}

func (l *Log) parseSpecID(d []byte) error {
	if len(d) < 16+4+4+4 {
		return fmt.Errorf("%d bytes: too short", len(d))
	}
	minor, major, errata := d[20], d[21], d[22]
	l.SpecVersion = fmt.Sprintf("%d.%d errata %d", major, minor, errata)
	n := binary.LittleEndian.Uint32(d[24:])
	if n == 0 || n > maxDigests {
		return fmt.Errorf("%d algorithms", n)
	}
	if uint64(len(d)) < 28+4*uint64(n) {
		return fmt.Errorf("%d algorithms do not fit its %d bytes", n, len(d))
	}
	for i := range int(n) {
		a := Alg(binary.LittleEndian.Uint16(d[28+4*i:]))
		sz := int(binary.LittleEndian.Uint16(d[30+4*i:]))
		if a.Size() != 0 && a.Size() != sz {
			return fmt.Errorf("%s declared with %d-byte digests", a, sz)
		}
		l.Algs = append(l.Algs, a)
		l.sizes = append(l.sizes, sz)
	}
	l.CryptoAgile = true
	return nil
}

func (l *Log) size(a Alg) int {
	for i, x := range l.Algs {
		if x == a && i < len(l.sizes) {
			return l.sizes[i]
		}
	}
	return a.Size()
}

func (l *Log) parseEvent(b []byte) (Event, int, error) {
	var e Event
	if !l.CryptoAgile {
		if len(b) < 32 {
			return e, 0, fmt.Errorf("%d bytes left, shorter than an event header", len(b))
		}
		e.PCR, e.Type = binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		e.Digests = map[Alg][]byte{SHA1: b[8:28]}
		size := binary.LittleEndian.Uint32(b[28:])
		if uint64(size) > uint64(len(b)-32) {
			return e, 0, fmt.Errorf("event data of %d bytes runs past the %d bytes left", size, len(b)-32)
		}
		e.Data = b[32 : 32+size]
		return e, 32 + int(size), nil
	}
	if len(b) < 12 {
		return e, 0, fmt.Errorf("%d bytes left, shorter than an event header", len(b))
	}
	e.PCR, e.Type = binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	n := binary.LittleEndian.Uint32(b[8:])
	if n > maxDigests {
		return e, 0, fmt.Errorf("%d digests", n)
	}
	off := 12
	e.Digests = map[Alg][]byte{}
	for range int(n) {
		if off+2 > len(b) {
			return e, 0, fmt.Errorf("digest list runs past the end")
		}
		a := Alg(binary.LittleEndian.Uint16(b[off:]))
		sz := l.size(a)
		if sz == 0 {
			return e, 0, fmt.Errorf("digest of algorithm 0x%04x, which the header does not declare", uint16(a))
		}
		if off+2+sz > len(b) {
			return e, 0, fmt.Errorf("%s digest runs past the end", a)
		}
		e.Digests[a] = b[off+2 : off+2+sz]
		off += 2 + sz
	}
	if off+4 > len(b) {
		return e, 0, fmt.Errorf("event size runs past the end")
	}
	size := binary.LittleEndian.Uint32(b[off:])
	off += 4
	if uint64(size) > uint64(len(b)-off) {
		return e, 0, fmt.Errorf("event data of %d bytes runs past the %d bytes left", size, len(b)-off)
	}
	e.Data = b[off : off+int(size)]
	return e, off + int(size), nil
}

// Replay extends each PCR of bank a with the log's digests for it, as the
// TPM would have, and returns the resulting values of the PCRs the log
// measures into. EV_NO_ACTION events are not extended; a StartupLocality
// event sets PCR 0's starting value. Events lacking a digest for the bank
// are listed in missing (their sequence numbers).
func (l *Log) Replay(a Alg) (pcrs map[uint32][]byte, missing []int, err error) {
	h := algInfo[a].hash
	if h == 0 || !h.Available() {
		return nil, nil, fmt.Errorf("cannot replay the %s bank: no implementation of the hash", a)
	}
	pcrs = map[uint32][]byte{}
	var locality byte
	for _, e := range l.Events {
		if e.Type == EvNoAction {
			if e.PCR == 0 && len(e.Data) == 17 && bytes.HasPrefix(e.Data, []byte("StartupLocality\x00")) {
				locality = e.Data[16]
			}
			continue
		}
		d, ok := e.Digests[a]
		if !ok {
			missing = append(missing, e.Seq)
			continue
		}
		cur, ok := pcrs[e.PCR]
		if !ok {
			cur = make([]byte, h.Size())
			if e.PCR == 0 {
				cur[len(cur)-1] = locality
			}
		}
		x := h.New()
		x.Write(cur)
		x.Write(d)
		pcrs[e.PCR] = x.Sum(nil)
	}
	return pcrs, missing, nil
}

// Indices returns the PCRs the log's events measure into, sorted.
func (l *Log) Indices() []uint32 {
	seen := map[uint32]bool{}
	for _, e := range l.Events {
		if e.Type != EvNoAction {
			seen[e.PCR] = true
		}
	}
	var out []uint32
	for p := range seen {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// dataDigested are the event types whose digest the PC Client profile
// defines as the hash of the event data itself (PFP 1.05 §10.4.1). All
// 250-odd events of these types in the 13 real logs the tests hold (11
// machines' and 2 QEMU firmwares') follow it; other types hash something
// the log does not hold (an image, a firmware volume), or are hashed
// differently by different firmware (EV_EFI_VARIABLE_BOOT).
var dataDigested = map[uint32]bool{
	EvSeparator: true, EvAction: true, EvSCRTMVersion: true,
	0x80000001: true, // EV_EFI_VARIABLE_DRIVER_CONFIG
	0x80000006: true, // EV_EFI_GPT_EVENT
	0x80000007: true, // EV_EFI_ACTION
}

// DataDigested reports whether events of type t carry the hash of their
// data as their digest.
func DataDigested(t uint32) bool { return dataDigested[t] }

// DataMismatch returns the banks in which e's digest is not the hash of its
// data, for an event of a type whose digest is defined that way; banks whose
// hash this package cannot compute are not judged.
func (e Event) DataMismatch() []Alg {
	if !dataDigested[e.Type] {
		return nil
	}
	var bad []Alg
	for a, d := range e.Digests {
		h := algInfo[a].hash
		if h == 0 || !h.Available() {
			continue
		}
		x := h.New()
		x.Write(e.Data)
		if !bytes.Equal(x.Sum(nil), d) {
			bad = append(bad, a)
		}
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i] < bad[j] })
	return bad
}
