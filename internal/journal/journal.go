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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fwcheck/fwcheck/internal/regfile"
)

// Journal appends records to a file.
type Journal struct {
	path string
	f    *os.File
}

// Open opens (creating if needed, mode 0600: it holds machine data) the
// journal at path for appending; it must be a regular file.
func Open(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := regfile.Check(f); err != nil {
		f.Close()
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
// died mid-write, and a damaged line must not cost memory. A longer line
// is skipped as damaged.
const MaxLine = 1 << 20

// MaxSize bounds a journal: a record is a few hundred bytes, so 64 MiB is
// some 40,000 cycles; a larger file is an error, not read (a 358 MB one
// was read whole).
const MaxSize = 64 << 20

// MaxCycle bounds the cycle numbers and counts a journal may hold; the
// readers check theirs against their own --cycles limits, below it.
const MaxCycle = 1_000_000

// CycleOK says whether n is a cycle number or count a journal may hold:
// 0 (none) to MaxCycle. A journal cycle of MaxInt64 overflowed the next
// cycle's number and suspended without end.
func CycleOK(n, max int) bool { return n >= 0 && n <= max && n <= MaxCycle }

// Read reads a journal's records, up to MaxSize bytes. A line that is not
// a JSON object of T, is longer than MaxLine, or that valid rejects (a torn
// write at power loss, a number out of range), is skipped and counted in
// damaged, not fatal.
func Read[T any](r io.Reader, valid func(*T) bool) (recs []T, damaged int, err error) {
	br := bufio.NewReaderSize(regfile.LimitReader(r, MaxSize), 64*1024)
	var long []byte // a line longer than the buffer, gathered up to MaxLine
	over := false   // the line being read is past MaxLine: skipped
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !over && len(long)+len(chunk) <= MaxLine {
				long = append(long, chunk...)
			} else {
				over, long = true, nil
			}
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		if over || len(line) > MaxLine+1 {
			over = false
			damaged++
		} else if l := bytes.TrimSpace(line); len(l) > 0 {
			var rec T
			if json.Unmarshal(l, &rec) != nil || (valid != nil && !valid(&rec)) {
				damaged++
			} else {
				recs = append(recs, rec)
			}
		}
		if err == io.EOF {
			return recs, damaged, nil
		}
		if err != nil {
			return recs, damaged, fmt.Errorf("journal: %w", err)
		}
	}
}

// ReadFile reads the journal at path (see Read); it must be a regular
// file.
func ReadFile[T any](path string, valid func(*T) bool) ([]T, int, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return Read(f, valid)
}
