// Package regfile opens the files a user names as input (--acpidump,
// --klog, --resume, snapshots, waivers, results documents): regular files
// only, read up to a limit. A FIFO would block the run forever on open
// or read, a device (/dev/urandom, /dev/zero) never ends, and a file that
// grows while it is read can be any size; each of these is an error
// naming the file and what it is.
//
// The file is opened with O_NONBLOCK, so that opening a FIFO does not wait
// for a writer, then checked with fstat (not stat before open: the name
// could change between the two), and set back to blocking. The standard
// library has no such helper (os.ReadFile reads what it is given, however
// long); the package is the one place the rule is kept.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Open opens path for reading; anything but a regular file is an error.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file but %s", kind(st.Mode()))}
	}
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Check says whether an open file is a regular one (the same error as
// Open's when not).
func Check(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: f.Name(), Err: fmt.Errorf("not a regular file but %s", kind(st.Mode()))}
	}
	return nil
}

// Kind names what a file that is not regular is ("a FIFO (it would
// block)", "a character device (it may never end)", …).
func Kind(m fs.FileMode) string { return kind(m) }

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (it would block)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device (it may never end)"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// ErrTooLarge is what LimitReader and ReadFile return past their limit.
var ErrTooLarge = errors.New("larger than the limit")

// TooLarge is the error for input past limit bytes.
type TooLarge struct {
	Limit int64
}

func (e *TooLarge) Error() string { return fmt.Sprintf("larger than %s", size(e.Limit)) }

// Is makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLarge) Is(target error) bool { return target == ErrTooLarge }

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// LimitReader reads r up to limit bytes; one byte more is a *TooLarge
// error, not a silent end (what io.LimitReader gives).
func LimitReader(r io.Reader, limit int64) io.Reader {
	return &limited{r: r, left: limit, limit: limit}
}

type limited struct {
	r           io.Reader
	left, limit int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &TooLarge{l.limit}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), &TooLarge{l.limit}
	}
	return n, err
}

// ReadFile reads the regular file at path, up to limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLarge{limit}}
	}
	b, err := io.ReadAll(LimitReader(f, limit))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}
