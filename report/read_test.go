package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

// The cycle record's measure fields are the measures, in their order.
func TestCycleRecordMeasures(t *testing.T) {
	rt := reflect.TypeFor[cycleRecord]()
	var keys []string
	for i := range rt.NumField() {
		if k := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]; strings.HasSuffix(k, "_ms") {
			keys = append(keys, k)
		}
	}
	var want []string
	for _, m := range measures {
		want = append(want, m.Key)
	}
	assert.Equal(t, want, keys)
	var rec cycleRecord
	require.NoError(t, json.Unmarshal([]byte(`{"asleep_ms":1,"firmware_resume_ms":2,"kernel_resume_ms":3,"slowest_ms":4,
		"request_to_kernel_ms":5,"firmware_start_ms":6,"loader_load_ms":7,"loader_start_ms":8,"exit_boot_services_ms":9}`), &rec))
	assert.Equal(t, [len(measures)]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, rec.values())
}

// Cycle records as the generic maps read them: fields of the wrong type
// absent, non-positive and huge values unmeasured, unknown fields and
// keys skipped, notes from both lists.
func TestReadJSONCycles(t *testing.T) {
	doc := `{"schema":"` + SchemaVersion + `","unknown":{"deep":[1,[2,{"x":null}]]},"results":[
	{"id":"s3","status":"failed","extra":[1,2],"data":{"objects":12,"list":[[1],{"a":[2]}],"cycles":[
		{"cycle":1,"status":"passed","kernel_resume_ms":10.5,"slowest_ms":-3,"slowest_device":"0000:00:1f.3","other":{"a":1}},
		{"cycle":"two","status":7,"kernel_resume_ms":"x","asleep_ms":1e400,"problems":["no wake",3,""],"log_findings":["ACPI Error"]},
		{"cycle":1e300,"status":"failed","firmware_resume_ms":1.797e308}
	]}},
	{"id":"reboot","data":{"cycles":{"not":"a list"}}},
	{"id":"x","data":{"cycles":17}}]}`
	d, err := ReadJSON(strings.NewReader(doc))
	require.NoError(t, err)
	require.Len(t, d.Results, 3)
	rows, unread := cyclesOf(d.Results[0])
	require.Len(t, rows, 3)
	assert.Zero(t, unread)
	assert.Equal(t, cycleRow{Cycle: 1, Status: "passed", Values: [len(measures)]float64{2: 10.5}, Device: "0000:00:1f.3"}, rows[0])
	assert.Equal(t, cycleRow{Cycle: 2, Notes: []string{"no wake", "ACPI Error"}}, rows[1])
	assert.Equal(t, cycleRow{Cycle: 3, Status: "failed", Values: [len(measures)]float64{1: 1.797e308}}, rows[2])
	assert.Equal(t, 12.0, d.Results[0].Data["objects"])
	for _, r := range d.Results[1:] {
		rows, _ := cyclesOf(r)
		assert.Empty(t, rows, r.ID)
	}
	// diff's reading leaves the data out
	f, err := ReadFindings(strings.NewReader(doc))
	require.NoError(t, err)
	for _, r := range f.Results {
		assert.Nil(t, r.Data, r.ID)
	}
	assert.Equal(t, tests.StatusFailed, f.Results[0].Status)
	// a document read and written again keeps what the report shows
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, d))
	again, err := ReadJSON(&b)
	require.NoError(t, err)
	back, _ := cyclesOf(again.Results[0])
	assert.Equal(t, rows, back)
}

// In-process records (a run's own typed values) read as a document holds
// them.
func TestCyclesOfTypedRecords(t *testing.T) {
	type rec struct {
		Cycle  int     `json:"cycle"`
		Status string  `json:"status"`
		Resume float64 `json:"kernel_resume_ms"`
	}
	rows, _ := cyclesOf(Result{Result: tests.Result{Data: map[string]any{"cycles": []rec{{1, "passed", 9}, {2, "failed", 0}}}}})
	assert.Equal(t, []cycleRow{{Cycle: 1, Status: "passed", Values: [len(measures)]float64{2: 9}}, {Cycle: 2, Status: "failed"}}, rows)
}

// Truncated and malformed documents are errors, not partial documents.
func TestReadJSONMalformed(t *testing.T) {
	for _, doc := range []string{
		``, `[]`, `{"schema":"` + SchemaVersion + `","results":[{"id":"a"`,
		`{"schema":"` + SchemaVersion + `","results":{"a":1}}`,
		`{"schema":"` + SchemaVersion + `","results":[{"findings":[{"severity":"dire"}]}]}`,
		`{"schema":"` + SchemaVersion + `","results":[{"data":{"cycles":[{"cycle":1},`,
		`{"results":[]}`,
	} {
		_, err := ReadJSON(strings.NewReader(doc))
		assert.Error(t, err, "%q", doc)
	}
	_, err := ReadJSON(strings.NewReader(`{"schema":"1.0","results":[` + strings.Repeat(`{"id":"x"},`, 1000)))
	assert.ErrorContains(t, err, `schema "1.0"`, "refused at the schema, before the rest")
}

