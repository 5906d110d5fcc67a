package s3

import (
	"encoding/json"
	"io"
	"time"

	"github.com/fwcheck/fwcheck/internal/journal"
)

// Record is one line of the s3 journal (see internal/journal), appended
// and fsync'd before the machine is put to sleep, so a hang loses no
// cycle: the next boot finds a "start" with no outcome.
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

// maxCycles bounds --s3.cycles, and the cycle numbers a journal may hold.
const maxCycles = 10000

// ReadJournal reads an s3 journal. A damaged line (a torn write at power
// loss, a cycle number out of range) is skipped and counted, not fatal.
func ReadJournal(r io.Reader) (recs []Record, damaged int, err error) {
	return journal.Read(r, func(r *Record) bool {
		return r.Event != "" && journal.CycleOK(r.Cycle, maxCycles) && journal.CycleOK(r.Cycles, maxCycles) &&
			(r.Outcome == nil || journal.CycleOK(r.Outcome.Cycle, maxCycles))
	})
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
