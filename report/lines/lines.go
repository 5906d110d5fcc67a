// Package lines owns fwcheck's console line format: one short,
// self-contained line per result, printed on the serial console as each
// check and each suspend/resume or reboot cycle ends, framed by a start and
// an end line and kept alive by heartbeats, so that a lab's console monitor
// (LAVA's monitors test action, a labgrid expect, grep) reads the run as it
// goes without waiting for the JSON document. docs/console-lines.md is the
// grammar; it is stable (version 1).
//
// A line is written in one write call, and ends with a CRC-32 of its own
// text, so that a line a kernel message cut in two or a transfer damaged is
// recognised as damaged and never read as another result. Every line of a
// boot carries the boot's next sequence number: a reader sees how many lines
// it missed. The format is hand-written: it is a few fixed token sequences,
// and TAP, JUnit or JSON lines would either not survive interleaving on a
// console or not fit LAVA's one-regular-expression pattern reader.
package lines

import (
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// Version is the format's version, printed in the start line.
const Version = "v1"

// The kinds of line, which are also each line's first word.
const (
	Start = "FWCHECK-START"
	Case  = "FWCHECK-CASE"
	Beat  = "FWCHECK-BEAT"
	End   = "FWCHECK-END"
)

// Results a case line carries: LAVA's own result words.
const (
	Pass    = "pass"
	Fail    = "fail"
	Skip    = "skip"
	Unknown = "unknown"
)

// End states.
const (
	// Done: the run finished in this boot and its verdict is known.
	Done = "done"
	// Reset: the run resets the machine (a reboot cycle) and goes on in
	// the next boot.
	Reset = "reset"
)

// MaxLen bounds a line's length (without its line end): LAVA's pattern
// reader and a UART's buffer both like short lines.
const MaxLen = 160

// Line is one parsed line. Which fields are set depends on Kind.
type Line struct {
	Kind string
	Seq  int

	// Start: the boot's identity and fwcheck's version.
	Boot, Fwcheck string

	// Case: test_case_id, result, and a measurement with its units, or a
	// note saying why there is none ("not-measured").
	ID, Result         string
	Measurement, Units string
	Note               string

	// Beat: seconds since the kernel started, and the check running.
	At    int
	Check string

	// End: the state, how many case lines the boot printed, the verdict
	// (pass, fail, nothing-checked; none on a reset) and how many case
	// lines were left out to bound the log.
	State   string
	Cases   int
	Verdict string
	Dropped int
}

// token characters: what an ID, a version, a note may hold.
func tokenOK(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == '+') {
			return false
		}
	}
	return true
}