// A document listing more findings of one label than the framework does
// keeps the first MaxPerLabel and counts the rest, by class: totals,
// diff counts and the verdict are those of the whole list.
func TestReadJSONFoldsFindingsPastTheCap(t *testing.T) {
	var fs []Finding
	for i := range 250 {
		f := Finding{Kind: tests.KindFail, Label: "Many", Severity: tests.High, Message: fmt.Sprint("m", i)}
		if i%5 == 0 {
			f.Explained = "a VM"
		}
		fs = append(fs, f)
	}
	d := New("t", input.Identity{}, time.Unix(0, 0), time.Unix(0, 0), []tests.Result{{ID: "c", Status: tests.StatusFailed, Findings: fs}})
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, d))
	back, err := ReadJSON(&b)
	require.NoError(t, err)
	r := back.Results[0]
	assert.Len(t, r.Findings, 150, "100 failing, the 50 explained")
	assert.Equal(t, []tests.Omitted{{Kind: tests.KindFail, Label: "Many", Severity: tests.High, Count: 100}}, r.Omitted)
	back.count()
	assert.Equal(t, d.Totals, back.Totals)
	assert.Equal(t, 200, failing(back)[[2]string{"c", "Many"}].New)
}

// writeCycleDoc writes a document of one s3 result of n cycle records,
// about 110 bytes each.
func writeCycleDoc(w io.Writer, n int) {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"schema":%q,"results":[{"id":"s3","status":"passed","findings":[],"data":{"cycles":[`, SchemaVersion)
	for i := range n {
		if i > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, `{"cycle":%d,"status":"passed","kernel_resume_ms":%d.5,"slowest_ms":12,"slowest_device":"0000:00:1f.3"}`, i+1, i%1000)
	}
	bw.WriteString(`]}}]}`)
	bw.Flush()
}

// The heap a read document keeps, against the document's size: a cycle
// record (about 110 bytes of JSON) costs its 136-byte row, where the
// generic maps cost some 900 bytes. Logged, with the time it took.
func TestReadJSONMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 33 MB document")
	}
	p := filepath.Join(t.TempDir(), "results.json")
	f, err := os.Create(p)
	require.NoError(t, err)
	writeCycleDoc(f, 300_000)
	require.NoError(t, f.Close())
	st, err := os.Stat(p)
	require.NoError(t, err)
	size := int(st.Size())
	f, err = os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	d, err := ReadJSON(f)
	took := time.Since(start)
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	rows, _ := cyclesOf(d.Results[0])
	require.Len(t, rows, 300_000)
	t.Logf("%d bytes of document, 300,000 cycles: read in %v, %.1f MB kept (%.2f bytes a document byte)",
		size, took.Round(time.Millisecond), float64(kept)/1e6, float64(kept)/float64(size))
	assert.Less(t, kept, uint64(2*size), "about the document's size")
	runtime.KeepAlive(d)
}

// Past maxCycleRecords a result's records are counted, not read, and the
// page says so.
func TestReadJSONCycleCap(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 55 MB document")
	}
	pr, pw := io.Pipe()
	go func() { writeCycleDoc(pw, maxCycleRecords+3); pw.Close() }()
	d, err := ReadJSON(pr)
	require.NoError(t, err)
	rows, unread := cyclesOf(d.Results[0])
	assert.Len(t, rows, maxCycleRecords)
	assert.Equal(t, 3, unread)
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, d, tests.Low))
	assert.Contains(t, page.String(), "… and 3 more cycle records past the first 500,000")
}

// FuzzReadJSON: any input is a document or an error, never a panic, and a
// document read writes again and reads back the same.
func FuzzReadJSON(f *testing.F) {
	var b bytes.Buffer
	writeCycleDoc(&b, 3)
	f.Add(b.Bytes())
	f.Add([]byte(`{"schema":"` + SchemaVersion + `","results":[{"id":"a","findings":[{"kind":"fail","label":"L","severity":"high","message":"m"}],"omitted":[{"kind":"fail","label":"L","count":3}],"data":{"n":1,"x":[{"y":"\"]}"}]}}]}`))
	f.Add([]byte(`{"schema":"` + SchemaVersion + `","results":null,"machine":{"dmi":{"a":"b"}},"x":"\\"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ReadJSON(bytes.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, d); err != nil {
			t.Fatal(err)
		}
		again, err := ReadJSON(&out)
		if err != nil {
			t.Fatalf("a document written by WriteJSON: %v\n%s", err, out.Bytes())
		}
		if len(again.Results) != len(d.Results) {
			t.Fatalf("%d results, then %d", len(d.Results), len(again.Results))
		}
		_, _ = ReadFindings(bytes.NewReader(in))
	})
}
