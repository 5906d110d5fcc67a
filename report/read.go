package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"

	"github.com/fwcheck/fwcheck/tests"
)

// Reading a results document. A document comes from elsewhere (another
// machine, a lab's archive) and is read as hostile input. Decoding it
// whole with encoding/json held the raw bytes and, for each result's data,
// a tree of generic maps: a 248 MiB document took 2.3 GB. ReadJSON walks
// it instead (see scanner) down to single findings and single cycle
// records, decodes each of those alone, turns each cycle record into a
// fixed-size row (cycleRow) as it is read, keeps the strings that repeat
// (labels, advice, statuses, device names) once, and skips what no report
// shows. Memory then follows what the document holds, about its own size
// at worst (TestReadJSONMemory; internal/hostile measures the commands).

// ReadJSON reads a results document, checking its schema version. It
// reads at most MaxDocument bytes. Per-cycle records under a result's
// data "cycles" are read as the HTML report uses them (see cycleList);
// of the other data values the numbers, strings and booleans are kept,
// lists and objects skipped.
func ReadJSON(r io.Reader) (*Document, error) { return read(r, true) }

// ReadFindings reads a results document as ReadJSON does, but not the
// results' data: what Compare needs, at the cost of the findings alone.
func ReadFindings(r io.Reader) (*Document, error) { return read(r, false) }

func read(r io.Reader, data bool) (*Document, error) {
	lr := &io.LimitedReader{R: r, N: MaxDocument + 1}
	dr := &docReader{sc: newScanner(lr), strs: map[string]string{}, noData: !data}
	d, err := dr.document()
	if err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("results: larger than %d MiB", MaxDocument>>20)
		}
		return nil, fmt.Errorf("results: %w", err)
	}
	if d.Schema != SchemaVersion {
		return nil, fmt.Errorf("results: schema %q, this fwcheck reads %q", d.Schema, SchemaVersion)
	}
	return d, nil
}

// docReader walks one document.
type docReader struct {
	sc     *scanner
	strs   map[string]string // interned strings, up to maxInterned
	noData bool              // skip the results' data (ReadFindings)
	labels int               // distinct labels of a class in a result, counted over the results
}

// maxInterned bounds the distinct strings kept once: real documents have
// a few hundred labels and devices; past the bound strings are kept as
// read.
const maxInterned = 1 << 16

func (dr *docReader) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := dr.strs[s]; ok {
		return v
	}
	if len(dr.strs) < maxInterned && len(s) <= 4096 {
		dr.strs[s] = s
	}
	return s
}

// maxResults and maxLabels bound a document's results and the distinct
// labels it lists (of one class in one result, counted over all results),
// each of which is a row of a report: fwcheck has about a hundred checks
// of a few dozen labels each. A document past them is refused.
const (
	maxResults = 10_000
	maxLabels  = 100_000
)

func (dr *docReader) document() (*Document, error) {
	d := &Document{}
	fields := map[string]any{"schema": &d.Schema, "tool": &d.Tool, "start": &d.Start, "end": &d.End,
		"machine": &d.Machine, "settings": &d.Settings, "errors": &d.Errors, "totals": &d.Totals,
		"verdict": &d.Verdict, "expired_waivers": &d.ExpiredWaivers}
	err := dr.sc.object(func(k string) error {
		switch k {
		case "results":
			return dr.sc.array(func() error {
				if len(d.Results) == maxResults {
					return fmt.Errorf("more than %d results (fwcheck has about a hundred checks)", maxResults)
				}
				r, err := dr.result()
				d.Results = append(d.Results, r)
				return err
			})
		case "schema":
			// WriteJSON writes it first: a document of another schema
			// is refused before the rest is read
			if err := dr.sc.decode(&d.Schema); err != nil {
				return err
			}
			if d.Schema != SchemaVersion {
				return errSchema
			}
			return nil
		}
		if p, ok := fields[k]; ok {
			return dr.sc.decode(p)
		}
		return dr.sc.skip()
	})
	if errors.Is(err, errSchema) {
		err = nil // ReadJSON says it
	}
	return d, err
}

