package klog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file log streams the same records Parse returns, pass after pass; its
// Env is the one EnvFromLog finds in the whole log.
func TestLogFileMatchesParse(t *testing.T) {
	for _, p := range corpusLogs(t) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		want, err := Parse(bytes.NewReader(data))
		require.NoError(t, err)
		for _, l := range []*Log{LogFile(p), LogBytes(data), LogOf(want)} {
			got, err := l.Records()
			require.NoError(t, err, p)
			assert.Equal(t, want, got, p)
			env, err := l.Env()
			require.NoError(t, err)
			assert.Equal(t, EnvFromLog(want), env, p)
			ok, err := l.Recognised()
			require.NoError(t, err)
			assert.True(t, ok, p)
		}
		// EachLine sees every message once: as many as the folded counts.
		lines, folded := 0, 0
		require.NoError(t, LogFile(p).EachLine(func(r Record) bool { lines++; return true }))
		for _, r := range want {
			folded += r.Count
		}
		assert.Equal(t, folded, lines, p)
	}
}

// EachBoth gives, in one parse, the records EachLine and Each give in two,
// for text logs (where Each folds) and logs in memory (where it does not);
// either reader stops the pass.
func TestLogEachBothMatchesEachLineAndEach(t *testing.T) {
	paths := corpusLogs(t)
	data, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	recs, err := Parse(bytes.NewReader(data))
	require.NoError(t, err)
	// Identical consecutive lines, to be folded (and a log ending in them).
	data = append(data, "[ 9.000000] same\n[ 9.100000] same\n[ 9.200000] other\n[ 9.300000] last\n[ 9.400000] last\n"...)
	for _, l := range []*Log{LogFile(paths[0]), LogBytes(data), LogOf(recs)} {
		var wantLines, wantFolded, lines, folded []Record
		require.NoError(t, l.EachLine(func(r Record) bool { wantLines = append(wantLines, r); return true }))
		require.NoError(t, l.Each(func(r Record) bool { wantFolded = append(wantFolded, r); return true }))
		require.NoError(t, l.EachBoth(func(r Record) bool { lines = append(lines, r); return true },
			func(r Record) bool { folded = append(folded, r); return true }))
		assert.Equal(t, wantLines, lines)
		assert.Equal(t, wantFolded, folded)
	}
	last := LogBytes(data)
	var folded []Record
	require.NoError(t, last.Each(func(r Record) bool { folded = append(folded, r); return true }))
	assert.Equal(t, 2, folded[len(folded)-1].Count, "the trailing pair is folded")

	n := 0
	require.NoError(t, LogBytes(data).EachBoth(func(Record) bool { n++; return n < 3 }, func(Record) bool { return true }))
	assert.Equal(t, 3, n, "the line reader stops the pass")
	n = 0
	require.NoError(t, LogBytes(data).EachBoth(func(Record) bool { return true }, func(Record) bool { n++; return false }))
	assert.Equal(t, 1, n, "the folded reader stops the pass")
	_, err = LogFile(filepath.Join(t.TempDir(), "missing")).Records()
	require.Error(t, err)
	assert.ErrorContains(t, LogFile(filepath.Join(t.TempDir(), "missing")).EachBoth(nil, nil), "missing")
}

func TestLogEachStopsAndReportsErrors(t *testing.T) {
	l := LogBytes([]byte("[ 1.000000] a\n[ 2.000000] b\n[ 3.000000] c\n"))
	var seen []string
	require.NoError(t, l.Each(func(r Record) bool { seen = append(seen, r.Text); return len(seen) < 2 }))
	assert.Equal(t, []string{"a", "b"}, seen)
	assert.False(t, l.Empty())

	_, err := LogFile(filepath.Join(t.TempDir(), "missing")).Records()
	assert.ErrorContains(t, err, "missing")
	assert.True(t, LogBytes([]byte("\n \n")).Empty())
	var nilLog *Log
	assert.True(t, nilLog.Empty())

	ok, err := LogBytes([]byte("just some text\nno prefixes here\n")).Recognised()
	require.NoError(t, err)
	assert.False(t, ok)
	// A line longer than the reader's buffer is judged by its start.
	long := strings.Repeat("x", 200<<10) + "\n[ 1.000000] late\n"
	ok, err = LogBytes([]byte(long)).Recognised()
	require.NoError(t, err)
	assert.True(t, ok)
}

