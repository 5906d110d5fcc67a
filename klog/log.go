package klog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Log is a kernel log that can be read record by record, any number of
// times, without being held in memory: a file is re-opened and parsed on
// each pass, so a reader's memory does not grow with the log's size. A log
// already in memory (read live from /dev/kmsg) is a Log too.
type Log struct {
	open func() (io.ReadCloser, error)
	recs []Record
}

// LogOf returns the Log of records already in memory.
func LogOf(recs []Record) *Log { return &Log{recs: recs} }

// LogFile returns the Log of the kernel-log text in the named file. The
// file is read when the log is, once per pass.
func LogFile(name string) *Log {
	return &Log{open: func() (io.ReadCloser, error) { return os.Open(name) }}
}

// LogBytes returns the Log of kernel-log text held in b.
func LogBytes(b []byte) *Log {
	return &Log{open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }}
}

// errStop ends a pass early.
var errStop = errors.New("stop")

// Each calls fn with every record of the log in order (identical consecutive
// records folded into one, as Parse does) until fn returns false. It returns
// the error reading the log, if any.
func (l *Log) Each(fn func(Record) bool) error {
	if l == nil {
		return nil
	}
	if l.open == nil {
		for _, r := range l.recs {
			if !fn(r) {
				return nil
			}
		}
		return nil
	}
	f, err := l.open()
	if err != nil {
		return fmt.Errorf("klog: %w", err)
	}
	defer f.Close()
	return scan(f, true, fn)
}

// EachLine is Each without folding: fn sees every message of a log read
// from text once, with its own time. Records of a log already in memory
// come as they are.
func (l *Log) EachLine(fn func(Record) bool) error {
	if l == nil || l.open == nil {
		return l.Each(fn)
	}
	f, err := l.open()
	if err != nil {
		return fmt.Errorf("klog: %w", err)
	}
	defer f.Close()
	return scan(f, false, fn)
}

// EachBoth reads the log once for two readers, so that they pay for one
// parse: line sees every record as EachLine does, folded every record as
// Each does, in log order (a folded record comes once the next different
// one has been read). It stops when either returns false.
func (l *Log) EachBoth(line, folded func(Record) bool) error {
	if l == nil {
		return nil
	}
	if l.open == nil {
		for _, r := range l.recs {
			if !line(r) || !folded(r) {
				return nil
			}
		}
		return nil
	}
	f, err := l.open()
	if err != nil {
		return fmt.Errorf("klog: %w", err)
	}
	defer f.Close()
	return scanBoth(f, line, folded)
}

// Records returns every record of the log. It holds the whole log in
// memory: readers of logs of any size use Each.
func (l *Log) Records() ([]Record, error) {
	if l == nil {
		return nil, nil
	}
	if l.open == nil {
		return l.recs, nil
	}
	var out []Record
	err := l.Each(func(r Record) bool { out = append(out, r); return true })
	return out, err
}

// Empty reports whether the log holds no record (or cannot be read).
func (l *Log) Empty() bool {
	empty := true
	_ = l.Each(func(Record) bool { empty = false; return false })
	return empty
}

// Recognised reports whether any line of the log carries a kernel-log
// prefix (see Recognised); it stops at the first that does.
func (l *Log) Recognised() (bool, error) {
	if l == nil {
		return false, nil
	}
	if l.open == nil {
		return len(l.recs) > 0, nil
	}
	f, err := l.open()
	if err != nil {
		return false, fmt.Errorf("klog: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 && recognisedLine(line) {
			return true, nil
		}
		switch {
		case err == bufio.ErrBufferFull:
			// A very long line: its start has been judged; skip the rest.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			if err == io.EOF {
				return false, nil
			}
		case err == io.EOF:
			return false, nil
		case err != nil:
			return false, fmt.Errorf("klog: %w", err)
		}
	}
}

// envLookahead bounds how far Env reads for the identity lines: they come
// in the first few hundred records of a boot ("Hypervisor detected" a few
// records after the DMI line).
const (
	envLookahead    = 20000
	envAfterDMIRecs = 2000
)

