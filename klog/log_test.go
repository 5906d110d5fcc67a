package klog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// Lines longer than maxLine are cut, not an error, and the next line is read.
func TestScanLongLine(t *testing.T) {
	in := "[ 1.000000] " + strings.Repeat("y", maxLine+5000) + "\n[ 2.000000] next\n"
	recs, err := Parse(strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Len(t, recs[0].Text, maxLine-len("[ 1.000000] "))
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
