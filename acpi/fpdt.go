package acpi

// This file covers the Firmware Performance Data Table (ACPI 6.5 §5.2.24)
// and the two tables its records point at: the Firmware Basic Boot
// Performance Table (FBPT) and the S3 Performance Table (S3PT). Only the FPDT is a System Description Table; the FBPT and
// S3PT live in firmware-reserved memory with an 8-byte header of their own
// and are parsed from bytes the caller read (ReadFPDTSubtable reads them
// from a physical-memory image). It also reads Linux's sysfs view of the
// same records (/sys/firmware/acpi/fpdt, drivers/acpi/acpi_fpdt.c, Linux
// 5.12 and later). Vendor-defined and reserved record types are kept raw
// and not interpreted; nothing here judges the values.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

// Signatures of the FPDT and the performance tables it points at.
const (
	SigFPDT = "FPDT"
	SigFBPT = "FBPT"
	SigS3PT = "S3PT"
)

// FPDT performance record types (ACPI 6.5 §5.2.24): the records the FPDT
// itself holds. Other types are reserved or vendor-defined.
const (
	FPDTFBPTPointer = 0x0000 // Firmware Basic Boot Performance Pointer Record
	FPDTS3PTPointer = 0x0001 // S3 Performance Table Pointer Record
)

// Runtime performance record types (ACPI 6.5 §5.2.24): the records the FBPT
// and S3PT hold.
const (
	RecS3Resume  = 0x0000 // Basic S3 Resume Performance Record (S3PT)
	RecS3Suspend = 0x0001 // Basic S3 Suspend Performance Record (S3PT)
	RecFBPTData  = 0x0002 // Firmware Basic Boot Performance Data Record (FBPT)
)

// Record and table sizes the specification fixes.
const (
	// PerfRecordHeaderSize is the Type (2), Length (1), Revision (1) header
	// every performance record starts with.
	PerfRecordHeaderSize = 4
	// FPDTPointerRecordSize is the length of both pointer records.
	FPDTPointerRecordSize = 16
	// PerfTableHeaderSize is the Signature (4) and Length (4) header of the
	// FBPT and S3PT.
	PerfTableHeaderSize = 8
	// S3ResumeRecordSize, S3SuspendRecordSize and FBPTDataRecordSize are
	// the lengths of the three basic runtime records.
	S3ResumeRecordSize  = 24
	S3SuspendRecordSize = 20
	FBPTDataRecordSize  = 48
	// maxPerfTableLen bounds an FBPT or S3PT read from memory: they hold a
	// few records, so a larger length is treated as corrupt.
	maxPerfTableLen = 64 << 10
)

// PerfRecord is one performance record as found: in the FPDT, or in an FBPT
// or S3PT.
type PerfRecord struct {
	Type     uint16
	Length   uint8
	Revision uint8
	// Offset is where the record starts in its table.
	Offset int
	// Raw holds the record's Length bytes.
	Raw []byte
	// Short is set when Length is below the size the specification gives
	// the record's type; the record is then not decoded.
	Short bool
}

// FPDT is the Firmware Performance Data Table.
type FPDT struct {
	Header Header
	// Records lists every record in table order, pointer records and
	// others alike.
	Records []PerfRecord
	// FBPTAddress and S3PTAddress are the physical addresses the first
	// well-formed pointer record of each kind gives; 0 when there is none.
	FBPTAddress uint64
	S3PTAddress uint64
	// Duplicates counts pointer records after the first of their kind
	// (Linux, like the specification, expects one of each).
	Duplicates int
}

// ParseFPDT decodes an FPDT and its pointer records. When the record list
// is malformed (a length below the 4-byte record header, a record running
// past the table, stray bytes at the end) it returns the FPDT with the
// records before the fault together with an error.
func ParseFPDT(t *Table) (*FPDT, error) {
	b, err := sdtBody(t, SigFPDT, HeaderSize)
	if err != nil {
		return nil, err
	}
	f := &FPDT{Header: t.Header}
	recs, err := perfRecords(SigFPDT, b, HeaderSize)
	for _, r := range recs {
		if r.Type == FPDTFBPTPointer || r.Type == FPDTS3PTPointer {
			r.Short = r.Length < FPDTPointerRecordSize
		}
		f.Records = append(f.Records, r)
		if r.Short {
			continue
		}
		addr := le(r.Raw).u64(8)
		switch r.Type {
		case FPDTFBPTPointer:
			if f.FBPTAddress != 0 {
				f.Duplicates++
			} else {
				f.FBPTAddress = addr
			}
		case FPDTS3PTPointer:
			if f.S3PTAddress != 0 {
				f.Duplicates++
			} else {
				f.S3PTAddress = addr
			}
		}
	}
	return f, err
}

