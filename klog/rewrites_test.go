package klog

// The tests here hold issue 24's faster rewrites (the chunked line
// reader, the journal tag search, the crash-report pre-test) to what they
// replaced.

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bufioLines is the line reader before issue 24's chunked one, over
// bufio.Reader: the reference the chunked reader must agree with.
func bufioLines(r io.Reader) (lines []string, cuts []int64) {
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		var buf []byte
		var cut int64
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			if room := MaxLine - len(buf); len(frag) > room {
				keep := max(room, 0)
				cut += int64(len(frag) - keep)
				frag = frag[:keep]
			}
			buf = append(buf, frag...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && len(buf) == 0 && cut == 0 {
			return lines, cuts
		}
		line := buf
		if cut > 0 && err == nil {
			cut--
		} else if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' && cut == 0 {
			line = line[:n-1]
		}
		lines, cuts = append(lines, string(line)), append(cuts, cut)
	}
}

// chunkedLines reads every line with lineReader.
func chunkedLines(r io.Reader) (lines []string, cuts []int64) {
	lr := newLineReader(r)
	for {
		l, c, ok := lr.next()
		if !ok {
			return lines, cuts
		}
		lines, cuts = append(lines, l), append(cuts, c)
	}
}

// pieces is a reader that returns its data in reads of the given sizes
// (cycling; 0 is an empty read).
type pieces struct {
	data  []byte
	sizes []byte
	k     int
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := len(b)
	if len(p.sizes) > 0 {
		n = min(n, int(p.sizes[p.k%len(p.sizes)]))
		p.k++
	}
	n = copy(b, p.data[:min(n, len(p.data))])
	p.data = p.data[n:]
	return n, nil
}

// The chunked reader gives the lines, cuts and texts the bufio one gave,
// whatever sizes the reads come in, and texts stay intact after later
// lines are read.
func TestLineReaderAsBufio(t *testing.T) {
	long := strings.Repeat("y", MaxLine)
	for _, in := range []string{
		"", "\n", "a", "a\n", "a\r\n", "\r\n\r", "a\nb", "a\n\nb\r\n",
		long + "\n" + "next\n", long + "\r\nnext", long + "z\r\nnext\n", long[1:] + "\r\nnext",
		long + long + "tail\nafter", strings.Repeat("line of text\n", 20000), long,
	} {
		for _, sizes := range [][]byte{nil, {1}, {7, 0, 200}, {255}} {
			if len(sizes) == 1 && sizes[0] == 1 && len(in) > 1000 {
				continue // byte by byte only for the short ones
			}
			wantL, wantC := bufioLines(strings.NewReader(in))
			gotL, gotC := chunkedLines(&pieces{data: []byte(in), sizes: sizes})
			require.Equal(t, wantC, gotC, "%.40q", in)
			require.Equal(t, wantL, gotL, "%.40q", in)
		}
	}
}

// recorder passes reads through and keeps what they returned.
type recorder struct {
	r   io.Reader
	got []byte
}

func (rc *recorder) Read(b []byte) (int, error) {
	n, err := rc.r.Read(b)
	rc.got = append(rc.got, b[:n]...)
	return n, err
}

// stalls reports whether sizes, read in a cycle from the start, hold a run
// of at least 100 empty reads: a reader that makes no progress for that
// long is given up on (io.ErrNoProgress), as bufio gives up on one.
func stalls(sizes []byte) bool {
	if len(sizes) == 0 {
		return false
	}
	run := 0
	for k := range 2*len(sizes) + 100 {
		if sizes[k%len(sizes)] != 0 {
			run = 0
		} else if run++; run >= 100 {
			return true
		}
	}
	return false
}

// The chunked reader agrees with the bufio one on every input, read in
// pieces of any sizes, empty reads included. A reader that returns
// (0, nil) 100 times in a row is given up on with io.ErrNoProgress (the
// reader must not hang on it, and bufio does the same): the lines are then
// those of the bytes read before it stalled, and the reader's error says
// so.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("[ 1.0] a\r\nb\n\nc"), []byte{3, 0, 9})
	f.Add(bytes.Repeat([]byte("x\n"), 40000), []byte{255})
	f.Add([]byte("0000"), append([]byte{3}, make([]byte, 120)...))
	f.Add([]byte("ab\ncd"), make([]byte, 100))
	f.Fuzz(func(t *testing.T, in, sizes []byte) {
		rc := &recorder{r: &pieces{data: in, sizes: sizes}}
		lr := newLineReader(rc)
		var gotL []string
		var gotC []int64
		for {
			l, c, ok := lr.next()
			if !ok {
				break
			}
			gotL, gotC = append(gotL, l), append(gotC, c)
		}
		switch {
		case lr.err == io.ErrNoProgress:
			if !stalls(sizes) {
				t.Fatalf("gave up on a reader that makes progress (sizes %v)", sizes)
			}
		case lr.err != nil:
			t.Fatalf("error %v", lr.err)
		case !bytes.Equal(rc.got, in):
			t.Fatalf("read %d of %d bytes", len(rc.got), len(in))
		}
		wantL, wantC := bufioLines(bytes.NewReader(rc.got))
		if len(gotL) != len(wantL) {
			t.Fatalf("%d lines, want %d", len(gotL), len(wantL))
		}
		for i := range wantL {
			if gotL[i] != wantL[i] || gotC[i] != wantC[i] {
				t.Fatalf("line %d: %q cut %d, want %q cut %d", i, gotL[i], gotC[i], wantL[i], wantC[i])
			}
		}
	})
}

// kernelTag finds what strings.Index(s, " kernel: ") or a " kernel:"
// suffix found.
func TestKernelTag(t *testing.T) {
	ref := func(s string) int {
		if i := strings.Index(s, " kernel: "); i >= 0 {
			return i
		}
		if strings.HasSuffix(s, " kernel:") {
			return len(s) - len(" kernel:")
		}
		return -1
	}
	parts := []string{" ", "kernel:", "kernel", ":", "x", " kernel: ", "k"}
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		require.Equal(t, ref(s), kernelTag(s), "%q", s)
		if depth < 5 {
			for _, p := range parts {
				walk(s+p, depth+1)
			}
		}
	}
	walk("", 0)
}

// mayStartOops says what the prefix and substring tests said.
func TestMayStartOops(t *testing.T) {
	ref := func(text string) bool {
		for _, p := range oopsPrefixes {
			if strings.HasPrefix(text, p) {
				return true
			}
		}
		return strings.Contains(text, "BUG") || strings.Contains(text, "lockup") || strings.Contains(text, "LOCKUP")
	}
	parts := append([]string{"B", "U", "G", "lock", "up", "LOCK", "UP", "u", "x", "BU"}, oopsPrefixes...)
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		require.Equal(t, ref(s), mayStartOops(s), "%q", s)
		if depth < 4 {
			for _, p := range parts {
				walk(s+p, depth+1)
			}
		}
	}
	walk("", 0)
}
