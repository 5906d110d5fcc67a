package report

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// wrap lays s out as one paragraph at width w.
func wrap(s string, w, indent, hang int) string {
	var b strings.Builder
	t := &textWriter{w: &b, o: TextOptions{Width: w}}
	t.para(indent, hang, plain("%s", s))
	return b.String()
}

// TestWrapLongWordLinear: one 4 MiB unbroken word (a Boot#### variable's
// hex) took 106 s to print; cutting it is linear now. The time is
// logged; the hang guard is a minute.
func TestWrapLongWordLinear(t *testing.T) {
	word := strings.Repeat("0123456789abcdef", 4<<20/16)
	guard := time.AfterFunc(time.Minute, func() { panic("wrapping a 4 MiB word takes over a minute") })
	defer guard.Stop()
	start := time.Now()
	out := wrap("Boot0001 = "+word+" end", 80, 2, 4)
	t.Logf("4 MiB word wrapped in %v", time.Since(start))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if got := strings.Join(strings.Fields(out), ""); got != "Boot0001="+word+"end" {
		t.Fatalf("the text changed in wrapping (%d bytes out)", len(got))
	}
	for _, l := range lines {
		if len(l) > 80 {
			t.Fatalf("line of %d", len(l))
		}
	}
	if want := len(word) / (80 - 6); len(lines) < want {
		t.Errorf("%d lines, want at least %d", len(lines), want)
	}
}

// FuzzWrap: wrapping keeps every non-space character in order, keeps
// lines within the width and takes time linear in the text.
func FuzzWrap(f *testing.F) {
	f.Add("a few words that wrap", 20, 2, 4)
	f.Add(strings.Repeat("x", 500), 41, 0, 10)
	f.Add("ünïcødé "+strings.Repeat("é", 300)+" end", 40, 3, 30)
	f.Add("line\nbreaks\n\n  kept", 80, 0, 0)
	f.Fuzz(func(t *testing.T, s string, w, indent, hang int) {
		if w < 40 || w > 400 || indent < 0 || indent > 20 || hang < 0 || hang > 40 {
			return
		}
		out := wrap(s, w, indent, hang)
		in := Sanitize(s, true)
		if a, b := strings.Join(strings.Fields(in), ""), strings.Join(strings.Fields(out), ""); a != b {
			t.Fatalf("text changed: %q → %q", a, b)
		}
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > w {
				t.Fatalf("line of %d > %d: %q", n, w, l)
			}
		}
	})
}
