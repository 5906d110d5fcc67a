// Package klog reads the kernel log (live from /dev/kmsg or syslog(2), or
// from dmesg, dmesg -r, dmesg -x, kmsg-style and journalctl -k text) into
// records, writes records back as text, detects oops/BUG/WARNING traces, and
// matches records against an advice database (our own, db/*.json compiled
// ahead into db_generated.go, with its prefilter automaton in
// ac_generated.bin, by go generate, or an fwts-format klog.json given by
// the user). It knows nothing of checks or reports. See Matcher for
// where start-up time went and why the database is generated.
package klog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Level is a syslog priority level (0 emerg … 7 debug); -1 when unknown.
type Level int

// Syslog levels.
const (
	Emerg Level = iota
	Alert
	Crit
	Err
	Warning
	Notice
	Info
	Debug
	// Unknown is the level of a record whose source carried none.
	Unknown Level = -1
)

var levelNames = [...]string{"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"}

// String returns the dmesg name of the level ("err", "warn"…) or "unknown".
func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "unknown"
}

// Record is one kernel log message.
type Record struct {
	// Level is the priority, or Unknown.
	Level Level
	// Facility is the syslog facility (0 for kernel messages).
	Facility int
	// Time is the time since boot, or -1 when the source had none.
	Time time.Duration
	// Seq is the kmsg sequence number, or -1.
	Seq int64
	// Text is the message text without timestamp or priority prefix.
	Text string
	// Count is how many identical consecutive records this one stands for.
	Count int
	// Truncated is how many bytes of the line were cut off because it was
	// longer than MaxLine (0 for a whole line). Text holds the rest.
	Truncated int64
	// Dropped, on the last record only, is how many lines after it were
	// not read because the log held more than MaxRecords records.
	Dropped int64
}

// Stamp returns the record's time as dmesg prints it ("12.345678"), or ""
// when it has none.
func (r Record) Stamp() string {
	if r.Time < 0 {
		return ""
	}
	us := r.Time / time.Microsecond
	return fmt.Sprintf("%d.%06d", us/1e6, us%1e6)
}

// Parse reads kernel log text in any of the formats dmesg and journalctl
// write: plain dmesg with or without [timestamps], dmesg -r and kmsg-style
// "<N>" priority prefixes, dmesg -x "kern  :err   : " prefixes, dmesg -T
// and --time-format=iso wall-clock prefixes (dropped: records then have no
// time since boot), the raw /dev/kmsg record format
// ("6,123,456789,-;text"), journalctl -k output and syslog kern.log files.
// Terminal escape sequences and stray control characters (serial console
// captures) are dropped; "\xNN" escapes in the text are decoded. Identical
// consecutive records are folded into one with a count.
func Parse(r io.Reader) ([]Record, error) {
	var out []Record
	lr := newLineReader(r)
	prevKmsg := false
	var dropped int64
	for {
		b, cut, ok := lr.next()
		if !ok {
			break
		}
		line := b
		if prevKmsg && strings.HasPrefix(line, " ") {
			continue // kmsg dictionary line (" SUBSYSTEM=pci")
		}
		if len(out) >= MaxRecords {
			dropped++
			continue
		}
		rec, ok, kmsg := parseLine(line)
		prevKmsg = kmsg
		if !ok {
			continue
		}
		rec.Truncated = cut
		out = appendFold(out, rec)
	}
	markDropped(out, dropped)
	if lr.err != nil {
		return out, fmt.Errorf("klog: %w", lr.err)
	}
	return out, nil
}

// MaxRecords bounds the records read from one log: about 10 MB of kernel
// log text, some 40 times the default log buffer (CONFIG_LOG_BUF_SHIFT=18,
// 256 KiB) and a third of the largest (32 MiB). A file of millions of
// lines would otherwise cost gigabytes and seconds in every log check. The
// lines past it are counted (Record.Dropped), not read.
const MaxRecords = 100_000

func markDropped(out []Record, dropped int64) {
	if dropped > 0 && len(out) > 0 {
		out[len(out)-1].Dropped = dropped
	}
}

// MaxLine is the longest kernel-log line read whole. The kernel itself
// writes records of at most a few kilobytes; a longer line is cut to
// MaxLine bytes (Record.Truncated says how much went) and the lines after
// it are read as usual, so one hostile line neither costs unbounded memory
// nor loses the rest of the log.
const MaxLine = 1 << 20

