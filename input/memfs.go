package input

import (
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// memFS is a read-only in-memory file system: file paths (slash-separated,
// no leading slash) to contents, with directories implied by the paths. It
// holds an unpacked snapshot archive, and keeps the production binary free
// of testing/fstest.
type memFS map[string]*memFile

type memFile struct {
	data    []byte
	modTime time.Time
}

func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if f, ok := m[name]; ok {
		return &openFile{name: name, f: f, r: strings.NewReader(string(f.data))}, nil
	}
	// A directory: every entry one level below name.
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]fs.DirEntry{}
	for p, f := range m {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seen[rest[:i]] = dirInfo{name: rest[:i]}
		} else {
			seen[rest] = fileInfo{name: rest, f: f}
		}
	}
	if len(seen) == 0 && name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	ents := make([]fs.DirEntry, 0, len(seen))
	for _, e := range seen {
		ents = append(ents, e)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return &openDir{info: dirInfo{name: path.Base(name)}, ents: ents}, nil
}

// singleFile returns an open in-memory file holding b.
func singleFile(b []byte) (fs.File, error) { return memFS{"f": {data: b}}.Open("f") }

type openFile struct {
	name string
	f    *memFile
	r    *strings.Reader
}

func (o *openFile) Stat() (fs.FileInfo, error) { return fileInfo{name: path.Base(o.name), f: o.f}, nil }
func (o *openFile) Read(b []byte) (int, error) { return o.r.Read(b) }
func (o *openFile) Close() error               { return nil }

type openDir struct {
	info dirInfo
	ents []fs.DirEntry
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
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.off += n
	return rest[:n], nil
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