// Env describes the machine from the start of its log, as EnvFromLog does
// for records in memory, reading only as far as the identity lines: the
// "Linux version" and "DMI:" lines and, on a guest, "Hypervisor detected"
// within envAfterDMIRecs records of the DMI line (the kernel prints it a
// few lines later); at most envLookahead records in all.
func (l *Log) Env() (Env, error) {
	var head []Record
	n, afterDMI := 0, -1
	err := l.EachLine(func(r Record) bool {
		n++
		if identityLine(r.Text) {
			r.Text = strings.Clone(r.Text) // not the chunk it is in (see lineReader)
			head = append(head, r)
		}
		if afterDMI < 0 && (strings.HasPrefix(r.Text, "DMI: ") || r.Text == noDMI) {
			afterDMI = 0
		} else if afterDMI >= 0 {
			afterDMI++
		}
		if strings.HasPrefix(r.Text, "Hypervisor detected: ") && afterDMI >= 0 {
			return false
		}
		return n < envLookahead && afterDMI < envAfterDMIRecs
	})
	return EnvFromLog(head), err
}

func identityLine(text string) bool {
	_, cmd := cmdLine(text)
	return cmd || strings.HasPrefix(text, "Linux version ") || strings.HasPrefix(text, "DMI: ") || text == noDMI ||
		strings.HasPrefix(text, "Hypervisor detected: ")
}

// Scan parses kernel-log text as Parse does and calls fn with each record
// (identical consecutive records folded) until fn returns false, holding
// only the record being folded: memory does not grow with the log. It
// parses up to a few thousand records ahead of fn (see parser), and does
// not read r once it has returned: r is read on another goroutine, so a
// reader that blocks delays Scan's return until its Read does.
func Scan(r io.Reader, fn func(Record) bool) error { return scan(r, true, fn) }

func scan(r io.Reader, fold bool, fn func(Record) bool) error {
	if fold {
		return scanBoth(r, nil, fn)
	}
	return scanBoth(r, fn, nil)
}

// scanBoth parses kernel-log text once for two readers: line (if not nil)
// sees every record, folded (if not nil) the records with identical
// consecutive ones folded into one. It stops when either returns false.
func scanBoth(r io.Reader, line, folded func(Record) bool) error {
	var pending Record
	have := false
	stopped := false
	emit := func(rec Record) {
		if line != nil && !line(rec) {
			stopped = true
			return
		}
		if folded == nil {
			return
		}
		if have {
			if pending.Text == rec.Text && pending.Level == rec.Level && pending.Facility == rec.Facility {
				pending.Count += rec.Count
				return
			}
			if !folded(pending) {
				stopped = true
				return
			}
		}
		pending, have = rec, true
	}
	// The first batchRecords records are parsed here: a short log (an
	// empty one, a suspend cycle's) is done before a parser goroutine
	// would have started, which cost an empty log 0.4 ms.
	rr := recordReader{lr: newLineReader(r)}
	ended := false
	for n := 0; n < batchRecords && !stopped; n++ {
		rec, ok := rr.next()
		if !ok {
			if rr.lr.err != nil {
				return fmt.Errorf("klog: %w", rr.lr.err)
			}
			ended = true
			break
		}
		emit(rec)
	}
	if !stopped && !ended {
		p := parseAhead(&rr)
		defer p.stop()
		for !stopped {
			batch, ok := <-p.out
			if !ok {
				break
			}
			for _, rec := range batch {
				emit(rec)
				if stopped {
					break
				}
			}
			p.recycle(batch)
		}
		// A read error matters only to a reader that got to the end: one
		// that stopped before it never needed what the parser read ahead.
		if err := p.stop(); err != nil && !stopped {
			return fmt.Errorf("klog: %w", err)
		}
	}
	if have && !stopped {
		folded(pending)
	}
	return nil
}