// lineReader reads lines of any length, keeping at most MaxLine bytes of
// each. Lines are strings into chunks of the input that are never written
// again, so a record's text is a substring of its chunk: no allocation or
// copy per line.
//
// Why (issue 24): converting each line to its own string, after copying
// it out of a bufio.Reader, was an allocation and two copies per line,
// 29,000 allocations for the corpus's 1.8 MB of boot logs, and the
// garbage collector's work that came with them. A retained text keeps
// its chunk (at most chunkSize bytes, or a long line's) alive: readers
// that keep a few texts of a long log (crash reports, the machine's
// identity) clone them.
type lineReader struct {
	r   io.Reader
	buf []byte // the current chunk; buf[pos:] is not returned yet
	pos int
	// seen is how far past pos buf is known to hold no newline.
	seen int
	eof  bool
	err  error // the read error that ended the input, if not io.EOF
	// size is the next chunk's size: the first is small, so that a short
	// log (a suspend cycle's, a test's) does not cost 64 KB.
	size int
}

// chunkSize is the size of the chunks lines are cut from, once the first
// (firstChunk) and the ones after it, each twice as big, are read.
const (
	firstChunk = 4 << 10
	chunkSize  = 64 << 10
)

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: r} }

// next returns the next line without its "\n" (or "\r\n") and how many
// bytes past MaxLine were cut from it. ok is false at the end of the input.
func (l *lineReader) next() (line string, cut int64, ok bool) {
	for {
		if i := bytes.IndexByte(l.buf[l.pos+l.seen:], '\n'); i >= 0 {
			b := l.buf[l.pos : l.pos+l.seen+i]
			l.pos += l.seen + i + 1
			l.seen = 0
			line, cut := lineOf(b)
			return line, cut, true
		}
		l.seen = len(l.buf) - l.pos
		if l.eof {
			if l.seen == 0 {
				return "", 0, false
			}
			b := l.buf[l.pos:]
			l.pos, l.seen = len(l.buf), 0
			line, cut := lineOf(b)
			return line, cut, true
		}
		if l.seen > MaxLine {
			return l.long()
		}
		if len(l.buf) == cap(l.buf) {
			// A new chunk, the partial line moved to its start.
			l.size = min(max(l.size*2, firstChunk), chunkSize)
			nb := make([]byte, l.seen, max(l.size, 2*l.seen))
			copy(nb, l.buf[l.pos:])
			l.buf, l.pos = nb, 0
		}
		l.fill()
	}
}

// lineOf returns a line's text (a CR before the newline dropped) and how
// many bytes past MaxLine it cuts.
func lineOf(b []byte) (string, int64) {
	if len(b) > MaxLine {
		return unsafe.String(&b[0], MaxLine), int64(len(b) - MaxLine)
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) == 0 {
		return "", 0
	}
	return unsafe.String(&b[0], len(b)), 0
}

// long returns the first MaxLine bytes of a line longer than that and
// skips the rest of it, counting the bytes cut.
func (l *lineReader) long() (string, int64, bool) {
	line := unsafe.String(&l.buf[l.pos], MaxLine)
	cut := int64(len(l.buf) - l.pos - MaxLine)
	for {
		l.buf, l.pos, l.seen = make([]byte, 0, chunkSize), 0, 0
		l.fill()
		if i := bytes.IndexByte(l.buf, '\n'); i >= 0 {
			l.pos = i + 1
			return line, cut + int64(i), true
		}
		cut += int64(len(l.buf))
		if l.eof {
			l.buf = l.buf[:0]
			return line, cut, true
		}
	}
}

// fill reads once into the chunk's free space, noting the end of the
// input or a read error.
func (l *lineReader) fill() {
	for range 100 {
		n, err := l.r.Read(l.buf[len(l.buf):cap(l.buf)])
		l.buf = l.buf[:len(l.buf)+n]
		if err != nil {
			if err != io.EOF {
				l.err = err
			}
			l.eof = true
			return
		}
		if n > 0 {
			return
		}
	}
	l.err, l.eof = io.ErrNoProgress, true
}

// DroppedLines returns how many lines of the log were not read because it
// held more than MaxRecords records.
func DroppedLines(recs []Record) int64 {
	if len(recs) == 0 {
		return 0
	}
	return recs[len(recs)-1].Dropped
}

