package acpi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/fwcheck/fwcheck/internal/regfile"
)

// ParseDump reads acpidump text, plain or gzip-compressed: for each table a
// "SIG @ 0xADDR" line then hex rows "OFFS: XX XX … ascii". It is lenient:
// warning lines before or between tables (a kernel "Firmware Warning", an
// acpidump notice) and blank lines are skipped and noted in
// Tables.Warnings; the "RSD PTR" block is kept as the RSDP; a dump without
// RSDP or XSDT is fine. A row whose offset does not continue its table, or
// text with no table at all, is an error.
func ParseDump(r io.Reader) (*Tables, error) {
	bufs := dumpBufPool.Get().(*dumpBufs)
	defer dumpBufPool.Put(bufs)
	bufs.in.Reset(r)
	br := bufs.in
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		// klauspost/compress's gzip rather than the standard library's:
		// inflating the corpus's 36 compressed dumps took 20% less time
		// (about 140 → 110 ms), a tenth of parsing its dumps.
		zr := bufs.zr
		if zr == nil {
			zr = new(gzip.Reader)
		}
		if err := zr.Reset(br); err != nil {
			return nil, fmt.Errorf("acpidump: %w", err)
		}
		bufs.zr = zr
		defer zr.Close()
		bufs.text.Reset(zr)
		br = bufs.text
	}
	defer func() {
		// nothing of the input stays reachable from the pool
		bufs.in.Reset(nil)
		bufs.text.Reset(nil)
	}()
	ts := &Tables{Source: "acpidump"}
	// The text is bounded too: junk lines are only counted, so an
	// endless stream of them (/dev/urandom) never ended.
	sc := bufio.NewScanner(regfile.LimitReader(br, MaxDumpText))
	sc.Buffer(bufs.line[:0], 1<<20)
	var cur *Table
	var data, reserved int
	flush := func() {
		if cur != nil {
			// A table shorter than its length field does not keep the
			// room reserved for the rest.
			if cap(cur.Raw)-len(cur.Raw) > 4096 {
				cur.Raw = bytes.Clone(cur.Raw)
			}
			if len(cur.Raw) >= 8 && string(cur.Raw[:8]) == "RSD PTR " {
				cur.Signature = SigRSDP
			}
			ts.add(cur)
			cur = nil
		}
	}
	line := 0
	var rowBuf [16]byte
	for sc.Scan() {
		line++
		// The line's bytes, not a string of them: a string per line was
		// a third of parsing a dump's text; the rare header line is made
		// a string.
		s := bytes.TrimSpace(sc.Bytes())
		if len(s) == 0 {
			continue
		}
		if maybeHeaderLine(s) {
			if sig, addr, ok := dumpHeaderLine(string(s)); ok {
				flush()
				if len(ts.List) >= MaxTables {
					return nil, fmt.Errorf("acpidump line %d: more than %d tables (real machines have under 100)", line, MaxTables)
				}
				cur = &Table{Signature: sig, Address: addr, Origin: "acpidump"}
				continue
			}
		}
		off, row, ok := dumpRow(s, &rowBuf)
		if !ok || cur == nil {
			// Keep the first few skipped lines; count the rest, so junk
			// costs a counter, not memory.
			if ts.SkippedLines++; ts.SkippedLines <= maxSkippedShown {
				ts.warnf("acpidump line %d: skipped %q", line, truncate(string(s), 80))
			}
			continue
		}
		ts.TableLines++
		if off != len(cur.Raw) {
			return nil, fmt.Errorf("acpidump line %d: %s row offset 0x%x, expected 0x%x", line, cur.Signature, off, len(cur.Raw))
		}
		if data += len(row); data > MaxTableData {
			return nil, fmt.Errorf("acpidump line %d: more than %d MiB of table data (real machines have a few)", line, MaxTableData>>20)
		}
		cur.Raw = append(cur.Raw, row...)
		// Once the length field is in, make room for the whole table at
		// once, so an honest table is one allocation of its own size, not
		// a chain of doublings. What is reserved this way is bounded by
		// MaxTableData over the whole dump, whatever the length fields say.
		if n := len(cur.Raw); n >= 8 && n-len(row) < 8 {
			if want := int(binary.LittleEndian.Uint32(cur.Raw[4:8])); want > n && want-n <= MaxTableData-reserved {
				reserved += want - n
				cur.Raw = slices.Grow(cur.Raw, want-n)
			}
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("acpidump line %d: longer than 1 MiB: not acpidump text", line+1)
	} else if errors.Is(err, regfile.ErrTooLarge) {
		return nil, fmt.Errorf("acpidump: more than %d MiB of text (%d MiB of tables take about %d MiB)", MaxDumpText>>20, MaxTableData>>20, 5*MaxTableData>>20)
	} else if err != nil {
		return nil, fmt.Errorf("acpidump: %w", err)
	}
	// acpidump writes every table whole, so a last table shorter than its
	// own Length field means the file was cut off: say so and leave the
	// fragment out rather than let checks judge the firmware by it.
	if cur != nil && cur.Signature != SigRSDP && !(len(cur.Raw) >= 8 && string(cur.Raw[:8]) == "RSD PTR ") {
		if len(cur.Raw) >= 8 && int(binary.LittleEndian.Uint32(cur.Raw[4:8])) > MaxTableData {
			// not a cut-off dump: no dump holds a table that long, so the
			// length field is wrong; the table is kept for the checks to
			// judge, and its length said
			ts.warnf("%s says it is %d bytes long, more than any dump holds; the %d bytes the dump has are kept", cur.Signature, binary.LittleEndian.Uint32(cur.Raw[4:8]), len(cur.Raw))
		} else if len(cur.Raw) < 8 || int(binary.LittleEndian.Uint32(cur.Raw[4:8])) > len(cur.Raw) {
			want := "its Length field"
			if len(cur.Raw) >= 8 {
				want = fmt.Sprintf("%d", binary.LittleEndian.Uint32(cur.Raw[4:8]))
			}
			ts.warnf("acpidump ends inside %s after %d of %s bytes: the file is truncated, so %s is left out", cur.Signature, len(cur.Raw), want, cur.Signature)
			cur = nil
		}
	}
	flush()
	if n := ts.SkippedLines - maxSkippedShown; n > 0 {
		ts.warnf("acpidump: %d more lines skipped", n)
	}
	if len(ts.List) == 0 {
		return nil, fmt.Errorf("acpidump: no tables found")
	}
	return ts, nil
}

