package acpi

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// refDumpRow is dumpRow as it was written over strings (strconv for the
// offset, a new slice per row): the bytes version must decode the same.
func refDumpRow(s string) (int, []byte, bool) {
	colon := strings.IndexByte(s, ':')
	if colon < 1 || colon > 8 {
		return 0, nil, false
	}
	off, err := strconv.ParseUint(s[:colon], 16, 32)
	if err != nil {
		return 0, nil, false
	}
	rest := strings.TrimLeft(s[colon+1:], " ")
	var out []byte
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

func FuzzDumpRow(f *testing.F) {
	for _, s := range []string{
		"0000: 46 41 43 50 F4 00 00 00 04 9A 41 4C 41 53 4B 41  FACP......ALASKA",
		"00A0: 00 01  ab", "ffffffff: 01", "+1: 02", "1_0: 03", "0x10: 04", "0010:", ": 00", "0g: 00", "12345678: 0A 0b 0C",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.TrimSpace(s)
		wo, wb, wok := refDumpRow(s)
		var buf [16]byte
		off, gb, gok := dumpRow([]byte(s), &buf)
		require.Equal(t, wok, gok, "%q", s)
		if wok {
			require.Equal(t, wo, off, "%q", s)
			require.True(t, bytes.Equal(wb, gb), "%q", s)
		}
		if i := strings.Index(s, " @ 0x"); i <= 0 || i > 12 {
			_, _, ok := dumpHeaderLine(s)
			require.False(t, ok, "a header line maybeHeaderLine would skip: %q", s)
		}
		require.Equal(t, maybeHeaderLine([]byte(s)), func() bool { i := strings.Index(s, " @ 0x"); return i > 0 && i <= 12 }())
	})
}