// TruncatedLines counts the records whose line was cut at MaxLine and
// returns the first of them.
func TruncatedLines(recs []Record) (n int, first Record) {
	for _, r := range recs {
		if r.Truncated > 0 {
			if n == 0 {
				first = r
			}
			n++
		}
	}
	return n, first
}

// ParseString is Parse over a string.
func ParseString(s string) []Record {
	recs, _ := Parse(strings.NewReader(s))
	return recs
}

// appendFold appends rec to out, folding it into the last record when the
// two are identical apart from time and sequence number.
func appendFold(out []Record, rec Record) []Record {
	if n := len(out); n > 0 {
		last := &out[n-1]
		if last.Text == rec.Text && last.Level == rec.Level && last.Facility == rec.Facility {
			last.Count += rec.Count
			return out
		}
	}
	return append(out, rec)
}

// Fold merges identical consecutive records (same level, facility and text)
// into one, keeping the first one's time and sequence number and summing the
// counts. It returns a new slice.
func Fold(recs []Record) []Record {
	out := make([]Record, 0, len(recs))
	for _, r := range recs {
		if r.Count < 1 {
			r.Count = 1
		}
		out = appendFold(out, r)
	}
	return out
}

// parseLine parses one line. ok is false for lines that hold no record
// (blank lines, journalctl banners). kmsg reports a raw kmsg record, after
// which dictionary lines may follow.
func parseLine(raw string) (rec Record, ok, kmsg bool) {
	line := clean(raw)
	rec = Record{Level: Unknown, Time: -1, Seq: -1, Count: 1}
	if strings.TrimSpace(line) == "" {
		return rec, false, false
	}
	if r, ok := parseKmsgLine(line); ok {
		return r, true, true
	}
	if r, ok := parseJournal(line); ok {
		return r, true, false
	}
	if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
		return rec, false, false // journalctl banner
	}
	rest := line
	if p, n := prio(rest); n > 0 {
		rec.Level, rec.Facility = Level(p&7), p>>3
		rest = rest[n:]
	} else if lv, fac, n := dmesgX(rest); n > 0 {
		rec.Level, rec.Facility = lv, fac
		rest = rest[n:]
	}
	if d, n := stamp(rest); n > 0 {
		rec.Time = d
		rest = rest[n:]
	} else if n := wallStamp(rest); n > 0 {
		rest = rest[n:] // dmesg -T or --time-format=iso: no time since boot
	}
	rec.Text = unescape(rest)
	if rec.Text == "" && rec.Level == Unknown && rec.Time < 0 {
		return rec, false, false // a bare wall-clock stamp: nothing logged
	}
	return rec, true, false
}

// wallStamp returns the length of a dmesg -T "[Mon Nov 30 06:18:32 2026] "
// or dmesg --time-format=iso "2026-11-30T06:18:32,123456+00:00 " prefix,
// or 0.
func wallStamp(s string) int {
	if len(s) > 26 && s[0] == '[' && s[25] == ']' && s[4] == ' ' && s[8] == ' ' && s[14] == ':' && s[17] == ':' &&
		digits(s[21:25]) && digits(s[12:14]) {
		if len(s) > 26 && s[26] == ' ' {
			return 27
		}
		return 26
	}
	if sp := strings.IndexByte(s, ' '); sp >= 19 && sp <= 40 && isISODate(s[:sp]) && strings.Count(s[:sp], ":") >= 2 {
		return sp + 1
	}
	return 0
}

// clean drops terminal escape sequences, a trailing CR and other control
// characters except tab.
func clean(s string) string {
	if !hasControl(s) {
		return s
	}
	bad := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			bad = true
			break
		}
	}
	if !bad {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i)
		case (c < 0x20 && c != '\t') || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hasControl reports whether s may hold a byte below 0x20 or DEL, eight
// bytes at a time; it may say yes for a tab or a byte of 0x80 and above,
// never no for a control byte.
func hasControl(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:]) // one load
		// Each byte's low seven bits plus one, modulo 0x80: a byte below
		// 0x20 gives 1…0x20, DEL 0 (so do 0x80…0x9f and 0xff: the
		// false yeses allowed). No byte carries into the next. Then
		// whether one of them is below 0x21: exact, as all are below
		// 0x80. Seven operations a word, not twelve (issue 24: 7.7 M →
		// 6.9 M instructions on the 1.8 MB of boot logs).
		y := ((x &^ highs) + ones) &^ highs
		if (y-ones*0x21)&^y&highs != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

