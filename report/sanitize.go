package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sanitize returns s fit to print on a terminal: every string the report
// writes can come from firmware, a kernel log or a snapshot (a table's OEM
// ID, a log line carrying an ESC byte), and a terminal obeys control
// sequences. C0 controls, DEL and C1 controls are shown as \xNN and ESC as
// ^[, so a crafted string cannot set the title, clear the screen or hide
// text; bytes that are not UTF-8 are shown as \xNN too (a terminal in a
// legacy 8-bit mode would read 0x80–0x9F as C1 controls), and so are the
// Unicode line separators and bidirectional overrides that reorder what
// is shown (as \u202e). Newlines are kept when keepNewline is true (a
// multi-line message the report indents) and shown as \x0a otherwise; a
// tab becomes a space.
//
// The JSON document keeps strings exact: encoding/json escapes control
// characters itself. Considered: strconv.Quote (escapes quotes and every
// non-printable rune, which mangles ACPI paths and non-English text) and
// golang.org/x/text's width tables (a dependency for nothing we need).
func Sanitize(s string, keepNewline bool) string {
	if clean(s, keepNewline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewline:
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte(' ')
		case r == 0x1b:
			b.WriteString("^[")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean reports whether s needs no change (the common case: no copy).
func clean(s string, keepNewline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && !(c == '\n' && keepNewline) || c == 0x7f || c >= 0x80 {
			goto slow
		}
	}
	return true
slow:
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return false
			}
		case r < 0x20 && !(r == '\n' && keepNewline), r == 0x7f, r >= 0x80 && r <= 0x9f, hidden(r):
			return false
		}
	}
	return true
}

// hidden reports whether r changes how the text around it is shown: line
// and paragraph separators, and the bidirectional embeddings, overrides
// and isolates (a "Trojan Source" reordering).
func hidden(r rune) bool {
	return r == 0x2028 || r == 0x2029 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
