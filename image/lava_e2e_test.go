package image_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/report/lines"
)

// lavaS3Cycles is how many S3 cycles the LAVA job runs.
const lavaS3Cycles = 2

// TestLAVAServer runs the job `fwcheck-image lava` writes on a real LAVA
// instance started here (image/testdata/lava/lava-server.sh: PostgreSQL,
// lava-server's gunicorn, lava-scheduler, a lava-worker whose
// lava-dispatcher boots the live image under QEMU on a qemu device), and
// checks that every check and every S3 cycle is a LAVA test case, with the
// measurements the results document holds. It takes a few minutes and
// needs root and Debian's lava-server and lava-dispatcher: make lava-test
// installs them and runs it; make test runs it when FWCHECK_LAVA=1 (CI
// does), and leaves it out otherwise.
func TestLAVAServer(t *testing.T) {
	if os.Getenv("FWCHECK_LAVA") == "" {
		t.Skip("FWCHECK_LAVA is not set: make lava-test runs this test")
	}
	t.Parallel() // a guest like the others: it takes one of their slots
	kernel, initramfs := liveImage(t, qemu.SeaBIOS)
	if os.Geteuid() != 0 {
		t.Fatal("FWCHECK_LAVA is set: the LAVA dispatcher runs as root, and so must this test")
	}
	for _, c := range []string{"lava-server", "lava-worker", "lava-run", "gunicorn3", "pg_ctlcluster"} {
		_, err := exec.LookPath(c)
		require.NoError(t, err, "FWCHECK_LAVA is set: make lava-deps installs %s", c)
	}
	started := time.Now()
	// Not t.TempDir: its parent is private to root, and the server's
	// daemons write their logs here after dropping to the lavaserver user.
	dir, err := os.MkdirTemp("", "fwcheck-lava-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	port := os.Getenv("FWCHECK_LAVA_PORT")
	if port == "" {
		port = "18731"
	}
	script, err := filepath.Abs("testdata/lava/lava-server.sh")
	require.NoError(t, err)
	run := func(args ...string) {
		out, err := exec.Command(script, args...).CombinedOutput()
		require.NoError(t, err, "lava-server.sh %s: %s", args[0], out)
	}
	t.Cleanup(func() {
		out, err := exec.Command(script, "down", dir).CombinedOutput()
		assert.NoError(t, err, "lava-server.sh down: %s", out)
		for _, f := range []string{"worker.log", "scheduler.log", "scheduler.out"} {
			if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && t.Failed() {
				t.Logf("%s:\n%s", f, tail(b))
			}
		}
		os.RemoveAll(dir)
	})
	run("up", dir, port)
	t.Logf("LAVA up in %v", time.Since(started).Round(time.Second))
	tok, err := os.ReadFile(filepath.Join(dir, "token"))
	require.NoError(t, err)
	api := &lavaAPI{base: "http://127.0.0.1:" + port, token: strings.TrimSpace(string(tok))}

	// The dispatcher downloads the files as root from file:// URLs; give
	// it copies it may read.
	files := filepath.Join(dir, "files")
	require.NoError(t, os.MkdirAll(files, 0o755))
	for _, f := range []string{kernel, initramfs} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(files, filepath.Base(f)), b, 0o644))
	}
	job := image.LAVAJob{
		DeviceType: "qemu",
		Kernel:     "file://" + filepath.Join(files, filepath.Base(kernel)),
		Initramfs:  "file://" + filepath.Join(files, filepath.Base(initramfs)),
		Options:    fmt.Sprintf("fwcheck.s3=%d fwcheck.s3.sleep=3s fwcheck.s3.awake=1s", lavaS3Cycles),
	}
	def, err := job.YAML()
	require.NoError(t, err)
	id := api.submit(t, def)
	t.Logf("job %d submitted", id)

	var st lavaJob
	deadline := time.Now().Add(image.LAVATimeout(image.Config{S3: lavaS3Cycles}) + 10*time.Minute)
	for time.Now().Before(deadline) {
		api.get(t, fmt.Sprintf("/api/v0.2/jobs/%d/", id), &st)
		if st.State == "Finished" {
			break
		}
		time.Sleep(5 * time.Second)
	}
	t.Logf("job %d: %s, %s, %v after submission (%v with the server's start)", id, st.State, st.Health, st.took(), time.Since(started).Round(time.Second))
	console := api.console(t, id)
	require.Equal(t, "Finished", st.State, "%s", tail([]byte(console)))
	assert.Equal(t, "Complete", st.Health, "the job's health: %s", tail([]byte(console)))

	js, err := image.ExtractResults([]byte(console))
	require.NoError(t, err, "%s", tail([]byte(console)))
	d, err := report.ReadJSON(strings.NewReader(string(js)))
	require.NoError(t, err)

	cases := api.cases(t, id, "fwcheck")
	name := regexp.MustCompile(`\W+`) // LAVA's own rule for a case's name
	lavaName := func(id string) string { return name.ReplaceAllString(strings.ToLower(id), "_") }
	want := map[string]string{"passed": "pass", "warning": "pass", "failed": "fail", "aborted": "fail",
		"incomplete": "unknown", "skipped": "skip", "not-applicable": "skip"}
	for _, r := range d.Results {
		c, ok := cases[lavaName(r.ID)]
		if assert.True(t, ok, "check %s is a LAVA test case", r.ID) {
			assert.Equal(t, want[string(r.Status)], c.Result, "check %s (%s)", r.ID, r.Status)
		}
	}
	s3 := resultByID(d, "s3")
	require.NotNil(t, s3)
	cs := s3.Cycles()
	require.Len(t, cs, lavaS3Cycles, "cycles in the results document")
	for _, cy := range cs {
		base := fmt.Sprintf("s3_cycle_%d", cy.Cycle)
		c, ok := cases[base]
		if !assert.True(t, ok, "S3 cycle %d is a LAVA test case", cy.Cycle) {
			continue
		}
		assert.Equal(t, map[bool]string{true: "pass", false: "fail"}[cy.Good()], c.Result, base)
		for _, m := range []struct {
			name, units string
			v           float64
		}{{"kernel_resume", "ms", cy.KernelResumeMS}, {"firmware_resume", "ms", cy.FirmwareResumeMS}, {"asleep", "s", cy.AsleepMS / 1000}} {
			mc, ok := cases[base+"_"+m.name]
			if !assert.True(t, ok, "%s_%s is a LAVA test case", base, m.name) {
				continue
			}
			if m.v == 0 {
				// Not measured (SeaBIOS has no FPDT): said, not left out.
				assert.Equal(t, "skip", mc.Result, "%s_%s not measured", base, m.name)
				assert.Nil(t, mc.Measurement)
				continue
			}
			require.NotNil(t, mc.Measurement, "%s_%s has its measurement", base, m.name)
			got, err := strconv.ParseFloat(*mc.Measurement, 64)
			require.NoError(t, err)
			assert.InDelta(t, m.v, got, 0.0005, "%s_%s: the document's value", base, m.name)
			assert.Equal(t, m.units, mc.Unit, "%s_%s", base, m.name)
		}
	}
	// The kernel's resume was measured in every cycle: QEMU's guests log it.
	for _, cy := range cs {
		assert.Positive(t, cy.KernelResumeMS, "cycle %d's kernel resume", cy.Cycle)
	}
	// The lines the monitor read are the console's whole story.
	tr, err := lines.Scan(strings.NewReader(console))
	require.NoError(t, err)
	require.Len(t, tr.Boots, 1)
	b := tr.Boots[0]
	assert.LessOrEqual(t, b.Missing, tr.Damaged, "every line missing was seen damaged (cut by a kernel message)")
	assert.Len(t, cases, len(b.Cases), "one LAVA test case per case line")
	// The monitor stopped at the end line (the job would not be Complete
	// otherwise); the job's log may lack that line itself: LAVA logs a
	// line once its line end is read, and the monitor stops reading at
	// the match. When it is there, the cycles made the verdict the
	// checks' (a loaded TCG host can fail a kernel-log check), never
	// no-cycles.
	if b.End != nil {
		assert.Equal(t, len(b.Cases), b.End.Cases)
		assert.Contains(t, []string{"pass", "fail"}, b.End.Verdict, "the end line's verdict")
	}
}

