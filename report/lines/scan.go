package lines

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Boot is what one boot printed: its start line, its case lines in order,
// how many beat lines, and its end line (nil when the boot never got there:
// a hang, a power cut, a console cut off).
type Boot struct {
	Start Line
	Cases []Line
	Beats int
	End   *Line
	// Missing counts sequence numbers that never arrived whole: lines
	// lost to interleaving or to a damaged transfer.
	Missing int
}

// Complete reports whether the boot printed its end line and every line
// before it arrived.
func (b *Boot) Complete() bool {
	return b.End != nil && b.Missing == 0 && b.End.Cases == len(b.Cases)
}

// Transcript is a console log read for fwcheck lines.
type Transcript struct {
	Boots []*Boot
	// Damaged counts lines that started like fwcheck lines and did not
	// check out; Stray counts whole lines outside a start and end pair.
	Damaged, Stray int
	// Truncated is set when the log held more than the reader keeps
	// (MaxBoots boots, or a boot past MaxCases case lines).
	Truncated bool
}

// Bounds on what Scan keeps, so that a hostile log cannot exhaust memory.
const (
	MaxBoots   = 2000
	maxLineLen = 64 << 10
)

// Scan reads a console log (raw bytes, carriage returns, kernel messages
// and all) and returns its fwcheck lines grouped by boot. A line longer
// than 64 KiB is skipped. Only a read error is returned as an error.
func Scan(r io.Reader) (*Transcript, error) {
	t := &Transcript{}
	br := bufio.NewReaderSize(r, 4096)
	var cur *Boot
	next := 0
	for {
		raw, err := readLine(br)
		if len(raw) > 0 {
			for _, seg := range bytes.Split(raw, []byte("\r")) {
				cur, next = t.add(cur, next, seg)
			}
		}
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return t, fmt.Errorf("reading the console log: %w", err)
		}
	}
}

// readLine returns the next line without its "\n"; a line past
// maxLineLen is returned empty (skipped).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > maxLineLen {
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}

func (t *Transcript) add(cur *Boot, next int, seg []byte) (*Boot, int) {
	if !bytes.Contains(seg, []byte("FWCHECK-")) {
		return cur, next
	}
	l, err := Parse(string(seg))
	switch {
	case errors.Is(err, ErrNotLine):
		return cur, next
	case err != nil:
		t.Damaged++
		return cur, next
	}
	if l.Kind == Start {
		if len(t.Boots) >= MaxBoots {
			t.Truncated = true
			return nil, 0
		}
		b := &Boot{Start: l}
		t.Boots = append(t.Boots, b)
		return b, l.Seq + 1
	}
	if cur == nil || cur.End != nil {
		t.Stray++
		return cur, next
	}
	if l.Seq < next {
		// A repeat or an older line: not this boot's order.
		t.Stray++
		return cur, next
	}
	cur.Missing += l.Seq - next
	next = l.Seq + 1
	switch l.Kind {
	case Case:
		if len(cur.Cases) >= MaxCases {
			t.Truncated = true
			break
		}
		cur.Cases = append(cur.Cases, l)
	case Beat:
		cur.Beats++
	case End:
		e := l
		cur.End = &e
	}
	return cur, next
}
