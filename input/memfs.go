package input

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// memFS is a read-only in-memory file system: file paths (slash-separated,
// no leading slash) to contents, with directories implied by the paths. It
// holds an unpacked snapshot archive, and keeps the production binary free
// of testing/fstest.
//
// The directory tree is built once, when the file system is made, in time
// linear in the total length of the paths plus a sort of each directory's
// entries, so opening a file or a directory costs a map look-up however many
// entries the archive holds (testing/fstest.MapFS scans every entry on each
// directory open, which a hostile archive of 40,000 files turns into
// seconds).
type memFS struct {
	files map[string]*memFile
	dirs  map[string][]fs.DirEntry // each directory's entries, sorted by name; "." is the root
}

type memFile struct {
	data    []byte
	modTime time.Time
}

// newMemFS builds the file system holding files. A path that is both a file
// and a directory (an archive holding "a" and "a/b") is an error.
func newMemFS(files map[string]*memFile) (*memFS, error) {
	m := &memFS{files: files, dirs: map[string][]fs.DirEntry{".": nil}}
	known := map[string]bool{".": true}
	for p, f := range files {
		if !fs.ValidPath(p) || p == "." {
			return nil, fmt.Errorf("bad path %q", p)
		}
		dir, base := split(p)
		// Add the missing ancestors; stop at the first one already known,
		// whose own ancestors are then known too.
		for d := dir; d != "." && !known[d]; {
			known[d] = true
			pd, pb := split(d)
			m.dirs[pd] = append(m.dirs[pd], dirInfo{name: pb})
			d = pd
		}
		m.dirs[dir] = append(m.dirs[dir], fileInfo{name: base, f: f})
	}
	for d := range known {
		if _, ok := m.dirs[d]; !ok {
			m.dirs[d] = nil // holds directories only
		}
	}
	for d, ents := range m.dirs {
		if _, ok := files[d]; ok {
			return nil, fmt.Errorf("%s is both a file and a directory", d)
		}
		slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	return m, nil
}

// split returns p's directory ("." at the top) and base name.
func split(p string) (dir, base string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ".", p
	}
	return p[:i], p[i+1:]
}

func (m *memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if f, ok := m.files[name]; ok {
		return &openFile{name: name, f: f, r: bytes.NewReader(f.data)}, nil
	}
	ents, ok := m.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &openDir{info: dirInfo{name: path.Base(name)}, ents: ents}, nil
}

// singleFile returns an open in-memory file holding b.
func singleFile(b []byte) (fs.File, error) {
	return &openFile{name: "f", f: &memFile{data: b}, r: bytes.NewReader(b)}, nil
}

type openFile struct {
	name string
	f    *memFile
	r    *bytes.Reader
}

func (o *openFile) Stat() (fs.FileInfo, error) { return fileInfo{name: path.Base(o.name), f: o.f}, nil }
func (o *openFile) Read(b []byte) (int, error) { return o.r.Read(b) }
func (o *openFile) Close() error               { return nil }

type openDir struct {
	info dirInfo
	ents []fs.DirEntry // shared with the memFS: never modified, handed out as copies
	off  int
}

func (d *openDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}
func (d *openDir) Close() error { return nil }

// ReadDir reads the directory's entries, as fs.ReadDirFile specifies.
func (d *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return slices.Clone(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.off += n
	return slices.Clone(rest[:n]), nil
}

// fileInfo describes a file; it is its own fs.DirEntry.
type fileInfo struct {
	name string
	f    *memFile
}

func (i fileInfo) Name() string               { return i.name }
func (i fileInfo) Size() int64                { return int64(len(i.f.data)) }
func (i fileInfo) Mode() fs.FileMode          { return 0o444 }
func (i fileInfo) ModTime() time.Time         { return i.f.modTime }
func (i fileInfo) IsDir() bool                { return false }
func (i fileInfo) Sys() any                   { return nil }
func (i fileInfo) Type() fs.FileMode          { return 0 }
func (i fileInfo) Info() (fs.FileInfo, error) { return i, nil }

// dirInfo describes a directory; it is its own fs.DirEntry.
type dirInfo struct{ name string }

func (i dirInfo) Name() string               { return i.name }
func (i dirInfo) Size() int64                { return 0 }
func (i dirInfo) Mode() fs.FileMode          { return fs.ModeDir | 0o555 }
func (i dirInfo) ModTime() time.Time         { return time.Time{} }
func (i dirInfo) IsDir() bool                { return true }
func (i dirInfo) Sys() any                   { return nil }
func (i dirInfo) Type() fs.FileMode          { return fs.ModeDir }
func (i dirInfo) Info() (fs.FileInfo, error) { return i, nil }