// skipEscape returns the index of the last byte of the escape sequence
// starting at s[i] == ESC.
func skipEscape(s string, i int) int {
	if i+1 >= len(s) {
		return i
	}
	if s[i+1] != '[' {
		return i + 1 // two-byte sequence such as ESC c
	}
	j := i + 2
	for j < len(s) && (s[j] >= 0x20 && s[j] <= 0x3f) {
		j++ // parameter and intermediate bytes
	}
	if j < len(s) {
		return j // final byte
	}
	return len(s) - 1
}

// prio parses a "<N>" prefix and returns N and the prefix length.
func prio(s string) (int, int) {
	if len(s) < 3 || s[0] != '<' {
		return 0, 0
	}
	end := strings.IndexByte(s, '>')
	if end < 2 || end > 5 {
		return 0, 0
	}
	n, err := strconv.Atoi(s[1:end])
	if err != nil || n < 0 || s[1] == '+' {
		return 0, 0
	}
	return n, end + 1
}

var facilityNames = []string{"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp"}

// dmesgX parses a dmesg -x "kern  :err   : " prefix.
func dmesgX(s string) (Level, int, int) {
	i := strings.IndexByte(s, ':')
	if i < 3 || i > 9 {
		return 0, 0, 0
	}
	fac := -1
	name := strings.TrimRight(s[:i], " ")
	for k, f := range facilityNames {
		if f == name {
			fac = k
		}
	}
	if fac < 0 {
		return 0, 0, 0
	}
	j := strings.IndexByte(s[i+1:], ':')
	if j < 0 {
		return 0, 0, 0
	}
	lname := strings.TrimRight(s[i+1:i+1+j], " ")
	for k, l := range levelNames {
		if l == lname {
			n := i + 1 + j + 1
			if n < len(s) && s[n] == ' ' {
				n++
			}
			return Level(k), fac, n
		}
	}
	return 0, 0, 0
}

// stamp parses a "[  12.345678] " prefix and returns the time and the prefix
// length including one following space.
func stamp(s string) (time.Duration, int) {
	if len(s) < 3 || s[0] != '[' {
		return 0, 0
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, 0
	}
	d, ok := parseSecs(strings.TrimLeft(s[1:end], " "))
	if !ok {
		return 0, 0
	}
	n := end + 1
	if n < len(s) && s[n] == ' ' {
		n++
	}
	return d, n
}

// parseSecs parses "12.345678" (1 to 9 fraction digits) into a duration
// truncated to microseconds.
func parseSecs(s string) (time.Duration, bool) {
	dot := strings.IndexByte(s, '.')
	if dot < 1 || dot > 9 || len(s)-dot-1 < 1 || len(s)-dot-1 > 9 {
		return 0, false
	}
	// At most nine digits each side: no overflow, no strconv call (two of
	// them on every line were 3% of reading a log).
	var sec, us int64
	for i := 0; i < dot; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		sec = sec*10 + int64(c-'0')
	}
	for i, n := dot+1, 0; n < 9 && i < len(s); i, n = i+1, n+1 {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < 6 {
			us = us*10 + int64(c-'0')
		}
	}
	for n := len(s) - dot - 1; n < 6; n++ {
		us *= 10
	}
	return time.Duration(sec)*time.Second + time.Duration(us)*time.Microsecond, true
}

// parseKmsgLine parses a raw /dev/kmsg record: "PRIO,SEQ,USEC,FLAGS[,…];TEXT".
func parseKmsgLine(s string) (Record, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return Record{}, false
	}
	semi := strings.IndexByte(s, ';')
	if semi < 5 {
		return Record{}, false
	}
	f := strings.Split(s[:semi], ",")
	if len(f) < 4 {
		return Record{}, false
	}
	p, err1 := strconv.ParseUint(f[0], 10, 16)
	seq, err2 := strconv.ParseUint(f[1], 10, 63)
	us, err3 := strconv.ParseUint(f[2], 10, 40)
	if err1 != nil || err2 != nil || err3 != nil {
		return Record{}, false
	}
	return Record{
		Level:    Level(p & 7),
		Facility: int(p >> 3),
		Time:     time.Duration(us) * time.Microsecond,
		Seq:      int64(seq),
		Text:     unescape(s[semi+1:]),
		Count:    1,
	}, true
}

