package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// CaptureOptions say what a snapshot leaves out of what the inputs read.
type CaptureOptions struct {
	// IncludeMSDM keeps the MSDM table, which carries the machine's
	// Windows product key; by default a snapshot leaves it out.
	IncludeMSDM bool
	// Redact drops serial numbers, UUIDs and MAC addresses from the DMI
	// identity, the SMBIOS tables and the kernel log, for a snapshot that is
	// to be shared (see redact.go for exactly what).
	Redact bool
}

// OmittedFile, below RecordedDir, lists what a snapshot left out or
// redacted, one "path: why" line each, so that whoever reads the snapshot
// is told.
const OmittedFile = "omitted.txt"

// Capture copies every file the inputs read from src into a snapshot
// written to w as .tar.gz, with the default options (the MSDM table left
// out). Files that cannot be read are listed in the returned notes, not
// fatal: a snapshot of what could be read beats none.
func Capture(w io.Writer, src Source, inputs []Decl) (notes []string, err error) {
	return CaptureWith(w, src, inputs, CaptureOptions{})
}

// CaptureWith is Capture with options. Its notes also say what was left
// out or redacted, and why.
func CaptureWith(w io.Writer, src Source, inputs []Decl, opts CaptureOptions) (notes []string, err error) {
	r, err := CaptureReport(w, src, inputs, opts)
	for _, m := range r.Missing {
		notes = append(notes, m.Reason)
	}
	return append(notes, r.Notes...), err
}

// NotCaptured is one file (or tree) of an input that a snapshot could
// not read, and why.
type NotCaptured struct {
	Input, Path, Reason string
	// Cause is what to tell the user once per input: Reason without the
	// path when a recorder failed (the root-only devices of one input
	// share one cause), else Reason.
	Cause string
	// Absent: the machine has no such file (the feature is missing), as
	// opposed to one it could not read.
	Absent bool
}

// Captured is what CaptureReport says of a snapshot beside writing it:
// what it could not read, per input, and what it left out or redacted.
type Captured struct {
	Missing []NotCaptured
	Notes   []string
}

// NotCapturedFile, below RecordedDir, lists what a snapshot could not
// read, "input<TAB>path<TAB>reason" a line, so that a run --from it can
// say why an input is missing and what would have let it be read.
const NotCapturedFile = "not-captured.txt"

// withoutRoot marks, in NotCapturedFile, a reason from a snapshot taken
// without root.
const withoutRoot = "(snapshot taken without root)"

// CaptureReport is CaptureWith with what could not be read kept per input.
func CaptureReport(w io.Writer, src Source, inputs []Decl, opts CaptureOptions) (Captured, error) {
	var r Captured
	files := map[string][]byte{}
	var list strings.Builder
	for _, in := range inputs {
		for _, p := range in.Capture() {
			for _, e := range captureTree(src, p, files) {
				nc := NotCaptured{Input: in.Name(), Path: p, Reason: e.Error(), Cause: e.Error(), Absent: errors.Is(e, fs.ErrNotExist)}
				if pe := recorded(e); pe != nil {
					nc.Cause, nc.Absent = pe.Err.Error(), false
				}
				r.Missing = append(r.Missing, nc)
				why := oneLine(e.Error())
				if src.Live() && !src.Privileged() {
					why += " " + withoutRoot
				}
				if list.Len() < 1<<16 {
					fmt.Fprintf(&list, "%s\t%s\t%s\n", in.Name(), p, why)
				}
			}
		}
	}
	if len(files) == 0 {
		return r, errors.New("snapshot: nothing could be read")
	}
	if list.Len() > 0 {
		files[RecordedDir+"/"+NotCapturedFile] = []byte(list.String())
	}
	notes, err := finishCapture(w, files, opts)
	r.Notes = notes
	return r, err
}

// recorded returns e as a recorder's failure (a device that could not be
// read, not a file the machine lacks), nil when it is not one.
func recorded(e error) *fs.PathError {
	var pe *fs.PathError
	if errors.As(e, &pe) && pe.Op == "record" {
		return pe
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

func finishCapture(w io.Writer, files map[string][]byte, opts CaptureOptions) (notes []string, err error) {
	var omitted []string
	if !opts.IncludeMSDM {
		omitted = append(omitted, dropMSDM(files)...)
	}
	if opts.Redact {
		omitted = append(omitted, redactFiles(files)...)
	}
	if len(omitted) > 0 {
		files[RecordedDir+"/"+OmittedFile] = []byte(strings.Join(omitted, "\n") + "\n")
		notes = append(notes, omitted...)
	}
	order := make([]string, 0, len(files))
	for n := range files {
		order = append(order, n)
	}
	sort.Strings(order)
	return notes, WriteSnapshot(w, files, order)
}

// dropMSDM removes the MSDM table (Microsoft's Software Licensing table:
// the Windows product key) from the captured ACPI tables.
func dropMSDM(files map[string][]byte) (omitted []string) {
	for p, b := range files {
		if !strings.HasPrefix(p, "sys/firmware/acpi/tables/") {
			continue
		}
		if bytes.HasPrefix(b, []byte("MSDM")) || strings.HasPrefix(path.Base(p), "MSDM") {
			delete(files, p)
			omitted = append(omitted, fmt.Sprintf("%s: left out: the MSDM table holds the Windows product key (snapshot --include-msdm keeps it)", p))
		}
	}
	sort.Strings(omitted)
	return omitted
}

func captureTree(src Source, p string, files map[string][]byte) (notes []error) {
	st, err := fs.Stat(src, p)
	if err != nil {
		return []error{err}
	}
	if !st.IsDir() {
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return []error{err}
		}
		files[p] = b
		return nil
	}
	err = fs.WalkDir(src, p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			notes = append(notes, err)
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		b, err := fs.ReadFile(src, q)
		if err != nil {
			notes = append(notes, err)
			return nil
		}
		files[path.Clean(q)] = b
		return nil
	})
	if err != nil {
		notes = append(notes, err)
	}
	return notes
}

// notCaptured reads a snapshot's list of what it could not read, for
// input name: the reasons, at most a few.
func notCaptured(src Source, name string) []string {
	b, err := fs.ReadFile(src, RecordedDir+"/"+NotCapturedFile)
	if err != nil || len(b) > 1<<20 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.SplitN(l, "\t", 3)
		if len(f) == 3 && f[0] == name && len(out) < 8 {
			out = append(out, f[2])
		}
	}
	return out
}
