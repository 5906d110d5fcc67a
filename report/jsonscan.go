package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// scanner walks a JSON text value by value without decoding what it
// passes over: the reader of results documents navigates the document's
// structure with it, hands each small value (a finding, a cycle record,
// the machine's identity) to encoding/json, and skips the rest at the
// cost of scanning its bytes. encoding/json's own Decoder.Token was
// weighed and dropped: it decodes every token it passes (a 248 MiB list
// of numbers took 55 s to skip under load) and Decode buffers a whole
// value, however large. What is skipped is checked for balanced brackets
// and closed strings only; what is decoded is checked by encoding/json.
type scanner struct {
	r   *bufio.Reader
	buf []byte // the value being kept
}

// maxValue bounds one value the reader decodes (a finding, a cycle
// record, the machine identity): real ones are a few kilobytes, the
// largest a kernel-log line of 1 MiB in a message.
const maxValue = 16 << 20

var errValueTooLarge = fmt.Errorf("a value larger than %d MiB where a finding or record stands", maxValue>>20)

func newScanner(r io.Reader) *scanner { return &scanner{r: bufio.NewReaderSize(r, 64<<10)} }

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// eof turns the end of the input inside a value into an error.
func eof(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// peek returns the next byte that is not white space, without consuming
// it.
func (s *scanner) peek() (byte, error) {
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return 0, eof(err)
		}
		if !isSpace(b) {
			return b, s.r.UnreadByte()
		}
	}
}

// expect consumes the next byte that is not white space, which must be c.
func (s *scanner) expect(c byte) error {
	b, err := s.peek()
	if err != nil {
		return err
	}
	if b != c {
		return fmt.Errorf("want %q, found %q", c, b)
	}
	_, err = s.r.ReadByte()
	return err
}

func (s *scanner) keep(b byte) error {
	if len(s.buf) >= maxValue {
		return errValueTooLarge
	}
	s.buf = append(s.buf, b)
	return nil
}

// value scans one value, appending its bytes to s.buf when keep is set.
func (s *scanner) value(keep bool) error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch c {
	case '"':
		s.r.ReadByte()
		if keep {
			s.buf = append(s.buf, c)
		}
		return s.stringBody(keep)
	case '{', '[':
		depth := 0
		for {
			b, err := s.r.ReadByte()
			if err != nil {
				return eof(err)
			}
			if keep {
				if err := s.keep(b); err != nil {
					return err
				}
			}
			switch b {
			case '"':
				if err := s.stringBody(keep); err != nil {
					return err
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return nil
				}
			}
		}
	}
	// a number or a literal: up to the next delimiter
	n := 0
	for {
		b, err := s.r.ReadByte()
		if err == io.EOF && n > 0 {
			return nil
		}
		if err != nil {
			return eof(err)
		}
		if b == ',' || b == '}' || b == ']' || b == ':' || isSpace(b) {
			if n == 0 {
				return fmt.Errorf("want a value, found %q", b)
			}
			return s.r.UnreadByte()
		}
		n++
		if keep {
			if err := s.keep(b); err != nil {
				return err
			}
		}
	}
}

// stringBody scans a string after its opening quote, through the closing
// one.
func (s *scanner) stringBody(keep bool) error {
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return eof(err)
		}
		if keep {
			if err := s.keep(b); err != nil {
				return err
			}
		}
		switch b {
		case '"':
			return nil
		case '\\':
			b, err := s.r.ReadByte()
			if err != nil {
				return eof(err)
			}
			if keep {
				if err := s.keep(b); err != nil {
					return err
				}
			}
		}
	}
}

// decode decodes the next value into v with encoding/json.
func (s *scanner) decode(v any) error {
	s.buf = s.buf[:0]
	if err := s.value(true); err != nil {
		return err
	}
	err := json.Unmarshal(s.buf, v)
	if cap(s.buf) > 1<<20 {
		s.buf = nil // one large value does not stay for the rest
	}
	return err
}

// skip scans past the next value.
func (s *scanner) skip() error { return s.value(false) }

// begin consumes the opening delimiter of an object ('{') or array ('[');
// ok is false for null, which stands for an empty one.
func (s *scanner) begin(open byte) (ok bool, err error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	if c == 'n' {
		var v any
		if err := s.decode(&v); err != nil {
			return false, err
		}
		if v != nil {
			return false, errors.New("want null")
		}
		return false, nil
	}
	return true, s.expect(open)
}

// object reads an object (or null), calling fn with each key: fn reads
// the key's value.
func (s *scanner) object(fn func(key string) error) error {
	return s.elements('{', '}', func() error {
		var k string
		if err := s.decode(&k); err != nil {
			return fmt.Errorf("want a key: %w", err)
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		return fn(k)
	})
}

// array reads an array (or null), calling fn for each element: fn reads
// it.
func (s *scanner) array(fn func() error) error { return s.elements('[', ']', fn) }

// elements reads a comma-separated container opened by open and closed by
// end (or null), calling fn to read each element.
func (s *scanner) elements(open, end byte, fn func() error) error {
	ok, err := s.begin(open)
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		c, err := s.peek()
		if err != nil {
			return err
		}
		if c == end {
			_, err := s.r.ReadByte()
			return err
		}
		if !first {
			if err := s.expect(','); err != nil {
				return err
			}
		}
		if err := fn(); err != nil {
			return err
		}
	}
}
