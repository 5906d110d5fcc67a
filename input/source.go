// Package input is fwcheck's one seam to machine state. Checks never open
// /sys, /proc or /dev: they read through a Machine, which is backed either by
// the live machine (rooted at "/", or another root in tests) or by a snapshot
// (a directory or .tar.gz captured with `fwcheck snapshot`). Inputs are
// declared by name, loaded once, and cached; an input that cannot be had
// makes the checks that need it skip with the reason.
package input

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/internal/regfile"
)

// A Source is a view of a machine's files, named by their path without the
// leading slash ("sys/firmware/acpi/tables/FACP"). Values that are not
// plain files on the live machine (the kernel log, tables read through
// /dev/mem) appear under RecordedDir.
type Source interface {
	fs.FS
	// Live reports whether this is the running machine.
	Live() bool
	// Privileged reports whether privileged inputs can be read: true for a
	// snapshot, and on the live machine when running as root.
	Privileged() bool
	// String describes the source for reports.
	String() string
}

// RecordedDir holds recorded values in a snapshot ("fwcheck/klog.txt").
const RecordedDir = "fwcheck"

// Recorder computes a recorded value on the live machine from its root.
type Recorder func(root string) ([]byte, error)

// Live returns the running machine seen from root ("/" normally).
func Live(root string) Source {
	if root == "" {
		root = "/"
	}
	return &liveSource{root: root, fsys: os.DirFS(root), recorders: liveRecorders()}
}

type liveSource struct {
	root      string
	fsys      fs.FS
	recorders map[string]Recorder
}

func (l *liveSource) Live() bool       { return true }
func (l *liveSource) Privileged() bool { return os.Geteuid() == 0 }
func (l *liveSource) String() string   { return "live:" + l.root }

func (l *liveSource) Open(name string) (fs.File, error) {
	if rest, ok := strings.CutPrefix(name, RecordedDir+"/"); ok {
		rec, ok := l.recorders[rest]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		b, err := rec(l.root)
		if err != nil {
			return nil, &fs.PathError{Op: "record", Path: name, Err: explainLockdown(l, err)}
		}
		return singleFile(b)
	}
	return l.fsys.Open(name)
}

// Empty is a source with no files; inputs given by file (--acpidump,
// --klog) are the only ones available.
func Empty() Source {
	m, _ := newMemFS(nil)
	return snapshot{name: "none", fsys: m}
}

type snapshot struct {
	name string
	fsys fs.FS
}

func (s snapshot) Open(name string) (fs.File, error) { return s.fsys.Open(name) }
func (s snapshot) Live() bool                        { return false }
func (s snapshot) Privileged() bool                  { return true }
func (s snapshot) String() string                    { return "snapshot:" + s.name }

// Limits on what a snapshot may hold, so that a hostile one cannot exhaust
// memory or time. A real snapshot holds a few hundred files and a few
// megabytes: the ACPI tables (under 100, a few hundred kilobytes), the
// kernel log (at most the kernel's log buffer, 32 MiB at the largest
// CONFIG_LOG_BUF_SHIFT), the DMI identity and the memory map.
const (
	// MaxSnapshotFile bounds one file.
	MaxSnapshotFile = 64 << 20
	// MaxSnapshotTotal bounds everything a snapshot keeps in memory: file
	// contents, names, and a fixed cost per entry (snapshotEntryCost).
	MaxSnapshotTotal = 128 << 20
	// MaxSnapshotEntries bounds the entries of an archive (of every kind,
	// skipped ones included) and of one snapshot directory.
	MaxSnapshotEntries = 100_000
)

// maxSnapshotStream bounds an archive's uncompressed stream: the data kept,
// plus a tar header for each of the entries allowed, plus slack.
const maxSnapshotStream = MaxSnapshotTotal + 512*MaxSnapshotEntries + 16<<20

// loadMemoryLimit is the soft memory limit while an archive is read.
const loadMemoryLimit = MaxSnapshotTotal*3/2 + 16<<20

// maxSnapshotName bounds a name in an archive (Linux's PATH_MAX).
const maxSnapshotName = 4096

// maxSnapshotDepth bounds how deep a snapshot's paths go. The deepest a
// capture writes is six ("sys/firmware/acpi/tables/dynamic/SSDT3"); a
// bound keeps walking a tree linear (opening a path through os.Root costs a
// step per directory) and its recursion shallow.
const maxSnapshotDepth = 32

// tooDeep reports whether the path name (slash-separated) is more than
// maxSnapshotDepth directories deep.
func tooDeep(name string) bool { return strings.Count(name, "/") > maxSnapshotDepth }