// FPDT returns the first parsed FPDT, or an error when it is absent or
// malformed (see ParseFPDT for the partial result).
func (ts *Tables) FPDT() (*FPDT, error) {
	t := ts.First(SigFPDT)
	if t == nil {
		return nil, fmt.Errorf("%s: not in %s", SigFPDT, ts.Source)
	}
	return ParseFPDT(t)
}

// ErrTooManyRecords is returned, wrapped, with the first MaxSubtables
// records of a table that holds more: real firmware writes a handful.
var ErrTooManyRecords = errors.New("more records than fwcheck reads")

// perfRecords splits b[off:] into performance records. It stops at the
// first malformed record, or after MaxSubtables records, and returns the
// records before it with an error.
func perfRecords(sig string, b []byte, off int) ([]PerfRecord, error) {
	var out []PerfRecord
	for off < len(b) {
		if len(out) == MaxSubtables {
			return out, fmt.Errorf("%s: the %d bytes after its first %d records not read: %w", sig, len(b)-off, MaxSubtables, ErrTooManyRecords)
		}
		if off+PerfRecordHeaderSize > len(b) {
			return out, fmt.Errorf("%s: %d stray bytes at offset %d, too few for a record header", sig, len(b)-off, off)
		}
		r := le(b)
		typ, n := r.u16(off), int(r.u8(off+2))
		if n < PerfRecordHeaderSize {
			return out, fmt.Errorf("%s: record type 0x%04x at offset %d has length %d", sig, typ, off, n)
		}
		if off+n > len(b) {
			return out, fmt.Errorf("%s: record type 0x%04x at offset %d, length %d, runs past the table end %d: %w", sig, typ, off, n, len(b), ErrTruncated)
		}
		out = append(out, PerfRecord{Type: typ, Length: uint8(n), Revision: r.u8(off + 3), Offset: off, Raw: b[off : off+n]})
		off += n
	}
	return out, nil
}

// S3ResumeRecord is the Basic S3 Resume Performance Record.
// The times are nanoseconds the firmware measured from the start of its
// resume path to the hand-off to the OS waking vector.
type S3ResumeRecord struct {
	Revision uint8
	// ResumeCount is the number of S3 resumes since the last full boot.
	ResumeCount uint32
	// FullResume is the firmware resume time of the most recent resume
	// (Linux: resume_prev_ns).
	FullResume uint64
	// AverageResume is the average over every resume since the last full
	// boot, the most recent included (Linux: resume_avg_ns).
	AverageResume uint64
}

// S3SuspendRecord is the Basic S3 Suspend Performance Record:
// timer values in nanoseconds.
type S3SuspendRecord struct {
	Revision uint8
	// SuspendStart is logged when the OS writes SLP_TYP for S3.
	SuspendStart uint64
	// SuspendEnd is logged at the firmware's final write that puts the
	// hardware into S3.
	SuspendEnd uint64
}

// Duration is the firmware's suspend time, SuspendEnd-SuspendStart; ok is
// false when the record holds no suspend yet (both zero) or the end is
// before the start.
func (r S3SuspendRecord) Duration() (d time.Duration, ok bool) {
	if r.SuspendEnd < r.SuspendStart || r.SuspendEnd == 0 {
		return 0, false
	}
	return nsDuration(r.SuspendEnd - r.SuspendStart), true
}

// S3PT is the S3 Performance Table.
type S3PT struct {
	Length  uint32
	Records []PerfRecord
	// Resume and Suspend are the first well-formed record of each kind,
	// nil when absent.
	Resume  *S3ResumeRecord
	Suspend *S3SuspendRecord
}

// ParseS3PT decodes an S3 Performance Table from its bytes (its 8-byte
// header first). Bytes past the declared length are ignored; a declared
// length beyond b is an error, as is a malformed record list, in which case
// the records before the fault are returned with the error.
func ParseS3PT(b []byte) (*S3PT, error) {
	body, n, err := perfTableBody(SigS3PT, b)
	if err != nil {
		return nil, err
	}
	s := &S3PT{Length: n}
	recs, err := perfRecords(SigS3PT, body, PerfTableHeaderSize)
	for _, r := range recs {
		x := le(r.Raw)
		switch r.Type {
		case RecS3Resume:
			r.Short = r.Length < S3ResumeRecordSize
			if !r.Short && s.Resume == nil {
				s.Resume = &S3ResumeRecord{Revision: r.Revision, ResumeCount: x.u32(4), FullResume: x.u64(8), AverageResume: x.u64(16)}
			}
		case RecS3Suspend:
			r.Short = r.Length < S3SuspendRecordSize
			if !r.Short && s.Suspend == nil {
				s.Suspend = &S3SuspendRecord{Revision: r.Revision, SuspendStart: x.u64(4), SuspendEnd: x.u64(12)}
			}
		}
		s.Records = append(s.Records, r)
	}
	return s, err
}