// A parser parses kernel-log text into records on a goroutine of its own,
// a few batches ahead of the reader, so that on a machine with two or
// more CPUs reading and parsing a long log run beside what the checks do
// with each record; the first batchRecords records are parsed on the
// reader's goroutine, so a short log starts no goroutine. Measured (issue
// 24, 2026-12-06, two-CPU VM, the two binaries run alternately, medians
// of 20-100 runs): `fwcheck klog` on the corpus's boot logs concatenated
// to 35 MB went from 225 to 152 ms wall (156 to 230 MB/s) for 230 to
// 251 ms of CPU; on the 1.8 MB once, 22.5 to 20.8 ms; an empty log 5.1
// and 4.8 ms (the same within the noise); with GOMAXPROCS=1 the 35 MB
// took 281 and 290 ms, the batches costing two goroutine switches per
// batchRecords records.
//
// Records hold no memory of the parser's: their texts are substrings of
// chunks the line reader never writes again (see lineReader), so a batch
// slice is reused once the reader is done with it. At most cap(out)+2
// batches exist, whatever the log's size. The parser stops when the
// reader does: stop waits for it to finish, so no read of r happens after
// scanBoth returns, and a panic while parsing is raised again on the
// reader's goroutine, where the check framework recovers it.
type parser struct {
	out   chan []Record
	free  chan []Record
	done  chan struct{}
	ended chan struct{}
	err   error // read error, valid once ended is closed
	panic any   // recovered panic, likewise
	once  bool
}

// batchRecords is how many records a batch holds: enough that the
// hand-overs are noise (256 cost 3 % more CPU than 1024 on the 35 MB),
// few enough that a reader that stops after the first records (Env, at
// most envLookahead) wastes little parsing, and that the batches in
// flight stay under 400 KB.
const batchRecords = 1024

func parseAhead(rr *recordReader) *parser {
	p := &parser{
		out:   make(chan []Record, 2),
		free:  make(chan []Record, 4),
		done:  make(chan struct{}),
		ended: make(chan struct{}),
	}
	go p.run(rr)
	return p
}

func (p *parser) run(rr *recordReader) {
	defer close(p.ended)
	defer close(p.out)
	defer func() {
		if v := recover(); v != nil {
			p.panic = v
		}
	}()
	batch := make([]Record, 0, batchRecords)
	for {
		rec, ok := rr.next()
		if !ok {
			break
		}
		batch = append(batch, rec)
		if len(batch) == batchRecords {
			select {
			case p.out <- batch:
			case <-p.done:
				return
			}
			select {
			case batch = <-p.free:
			default:
				batch = make([]Record, 0, batchRecords)
			}
		}
	}
	p.err = rr.lr.err
	if len(batch) > 0 {
		select {
		case p.out <- batch:
		case <-p.done:
		}
	}
}

// recordReader turns the lines of a lineReader into records.
type recordReader struct {
	lr       *lineReader
	prevKmsg bool // the last line was a /dev/kmsg record
}

// next returns the next record, or false at the end of the input.
func (rr *recordReader) next() (Record, bool) {
	for {
		b, cut, ok := rr.lr.next()
		if !ok {
			return Record{}, false
		}
		if rr.prevKmsg && len(b) > 0 && b[0] == ' ' {
			continue // kmsg dictionary line (" SUBSYSTEM=pci")
		}
		rec, ok, kmsg := parseLine(b)
		rr.prevKmsg = kmsg
		if ok {
			rec.Truncated = cut
			return rec, true
		}
	}
}

// recycle hands a batch the reader is done with back to the parser.
func (p *parser) recycle(batch []Record) {
	select {
	case p.free <- batch[:0]:
	default:
	}
}

// stop ends the parser, waits for its goroutine, and returns the read
// error that ended the input, if any. A panic while parsing is raised
// again here. Only the first call does anything.
func (p *parser) stop() error {
	if p.once {
		return nil
	}
	p.once = true
	close(p.done)
	<-p.ended
	if p.panic != nil {
		panic(p.panic)
	}
	return p.err
}
