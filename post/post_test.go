package post

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/journal"
)

// rec is a journal record as the s3 check writes them.
type rec struct {
	Event string `json:"event"`
	Cycle int    `json:"cycle,omitempty"`
}

func fastOptions(url string) Options {
	return Options{URL: url, Poll: 10 * time.Millisecond, MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Logf: func(string, ...any) {}}
}

// closeWithin closes s, giving the server a generous while.
func closeWithin(t *testing.T, s *Sender) Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return s.Close(ctx)
}

func appendAll(t *testing.T, path string, recs ...rec) {
	t.Helper()
	j, err := journal.Open(path)
	require.NoError(t, err)
	for _, r := range recs {
		require.NoError(t, j.Append(r))
	}
	require.NoError(t, j.Close())
}

// events are the journal records a receiver holds, "event cycle", and the
// number of results documents.
func events(t *testing.T, rs []Envelope) (evs []string, results int) {
	t.Helper()
	for _, e := range rs {
		switch e.Kind {
		case KindJournal:
			var r rec
			require.NoError(t, json.Unmarshal(e.Record, &r))
			evs = append(evs, fmt.Sprint(e.Journal, " ", r.Event, " ", r.Cycle))
		case KindResults:
			results++
		}
	}
	return evs, results
}

var cycleRecs = []rec{{"run", 0}, {"start", 1}, {"outcome", 1}, {"start", 2}, {"outcome", 2}, {"done", 0}}

func wantEvents(name string, rs []rec) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprint(name, " ", r.Event, " ", r.Cycle))
	}
	return out
}

func TestJournalAndResults(t *testing.T) {
	var rcv Receiver
	srv := httptest.NewServer(&rcv)
	defer srv.Close()
	dir := t.TempDir()
	jp := filepath.Join(dir, "fwcheck-s3.jsonl")
	s, err := Start(fastOptions(srv.URL))
	require.NoError(t, err)
	s.Watch("s3", jp) // before the journal exists, as in a run
	appendAll(t, jp, cycleRecs[:3]...)
	appendAll(t, jp, cycleRecs[3:]...)
	require.NoError(t, s.Results([]byte(`{"results":[]}`)))
	st := closeWithin(t, s)
	assert.Equal(t, Stats{Sent: 7}, st)
	evs, n := events(t, rcv.Records())
	assert.Equal(t, wantEvents("s3", cycleRecs), evs, "every record, in journal order")
	assert.Equal(t, 1, n)
	assert.Zero(t, rcv.Duplicates())
}

// restartable is a server on a fixed port that can be stopped and started
// again, as a lab server that goes down for a while.
type restartable struct {
	t    *testing.T
	addr string
	h    http.Handler
	srv  *http.Server
	done chan struct{}
}

func newRestartable(t *testing.T, h http.Handler) *restartable {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &restartable{t: t, addr: l.Addr().String(), h: h}
	r.serve(l)
	t.Cleanup(r.stop)
	return r
}

func (r *restartable) serve(l net.Listener) {
	r.srv = &http.Server{Handler: r.h}
	r.done = make(chan struct{})
	go func() { _ = r.srv.Serve(l); close(r.done) }()
}

func (r *restartable) stop() {
	if r.srv != nil {
		_ = r.srv.Close()
		<-r.done
		r.srv = nil
	}
}

func (r *restartable) start() {
	l, err := net.Listen("tcp", r.addr)
	require.NoError(r.t, err)
	r.serve(l)
}

func TestServerDownForAWhile(t *testing.T) {
	var rcv Receiver
	var got atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { got.Add(1); rcv.ServeHTTP(w, req) })
	srv := newRestartable(t, h)
	dir := t.TempDir()
	jp := filepath.Join(dir, "fwcheck-s3.jsonl")
	s, err := Start(fastOptions("http://" + srv.addr + "/fwcheck"))
	require.NoError(t, err)
	s.Watch("s3", jp)
	appendAll(t, jp, cycleRecs[0])
	// Wait until the first record is through, then take the server down
	// for the next ones.
	for len(rcv.Records()) < 1 {
		time.Sleep(5 * time.Millisecond)
	}
	srv.stop()
	appendAll(t, jp, cycleRecs[1:4]...)
	// The sender fails and retries while the server is away.
	for {
		s.mu.Lock()
		r := s.stats.Retries
		s.mu.Unlock()
		if r >= 3 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	srv.start()
	appendAll(t, jp, cycleRecs[4:]...)
	require.NoError(t, s.Results([]byte(`{"verdict":"pass"}`)))
	st := closeWithin(t, s)
	assert.Equal(t, 7, st.Sent)
	assert.Zero(t, st.Pending)
	assert.GreaterOrEqual(t, st.Retries, 3)
	evs, n := events(t, rcv.Records())
	assert.Equal(t, wantEvents("s3", cycleRecs), evs)
	assert.Equal(t, 1, n)
}