var errSchema = errors.New("schema")

func (dr *docReader) result() (Result, error) {
	var r Result
	fields := map[string]any{"id": &r.ID, "title": &r.Title, "category": &r.Category, "status": &r.Status,
		"reason": &r.Reason, "unchecked": &r.Unchecked, "duration_ms": &r.DurationMS}
	err := dr.sc.object(func(k string) error {
		switch k {
		case "findings":
			r.Findings = []Finding{}
			// as the framework does (tests.MaxPerLabel), the findings of
			// one label and class past the first 100 are counted, not
			// kept: what they count in every total stays, their
			// messages go. The counts are keyed by a hash: a document
			// of a million distinct labels would otherwise cost a
			// million copies of each finding's fields; a collision can
			// only list a finding or fold it into the entry its fields
			// match.
			seed := maphash.MakeSeed()
			listed := map[uint64]int{}
			folded := map[uint64]int{} // index into r.Omitted
			return dr.sc.array(func() error {
				var f Finding
				if err := dr.sc.decode(&f); err != nil {
					return err
				}
				f.Kind = tests.Kind(dr.intern(string(f.Kind)))
				f.Label, f.Advice, f.Spec = dr.intern(f.Label), dr.intern(f.Advice), dr.intern(f.Spec)
				f.Explained, f.Waived = dr.intern(f.Explained), dr.intern(f.Waived)
				key := f
				key.Message = ""
				h := maphash.Comparable(seed, key)
				n, ok := listed[h]
				if !ok {
					if dr.labels == maxLabels {
						return fmt.Errorf("more than %d distinct labels in all (fwcheck's checks have a few thousand)", maxLabels)
					}
					dr.labels++
				}
				if n < tests.MaxPerLabel {
					listed[h]++
					r.Findings = append(r.Findings, f)
					return nil
				}
				if i, ok := folded[h]; ok {
					if r.Omitted[i].Finding() == key {
						r.Omitted[i].Count++
					} else {
						r.Findings = append(r.Findings, f)
					}
					return nil
				}
				folded[h] = len(r.Omitted)
				r.Omitted = append(r.Omitted, tests.Omitted{Kind: f.Kind, Label: f.Label, Severity: f.Severity,
					Advice: f.Advice, Spec: f.Spec, Explained: f.Explained, Waived: f.Waived, Count: 1})
				return nil
			})
		case "omitted":
			return dr.sc.array(func() error {
				var o tests.Omitted
				if err := dr.sc.decode(&o); err != nil {
					return err
				}
				o.Label, o.Advice, o.Spec = dr.intern(o.Label), dr.intern(o.Advice), dr.intern(o.Spec)
				r.Omitted = append(r.Omitted, o)
				return nil
			})
		case "data":
			if dr.noData {
				return dr.sc.skip()
			}
			return dr.sc.object(func(k string) error {
				if r.Data == nil {
					r.Data = map[string]any{}
				}
				if k == "cycles" {
					cs, ok, err := dr.cycles()
					if ok {
						r.Data[k] = cs
					}
					return err
				}
				// a number, string or boolean is kept (the methods
				// check's counts); a list or object other than the
				// cycles is nothing a report shows, and is skipped
				if c, err := dr.sc.peek(); err != nil || c == '{' || c == '[' {
					if err != nil {
						return err
					}
					return dr.sc.skip()
				}
				var v any
				if err := dr.sc.decode(&v); err != nil {
					return err
				}
				r.Data[k] = v
				return nil
			})
		}
		if p, ok := fields[k]; ok {
			return dr.sc.decode(p)
		}
		return dr.sc.skip()
	})
	return r, err
}

