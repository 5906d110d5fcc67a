package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"
)

// dirSnapshot is a snapshot directory. It hands out regular files and
// directories only, never a file outside the directory, and within the same
// limits as an archive: a snapshot passed between people may hold a
// symbolic link to /etc/shadow (whose contents would land in the results),
// to /dev/zero (endless), or a FIFO (a read that never returns).
//
// Files are opened through an os.Root, which refuses any path or symbolic
// link that leads out of the directory; non-blocking, so that opening a
// FIFO returns at once; and then kept only when the opened file is a
// regular file or a directory. Reads are counted against MaxSnapshotFile
// per file and MaxSnapshotTotal for the snapshot.
type dirSnapshot struct {
	root *os.Root
	read atomic.Int64 // bytes read from every file so far
}

func openDirSnapshot(p string) (*dirSnapshot, error) {
	r, err := os.OpenRoot(p)
	if err != nil {
		return nil, err
	}
	return &dirSnapshot{root: r}, nil
}

func (d *dirSnapshot) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if len(name) > maxSnapshotName || tooDeep(name) {
		return nil, &fs.PathError{Op: "open", Path: truncName(name), Err: fmt.Errorf("more than %d directories deep or %d bytes long", maxSnapshotDepth, maxSnapshotName)}
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return &dirSnapshotDir{f: f, name: name}, nil
	case m.IsRegular() && hardLinked(st):
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("a hard link (a file with other names, perhaps outside the snapshot): a snapshot holds files of its own only")}
	case m.IsRegular():
		if st.Size() > MaxSnapshotFile {
			f.Close()
			return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("too large (%d bytes, the limit is %d)", st.Size(), MaxSnapshotFile)}
		}
		return &dirSnapshotFile{f: f, name: name, d: d}, nil
	default:
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("not a regular file (%s): a snapshot holds only files and directories", m.Type())}
	}
}

// dirSnapshotFile is a regular file of a snapshot directory, read within
// the size limits (a file may grow after it was opened).
type dirSnapshotFile struct {
	f    *os.File // not embedded: its WriteTo and ReadAt would bypass the counting Read
	name string
	d    *dirSnapshot
	n    int64
}

var errSnapshotTooLarge = errors.New("snapshot too large")

func (f *dirSnapshotFile) Read(b []byte) (int, error) {
	if f.n > MaxSnapshotFile {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fmt.Errorf("%w: over %d bytes", errSnapshotTooLarge, MaxSnapshotFile)}
	}
	if max := MaxSnapshotFile + 1 - f.n; int64(len(b)) > max {
		b = b[:max]
	}
	n, err := f.f.Read(b)
	f.n += int64(n)
	if f.d.read.Add(int64(n)) > MaxSnapshotTotal {
		return n, &fs.PathError{Op: "read", Path: f.name, Err: fmt.Errorf("%w: the snapshot's files add up to over %d MiB", errSnapshotTooLarge, MaxSnapshotTotal>>20)}
	}
	if f.n > MaxSnapshotFile {
		return n, &fs.PathError{Op: "read", Path: f.name, Err: fmt.Errorf("%w: over %d bytes", errSnapshotTooLarge, MaxSnapshotFile)}
	}
	return n, err
}

func (f *dirSnapshotFile) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f *dirSnapshotFile) Close() error               { return f.f.Close() }

// dirSnapshotDir is a directory of a snapshot directory, listed up to
// MaxSnapshotEntries entries.
type dirSnapshotDir struct {
	f    *os.File
	name string
	n    int
}

func (d *dirSnapshotDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n > 0 {
		ents, err := d.f.ReadDir(n)
		d.n += len(ents)
		if d.n > MaxSnapshotEntries {
			return nil, d.tooMany()
		}
		return ents, err
	}
	var all []fs.DirEntry
	for {
		ents, err := d.f.ReadDir(1024)
		all = append(all, ents...)
		d.n += len(ents)
		if d.n > MaxSnapshotEntries {
			return nil, d.tooMany()
		}
		if errors.Is(err, io.EOF) {
			return all, nil
		}
		if err != nil {
			return all, err
		}
	}
}

func (d *dirSnapshotDir) Stat() (fs.FileInfo, error) { return d.f.Stat() }
func (d *dirSnapshotDir) Close() error               { return d.f.Close() }
func (d *dirSnapshotDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}

func (d *dirSnapshotDir) tooMany() error {
	return &fs.PathError{Op: "readdir", Path: d.name, Err: fmt.Errorf("more than %d entries", MaxSnapshotEntries)}
}

// hardLinked says whether a file has other names: a hard link to
// /etc/shadow put the file into the results as the DMI product name. Tar
// snapshots refuse links the same way.
func hardLinked(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Nlink > 1
}
