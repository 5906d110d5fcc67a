//go:build linux

package hostile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/report"
)

// nearLimit is the size of the documents of TestReportAndDiffNearTheSizeLimit:
// 8 MiB under report.MaxDocument.
const nearLimit = report.MaxDocument - 8<<20

// bigDoc writes a results document of about size bytes, streamed (the
// test process does not hold it): shape "cycles" is one s3 result of
// cycle records (107 bytes each); "findings" is 64 failed results whose
// findings fall under 8 labels each (170 bytes a finding); "labels" gives
// every finding a label of its own; "data" is one result whose data holds
// one long list.
func bigDoc(t *testing.T, shape string, size int) string {
	t.Helper()
	skipShort(t)
	p := filepath.Join(t.TempDir(), shape+".json")
	f, err := os.Create(p)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"schema":%q,"tool":{"name":"fwcheck","version":"hostile"},"start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:00Z","machine":{},"results":[`, report.SchemaVersion)
	n := 0
	switch shape {
	case "cycles":
		w.WriteString(`{"id":"s3","title":"s3","category":"power","status":"passed","findings":[],"data":{"cycles":[`)
		for i := 0; w.Size()+n < size; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			k, _ := fmt.Fprintf(w, `{"cycle":%d,"status":"passed","kernel_resume_ms":%d.5,"slowest_ms":12,"slowest_device":"0000:00:1f.3"}`, i+1, i%1000)
			n += k + 1
		}
		w.WriteString(`]}}`)
	case "findings", "labels":
		per := size / 64 / 170
		for r := range 64 {
			if r > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"id":"c%02d","title":"hostile","category":"acpi","status":"failed","findings":[`, r)
			for i := range per {
				if i > 0 {
					w.WriteByte(',')
				}
				label := fmt.Sprintf("HostileLabel%d", i%8)
				if shape == "labels" {
					label = fmt.Sprintf("L%08d", i)
				}
				fmt.Fprintf(w, `{"kind":"fail","label":%q,"severity":"high","message":"finding %d of a crafted document, at 0x%08X","advice":"Fix it.","spec":"ACPI 6.5"}`, label, i, i)
			}
			w.WriteString(`]}`)
		}
	case "data":
		w.WriteString(`{"id":"methods","title":"methods","category":"acpi","status":"passed","findings":[],"data":{"objects":12,"blob":[`)
		for i := 0; n < size; i++ {
			k, _ := fmt.Fprintf(w, "%d,", 1_000_000+i%1000)
			n += k
		}
		w.WriteString(`0]}}`)
	}
	w.WriteString(`]}`)
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	st, err := os.Stat(p)
	require.NoError(t, err)
	t.Logf("%s: a %.1f MiB document", shape, float64(st.Size())/(1<<20))
	require.Less(t, st.Size(), int64(report.MaxDocument))
	return p
}

// `fwcheck diff` and `fwcheck report` of a 248 MiB document (the limit is
// 256 MiB) took 39 s and over 60 s, with 2.3 GB: the reader decoded it
// into generic maps. They now stream it (report.ReadJSON): each shape a
// document can take near the limit is read within the package's memory
// limit, and the page stays small; a document of more distinct labels
// than fwcheck has is refused.
func TestReportAndDiffNearTheSizeLimit(t *testing.T) {
	small := resultsDoc(t, 3, nil)
	for _, shape := range []string{"cycles", "findings", "labels", "data"} {
		t.Run(shape, func(t *testing.T) {
			doc := bigDoc(t, shape, nearLimit)
			out := filepath.Join(t.TempDir(), "report.html")
			r := run(t, "report", doc, "-o", out)
			if shape == "labels" {
				// 1.3 million labels, where fwcheck has a few thousand
				oneLineError(t, r, "more than 100000 distinct labels in all")
				oneLineError(t, run(t, "diff", small, doc), "more than 100000 distinct labels in all")
				return
			}
			assert.Equal(t, 0, r.code, "%.300s", r.stderr)
			st, err := os.Stat(out)
			require.NoError(t, err)
			t.Logf("report: a %.1f MB page", float64(st.Size())/1e6)
			assert.Less(t, st.Size(), int64(8<<20), "a bounded page")

			r = run(t, "diff", small, doc, "--color", "never")
			want := 0
			if shape == "findings" || shape == "labels" {
				want = 1 // new failures
			}
			assert.Equal(t, want, r.code, "%.300s", r.stderr)
			assert.Contains(t, r.stdout, "diff: ")
		})
	}
}