// cycleRecord is the part of a per-cycle record (tests/s3 and tests/reboot
// write them) the report shows. Its measure fields are those of measures,
// in that order (TestCycleRecordMeasures).
type cycleRecord struct {
	Cycle       any      `json:"cycle"` // a number, else absent
	Status      string   `json:"status"`
	Device      string   `json:"slowest_device"`
	Problems    []string `json:"problems"`
	LogFindings []string `json:"log_findings"`

	Asleep           float64 `json:"asleep_ms"`
	FirmwareResume   float64 `json:"firmware_resume_ms"`
	KernelResume     float64 `json:"kernel_resume_ms"`
	Slowest          float64 `json:"slowest_ms"`
	RequestToKernel  float64 `json:"request_to_kernel_ms"`
	FirmwareStart    float64 `json:"firmware_start_ms"`
	LoaderLoad       float64 `json:"loader_load_ms"`
	LoaderStart      float64 `json:"loader_start_ms"`
	ExitBootServices float64 `json:"exit_boot_services_ms"`
}

func (c *cycleRecord) values() [len(measures)]float64 {
	return [...]float64{c.Asleep, c.FirmwareResume, c.KernelResume, c.Slowest, c.RequestToKernel,
		c.FirmwareStart, c.LoaderLoad, c.LoaderStart, c.ExitBootServices}
}

// cycleList is a result's per-cycle records as read from a document:
// rows of fixed size, what the HTML report plots and tabulates, up to
// maxCycleRecords; Unread counts the records past it. Written again as
// JSON, each row keeps its number, status, measures and device, its
// problems and log findings as one "problems" list.
type cycleList struct {
	Rows   []cycleRow
	Unread int
}

// maxCycleRecords bounds the cycle records read of one result: 50 times
// the s3 check's cycle limit (10,000). At 136 bytes a row (and its notes)
// that bounds the rows to some 70 MB whatever the document holds.
const maxCycleRecords = 500_000

// MarshalJSON writes the rows as records.
func (l *cycleList) MarshalJSON() ([]byte, error) {
	out := make([]map[string]any, len(l.Rows))
	for i, c := range l.Rows {
		m := map[string]any{"cycle": c.Cycle, "status": c.Status}
		for j, ms := range measures {
			if c.Values[j] > 0 {
				m[ms.Key] = c.Values[j]
			}
		}
		if c.Device != "" {
			m["slowest_device"] = c.Device
		}
		if len(c.Notes) > 0 {
			m["problems"] = c.Notes
		}
		out[i] = m
	}
	return json.Marshal(out)
}

// cycles reads the value of a data "cycles" key: an array of records,
// each read on its own into a row. A field of the wrong type is taken as
// absent, as it was when the records were generic maps; ok is false when
// the value is not an array (it is then skipped).
func (dr *docReader) cycles() (*cycleList, bool, error) {
	if c, err := dr.sc.peek(); err != nil || c != '[' {
		if err != nil {
			return nil, false, err
		}
		return nil, false, dr.sc.skip()
	}
	out := &cycleList{}
	err := dr.sc.array(func() error {
		if len(out.Rows) == maxCycleRecords {
			out.Unread++
			return dr.sc.skip()
		}
		var rec cycleRecord
		if err := dr.sc.decode(&rec); err != nil && !isTypeError(err) {
			return err
		}
		out.Rows = append(out.Rows, dr.row(len(out.Rows), &rec))
		return nil
	})
	return out, true, err
}

// row turns the i-th record into a row: unmeasured (absent, zero,
// negative or infinite) values are 0.
func (dr *docReader) row(i int, rec *cycleRecord) cycleRow {
	c := cycleRow{Cycle: i + 1, Status: dr.intern(rec.Status), Device: dr.intern(rec.Device)}
	if v, ok := rec.Cycle.(float64); ok && math.Abs(v) < 1<<53 {
		c.Cycle = int(v)
	}
	for j, v := range rec.values() {
		if v > 0 && !math.IsInf(v, 0) {
			c.Values[j] = v
		}
	}
	for _, l := range [][]string{rec.Problems, rec.LogFindings} {
		for _, s := range l {
			if s != "" {
				c.Notes = append(c.Notes, s)
			}
		}
	}
	return c
}

// isTypeError reports whether err is a value of the wrong type for its
// field, which Decode skips, having read past it.
func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}
