// Package journal is the append-only record of a run that acts on the
// machine (suspend/resume and reboot cycling): one JSON object per line,
// each line written and fsync'd, with its directory, before the action it
// announces, so that a machine that hangs or resets loses no record. The
// next boot reads it back, skipping a line torn by the reset.
//
// It is JSON lines rather than a database (bbolt, SQLite) because a lab
// reads it while the run goes on, with any text tool, from a FAT stick.
package journal

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Journal appends records to a file.
type Journal struct {
	path string
	f    *os.File
}

// Open opens (creating if needed) the journal at path for appending.
func Open(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	// A write torn by a reset leaves a line without its newline: end it,
	// so the next record starts a line of its own.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				return nil, fmt.Errorf("journal: %w", err)
			}
		}
	}
	return &Journal{path: path, f: f}, nil
}

// Path is where the journal is.
func (j *Journal) Path() string { return j.path }

// Append writes v as one JSON line and makes it durable. A nil Journal
// appends nothing.
func (j *Journal) Append(v any) error {
	if j == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if j.f == nil {
		f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		j.f = f
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	// The directory entry too, for a journal created just now.
	if d, err := os.Open(filepath.Dir(j.path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Close closes the journal's file, so that its file system can be
// unmounted (before a reset); a later Append opens it again.
func (j *Journal) Close() error {
	if j == nil || j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// MaxLine bounds one journal line: the journal may come from a machine that
// died mid-write, and a damaged line must not cost memory.
const MaxLine = 1 << 20

// Read reads a journal's records. A line that is not a JSON object of T,
// or that valid rejects (a torn write at power loss), is skipped and
// counted in damaged, not fatal.
func Read[T any](r io.Reader, valid func(*T) bool) (recs []T, damaged int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxLine)
	for sc.Scan() {
		var rec T
		if json.Unmarshal(sc.Bytes(), &rec) != nil || (valid != nil && !valid(&rec)) {
			damaged++
			continue
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return recs, damaged, fmt.Errorf("journal: %w", err)
	}
	return recs, damaged, nil
}

// ReadFile reads the journal at path (see Read).
func ReadFile[T any](path string, valid func(*T) bool) ([]T, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return Read(f, valid)
}
