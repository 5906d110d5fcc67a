// Package corpus locates the shared real-world data (../shared/corpus
// beside the repository, or $FWCHECK_SHARED/corpus) for tests and
// benchmarks, and skips them when it is absent so the project stays
// testable on its own. When FWCHECK_SHARED is set (CI says the corpus is
// there), a missing corpus or part of it fails the test instead: a test
// that silently skips proves nothing.
package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the shared corpus directory, or "" when it is absent.
func Root() string {
	if d := os.Getenv("FWCHECK_SHARED"); d != "" {
		if st, err := os.Stat(filepath.Join(d, "corpus")); err == nil && st.IsDir() {
			return filepath.Join(d, "corpus")
		}
		return ""
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// internal/corpus/corpus.go → repository root → ../shared/corpus
	d := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return filepath.Clean(d)
	}
	return ""
}

// Dir returns the corpus subdirectory elem (e.g. "acpi", "linuxhw"), or
// skips tb when it is absent.
func Dir(tb testing.TB, elem ...string) string {
	tb.Helper()
	r := Root()
	if r == "" {
		Missing(tb, "shared corpus absent (../shared/corpus or $FWCHECK_SHARED)")
	}
	d := filepath.Join(append([]string{r}, elem...)...)
	if _, err := os.Stat(d); err != nil {
		Missing(tb, "shared corpus has no %s", filepath.Join(elem...))
	}
	return d
}

// Glob returns the corpus files matching pattern (relative to the corpus
// root), or skips tb when there are none.
func Glob(tb testing.TB, pattern string) []string {
	tb.Helper()
	r := Root()
	if r == "" {
		Missing(tb, "shared corpus absent (../shared/corpus or $FWCHECK_SHARED)")
	}
	m, _ := filepath.Glob(filepath.Join(r, pattern))
	if len(m) == 0 {
		Missing(tb, "shared corpus has no %s", pattern)
	}
	return m
}

// Required reports whether the corpus must be there: FWCHECK_SHARED is set.
func Required() bool { return os.Getenv("FWCHECK_SHARED") != "" }

// Missing ends tb for corpus data that is not there: a skip, or a failure
// when the corpus is Required.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if Required() {
		tb.Fatalf("FWCHECK_SHARED is set, and: "+format, args...)
	}
	tb.Skipf(format, args...)
}
