package input

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
)

// Capture copies every file the inputs read from src into a snapshot
// written to w as .tar.gz. Files that cannot be read are listed in the
// returned notes, not fatal: a snapshot of what could be read beats none.
func Capture(w io.Writer, src Source, inputs []Decl) (notes []string, err error) {
	files := map[string][]byte{}
	for _, in := range inputs {
		for _, p := range in.Capture() {
			notes = append(notes, captureTree(src, p, files)...)
		}
	}
	if len(files) == 0 {
		return notes, errors.New("snapshot: nothing could be read")
	}
	order := make([]string, 0, len(files))
	for n := range files {
		order = append(order, n)
	}
	sort.Strings(order)
	return notes, WriteSnapshot(w, files, order)
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
