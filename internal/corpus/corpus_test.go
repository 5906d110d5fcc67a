package corpus

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// recorder is a testing.TB that records how a test ended.
type recorder struct {
	testing.TB
	ended string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.ended = "failed: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, args ...any) {
	r.ended = "skipped: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func end(f func(tb testing.TB)) string {
	r := &recorder{}
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
	return r.ended
}

func TestMissingCorpusFailsWhenRequired(t *testing.T) {
	t.Setenv("FWCHECK_SHARED", t.TempDir()) // set, and holding no corpus
	assert.Contains(t, end(func(tb testing.TB) { Dir(tb, "acpi") }), "failed: FWCHECK_SHARED is set, and: shared corpus absent")
	assert.Contains(t, end(func(tb testing.TB) { Glob(tb, "acpi/*.txt") }), "failed: ")
}

func TestMissingCorpusSkipsWhenNotRequired(t *testing.T) {
	t.Setenv("FWCHECK_SHARED", "")
	if Root() != "" {
		// ../shared/corpus is here: ask for a part it lacks.
		assert.Contains(t, end(func(tb testing.TB) { Dir(tb, "no-such-part") }), "skipped: shared corpus has no no-such-part")
		return
	}
	assert.Contains(t, end(func(tb testing.TB) { Dir(tb, "acpi") }), "skipped: shared corpus absent")
}