// lavaAPI is a LAVA server's REST API (v0.2).
type lavaAPI struct{ base, token string }

func (a *lavaAPI) do(t *testing.T, method, path string, body io.Reader, out any) {
	t.Helper()
	req, err := http.NewRequest(method, a.base+path, body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Token "+a.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	require.NoError(t, err)
	require.Less(t, resp.StatusCode, 300, "%s %s: %s", method, path, b)
	require.NoError(t, json.Unmarshal(b, out), "%s %s: %.500s", method, path, b)
}

func (a *lavaAPI) get(t *testing.T, path string, out any) { a.do(t, "GET", path, nil, out) }

func (a *lavaAPI) submit(t *testing.T, def []byte) int {
	body, err := json.Marshal(map[string]string{"definition": string(def)})
	require.NoError(t, err)
	var r struct {
		IDs []int `json:"job_ids"`
	}
	a.do(t, "POST", "/api/v0.2/jobs/", strings.NewReader(string(body)), &r)
	require.Len(t, r.IDs, 1)
	return r.IDs[0]
}

type lavaJob struct {
	State, Health string
	Start         *time.Time `json:"start_time"`
	End           *time.Time `json:"end_time"`
}

func (j *lavaJob) took() time.Duration {
	if j.Start == nil || j.End == nil {
		return 0
	}
	return j.End.Sub(*j.Start).Round(time.Second)
}

type lavaCase struct {
	Name, Result, Unit string
	Measurement        *string
	Suite              int
}

// cases returns the job's test cases of the suite named suite, by name.
func (a *lavaAPI) cases(t *testing.T, id int, suite string) map[string]lavaCase {
	var suites struct {
		Results []struct {
			ID   int
			Name string
		}
	}
	a.get(t, fmt.Sprintf("/api/v0.2/jobs/%d/suites/?limit=100", id), &suites)
	sid := -1
	for _, s := range suites.Results {
		if s.Name == suite {
			sid = s.ID
		}
	}
	require.NotEqual(t, -1, sid, "suite %s in %+v", suite, suites.Results)
	out := map[string]lavaCase{}
	for path := fmt.Sprintf("/api/v0.2/jobs/%d/tests/?limit=500", id); path != ""; {
		var page struct {
			Next    *string
			Results []lavaCase
		}
		a.get(t, path, &page)
		for _, c := range page.Results {
			if c.Suite == sid {
				_, dup := out[c.Name]
				assert.False(t, dup, "test case %s twice", c.Name)
				out[c.Name] = c
			}
		}
		path = ""
		if page.Next != nil {
			path = strings.TrimPrefix(*page.Next, a.base)
		}
	}
	return out
}

// console returns what the device printed: the job log's target lines,
// with the escaping LAVA's dispatcher adds to them undone (it writes '"'
// as '\\"' for its YAML log; it also drops carriage returns and escape
// characters and folds blank lines, which it cannot give back).
func (a *lavaAPI) console(t *testing.T, id int) string {
	var log []struct {
		Lvl string
		Msg any
	}
	a.get(t, fmt.Sprintf("/scheduler/job/%d/log_pipeline_incremental?line=0", id), &log)
	var b strings.Builder
	for _, e := range log {
		if s, ok := e.Msg.(string); ok && e.Lvl == "target" {
			b.WriteString(strings.ReplaceAll(s, `\"`, `"`) + "\n")
		}
	}
	return b.String()
}
