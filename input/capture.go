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
	files := map[string][]byte{}
	for _, in := range inputs {
		for _, p := range in.Capture() {
			notes = append(notes, captureTree(src, p, files)...)
		}
	}
	if len(files) == 0 {
		return notes, errors.New("snapshot: nothing could be read")
	}
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

func captureTree(src Source, p string, files map[string][]byte) (notes []string) {
	st, err := fs.Stat(src, p)
	if err != nil {
		return []string{err.Error()}
	}
	if !st.IsDir() {
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return []string{err.Error()}
		}
		files[p] = b
		return nil
	}
	err = fs.WalkDir(src, p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			notes = append(notes, err.Error())
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		b, err := fs.ReadFile(src, q)
		if err != nil {
			notes = append(notes, err.Error())
			return nil
		}
		files[path.Clean(q)] = b
		return nil
	})
	if err != nil {
		notes = append(notes, err.Error())
	}
	return notes
}