// dumpBufs are ParseDump's buffers, kept between dumps: allocating the
// two readers', the scanner's and the gzip reader's state afresh was
// 14 MB a pass of BenchmarkAllACPIChecksCorpus (tests/all), memory the
// runtime then faulted in again for the next dump.
type dumpBufs struct {
	in, text *bufio.Reader
	zr       *gzip.Reader
	line     []byte
}

var dumpBufPool = sync.Pool{New: func() any {
	return &dumpBufs{in: bufio.NewReaderSize(nil, 64*1024), text: bufio.NewReaderSize(nil, 64*1024),
		line: make([]byte, 64*1024)}
}}

// maxSkippedShown is how many skipped acpidump lines get a warning each.
const maxSkippedShown = 10

// MaxDumpText bounds the text of an acpidump (after gzip): a row of 16
// bytes takes 75 characters, so MaxTableData of tables is about 150 MiB.
const MaxDumpText = 6 * MaxTableData

// LoadDumpFile reads an acpidump text file (gzip-compressed or not); it
// must be a regular file.
func LoadDumpFile(path string) (*Tables, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ts, err := ParseDump(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ts.Source = path
	return ts, nil
}

// dumpHeaderLine recognises "FACP @ 0x00000000BFFD0000" (and "RSD PTR @ …").
func dumpHeaderLine(s string) (sig string, addr uint64, ok bool) {
	at := strings.Index(s, " @ 0x")
	if at <= 0 || at > 12 {
		return "", 0, false
	}
	sig = strings.TrimSpace(s[:at])
	if sig == "" || strings.ContainsAny(sig, ":") {
		return "", 0, false
	}
	a, err := strconv.ParseUint(strings.TrimSpace(s[at+5:]), 16, 64)
	if err != nil {
		return "", 0, false
	}
	if sig == "RSD" || sig == "RSD PTR" {
		sig = SigRSDP
	}
	return sig, a, true
}

// maybeHeaderLine tells whether s can be a header line dumpHeaderLine
// accepts: " @ 0x" within its first 12 bytes (rows never have it).
func maybeHeaderLine(s []byte) bool {
	at := bytes.Index(s, []byte(" @ 0x"))
	return at > 0 && at <= 12
}

// dumpRow decodes "00A0: 00 01 … ascii" into its offset and up to 16
// bytes, which it writes into buf.
func dumpRow(s []byte, buf *[16]byte) (int, []byte, bool) {
	colon := bytes.IndexByte(s, ':')
	if colon < 1 || colon > 8 {
		return 0, nil, false
	}
	// at most 8 hex digits: what strconv.ParseUint(s[:colon], 16, 32)
	// accepted, without making a string of them
	var off uint64
	for _, c := range s[:colon] {
		d, ok := unhex(c)
		if !ok {
			return 0, nil, false
		}
		off = off<<4 | uint64(d)
	}
	// Hex bytes are separated by one space; two spaces (or the end of the
	// line) start the ASCII column, which may itself look like hex.
	rest := bytes.TrimLeft(s[colon+1:], " ")
	out := buf[:0]
	for len(out) < 16 && len(rest) >= 2 {
		h, okh := unhex(rest[0])
		l, okl := unhex(rest[1])
		if !okh || !okl || (len(rest) > 2 && rest[2] != ' ') {
			break
		}
		out = append(out, h<<4|l)
		rest = rest[2:]
		if len(rest) < 2 || rest[1] == ' ' {
			break
		}
		rest = rest[1:]
	}
	if len(out) == 0 {
		return 0, nil, false
	}
	return int(off), out, true
}

func unhex(c byte) (byte, bool) {
	v := hexValue[c]
	return v, v < 16
}

// hexValue maps a hex digit's character to its value, any other byte to
// 0xFF: one load per digit where the range tests were three branches (the
// dump text is 35 MB of them a pass of the corpus).
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := 0; i < 10; i++ {
		t['0'+i] = byte(i)
	}
	for i := 0; i < 6; i++ {
		t['a'+i], t['A'+i] = byte(10+i), byte(10+i)
	}
	return t
}()

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// WriteDump writes ts as acpidump text that ParseDump reads back.
func WriteDump(w io.Writer, ts *Tables) error {
	var b bytes.Buffer
	for _, t := range ts.List {
		sig := t.Signature
		fmt.Fprintf(&b, "%s @ 0x%016X\n", sig, t.Address)
		for off := 0; off < len(t.Raw); off += 16 {
			end := min(off+16, len(t.Raw))
			fmt.Fprintf(&b, "    %04X:", off)
			for _, c := range t.Raw[off:end] {
				fmt.Fprintf(&b, " %02X", c)
			}
			b.WriteString(strings.Repeat("   ", 16-(end-off)))
			b.WriteString("  ")
			for _, c := range t.Raw[off:end] {
				if c < 0x20 || c > 0x7e {
					c = '.'
				}
				b.WriteByte(c)
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}