func TestServerErrors(t *testing.T) {
	var rcv Receiver
	var calls atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch n := calls.Add(1); {
		case n%4 == 1:
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		case n%4 == 2:
			http.Error(w, "oops", http.StatusInternalServerError)
		case n%4 == 3:
			// Stored, but the answer is lost: the sender sends it
			// again and the receiver keeps it once.
			rcv.ServeHTTP(httptest.NewRecorder(), req)
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
		default:
			rcv.ServeHTTP(w, req)
		}
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	jp := filepath.Join(t.TempDir(), "fwcheck-reboot.jsonl")
	appendAll(t, jp, cycleRecs...)
	s, err := Start(fastOptions(srv.URL))
	require.NoError(t, err)
	s.Watch("reboot", jp)
	require.NoError(t, s.Results([]byte(`{}`)))
	st := closeWithin(t, s)
	assert.Equal(t, 7, st.Sent)
	assert.Zero(t, st.Pending)
	evs, n := events(t, rcv.Records())
	assert.Equal(t, wantEvents("reboot", cycleRecs), evs, "each record once, in order")
	assert.Equal(t, 1, n)
	assert.Equal(t, 7, rcv.Duplicates(), "every lost answer was a duplicate the receiver recognised")
}

func TestRejectedRecordDoesNotStopTheRest(t *testing.T) {
	var rcv Receiver
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if e, _ := rcvPeek(req); e.Kind == KindResults {
			http.Error(w, "no documents here", http.StatusForbidden)
			return
		}
		rcv.ServeHTTP(w, req)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	jp := filepath.Join(t.TempDir(), "j.jsonl")
	s, err := Start(fastOptions(srv.URL))
	require.NoError(t, err)
	require.NoError(t, s.Results([]byte(`{}`)))
	s.Watch("s3", jp)
	appendAll(t, jp, cycleRecs[:2]...)
	st := closeWithin(t, s)
	assert.Equal(t, Stats{Sent: 2, Rejected: 1}, st)
	evs, _ := events(t, rcv.Records())
	assert.Equal(t, wantEvents("s3", cycleRecs[:2]), evs)
}

// rcvPeek reads a request's envelope and puts the body back.
func rcvPeek(req *http.Request) (Envelope, error) {
	var e Envelope
	err := json.NewDecoder(req.Body).Decode(&e)
	b, _ := json.Marshal(e)
	req.Body = io.NopCloser(bytes.NewReader(b))
	return e, err
}

