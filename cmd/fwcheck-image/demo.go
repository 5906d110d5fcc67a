package main

import (
	"bytes"
	"io"

	"github.com/fwcheck/fwcheck/image"
)

// demoFilter stands between QEMU's serial console and the terminal in
// demo mode (boot --results FILE), so that the verdict is the last thing
// the report leaves on the screen:
//
//   - the results JSON the image prints between image.BeginMarker and
//     image.EndMarker (hundreds of lines, after the report) goes to the
//     results writer instead, markers included, so that
//     image.ExtractResults reads the file;
//   - the image's "fwcheck: done; poweroff" line after its verdict is
//     dropped;
//   - the screen clears firmware sends (OVMF: ESC[2J, and ESC c, the full
//     reset) are dropped, so they cannot wipe the boot messages and the
//     report above them; other escapes (colours, cursor moves) pass.
//
// Everything else passes at once, byte for byte: a shell prompt without a
// newline is shown as it arrives. Only a partial line that could still
// become a marker line, or a partial escape that could still become a
// clear, is held back until it is decided. Memory is bounded by the
// longest such prefix.
type demoFilter struct {
	term, results io.Writer
	inResults     bool
	// line is the current line so far when it may still be a marker (at
	// most len(BeginMarker)+1 bytes); pend is a held-back escape prefix.
	line []byte
	// atStart: the next byte starts a line.
	atStart bool
	pend    []byte
}

func newDemoFilter(term, results io.Writer) *demoFilter {
	return &demoFilter{term: term, results: results, atStart: true}
}

// doneLine starts the line the live image prints after the verdict, when
// it powers off or reboots; the machine's power-off shows that anyway.
var doneLine = []byte("fwcheck: done; ")

var screenClears = [][]byte{[]byte("\x1b[2J"), []byte("\x1bc")}

func (f *demoFilter) Write(p []byte) (int, error) {
	for _, b := range p {
		f.byte(b)
	}
	return len(p), nil
}

// byte handles one byte of the console.
func (f *demoFilter) byte(b byte) {
	if f.inResults {
		f.resultByte(b)
		return
	}
	// A line that may be the begin marker, or the image's closing status
	// line, is held until it is decided.
	if f.atStart || f.line != nil {
		f.atStart = false
		f.line = append(f.line, b)
		m := []byte(image.BeginMarker)
		trimmed := bytes.TrimRight(f.line, "\r\n")
		switch {
		case b == '\n' && bytes.Equal(trimmed, m):
			f.line = nil
			f.inResults = true
			_, _ = f.results.Write(append([]byte(image.BeginMarker), '\n'))
			return
		case b == '\n' && bytes.HasPrefix(trimmed, doneLine):
			f.line = nil // "fwcheck: done; poweroff": the verdict stays last
			f.atStart = true
			return
		case b != '\n' && len(f.line) < 4096 && (bytes.HasPrefix(m, trimmed) || bytes.HasPrefix(doneLine, trimmed) || bytes.HasPrefix(trimmed, doneLine)):
			return // still undecided
		}
		held := f.line
		f.line = nil
		for _, c := range held {
			f.termByte(c)
		}
		return
	}
	f.termByte(b)
}

// termByte writes one byte to the terminal, dropping screen clears.
func (f *demoFilter) termByte(b byte) {
	if b == '\n' {
		f.atStart = true
	}
	if len(f.pend) == 0 && b != 0x1b {
		_, _ = f.term.Write([]byte{b})
		return
	}
	f.pend = append(f.pend, b)
	for _, c := range screenClears {
		if bytes.Equal(f.pend, c) {
			f.pend = f.pend[:0]
			return
		}
	}
	for _, c := range screenClears {
		if bytes.HasPrefix(c, f.pend) {
			return
		}
	}
	// Not a clear: pass what was held. A new ESC inside is re-examined.
	held := append([]byte(nil), f.pend...)
	f.pend = f.pend[:0]
	_, _ = f.term.Write(held[:1])
	for _, c := range held[1:] {
		f.termByte(c)
	}
}

// resultByte copies the results block to the results writer, leaving it
// after the end marker's line.
func (f *demoFilter) resultByte(b byte) {
	f.line = append(f.line, b)
	if b != '\n' && len(f.line) < 1<<16 {
		return
	}
	_, _ = f.results.Write(f.line)
	if string(bytes.TrimRight(f.line, "\r\n")) == image.EndMarker {
		f.inResults = false
		f.atStart = true
	}
	f.line = nil
}

// Flush writes what is still held back (a partial line, a partial escape)
// where it belongs: the console ended.
func (f *demoFilter) Flush() {
	if f.inResults {
		_, _ = f.results.Write(f.line)
	} else {
		_, _ = f.term.Write(f.line)
	}
	f.line = nil
	_, _ = f.term.Write(f.pend)
	f.pend = nil
}