// FBPTRecord is the Firmware Basic Boot Performance Data Record: timer
// values in nanoseconds, 0 when the firmware did not log the point.
type FBPTRecord struct {
	Revision uint8
	// ResetEnd is logged when firmware image execution began after the
	// reset (not necessarily near zero). Linux: firmware_start_ns.
	ResetEnd uint64
	// OSLoaderLoadImageStart is logged just before the OS loader is loaded
	// (LoadImage). Linux: bootloader_load_ns.
	OSLoaderLoadImageStart uint64
	// OSLoaderStartImageStart is logged just before the OS loader is
	// started (StartImage). Linux: bootloader_launch_ns.
	OSLoaderStartImageStart uint64
	// ExitBootServicesEntry and ExitBootServicesExit bracket the UEFI
	// ExitBootServices call. Linux: exitbootservice_start_ns and _end_ns.
	ExitBootServicesEntry uint64
	ExitBootServicesExit  uint64
}

// Phase is the time from timer value a to timer value b; ok is false when
// either is 0 (not logged) or b is before a.
func Phase(a, b uint64) (d time.Duration, ok bool) {
	if a == 0 || b == 0 || b < a {
		return 0, false
	}
	return nsDuration(b - a), true
}

// FBPT is the Firmware Basic Boot Performance Table.
type FBPT struct {
	Length  uint32
	Records []PerfRecord
	// Boot is the first well-formed data record, nil when absent.
	Boot *FBPTRecord
}

// ParseFBPT decodes a Firmware Basic Boot Performance Table from its bytes,
// with the same rules as ParseS3PT.
func ParseFBPT(b []byte) (*FBPT, error) {
	body, n, err := perfTableBody(SigFBPT, b)
	if err != nil {
		return nil, err
	}
	f := &FBPT{Length: n}
	recs, err := perfRecords(SigFBPT, body, PerfTableHeaderSize)
	for _, r := range recs {
		if r.Type == RecFBPTData {
			r.Short = r.Length < FBPTDataRecordSize
			if !r.Short && f.Boot == nil {
				x := le(r.Raw)
				f.Boot = &FBPTRecord{Revision: r.Revision, ResetEnd: x.u64(8), OSLoaderLoadImageStart: x.u64(16),
					OSLoaderStartImageStart: x.u64(24), ExitBootServicesEntry: x.u64(32), ExitBootServicesExit: x.u64(40)}
			}
		}
		f.Records = append(f.Records, r)
	}
	return f, err
}

// perfTableBody checks an FBPT/S3PT header and returns the table cut to its
// declared length.
func perfTableBody(sig string, b []byte) ([]byte, uint32, error) {
	if len(b) < PerfTableHeaderSize {
		return nil, 0, fmt.Errorf("%s: %d bytes, shorter than the %d-byte header: %w", sig, len(b), PerfTableHeaderSize, ErrTruncated)
	}
	if string(b[:4]) != sig {
		return nil, 0, fmt.Errorf("%s: signature is %q", sig, b[:4])
	}
	n := binary.LittleEndian.Uint32(b[4:8])
	if n < PerfTableHeaderSize {
		return nil, n, fmt.Errorf("%s: length %d is shorter than the header", sig, n)
	}
	if uint64(n) > uint64(len(b)) {
		return nil, n, fmt.Errorf("%s: length %d but only %d bytes present: %w", sig, n, len(b), ErrTruncated)
	}
	return b[:n], n, nil
}

// ReadFPDTSubtable reads the FBPT or S3PT (sig) at physical address addr
// of mem: its 8-byte header, then the length it declares (at most 64 KiB).
func ReadFPDTSubtable(mem io.ReaderAt, addr uint64, sig string) ([]byte, error) {
	if addr == 0 {
		return nil, fmt.Errorf("%s: null address", sig)
	}
	h, err := readAt(mem, addr, PerfTableHeaderSize)
	if err != nil {
		return nil, fmt.Errorf("%s at 0x%x: %w", sig, addr, err)
	}
	if string(h[:4]) != sig {
		return nil, fmt.Errorf("%s at 0x%x: signature is %q", sig, addr, h[:4])
	}
	n := binary.LittleEndian.Uint32(h[4:8])
	if n < PerfTableHeaderSize || n > maxPerfTableLen {
		return nil, fmt.Errorf("%s at 0x%x: implausible length %d", sig, addr, n)
	}
	b, err := readAt(mem, addr, int(n))
	if err != nil {
		return nil, fmt.Errorf("%s at 0x%x: %w", sig, addr, err)
	}
	return b, nil
}

