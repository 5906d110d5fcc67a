package post

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Receiver is the server side: an http.Handler that takes the Sender's
// POSTs and keeps each record once, by its id. It is what the tests run,
// and the smallest server a lab needs (put it behind its own storage with
// OnRecord).
type Receiver struct {
	// Max bounds the records kept (default 100000): a sender gone wrong
	// must not fill the server's memory. Past it, POSTs get 507.
	Max int
	// OnRecord, when set, is called once per new record, before the 2xx
	// is sent; an error makes the POST fail with 500 (and be retried).
	OnRecord func(Envelope) error

	mu      sync.Mutex
	seen    map[string]bool
	records []Envelope
	dups    int
}

// ParseEnvelope decodes and checks one POST body.
func ParseEnvelope(b []byte) (Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("not a post envelope: %w", err)
	}
	switch {
	case e.ID == "" || len(e.ID) > 256:
		return e, errors.New("envelope: id missing or longer than 256 bytes")
	case e.Kind == KindJournal && (e.Journal == "" || len(e.Record) == 0 || e.Offset < 0):
		return e, fmt.Errorf("envelope %q: a journal record needs journal, offset and record", e.ID)
	case e.Kind == KindResults && len(e.Document) == 0:
		return e, fmt.Errorf("envelope %q: a results record needs its document", e.ID)
	case e.Kind != KindJournal && e.Kind != KindResults:
		return e, fmt.Errorf("envelope %q: unknown kind %q", e.ID, e.Kind)
	}
	return e, nil
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if ct := req.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		http.Error(w, "want application/json", http.StatusUnsupportedMediaType)
		return
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	e, err := ParseEnvelope(b)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[e.ID] {
		r.dups++
		w.WriteHeader(http.StatusOK) // already have it: acknowledged again
		return
	}
	limit := r.Max
	if limit <= 0 {
		limit = 100000
	}
	if len(r.records) >= limit {
		http.Error(w, "receiver full", http.StatusInsufficientStorage)
		return
	}
	if r.OnRecord != nil {
		if err := r.OnRecord(e); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[e.ID] = true
	r.records = append(r.records, e)
	w.WriteHeader(http.StatusCreated)
}

// Records returns the records received, each once, in arrival order.
func (r *Receiver) Records() []Envelope {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Envelope(nil), r.records...)
}

// Duplicates is how many POSTs repeated a record already received.
func (r *Receiver) Duplicates() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dups
}
