package acpi

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseDump reads acpidump text: for each table a "SIG @ 0xADDR" line then
// hex rows "OFFS: XX XX … ascii". Lines before the first table (warnings)
// and blank lines are ignored.
func ParseDump(r io.Reader) (*Tables, error) {
	ts := &Tables{Source: "acpidump"}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var cur *Table
	flush := func() {
		if cur != nil {
			ts.add(cur)
			cur = nil
		}
	}
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		if at := strings.Index(s, " @ 0x"); at > 0 && !strings.Contains(s[:at], ":") {
			flush()
			sig := strings.TrimSpace(s[:at])
			addr, err := strconv.ParseUint(strings.TrimSpace(s[at+5:]), 16, 64)
			if err != nil {
				return nil, fmt.Errorf("acpidump line %d: bad address in %q", line, s)
			}
			cur = &Table{Signature: sig, Address: addr, Origin: "acpidump"}
			continue
		}
		if cur == nil {
			continue // leading warnings
		}
		colon := strings.IndexByte(s, ':')
		if colon < 0 {
			return nil, fmt.Errorf("acpidump line %d: want hex row, got %q", line, s)
		}
		off, err := strconv.ParseUint(s[:colon], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("acpidump line %d: bad offset %q", line, s[:colon])
		}
		if int(off) != len(cur.Raw) {
			return nil, fmt.Errorf("acpidump line %d: %s offset 0x%x, expected 0x%x", line, cur.Signature, off, len(cur.Raw))
		}
		rest := s[colon+1:]
		for _, f := range strings.Fields(rest) {
			if len(f) != 2 {
				break // the ASCII column
			}
			b, err := hex.DecodeString(f)
			if err != nil {
				break
			}
			cur.Raw = append(cur.Raw, b[0])
			if len(cur.Raw)-int(off) == 16 {
				break
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("acpidump: %w", err)
	}
	flush()
	if len(ts.List) == 0 {
		return nil, fmt.Errorf("acpidump: no tables found")
	}
	return ts, nil
}