// parseJournal parses a journalctl -k line in the short, short-iso,
// short-precise or short-monotonic output formats.
func parseJournal(s string) (Record, bool) {
	i := kernelTag(s)
	if i < 0 {
		return Record{}, false
	}
	head := s[:i]
	sp := strings.LastIndexByte(head, ' ')
	if sp < 0 {
		return Record{}, false
	}
	when := strings.TrimSpace(head[:sp])
	rec := Record{Level: Unknown, Time: -1, Seq: -1, Count: 1}
	switch {
	case strings.HasPrefix(when, "["):
		d, n := stamp(when)
		if n != len(when) {
			return Record{}, false
		}
		rec.Time = d
	case isSyslogDate(when) || isISODate(when):
	default:
		return Record{}, false
	}
	text := ""
	if i+len(" kernel: ") <= len(s) {
		text = s[i+len(" kernel: "):]
	}
	// Syslog files (kern.log) keep the kernel's own stamp after "kernel:".
	if rec.Time < 0 {
		if d, n := stamp(text); n > 0 {
			rec.Time, text = d, text[n:]
		}
	}
	rec.Text = unescape(text)
	return rec, true
}

// kernelTag returns the index of the first " kernel: " in s, else of a
// " kernel:" that ends s, else -1. It looks for "kernel:" first: the
// search for " kernel: " stopped at every space of every line (issue 24:
// 5 M instructions for 1.8 MB of boot logs).
func kernelTag(s string) int {
	for j := 0; ; {
		k := strings.Index(s[j:], "kernel:")
		if k < 0 {
			return -1
		}
		k += j
		if k > 0 && s[k-1] == ' ' && (k+7 == len(s) || s[k+7] == ' ') {
			return k - 1
		}
		j = k + 1
	}
}

// isSyslogDate reports whether s looks like "Nov 30 06:18:32" or
// "Nov  3 06:18:32.123456".
func isSyslogDate(s string) bool {
	if len(s) < 15 || s[3] != ' ' || s[9] != ':' || s[12] != ':' {
		return false
	}
	if s[0] < 'A' || s[0] > 'Z' || s[1] < 'a' || s[1] > 'z' || s[2] < 'a' || s[2] > 'z' {
		return false
	}
	return digits(s[7:9]) && digits(s[10:12]) && digits(s[13:15]) && (s[4] == ' ' || digits(s[4:5])) && digits(s[5:6])
}

