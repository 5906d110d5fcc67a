package image

import (
	"testing"
	"time"
)

func TestStatStartTime(t *testing.T) {
	for _, c := range []struct {
		line string
		want time.Duration
	}{
		// The shape of the live image's fwcheck's line: starttime 276 ticks.
		{"226 (fwcheck) R 1 226 0 0 -1 4194560 892 0 0 0 3 4 0 0 20 0 4 0 276 1270951936 2716 18446744073709551615 4194304 13094770 140734434245936 0 0 0 0 0 2143420159 0 0 0 17 0 0 0 0 0 0 15347712 15657656 16420864 140734434249623 140734434249655 140734434249655 140734434250731 0\n", 2760 * time.Millisecond},
		// A name with spaces and a parenthesis.
		{"7 (a) b (c)) S 1 7 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 15 0 0", 150 * time.Millisecond},
		{"", -1},
		{"1 (init S 1", -1},
		{"1 (init) S 1 1 0", -1},
		{"1 (init) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 0", -1},
		{"1 (init) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99999999999999999999 0", -1},
	} {
		if got := statStartTime(c.line); got != c.want {
			t.Errorf("statStartTime(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

func FuzzStatStartTime(f *testing.F) {
	f.Add("226 (fwcheck) R 1 226 0 0 -1 4194560 892 0 0 0 3 4 0 0 20 0 4 0 276 1270951936")
	f.Fuzz(func(t *testing.T, line string) {
		if d := statStartTime(line); d < -1 {
			t.Fatalf("statStartTime(%q) = %v", line, d)
		}
	})
}