// Token turns s into a token: characters outside the token set become '_',
// and it is cut to max bytes; an empty s is "-".
func Token(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < max; i++ {
		c := s[i]
		if tokenOK(string(c), 1) {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// unitsOK: one to eight lowercase letters (ms, s, cycles).
func unitsOK(s string) bool {
	if s == "" || len(s) > 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func measurementOK(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
	}
	whole, frac, dot := strings.Cut(s, ".")
	return digits(whole) && (!dot || digits(frac))
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Token length limits.
const (
	maxID    = 64
	maxToken = 40
)

// body is the line without its checksum; it validates every field.
func (l Line) body() (string, error) {
	var f []string
	switch l.Kind {
	case Start:
		if !tokenOK(l.Boot, maxToken) || !tokenOK(l.Fwcheck, maxToken) {
			return "", fmt.Errorf("start line: boot %q or fwcheck %q is not a token", l.Boot, l.Fwcheck)
		}
		f = []string{Version, "boot=" + l.Boot, "fwcheck=" + l.Fwcheck}
	case Case:
		if !tokenOK(l.ID, maxID) {
			return "", fmt.Errorf("case line: id %q is not a token of at most %d characters", l.ID, maxID)
		}
		switch l.Result {
		case Pass, Fail, Skip, Unknown:
		default:
			return "", fmt.Errorf("case line: result %q is not pass, fail, skip or unknown", l.Result)
		}
		f = []string{l.ID, l.Result}
		if l.Measurement != "" || l.Units != "" {
			if !measurementOK(l.Measurement) || !unitsOK(l.Units) {
				return "", fmt.Errorf("case line: measurement %q %q is not a number and a unit", l.Measurement, l.Units)
			}
			f = append(f, l.Measurement, l.Units)
		}
		if l.Note != "" {
			if !tokenOK(l.Note, maxToken) {
				return "", fmt.Errorf("case line: note %q is not a token", l.Note)
			}
			f = append(f, "note="+l.Note)
		}
	case Beat:
		if l.At < 0 || !tokenOK(l.Check, maxID) {
			return "", fmt.Errorf("beat line: at %d or check %q is not valid", l.At, l.Check)
		}
		f = []string{"at=" + strconv.Itoa(l.At) + "s", "check=" + l.Check}
	case End:
		switch l.State {
		case Done, Reset:
		default:
			return "", fmt.Errorf("end line: state %q is not done or reset", l.State)
		}
		if l.Cases < 0 || l.Dropped < 0 || !tokenOK(l.Verdict, maxToken) {
			return "", fmt.Errorf("end line: cases %d, dropped %d or verdict %q is not valid", l.Cases, l.Dropped, l.Verdict)
		}
		f = []string{l.State, "cases=" + strconv.Itoa(l.Cases), "verdict=" + l.Verdict, "dropped=" + strconv.Itoa(l.Dropped)}
	default:
		return "", fmt.Errorf("unknown line kind %q", l.Kind)
	}
	if l.Seq < 0 {
		return "", fmt.Errorf("negative sequence number %d", l.Seq)
	}
	return l.Kind + " " + strconv.Itoa(l.Seq) + " " + strings.Join(f, " "), nil
}

// Format returns the line's text, without a line end.
func (l Line) Format() (string, error) {
	b, err := l.body()
	if err != nil {
		return "", err
	}
	s := b + " ~" + checksum(b)
	if len(s) > MaxLen {
		return "", fmt.Errorf("line of %d bytes is longer than %d", len(s), MaxLen)
	}
	return s, nil
}

func checksum(body string) string { return fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(body))) }

// Parse errors.
var (
	// ErrNotLine: the text holds no fwcheck line (most console lines).
	ErrNotLine = errors.New("not a fwcheck line")
	// ErrDamaged: the text starts like a fwcheck line but does not parse
	// or its checksum does not match: cut by a kernel message, or garbled.
	ErrDamaged = errors.New("damaged fwcheck line")
)

// Parse reads one console line. Text before the line's first word (a
// prompt, a kernel message the line was printed after without a line
// end) and trailing carriage returns and spaces are ignored. It returns
// ErrNotLine when s holds no fwcheck line, and an error wrapping
// ErrDamaged when it holds one that does not check out.
func Parse(s string) (Line, error) {
	s = strings.TrimRight(s, "\r\n ")
	i := strings.Index(s, "FWCHECK-")
	if i < 0 {
		return Line{}, ErrNotLine
	}
	s = s[i:]
	kind, _, _ := strings.Cut(s, " ")
	switch kind {
	case Start, Case, Beat, End:
	default:
		return Line{}, ErrNotLine
	}
	damaged := func(format string, args ...any) (Line, error) {
		return Line{}, fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, args...))
	}
	if len(s) > MaxLen {
		return damaged("%d bytes, longer than %d", len(s), MaxLen)
	}
	body, sum, ok := strings.Cut(s, " ~")
	if !ok || len(sum) != 8 {
		return damaged("no checksum")
	}
	if checksum(body) != sum {
		return damaged("checksum %s does not match the text's %s", sum, checksum(body))
	}
	f := strings.Split(body, " ")
	if len(f) < 3 || !digits(f[1]) || len(f[1]) > 9 {
		return damaged("no sequence number")
	}
	l := Line{Kind: kind}
	l.Seq, _ = strconv.Atoi(f[1])
	f = f[2:]
	key := func(tok, name string) (string, bool) { return strings.CutPrefix(tok, name+"=") }
	num := func(s string) (int, bool) {
		if !digits(s) || len(s) > 9 {
			return 0, false
		}
		n, _ := strconv.Atoi(s)
		return n, true
	}
	bad := false
	switch kind {
	case Start:
		var ok1, ok2 bool
		if len(f) != 3 || f[0] != Version {
			return damaged("start line of another version or shape: %q", body)
		}
		l.Boot, ok1 = key(f[1], "boot")
		l.Fwcheck, ok2 = key(f[2], "fwcheck")
		bad = !ok1 || !ok2
	case Case:
		if len(f) < 2 || len(f) > 5 {
			return damaged("case line with %d fields", len(f))
		}
		l.ID, l.Result = f[0], f[1]
		rest := f[2:]
		if len(rest) > 0 {
			if n, ok := key(rest[len(rest)-1], "note"); ok {
				l.Note, rest = n, rest[:len(rest)-1]
			}
		}
		switch len(rest) {
		case 0:
		case 2:
			l.Measurement, l.Units = rest[0], rest[1]
		default:
			bad = true
		}
	case Beat:
		if len(f) != 2 {
			return damaged("beat line with %d fields", len(f))
		}
		at, ok1 := key(f[0], "at")
		at, ok2 := strings.CutSuffix(at, "s")
		var ok3, ok4 bool
		l.At, ok3 = num(at)
		l.Check, ok4 = key(f[1], "check")
		bad = !ok1 || !ok2 || !ok3 || !ok4
	case End:
		if len(f) != 4 {
			return damaged("end line with %d fields", len(f))
		}
		l.State = f[0]
		c, ok1 := key(f[1], "cases")
		v, ok2 := key(f[2], "verdict")
		d, ok3 := key(f[3], "dropped")
		var ok4, ok5 bool
		l.Cases, ok4 = num(c)
		l.Dropped, ok5 = num(d)
		l.Verdict = v
		bad = !ok1 || !ok2 || !ok3 || !ok4 || !ok5
	}
	if bad {
		return damaged("malformed %s line %q", kind, body)
	}
	// What was read must be what Format writes: one spelling per line.
	if again, err := l.body(); err != nil || again != body {
		return damaged("%q does not follow the grammar", body)
	}
	return l, nil
}

// Patterns for LAVA's monitors test action (and any other regular
// expression reader: they are in the syntax Python's re and Go's regexp
// share). MonitorStart matches the start line, MonitorEnd the end line of
// a boot that finished the run (not one that resets for a reboot cycle),
// and MonitorPattern a whole case line with its named groups test_case_id,
// result, measurement and units (units is empty, never absent, when the
// line has no measurement: LAVA stores it as a string). The character
// classes hold no line end and the pattern ends with the checksum, so a
// line a kernel message cut in two matches nothing.
const (
	MonitorStart   = `FWCHECK-START [0-9]+ v1 `
	MonitorEnd     = `FWCHECK-END [0-9]+ done `
	MonitorPattern = `FWCHECK-CASE [0-9]+ (?P<test_case_id>[A-Za-z0-9._+-]+) (?P<result>pass|fail|skip|unknown) (?:(?P<measurement>-?[0-9]+(?:\.[0-9]+)?) )?(?P<units>[a-z]*) ?(?:note=[A-Za-z0-9._+-]+ )?~[0-9a-f]{8}`
)