// FPDTSysfsDir is where Linux exposes the FPDT records, relative to "/".
const FPDTSysfsDir = "sys/firmware/acpi/fpdt"

// FPDTSysfs is Linux's view of the FPDT records: the directories boot/,
// suspend/ and resume/ under FPDTSysfsDir, each present only when the
// firmware supplied that record. The kernel maps the records, so the
// values are current: resume/ changes after every S3 resume.
type FPDTSysfs struct {
	Boot    *FBPTRecord      // boot/: firmware_start_ns … exitbootservice_end_ns
	Suspend *S3SuspendRecord // suspend/: suspend_start_ns, suspend_end_ns
	Resume  *S3ResumeRecord  // resume/: resume_count, resume_prev_ns, resume_avg_ns
}

// The sysfs file names of drivers/acpi/acpi_fpdt.c, by directory.
var fpdtSysfsFiles = map[string][]string{
	"boot":    {"firmware_start_ns", "bootloader_load_ns", "bootloader_launch_ns", "exitbootservice_start_ns", "exitbootservice_end_ns"},
	"suspend": {"suspend_start_ns", "suspend_end_ns"},
	"resume":  {"resume_count", "resume_prev_ns", "resume_avg_ns"},
}

// ReadFPDTSysfs reads the FPDT records from directory dir of fsys (usually
// FPDTSysfsDir of the root file system). A directory absent from dir means
// the record is absent (its field stays nil); dir itself absent is an
// error wrapping fs.ErrNotExist (no FPDT, or a kernel before 5.12). A file
// that is missing or does not hold a decimal number is an error; the
// records read so far are returned with it. File names without the "_ns"
// suffix are accepted too.
func ReadFPDTSysfs(fsys fs.FS, dir string) (*FPDTSysfs, error) {
	if _, err := fs.Stat(fsys, dir); err != nil {
		return nil, fmt.Errorf("fpdt sysfs: %w", err)
	}
	out := &FPDTSysfs{}
	var errs []error
	for _, group := range []string{"boot", "suspend", "resume"} {
		gdir := path.Join(dir, group)
		st, err := fs.Stat(fsys, gdir)
		if err != nil || !st.IsDir() {
			continue
		}
		names := fpdtSysfsFiles[group]
		v := make([]uint64, len(names))
		bad := false
		for i, name := range names {
			x, err := readSysfsUint(fsys, gdir, name)
			if err != nil {
				errs = append(errs, err)
				bad = true
				continue
			}
			v[i] = x
		}
		if bad {
			continue
		}
		switch group {
		case "boot":
			out.Boot = &FBPTRecord{ResetEnd: v[0], OSLoaderLoadImageStart: v[1], OSLoaderStartImageStart: v[2],
				ExitBootServicesEntry: v[3], ExitBootServicesExit: v[4]}
		case "suspend":
			out.Suspend = &S3SuspendRecord{SuspendStart: v[0], SuspendEnd: v[1]}
		case "resume":
			if v[0] > 1<<32-1 {
				errs = append(errs, fmt.Errorf("fpdt sysfs: %s/resume_count %d does not fit 32 bits", gdir, v[0]))
				continue
			}
			out.Resume = &S3ResumeRecord{ResumeCount: uint32(v[0]), FullResume: v[1], AverageResume: v[2]}
		}
	}
	return out, errors.Join(errs...)
}

// readSysfsUint reads a decimal number from dir/name, or from dir/name
// without its "_ns" suffix.
func readSysfsUint(fsys fs.FS, dir, name string) (uint64, error) {
	p := path.Join(dir, name)
	b, err := fs.ReadFile(fsys, p)
	if err != nil && errors.Is(err, fs.ErrNotExist) && strings.HasSuffix(name, "_ns") {
		alt := path.Join(dir, strings.TrimSuffix(name, "_ns"))
		if b2, err2 := fs.ReadFile(fsys, alt); err2 == nil {
			b, err, p = b2, nil, alt
		}
	}
	if err != nil {
		return 0, fmt.Errorf("fpdt sysfs: %w", err)
	}
	if len(b) > 64 {
		return 0, fmt.Errorf("fpdt sysfs: %s: %d bytes, not a number", p, len(b))
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("fpdt sysfs: %s: %q is not a decimal number", p, strings.TrimSpace(string(b)))
	}
	return v, nil
}

// nsDuration converts nanoseconds to a Duration, saturating at its maximum.
func nsDuration(ns uint64) time.Duration {
	if ns > uint64(1<<63-1) {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(ns)
}
