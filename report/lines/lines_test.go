package lines

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
)

func TestFormatParseRoundTrip(t *testing.T) {
	for _, l := range []Line{
		{Kind: Start, Seq: 0, Boot: "4f1c2a9e", Fwcheck: "v1.2.3-4-gabcdef"},
		{Kind: Case, Seq: 1, ID: "acpitables", Result: Pass},
		{Kind: Case, Seq: 2, ID: "fadt", Result: Fail},
		{Kind: Case, Seq: 3, ID: "s3.cycle-12.kernel-resume", Result: Pass, Measurement: "312.500", Units: "ms"},
		{Kind: Case, Seq: 4, ID: "s3.cycle-12.firmware-resume", Result: Skip, Note: "not-measured"},
		{Kind: Case, Seq: 5, ID: "s3", Result: Pass, Measurement: "3", Units: "cycles", Note: "warning"},
		{Kind: Beat, Seq: 6, At: 93, Check: "s3"},
		{Kind: End, Seq: 7, State: Done, Cases: 5, Verdict: "pass", Dropped: 0},
		{Kind: End, Seq: 8, State: Reset, Cases: 0, Verdict: "none"},
	} {
		s, err := l.Format()
		require.NoError(t, err, "%+v", l)
		assert.LessOrEqual(t, len(s), MaxLen)
		got, err := Parse(s)
		require.NoError(t, err, s)
		assert.Equal(t, l, got, s)
		// A prompt or a kernel message without a line end before it, and
		// the tty's carriage return after it, do not matter.
		got, err = Parse("[   12.3] rtc_cmos 00:05: alarm\t" + s + "\r")
		require.NoError(t, err)
		assert.Equal(t, l, got)
	}
}

func TestFormatRefuses(t *testing.T) {
	for _, l := range []Line{
		{Kind: Case, ID: "a b", Result: Pass},
		{Kind: Case, ID: "x", Result: "passed"},
		{Kind: Case, ID: "x", Result: Pass, Measurement: "1e3", Units: "ms"},
		{Kind: Case, ID: "x", Result: Pass, Measurement: "1", Units: "MS"},
		{Kind: Case, ID: "x", Result: Pass, Measurement: "1"},
		{Kind: Case, ID: strings.Repeat("x", 65), Result: Pass},
		{Kind: End, State: "stopped", Verdict: "pass"},
		{Kind: "FWCHECK-OTHER"},
		{Kind: Start, Boot: "", Fwcheck: "v"},
	} {
		_, err := l.Format()
		assert.Error(t, err, "%+v", l)
	}
}

func TestParseDamaged(t *testing.T) {
	good, err := Line{Kind: Case, Seq: 9, ID: "s3.cycle-2.asleep", Result: Pass, Measurement: "3.104", Units: "s"}.Format()
	require.NoError(t, err)
	for name, s := range map[string]string{
		"cut by a kernel message": good[:30] + "[  40.1] PM: suspend exit",
		"one character changed":   strings.Replace(good, "3.104", "3.105", 1),
		"checksum cut":            good[:len(good)-2],
		"doubled space":           strings.Replace(good, " pass", "  pass", 1),
		"too long":                good + strings.Repeat("x", MaxLen),
	} {
		_, err := Parse(s)
		assert.True(t, errors.Is(err, ErrDamaged), "%s: %q: %v", name, s, err)
	}
	for _, s := range []string{"", "fwcheck: s3: cycle 1/3", "FWCHECK-", "-----BEGIN FWCHECK RESULTS-----", "FWCHECK-CASES 1"} {
		_, err := Parse(s)
		assert.ErrorIs(t, err, ErrNotLine, "%q", s)
	}
}

