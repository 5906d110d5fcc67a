package tests

import (
	"regexp"
	"testing"
)

var (
	camelCaseRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`)
	checkIDRE   = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
)

// FuzzNames: the written-out label and check-ID tests agree with the
// regexps they replace.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"", "A", "Ab", "FADTLengthMismatch", "aB", "A_b", "A-b", "A1", "Ab\n", "É", "klog", "mcfg-reserved", "a_b", "1a", "a.b", "all", "K\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := camelCase(s), camelCaseRE.MatchString(s); got != want {
			t.Fatalf("camelCase(%q) = %v, the regexp says %v", s, got, want)
		}
		if got, want := checkID(s), checkIDRE.MatchString(s); got != want {
			t.Fatalf("checkID(%q) = %v, the regexp says %v", s, got, want)
		}
	})
}