// isISODate reports whether s looks like "2026-11-30T06:18:32+0000".
func isISODate(s string) bool {
	return len(s) >= 19 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' &&
		digits(s[:4]) && digits(s[5:7]) && digits(s[8:10]) && digits(s[11:13])
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

// unescape decodes the "\xNN" escapes the kernel uses for unprintable bytes.
func unescape(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 || !strings.Contains(s[i:], `\x`) {
		return s // a backslash is rare, and IndexByte cheaper than Index
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' && isHex(s[i+2]) && isHex(s[i+3]) {
			v, _ := strconv.ParseUint(s[i+2:i+4], 16, 8)
			b.WriteByte(byte(v))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// escape is the inverse of unescape for Format: control characters (except
// tab), DEL and backslashes become "\xNN".
func escape(s string) string {
	need := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || (c < 0x20 && c != '\t') || c == 0x7f {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || (c < 0x20 && c != '\t') || c == 0x7f {
			fmt.Fprintf(&b, `\x%02x`, c)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escapeFirst writes the first byte of an escaped text as "\xNN", unless it
// already starts an escape.
func escapeFirst(text string) string {
	if text == "" || text[0] == '\\' {
		return text
	}
	return fmt.Sprintf(`\x%02x`, text[0]) + text[1:]
}

// Format writes records as "<N>[sec.usec] text" lines, one per folded
// occurrence, which Parse reads back to the same records (level, facility,
// time, text and count; sequence numbers are not kept). The "<N>" and
// "[…]" parts are left out when the record has no level or time.
func Format(w io.Writer, recs []Record) error {
	bw := bufio.NewWriter(w)
	for _, r := range recs {
		line := FormatRecord(r)
		n := r.Count
		if n < 1 {
			n = 1
		}
		for range n {
			bw.WriteString(line)
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("klog: %w", err)
	}
	return nil
}

// FormatRecord formats one record as a line without newline, as Format does.
func FormatRecord(r Record) string {
	var pre strings.Builder
	if r.Level >= 0 {
		fmt.Fprintf(&pre, "<%d>", r.Facility<<3|int(r.Level&7))
	}
	if r.Time >= 0 {
		pre.WriteString("[")
		s := r.Stamp()
		if len(s) < 12 {
			pre.WriteString(strings.Repeat(" ", 12-len(s)))
		}
		pre.WriteString(s)
		pre.WriteString("] ")
	}
	text := escape(r.Text)
	if text == "" {
		return pre.String()
	}
	// The text itself may look like a prefix or a journal line: then escape
	// its first byte, or the space before "kernel:", or both, so that it
	// reads back as text. (A first byte that is already "\" starts an
	// escape and is left alone.)
	noJournal := strings.ReplaceAll(text, " kernel:", `\x20kernel:`)
	candidates := []string{text, escapeFirst(text), noJournal, escapeFirst(noJournal)}
	for _, c := range candidates {
		if line := pre.String() + c; roundTrips(line, r) {
			return line
		}
	}
	return pre.String() + candidates[len(candidates)-1]
}

func roundTrips(line string, r Record) bool {
	got, ok, _ := parseLine(line)
	if !ok {
		return false
	}
	want := r
	want.Time = truncUS(want.Time)
	if want.Level < 0 {
		want.Level, want.Facility = Unknown, 0
	}
	return got.Text == want.Text && got.Level == want.Level && got.Time == want.Time && got.Facility == want.Facility
}

func truncUS(d time.Duration) time.Duration {
	if d < 0 {
		return -1
	}
	return d / time.Microsecond * time.Microsecond
}

// Mark remembers a position in the kernel log so that later reads can keep
// only the records logged after it. Seq is the last kmsg sequence number
// seen (-1 when the source had none); Count is the number of messages seen
// (folded records count as many times as they fold).
type Mark struct {
	Seq   int64
	Count int
}

// MarkAfter returns the mark just past the last of recs.
func MarkAfter(recs []Record) Mark {
	m := Mark{Seq: -1}
	for _, r := range recs {
		if r.Seq > m.Seq {
			m.Seq = r.Seq + int64(max(r.Count, 1)) - 1
		}
		m.Count += max(r.Count, 1)
	}
	return m
}

// Since returns the records logged after mark m. When both the mark and the
// records carry kmsg sequence numbers they decide; otherwise the first
// m.Count messages are dropped.
func Since(recs []Record, m Mark) []Record {
	if m.Seq >= 0 && len(recs) > 0 && recs[0].Seq >= 0 {
		for i, r := range recs {
			if r.Seq > m.Seq {
				return recs[i:]
			}
		}
		return nil
	}
	skip := m.Count
	for i, r := range recs {
		c := max(r.Count, 1)
		if skip < c {
			if skip == 0 {
				return recs[i:]
			}
			out := append([]Record{}, recs[i:]...)
			out[0].Count = c - skip
			return out
		}
		skip -= c
	}
	return nil
}

// Recognised reports whether any line of text carries a kernel-log prefix
// in one of the forms Parse reads (a [seconds] stamp, a <level>, dmesg -x
// or -T prefixes, a /dev/kmsg record, a journalctl or syslog line). Text
// with none is not a kernel log, whatever Parse makes of it.
func Recognised(text []byte) bool {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if recognisedLine(line) {
			return true
		}
	}
	return false
}

// recognisedLine reports whether one line carries a kernel-log prefix.
func recognisedLine(line []byte) bool {
	if len(line) > 4096 {
		line = line[:4096]
	}
	s := clean(strings.TrimSuffix(string(line), "\n"))
	if _, ok := parseKmsgLine(s); ok {
		return true
	}
	if _, ok := parseJournal(s); ok {
		return true
	}
	if _, n := prio(s); n > 0 {
		return true
	}
	if _, _, n := dmesgX(s); n > 0 {
		return true
	}
	if _, n := stamp(s); n > 0 {
		return true
	}
	return wallStamp(s) > 0
}