// TestMonitorPattern: the patterns given to LAVA match every line the
// Writer prints, with the fields Parse reads, and nothing damaged.
func TestMonitorPattern(t *testing.T) {
	pat := regexp.MustCompile(MonitorPattern)
	start, end := regexp.MustCompile(MonitorStart), regexp.MustCompile(MonitorEnd)
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Begin("0123abcd", "dev")
	w.CheckEnded(tests.Result{ID: "acpitables", Status: tests.StatusPassed})
	w.CheckEnded(tests.Result{ID: "fadt", Status: tests.StatusIncomplete})
	w.CycleEnded("s3", tests.CycleRecord{Cycle: 1, Status: "passed", AsleepMS: 3104, KernelResumeMS: 412.25})
	w.CycleEnded("s3", tests.CycleRecord{Cycle: 2, Status: "hung"})
	w.Finish(Done, "fail")
	ls := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, ls, 12)
	assert.Regexp(t, start, ls[0])
	assert.Regexp(t, end, ls[len(ls)-1])
	assert.NotRegexp(t, end, strings.Replace(ls[len(ls)-1], "done", "reset", 1))
	for _, s := range ls[1 : len(ls)-1] {
		l, err := Parse(s)
		require.NoError(t, err)
		m := pat.FindStringSubmatch(s)
		require.NotNil(t, m, s)
		g := map[string]string{}
		for i, n := range pat.SubexpNames() {
			if n != "" {
				g[n] = m[i]
			}
		}
		assert.Equal(t, l.ID, g["test_case_id"], s)
		assert.Equal(t, l.Result, g["result"], s)
		assert.Equal(t, l.Measurement, g["measurement"], s)
		assert.Equal(t, l.Units, g["units"], s)
		// Cut anywhere by a kernel message, it matches nothing.
		for i := len("FWCHECK-CASE "); i < len(s)-1; i++ {
			cut := s[:i] + "\r\n[   41.2] ata1: link down\r\n" + s[i:]
			assert.NotRegexp(t, pat, cut, "cut at %d", i)
		}
	}
	assert.Contains(t, b.String(), " s3.cycle-1.kernel-resume pass 412.250 ms ")
	assert.Contains(t, b.String(), " s3.cycle-1.firmware-resume skip note=not-measured ")
	assert.Contains(t, b.String(), " s3.cycle-1.asleep pass 3.104 s ")
	assert.Contains(t, b.String(), " s3.cycle-2 fail note=hung ")
	assert.Contains(t, b.String(), " fadt unknown note=incomplete ")
}

func TestWriterOnceAndBounded(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.CheckEnded(tests.Result{ID: "early", Status: tests.StatusPassed}) // before the start: not printed
	w.Begin("b", "v")
	w.Begin("b", "v")
	for i := 0; i < MaxCases+5; i++ {
		w.CheckEnded(tests.Result{ID: "x", Status: tests.StatusPassed})
	}
	w.Finish(Done, "pass")
	w.Finish(Done, "pass")
	w.CheckEnded(tests.Result{ID: "late", Status: tests.StatusPassed})
	w.Beat(time.Second)
	tr, err := Scan(&b)
	require.NoError(t, err)
	require.Len(t, tr.Boots, 1)
	bt := tr.Boots[0]
	assert.Len(t, bt.Cases, MaxCases)
	require.NotNil(t, bt.End)
	assert.Equal(t, 5, bt.End.Dropped)
	assert.True(t, bt.Complete())
	assert.Equal(t, 0, tr.Stray+tr.Damaged)
	assert.NotContains(t, b.String(), "early")
	assert.NotContains(t, b.String(), "late")

	// Finish without Begin still prints the pair.
	b.Reset()
	NewWriter(&b).Finish(Reset, "pass")
	tr, _ = Scan(&b)
	require.Len(t, tr.Boots, 1)
	assert.Equal(t, "none", tr.Boots[0].End.Verdict)
}

func TestHeartbeat(t *testing.T) {
	var mu syncBuf
	w := NewWriter(&mu)
	w.Begin("b", "v")
	w.CheckStarted("s3")
	stop := w.Heartbeat(time.Millisecond, func() time.Duration { return 42 * time.Second })
	for !strings.Contains(mu.String(), "FWCHECK-BEAT") {
		time.Sleep(time.Millisecond)
	}
	stop()
	stop()
	w.Finish(Done, "pass")
	tr, err := Scan(strings.NewReader(mu.String()))
	require.NoError(t, err)
	require.Len(t, tr.Boots, 1)
	assert.Positive(t, tr.Boots[0].Beats)
	assert.Contains(t, mu.String(), " at=42s check=s3 ")
}

func TestVerdict(t *testing.T) {
	doc := func(rs ...tests.Result) *report.Document {
		d := report.New("v", input.Identity{}, time.Now(), time.Now(), rs)
		return d
	}
	pass := tests.Result{ID: "acpitables", Status: tests.StatusPassed}
	s3none := tests.Result{ID: "s3", Status: tests.StatusSkipped}
	assert.Equal(t, "pass", Verdict(doc(pass), tests.Medium, nil))
	// A run asked to suspend that never did is no pass, whatever passed.
	assert.Equal(t, "no-cycles", Verdict(doc(pass, s3none), tests.Medium, []string{"s3"}))
	assert.Equal(t, "no-cycles", Verdict(doc(pass), tests.Medium, []string{"s3"}))
	s3ok := tests.Result{ID: "s3", Status: tests.StatusPassed, Data: map[string]any{"cycles": []tests.CycleRecord{{Cycle: 1, Status: "passed"}}}}
	assert.Equal(t, "pass", Verdict(doc(pass, s3ok), tests.Medium, []string{"s3"}))
	assert.Equal(t, "nothing-checked", Verdict(doc(s3none), tests.Medium, nil))
	assert.Equal(t, "fail", Verdict(doc(tests.Result{ID: "x", Status: tests.StatusAborted}), tests.Medium, nil))
}

// syncBuf is a buffer the heartbeat goroutine and the test share.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