// snapshotEntryCost is what one kept entry costs beyond its name and data
// (map slot, file record, directory entry), counted against
// MaxSnapshotTotal so that a million empty files cannot pass as "no data".
const snapshotEntryCost = 160

// Open opens a snapshot: a directory laid out like the machine's root, or a
// .tar.gz of one as `fwcheck snapshot` writes. Either is read within the
// limits above; a directory yields regular files only, and never a file
// outside it (symbolic links out of it are refused).
func Open(p string) (Source, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if st.IsDir() {
		d, err := openDirSnapshot(p)
		if err != nil {
			return nil, fmt.Errorf("snapshot: %w", err)
		}
		return snapshot{name: p, fsys: d}, nil
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("snapshot %s: not a regular file or a directory", p)
	}
	f, err := regfile.Open(p)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	defer f.Close()
	m, err := readTarGz(f)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", p, err)
	}
	return snapshot{name: p, fsys: m}, nil
}

func readTarGz(r io.Reader) (*memFS, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not a .tar.gz: %w", err)
	}
	// Go's collector lets the heap grow to twice what is live before it
	// collects; while an archive is read, a soft memory limit keeps the
	// peak near 1.5 times the most an archive may keep (a lower limit the
	// user set with GOMEMLIMIT stays).
	if old := debug.SetMemoryLimit(-1); old > loadMemoryLimit {
		debug.SetMemoryLimit(loadMemoryLimit)
		defer debug.SetMemoryLimit(old)
	}
	// The archive's whole stream is bounded too: headers, names and the
	// data of entries that are skipped all cost time to decompress.
	lr := &io.LimitedReader{R: zr, N: maxSnapshotStream + 1}
	tr := tar.NewReader(lr)
	files := map[string]*memFile{}
	var total int64
	for entries := 1; ; entries++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if lr.N <= 0 {
			return nil, fmt.Errorf("expands to more than %d MiB", maxSnapshotStream>>20)
		}
		if err != nil {
			return nil, fmt.Errorf("corrupt archive: %w", err)
		}
		if entries > MaxSnapshotEntries {
			return nil, fmt.Errorf("more than %d entries (a snapshot holds a few hundred)", MaxSnapshotEntries)
		}
		if len(h.Name) > maxSnapshotName {
			return nil, fmt.Errorf("a name of %d bytes in the archive, longer than the %d a path can have", len(h.Name), maxSnapshotName)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if name == "." && h.Typeflag == tar.TypeDir {
			continue // the top directory of `tar -C dir .`: "./"
		}
		if !fs.ValidPath(name) || name == "." {
			return nil, fmt.Errorf("bad path %q in archive", truncName(h.Name))
		}
		if tooDeep(name) {
			return nil, fmt.Errorf("a path more than %d directories deep in the archive: %q", maxSnapshotDepth, truncName(name))
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if _, dup := files[name]; dup {
			return nil, fmt.Errorf("%q: twice in the archive", truncName(name))
		}
		cost := h.Size + int64(len(name)) + snapshotEntryCost
		if h.Size > MaxSnapshotFile {
			return nil, fmt.Errorf("%q: too large (%d bytes, the limit is %d)", truncName(name), h.Size, MaxSnapshotFile)
		}
		if total+cost > MaxSnapshotTotal {
			return nil, fmt.Errorf("holds more than %d MiB (file contents, names and %d bytes per entry)", MaxSnapshotTotal>>20, snapshotEntryCost)
		}
		// Exactly the size the header gives: no doubling of a growing
		// buffer, so memory stays close to the data kept.
		b := make([]byte, h.Size)
		if _, err := io.ReadFull(tr, b); err != nil {
			if lr.N <= 0 {
				return nil, fmt.Errorf("expands to more than %d MiB", maxSnapshotStream>>20)
			}
			return nil, fmt.Errorf("%q: %w", truncName(name), err)
		}
		total += cost
		files[strings.Clone(name)] = &memFile{data: b, modTime: h.ModTime}
	}
	if len(files) == 0 {
		return nil, errors.New("archive holds no files")
	}
	m, err := newMemFS(files)
	if err != nil {
		return nil, fmt.Errorf("corrupt archive: %w", err)
	}
	return m, nil
}

// truncName shortens a name from an archive for an error message.
func truncName(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// WriteSnapshot writes files (machine paths without a leading slash, to
// their contents) as a .tar.gz to w.
func WriteSnapshot(w io.Writer, files map[string][]byte, names []string) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	now := time.Now()
	for _, n := range names {
		b := files[n]
		h := &tar.Header{Name: n, Mode: 0o444, Size: int64(len(b)), ModTime: now, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}