func TestTornLinesSkipped(t *testing.T) {
	var rcv Receiver
	srv := httptest.NewServer(&rcv)
	defer srv.Close()
	jp := filepath.Join(t.TempDir(), "j.jsonl")
	appendAll(t, jp, cycleRecs[0])
	f, err := os.OpenFile(jp, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"event":"sta`) // a reset cut this write
	require.NoError(t, err)
	f.Close()
	appendAll(t, jp, cycleRecs[1]) // journal.Open ends the torn line first
	s, err := Start(fastOptions(srv.URL))
	require.NoError(t, err)
	s.Watch("s3", jp)
	st := closeWithin(t, s)
	assert.Equal(t, Stats{Sent: 2, Skipped: 1}, st)
	evs, _ := events(t, rcv.Records())
	assert.Equal(t, wantEvents("s3", cycleRecs[:2]), evs)
}

// A server that never answers must not hold up the run: the journal
// appends and Results return while the sender waits, and Close returns at
// its deadline with the records counted as pending and kept in the spool;
// the next boot's sender delivers them, once.
func TestSpoolCarriesRecordsToTheNextBoot(t *testing.T) {
	hang := make(chan struct{})
	var hangOnce sync.Once
	hung := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-hang:
		case <-req.Context().Done():
		}
		http.Error(w, "gone", http.StatusServiceUnavailable)
	})
	srv1 := httptest.NewServer(hung)
	defer srv1.Close()
	defer hangOnce.Do(func() { close(hang) })
	dir := t.TempDir()
	spool := filepath.Join(dir, "spool")
	jp := filepath.Join(dir, "fwcheck-s3.jsonl")
	o := fastOptions(srv1.URL)
	o.Spool = spool
	s, err := Start(o)
	require.NoError(t, err)
	s.Watch("s3", jp)
	appendAll(t, jp, cycleRecs[:3]...)
	require.NoError(t, s.Results([]byte(`{"boot":1}`)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the deadline has come: give up at once
	st := s.Close(ctx)
	assert.Zero(t, st.Sent)
	assert.Equal(t, 4, st.Pending, "3 journal records and the results document")
	hangOnce.Do(func() { close(hang) })

	// The next boot: the server is there, the run appends its last records.
	var rcv Receiver
	srv2 := httptest.NewServer(&rcv)
	defer srv2.Close()
	appendAll(t, jp, cycleRecs[3:]...)
	o.URL = srv2.URL
	s2, err := Start(o)
	require.NoError(t, err)
	s2.Watch("s3", jp)
	st = closeWithin(t, s2)
	assert.Equal(t, 7, st.Sent)
	assert.Zero(t, st.Pending)
	evs, n := events(t, rcv.Records())
	assert.ElementsMatch(t, wantEvents("s3", cycleRecs), evs)
	assert.Equal(t, 1, n, "the results document kept in the spool")
	pend, _ := os.ReadDir(filepath.Join(spool, pendingDir))
	assert.Empty(t, pend, "acknowledged: the spool is empty")

	// A third sender on the same spool sends nothing again.
	s3, err := Start(o)
	require.NoError(t, err)
	s3.Watch("s3", jp)
	assert.Equal(t, Stats{}, closeWithin(t, s3))
	assert.Zero(t, rcv.Duplicates())
}

func TestBoundedQueue(t *testing.T) {
	var rcv Receiver
	srv := httptest.NewServer(&rcv)
	defer srv.Close()
	jp := filepath.Join(t.TempDir(), "j.jsonl")
	var many []rec
	for i := 1; i <= 50; i++ {
		many = append(many, rec{"start", i})
	}
	appendAll(t, jp, many...)
	// The queue holds at most Queue records; the journal keeps the rest.
	idle := &Sender{o: Options{Queue: 4}, watches: []*watch{{name: "s3", path: jp}}}
	idle.readJournals()
	idle.readJournals()
	assert.Len(t, idle.queue, 4)
	o := fastOptions(srv.URL)
	o.Queue = 4
	s, err := Start(o)
	require.NoError(t, err)
	s.Watch("s3", jp)
	assert.Equal(t, 50, closeWithin(t, s).Sent)
	evs, _ := events(t, rcv.Records())
	assert.Equal(t, wantEvents("s3", many), evs)
}

func TestParseURL(t *testing.T) {
	for _, ok := range []string{"http://10.0.2.2:8080/post", "https://lab.example/fwcheck"} {
		_, err := ParseURL(ok)
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"", "ftp://x/", "http://", "10.0.2.2:80", "http://%zz"} {
		_, err := ParseURL(bad)
		assert.Error(t, err, bad)
	}
}

func FuzzParseEnvelope(f *testing.F) {
	f.Add([]byte(`{"id":"s3:0:ab","kind":"journal","journal":"s3","offset":0,"record":{"event":"run"}}`))
	f.Add([]byte(`{"id":"results:1","kind":"results","document":{}}`))
	f.Add([]byte(`{"id":"","kind":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseEnvelope(b)
		if err == nil && (e.ID == "" || (e.Kind != KindJournal && e.Kind != KindResults)) {
			t.Fatalf("accepted %q", b)
		}
	})
}
