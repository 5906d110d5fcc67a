package s3

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Record is one line of the journal: a JSON object per event, appended and
// fsync'd (file and directory) before the machine is put to sleep, so a
// hang loses no cycle: the next boot finds a "start" with no outcome.
type Record struct {
	Event string    `json:"event"` // "run", "start", "outcome", "hung", "done"
	Cycle int       `json:"cycle,omitempty"`
	Time  time.Time `json:"time"`
	// For "run": the run's parameters.
	Cycles int    `json:"cycles,omitempty"`
	Mode   string `json:"mode,omitempty"`
	// For "outcome" and "hung".
	Outcome *Outcome `json:"outcome,omitempty"`
}

// Journal appends records to a file.
type Journal struct {
	path string
	f    *os.File
}

// OpenJournal opens (creating if needed) the journal at path for appending.
func OpenJournal(path string) (*Journal, error) {
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

// Append writes r as one line and makes it durable.
func (j *Journal) Append(r Record) error {
	if j == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
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

// Close closes the journal.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	return j.f.Close()
}

// maxJournalLine bounds one journal line: the journal may come from a
// machine that died mid-write, and a damaged line must not cost memory.
const maxJournalLine = 1 << 20

// ReadJournal reads a journal. A damaged line (a torn write at power loss)
// is skipped and counted, not fatal.
func ReadJournal(r io.Reader) (recs []Record, damaged int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxJournalLine)
	for sc.Scan() {
		var rec Record
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Event == "" {
			damaged++
			continue
		}
		recs = append(recs, rec)
	}
	return recs, damaged, sc.Err()
}

// Unfinished returns, for a journal's records, the cycles of the last run
// that started without an outcome (the machine hung in them), the outcomes
// recorded, and whether the run finished.
func Unfinished(recs []Record) (hung []int, outcomes []Outcome, cycles int, finished bool) {
	started := map[int]bool{}
	for _, r := range recs {
		switch r.Event {
		case "run":
			hung, outcomes, started, finished = nil, nil, map[int]bool{}, false
			cycles = r.Cycles
		case "start":
			started[r.Cycle] = true
		case "outcome", "hung":
			if r.Outcome != nil {
				outcomes = append(outcomes, *r.Outcome)
			}
			delete(started, r.Cycle)
		case "done":
			finished = true
		}
	}
	for c := range started {
		hung = append(hung, c)
	}
	return hung, outcomes, cycles, finished
}

// jsonLine is a record as Append writes it.
func jsonLine(r Record) (string, error) {
	b, err := json.Marshal(r)
	return string(b) + "\n", err
}
