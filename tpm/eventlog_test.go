package tpm

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logBuilder writes a crypto-agile event log with SHA-1 and SHA-256
// digests, each event's digests computed from its data.
type logBuilder struct{ b bytes.Buffer }

func newLog() *logBuilder {
	l := &logBuilder{}
	var spec bytes.Buffer
	spec.WriteString("Spec ID Event03\x00")
	binary.Write(&spec, binary.LittleEndian, uint32(0)) // platform class
	spec.Write([]byte{0, 2, 0, 2})                      // version 2.0 errata 0, uintn 2
	binary.Write(&spec, binary.LittleEndian, uint32(2))
	binary.Write(&spec, binary.LittleEndian, []uint16{uint16(SHA1), 20, uint16(SHA256), 32})
	spec.WriteByte(0)
	binary.Write(&l.b, binary.LittleEndian, []uint32{0, EvNoAction})
	l.b.Write(make([]byte, 20))
	binary.Write(&l.b, binary.LittleEndian, uint32(spec.Len()))
	l.b.Write(spec.Bytes())
	return l
}

func (l *logBuilder) event(pcr, typ uint32, data []byte, algs ...Alg) *logBuilder {
	if algs == nil {
		algs = []Alg{SHA1, SHA256}
	}
	binary.Write(&l.b, binary.LittleEndian, []uint32{pcr, typ, uint32(len(algs))})
	for _, a := range algs {
		binary.Write(&l.b, binary.LittleEndian, uint16(a))
		switch a {
		case SHA1:
			s := sha1.Sum(data)
			l.b.Write(s[:])
		case SHA256:
			s := sha256.Sum256(data)
			l.b.Write(s[:])
		}
	}
	binary.Write(&l.b, binary.LittleEndian, uint32(len(data)))
	l.b.Write(data)
	return l
}

func (l *logBuilder) bytes() []byte { return bytes.Clone(l.b.Bytes()) }

func extend(cur []byte, data []byte) []byte {
	d := sha256.Sum256(data)
	s := sha256.Sum256(append(cur, d[:]...))
	return s[:]
}

func TestParseReplay(t *testing.T) {
	sep := []byte{0, 0, 0, 0}
	b := newLog().event(0, EvSCRTMVersion, []byte("v1")).event(0, EvSeparator, sep).
		event(7, EvSeparator, sep).event(4, 0x80000003, []byte("app")).bytes()
	l, err := Parse(b)
	require.NoError(t, err)
	assert.True(t, l.CryptoAgile)
	assert.Equal(t, []Alg{SHA1, SHA256}, l.Algs)
	assert.Equal(t, "2.0 errata 0", l.SpecVersion)
	require.Len(t, l.Events, 4)
	assert.False(t, l.Truncated)
	assert.Equal(t, []uint32{0, 4, 7}, l.Indices())

	pcrs, missing, err := l.Replay(SHA256)
	require.NoError(t, err)
	assert.Empty(t, missing)
	want0 := extend(extend(make([]byte, 32), []byte("v1")), sep)
	assert.Equal(t, want0, pcrs[0])
	assert.Equal(t, extend(make([]byte, 32), []byte("app")), pcrs[4])

	// A StartupLocality event sets PCR 0's starting value.
	loc := newLog().event(0, EvNoAction, []byte("StartupLocality\x00\x03")).event(0, EvSeparator, sep).bytes()
	l, err = Parse(loc)
	require.NoError(t, err)
	pcrs, _, _ = l.Replay(SHA256)
	start := make([]byte, 32)
	start[31] = 3
	assert.Equal(t, extend(start, sep), pcrs[0])
}

func TestParseProblems(t *testing.T) {
	b := newLog().event(0, EvSeparator, []byte{0, 0, 0, 0}).event(1, EvSeparator, []byte{0, 0, 0, 0}).bytes()
	l, err := Parse(b[:len(b)-3])
	require.NoError(t, err)
	assert.True(t, l.Truncated, "the log ends inside its last event")
	assert.Len(t, l.Events, 1, "the events before the cut are kept")
	assert.Contains(t, l.Problems[0], "event 2 at offset")

	padded := append(b, make([]byte, 64)...)
	l, err = Parse(padded)
	require.NoError(t, err)
	assert.False(t, l.Truncated)
	assert.Equal(t, 64, l.Padding)
	assert.Len(t, l.Events, 2)

	only1 := newLog().event(2, 0x80000004, []byte("drv"), SHA1).bytes()
	l, err = Parse(only1)
	require.NoError(t, err)
	_, missing, err := l.Replay(SHA256)
	require.NoError(t, err)
	assert.Equal(t, []int{1}, missing, "the event has no SHA-256 digest")

	_, err = Parse([]byte("short"))
	assert.Error(t, err)
}

func FuzzParse(f *testing.F) {
	f.Add(newLog().event(0, EvSeparator, []byte{0, 0, 0, 0}).event(4, 0x80000003, []byte("x")).bytes())
	legacy := make([]byte, 32)
	binary.LittleEndian.PutUint32(legacy[4:], EvSeparator)
	f.Add(append(legacy, legacy...))
	for _, raw := range realLogs {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Parse(b)
		if err != nil {
			return
		}
		for _, a := range l.Algs {
			_, _, _ = l.Replay(a)
		}
		_ = l.Indices()
	})
}

// BenchmarkParseReplay parses and replays, in every bank it declares, each
// real log go-eventlog ships (302 KB in all).
func BenchmarkParseReplay(b *testing.B) {
	total := 0
	for _, raw := range realLogs {
		total += len(raw)
	}
	b.SetBytes(int64(total))
	for b.Loop() {
		for _, raw := range realLogs {
			l, err := Parse(raw)
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range l.Algs {
				if _, _, err := l.Replay(a); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
