// Package post sends a run's records to a lab's server as they are written:
// each line of the suspend/resume and reboot journals, and the results
// document at the end, one HTTP POST each (fwcheck.post=URL in the live
// image, --post URL on the command line).
//
// A Sender never blocks the run. It follows the journals the way tail -f
// does, from its own goroutine, so the check that appends a record and
// suspends the machine a moment later never waits for the network; the
// record goes out after the resume if not before. One request is in
// flight at a time, in journal order, and a record leaves the queue only
// when the server answers 2xx; anything else (no route, connection
// refused, a 5xx, a timeout) is retried with exponential backoff and
// jitter. A 4xx other than 408, 425 and 429 means the server refuses that
// record: it is counted as rejected and the next one goes.
//
// Nothing is lost while the server is away. The journal on the results
// disk is itself the durable copy: the sender keeps, next to it in its
// spool directory, how far the server has acknowledged each journal, and
// the results document as a pending file until acknowledged, so the next
// boot (a reboot run, or a run after a power cut) goes on from there.
// Without a disk (a netbooted machine) the journal lives in RAM, bounded
// by the journal's own size limit, and the sender's queue holds at most
// Options.Queue records; Close waits for the server up to its context's
// deadline and says what it could not deliver.
//
// A record may arrive twice (the server's answer lost, a boot that ends
// between the answer and the spool's update). Every request carries a
// stable id, in the body and as the Idempotency-Key header: the journal's
// name, the record's byte offset in it and a hash of its bytes. A server
// that keeps the ids it has seen (Receiver does) stores each record once.
//
// What was weighed: net/http alone, no retry library
// (hashicorp/go-retryablehttp retries one request in the caller's
// goroutine, which is what must not happen here, and would be a new
// dependency for twenty lines of backoff); no message queue or gRPC
// client, since a lab's server should need nothing beyond an HTTP handler
// that stores JSON.
package post

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fwcheck/fwcheck/internal/atomicfile"
	"github.com/fwcheck/fwcheck/internal/journal"
	"github.com/fwcheck/fwcheck/internal/regfile"
)

// The kinds of record a Sender posts.
const (
	KindJournal = "journal"
	KindResults = "results"
)

// Envelope is the body of one POST: application/json.
type Envelope struct {
	// ID is stable across retries and boots; a server deduplicates by it.
	ID   string `json:"id"`
	Kind string `json:"kind"` // KindJournal or KindResults
	// Journal names the journal of a KindJournal record ("s3",
	// "reboot"); Offset is the record's byte offset in it.
	Journal string `json:"journal,omitempty"`
	Offset  int64  `json:"offset,omitempty"`
	// Source is what the sender was told identifies the machine or run.
	Source string `json:"source,omitempty"`
	// Record is the journal line, Document the results document.
	Record   json.RawMessage `json:"record,omitempty"`
	Document json.RawMessage `json:"document,omitempty"`
}

// MaxBody bounds one request's body (a results document is well under a
// MiB; a journal line under journal.MaxLine).
const MaxBody = 16 << 20

// Options configure a Sender.
type Options struct {
	// URL receives the POSTs: http or https.
	URL string
	// Source, when set, goes into every envelope (a machine's serial
	// number, a lab job's id).
	Source string
	// Spool, when set, is a directory on local storage (the results
	// disk) where the sender keeps what the server has not acknowledged.
	Spool string
	// Client sends the requests; nil is one with a 20 s timeout.
	Client *http.Client
	// Logf receives one line per change of the server's state (down,
	// back); nil discards them.
	Logf func(format string, args ...any)
	// Queue bounds the records held in memory (default 256); a journal
	// is read on only as the server takes what is queued.
	Queue int
	// Poll is how often the journals are looked at (default 200 ms).
	Poll time.Duration
	// MinBackoff and MaxBackoff bound the wait between attempts
	// (default 250 ms and 15 s).
	MinBackoff, MaxBackoff time.Duration
}

// ParseURL checks a post URL: absolute, http or https, with a host.
func ParseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("post URL %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("post URL %q: want http://HOST[:PORT]/PATH or https://…", s)
	}
	return u, nil
}

// Stats is what a Sender did.
type Stats struct {
	Sent     int // acknowledged by the server
	Rejected int // refused by the server with a 4xx (kept on local storage only)
	Retries  int // failed attempts that were retried
	Pending  int // not delivered when Close returned
	Skipped  int // damaged journal lines (a torn write) not sent
}

// Sender posts records from its own goroutine; see the package doc.
type Sender struct {
	o      Options
	client *http.Client

	mu      sync.Mutex
	watches []*watch
	queue   []item
	stats   Stats
	closing bool
	down    bool // the last attempt failed (for the log)
	wake    chan struct{}
	final   chan struct{} // closed by Close: read the journals once more, then drain
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
}