// Lines longer than MaxLine are cut, not an error, and the next line is read.
func TestScanLongLine(t *testing.T) {
	in := "[ 1.000000] " + strings.Repeat("y", MaxLine+5000) + "\n[ 2.000000] next\n"
	recs, err := Parse(strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Len(t, recs[0].Text, MaxLine-len("[ 1.000000] "))
	assert.Equal(t, "next", recs[1].Text)
}

// Env reads only the head of a log: a reader that fails after it is never
// reached.
func TestLogEnvReadsTheHeadOnly(t *testing.T) {
	head := "[ 0.000000] Linux version 6.1.0-1-amd64 (x) #1\n[ 0.000000] DMI: QEMU Standard PC (i440FX + PIIX, 1996)\n" +
		"[ 0.000000] Hypervisor detected: KVM\n"
	l := &Log{open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(strings.NewReader(head), failingReader{})), nil
	}}
	env, err := l.Env()
	require.NoError(t, err)
	assert.Equal(t, "6.1.0-1-amd64", env.Kernel)
	assert.Equal(t, "Hypervisor detected: KVM", env.VM)
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// chunkReader returns its parts one per Read, with an error after each
// when errs says so: a stand-in for /dev/kmsg (one record per read,
// EPIPE when records were overwritten).
type chunkReader struct {
	parts []string
	errs  []error
}

func (c *chunkReader) Read(b []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(b, c.parts[0])
	c.parts = c.parts[1:]
	var err error
	if len(c.errs) > 0 {
		err, c.errs = c.errs[0], c.errs[1:]
	}
	return n, err
}

func TestFollowKmsg(t *testing.T) {
	r := &chunkReader{
		parts: []string{"6,1,1000,-;first", "", "6,3,3000,-;third\n SUBSYSTEM=pci\n", "not a record\n6,4,4000,-;fou", "rth\n"},
		errs:  []error{nil, syscall.EPIPE, nil, nil, nil},
	}
	var got []string
	require.NoError(t, FollowKmsg(r, func(rec Record) bool { got = append(got, rec.Text); return true }))
	// A reader that is not a regular file is read as the device: each read
	// is a whole record, so "fou" stands alone and "rth" is no record.
	assert.Equal(t, []string{"first", "third", "fou"}, got, "%q", got)

	// fn ends the follow.
	got = nil
	r = &chunkReader{parts: []string{"6,1,1000,-;a\n6,2,2000,-;b\n"}}
	require.NoError(t, FollowKmsg(r, func(rec Record) bool { got = append(got, rec.Text); return false }))
	assert.Equal(t, []string{"a"}, got)

	r = &chunkReader{parts: []string{"6,1,1000,-;a\n"}, errs: []error{io.ErrUnexpectedEOF}}
	assert.Error(t, FollowKmsg(r, func(Record) bool { return true }))
}

// endlessLog is a reader that yields kernel-log lines forever and counts
// its reads.
type endlessLog struct {
	reads atomic.Int64
	off   int
}

func (e *endlessLog) Read(p []byte) (int, error) {
	e.reads.Add(1)
	const line = "[    1.000000] pci 0000:00:1f.0: a line that goes on\n"
	for n := 0; ; {
		c := copy(p[n:], line[e.off:])
		n += c
		e.off = (e.off + c) % len(line)
		if n == len(p) {
			return n, nil
		}
	}
}

// The parser goroutine reads ahead of the reader but stops with it: Scan
// returns on an endless log once fn says stop, and nothing reads the log
// after Scan has returned.
func TestScanStopsTheParser(t *testing.T) {
	var e endlessLog
	n := 0
	err := scan(&e, false, func(Record) bool { n++; return n < 10*batchRecords })
	require.NoError(t, err)
	assert.Equal(t, 10*batchRecords, n)
	reads := e.reads.Load()
	time.Sleep(20 * time.Millisecond)
	assert.Equal(t, reads, e.reads.Load(), "the log was read after Scan returned")
}

// panickyReader yields an endless log whose reads panic after the first
// megabyte: past the records scanBoth parses itself, on the parser's
// goroutine.
type panickyReader struct{ endlessLog }

func (p *panickyReader) Read(b []byte) (int, error) {
	if p.reads.Load() > 16 {
		panic("hostile reader")
	}
	return p.endlessLog.Read(b[:min(len(b), 64<<10)])
}

// A panic while the log is read or parsed comes out of Scan on the
// caller's goroutine, where the check framework recovers it, not on the
// parser's, where it would end the process.
func TestScanPanicReachesTheCaller(t *testing.T) {
	n := 0
	assert.PanicsWithValue(t, "hostile reader", func() {
		_ = scan(&panickyReader{}, false, func(Record) bool { n++; return true })
	})
	assert.Greater(t, n, batchRecords, "the panic came from the parser goroutine's reads")
}

// A log of fewer than batchRecords records is parsed without a parser
// goroutine, and reads to its end as before.
func TestScanShortLogInline(t *testing.T) {
	var recs []Record
	require.NoError(t, Scan(strings.NewReader("[ 1.000000] a\n[ 2.000000] b\n[ 3.000000] b\n"), func(r Record) bool {
		recs = append(recs, r)
		return true
	}))
	require.Len(t, recs, 2)
	assert.Equal(t, 2, recs[1].Count)
	_, err := scanErr(io.MultiReader(strings.NewReader("[ 1.000000] a\n"), failingReader{}))
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func scanErr(r io.Reader) (int, error) {
	n := 0
	err := Scan(r, func(Record) bool { n++; return true })
	return n, err
}
