// Package atomicfile writes a user's output file so that it is never
// destroyed: the data goes to a temporary file in the same directory, is
// fsync'd, and is renamed over the target only when everything was
// written. On any failure only the temporary file is removed.
//
// A target that is a character device or a FIFO (/dev/null, /dev/stdout,
// a shell's process substitution) is written in place: it cannot be
// half-written, and renaming over it as root would replace the device
// node. A directory, a block device, a socket, and a regular file that is
// read-only (no write bit) or not writable by this user are refused. A
// symbolic link is followed, and the file it names replaced. Standard
// output as "-" is the caller's business.
//
// github.com/google/renameio does the same for regular files; it is not
// used because it follows a symlinked target's directory differently and
// does not refuse devices, and the whole job is these few lines.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// File is an output file being written. Write to it, then Commit; Close
// without Commit (e.g. deferred) discards what was written.
type File struct {
	*os.File
	target  string
	mode    fs.FileMode
	done    bool
	inPlace bool // a character device or FIFO, written directly
}

// Create starts writing path with the given permission bits (applied
// whether or not the file existed; an existing file's bits are kept when
// mode is 0, and a new file's are 0600).
func Create(path string, mode fs.FileMode) (*File, error) {
	// A symbolic link stays: the file it names is the one replaced.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if fi, err := os.Stat(path); err == nil {
		m := fi.Mode()
		if m&fs.ModeCharDevice != 0 || m&fs.ModeNamedPipe != 0 {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			return &File{File: f, target: path, inPlace: true}, nil
		}
		if !m.IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file (%s); refusing to replace it", path, kind(m))
		}
		// Renaming over a file needs only the directory's permission: a
		// file its owner made read-only (or one this user may not write)
		// would be replaced all the same, root or not. Refuse instead.
		if m.Perm()&0o222 == 0 {
			return nil, fmt.Errorf("%s: read-only (%s); refusing to replace it", path, m.Perm())
		}
		if err := unix.Access(path, unix.W_OK); err != nil {
			return nil, fmt.Errorf("%s: not writable (%w); refusing to replace it", path, err)
		}
		if mode == 0 {
			mode = fi.Mode().Perm()
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if mode == 0 {
		mode = 0o600 // what fwcheck writes holds machine data
	}
	f, err := createTracked(func() (*os.File, error) {
		return os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	})
	if err != nil {
		return nil, err
	}
	return &File{File: f, target: path, mode: mode}, nil
}

// Commit makes the written data the target file's content.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: already closed")
	}
	f.done = true
	if f.inPlace {
		return f.File.Close()
	}
	err := f.File.Chmod(f.mode)
	if err == nil {
		err = f.File.Sync()
	}
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.target)
	}
	if err != nil {
		os.Remove(f.File.Name())
	}
	untrack(f.File.Name())
	if err != nil {
		return err
	}
	// The rename is durable once the directory is.
	if d, err := os.Open(filepath.Dir(f.target)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Close discards the file unless it was committed.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	f.File.Close()
	if f.inPlace {
		return nil
	}
	err := os.Remove(f.File.Name())
	untrack(f.File.Name())
	return err
}

// Check tells, before any work, whether Create would refuse path, and
// whether its directory takes the temporary file: a long run (300 s3
// cycles) must not learn at its end that its results cannot be written.
// It leaves nothing behind; a device or FIFO is only checked for write
// permission (opening a FIFO would wait for a reader).
func Check(path string) error {
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	if fi, err := os.Stat(real); err == nil && (fi.Mode()&fs.ModeCharDevice != 0 || fi.Mode()&fs.ModeNamedPipe != 0) {
		if err := unix.Access(real, unix.W_OK); err != nil {
			return fmt.Errorf("%s: not writable (%w)", path, err)
		}
		return nil
	}
	f, err := Create(path, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// WriteFile writes data to path atomically, as os.WriteFile would
// non-atomically.
func WriteFile(path string, data []byte, mode fs.FileMode) error {
	return Write(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write writes path atomically with what fill writes.
func Write(path string, mode fs.FileMode, fill func(io.Writer) error) error {
	f, err := Create(path, mode)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}