// watch is one journal being followed.
type watch struct {
	name, path string
	next       int64 // offset of the next byte to read
	acked      int64 // offset up to which the server has everything
}

// item is one queued record.
type item struct {
	env     Envelope
	w       *watch // its journal, or nil
	end     int64  // the journal offset after it
	pending string // its file in the spool, for a results document
}

// Start checks o and starts the sender's goroutine. Records pending in the
// spool from an earlier boot are queued first.
func Start(o Options) (*Sender, error) {
	if _, err := ParseURL(o.URL); err != nil {
		return nil, err
	}
	if o.Queue <= 0 {
		o.Queue = 256
	}
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 250 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(15*time.Second, o.MinBackoff)
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	s := &Sender{o: o, client: o.Client, wake: make(chan struct{}, 1), final: make(chan struct{}), done: make(chan struct{})}
	if s.client == nil {
		s.client = &http.Client{Timeout: 20 * time.Second}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if o.Spool != "" {
		if err := os.MkdirAll(filepath.Join(o.Spool, pendingDir), 0o700); err != nil {
			return nil, fmt.Errorf("post spool: %w", err)
		}
		s.loadPending()
	}
	go s.loop()
	return s, nil
}

// pendingDir holds, under the spool, the documents not yet acknowledged.
const pendingDir = "post-pending"

// maxPending bounds the pending files read back from a spool.
const maxPending = 64

func (s *Sender) loadPending() {
	dir := filepath.Join(s.o.Spool, pendingDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for i, e := range ents {
		if i >= maxPending || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := readBounded(p, MaxBody)
		var env Envelope
		if err != nil || json.Unmarshal(b, &env) != nil || env.ID == "" {
			s.o.Logf("post: %s: not a pending record; left alone", p)
			continue
		}
		s.queue = append(s.queue, item{env: env, pending: p})
	}
}

func readBounded(p string, n int64) ([]byte, error) {
	f, err := regfile.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// Watch follows the journal at path (which need not exist yet) under
// name: every complete line appended to it is posted. With a spool, it
// goes on from what the server acknowledged in an earlier boot.
func (s *Sender) Watch(name, path string) {
	w := &watch{name: name, path: path}
	if s.o.Spool != "" {
		if b, err := readBounded(s.ackFile(name), 64); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n >= 0 {
				w.next, w.acked = n, n
			}
		}
	}
	s.mu.Lock()
	s.watches = append(s.watches, w)
	s.mu.Unlock()
	s.poke()
}

func (s *Sender) ackFile(name string) string {
	return filepath.Join(s.o.Spool, "post-"+safeName(name)+".acked")
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// Results queues the results document (JSON). With a spool it is kept
// there until the server acknowledges it.
func (s *Sender) Results(doc []byte) error {
	doc = bytes.TrimSpace(doc)
	if !json.Valid(doc) {
		return errors.New("post: the results document is not JSON")
	}
	sum := sha256.Sum256(doc)
	env := Envelope{ID: "results:" + hex.EncodeToString(sum[:12]), Kind: KindResults, Source: s.o.Source, Document: doc}
	it := item{env: env}
	if s.o.Spool != "" {
		p := filepath.Join(s.o.Spool, pendingDir, "results-"+hex.EncodeToString(sum[:12])+".json")
		b, _ := json.Marshal(env)
		if err := atomicfile.Write(p, 0o600, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			s.o.Logf("post: keeping the results in %s: %v (kept in memory only)", p, err)
		} else {
			it.pending = p
		}
	}
	s.mu.Lock()
	s.queue = append(s.queue, it)
	s.mu.Unlock()
	s.poke()
	return nil
}

func (s *Sender) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Close reads the journals one last time and sends what is left, waiting
// for the server until ctx is done; then it stops the sender. What was not
// delivered stays in the spool, if there is one, and is counted in
// Stats.Pending.
func (s *Sender) Close(ctx context.Context) Stats {
	s.mu.Lock()
	already := s.closing
	s.closing = true
	s.mu.Unlock()
	if !already {
		close(s.final)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		s.cancel()
		<-s.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Pending = len(s.queue)
	for _, w := range s.watches {
		st.Pending += unreadLines(w)
	}
	return st
}

// unreadLines counts the complete lines of w's journal past w.next, up to
// the journal's size bound.
func unreadLines(w *watch) int {
	b, err := regfile.ReadFile(w.path, journal.MaxSize)
	if err != nil || int64(len(b)) <= w.next {
		return 0
	}
	return bytes.Count(b[w.next:], []byte{'\n'})
}

func (s *Sender) loop() {
	defer close(s.done)
	defer s.cancel()
	backoff := time.Duration(0)
	final := false
	finalCh := s.final // nil once seen, so that a closed channel does not spin the loop
	for {
		s.readJournals()
		s.mu.Lock()
		var it *item
		if len(s.queue) > 0 {
			it = &s.queue[0]
		}
		s.mu.Unlock()
		if it == nil {
			if final {
				return
			}
			select {
			case <-s.wake:
			case <-time.After(s.o.Poll):
			case <-finalCh:
				final, finalCh = true, nil
			case <-s.ctx.Done():
				return
			}
			continue
		}
		ok, permanent, why := s.send(it.env)
		if s.ctx.Err() != nil {
			return
		}
		if ok || permanent {
			s.delivered(it, ok, why)
			backoff = 0
			continue
		}
		s.mu.Lock()
		s.stats.Retries++
		if !s.down {
			s.down = true
			s.o.Logf("post: %s: %s; retrying", s.o.URL, why)
		}
		s.mu.Unlock()
		backoff = min(max(backoff*2, s.o.MinBackoff), s.o.MaxBackoff)
		wait := backoff/2 + rand.N(backoff/2+1) // jitter: half to all of it
		select {
		case <-time.After(wait):
		case <-finalCh:
			final, finalCh = true, nil
		case <-s.ctx.Done():
			return
		}
	}
}

// delivered takes the queue's head off after the server took it (ok) or
// refused it for good.
func (s *Sender) delivered(it *item, ok bool, why string) {
	s.mu.Lock()
	if s.down {
		s.down = false
		s.o.Logf("post: %s: server back", s.o.URL)
	}
	if ok {
		s.stats.Sent++
	} else {
		s.stats.Rejected++
		s.o.Logf("post: %s refused %s: %s (kept on local storage only)", s.o.URL, it.env.ID, why)
	}
	head := s.queue[0]
	s.queue = s.queue[1:]
	s.mu.Unlock()
	if head.w != nil {
		s.mu.Lock()
		head.w.acked = head.end
		s.mu.Unlock()
		if s.o.Spool != "" {
			_ = atomicfile.Write(s.ackFile(head.w.name), 0o600, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, head.end)
				return err
			})
		}
	}
	if head.pending != "" {
		_ = os.Remove(head.pending)
	}
}

// readJournals queues the complete lines appended to the journals, up to
// the queue's bound.
func (s *Sender) readJournals() {
	s.mu.Lock()
	ws := append([]*watch(nil), s.watches...)
	room := s.o.Queue - len(s.queue)
	s.mu.Unlock()
	for _, w := range ws {
		if room <= 0 {
			return
		}
		items, skipped := s.readJournal(w, room)
		room -= len(items)
		s.mu.Lock()
		s.queue = append(s.queue, items...)
		s.stats.Skipped += skipped
		s.mu.Unlock()
	}
}

// readJournal reads up to n complete lines of w's journal from w.next.
func (s *Sender) readJournal(w *watch, n int) (items []item, skipped int) {
	f, err := regfile.Open(w.path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() <= w.next {
		if err == nil && st.Size() < w.next {
			// The journal was replaced by a shorter one: start over.
			w.next, w.acked = 0, 0
		}
		return nil, 0
	}
	if st.Size() > journal.MaxSize {
		return nil, 0
	}
	buf := make([]byte, min(st.Size()-w.next, int64(journal.MaxLine+1)*int64(n), journal.MaxSize))
	k, _ := f.ReadAt(buf, w.next)
	buf = buf[:k]
	for len(items) < n {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			if len(buf) > journal.MaxLine {
				// A line too long to be a record: skip to its end.
				w.next += int64(len(buf))
				skipped++
			}
			break
		}
		line := buf[:i]
		off := w.next
		w.next += int64(i + 1)
		buf = buf[i+1:]
		l := bytes.TrimSpace(line)
		if len(l) == 0 {
			continue
		}
		if len(l) > journal.MaxLine || !json.Valid(l) || l[0] != '{' {
			skipped++ // a write torn by a reset
			continue
		}
		sum := sha256.Sum256(l)
		items = append(items, item{
			env: Envelope{
				ID:   fmt.Sprintf("%s:%d:%s", w.name, off, hex.EncodeToString(sum[:8])),
				Kind: KindJournal, Journal: w.name, Offset: off, Source: s.o.Source,
				Record: append(json.RawMessage(nil), l...),
			},
			w: w, end: w.next,
		})
	}
	return items, skipped
}

// send makes one attempt; permanent says a failure is not worth retrying.
func (s *Sender) send(env Envelope) (ok, permanent bool, why string) {
	b, err := json.Marshal(env)
	if err != nil {
		return false, true, err.Error()
	}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.o.URL, bytes.NewReader(b))
	if err != nil {
		return false, true, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", env.ID)
	resp, err := s.client.Do(req)
	if err != nil {
		return false, false, err.Error()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return true, false, ""
	case c == http.StatusRequestTimeout || c == http.StatusTooEarly || c == http.StatusTooManyRequests:
		return false, false, resp.Status
	case c >= 400 && c < 500:
		return false, true, resp.Status
	}
	return false, false, resp.Status
}
