package aml

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peakHeap runs fn and returns the largest heap in use seen while it ran
// (sampled every millisecond).
func peakHeap(fn func()) uint64 {
	runtime.GC()
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var max uint64
		var ms runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			max = maxU(max, ms.HeapInuse)
			select {
			case <-done:
				peak <- max
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(done)
	return <-peak
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// Each loop of testdata/budget.asl ends by the budget, quickly and
// within its bytes: before the budget, BUFL (a megabyte a step) ran 41 s,
// HEXL for minutes and PKGL grew to 64 GiB.
func TestEvalBudgetEndsLoops(t *testing.T) {
	ns, probs := Load(fixture(t, "budget.aml"))
	require.Empty(t, probs)
	for _, c := range []struct {
		path string
		kind EvalKind
		msg  string
	}{
		{`\BUFL`, EvalBudget, "allocated more than 16 MiB"},
		{`\HEXL`, EvalBudget, "allocated more than 16 MiB"},
		{`\PKGL`, EvalBudget, "allocated more than 16 MiB"},
		{`\POLL`, EvalStepLimit, "polling a region field the evaluator emulates"},
		{`\SPIN`, EvalStepLimit, "a loop that does not end"},
	} {
		e := NewEvaluator(ns, Options{})
		var err error
		start := time.Now()
		heap := peakHeap(func() { _, err = e.EvaluatePath(c.path) })
		t.Logf("%s: %v, %v, peak heap %.1f MB", c.path, err, time.Since(start).Round(time.Millisecond), float64(heap)/1e6)
		assert.Equal(t, c.kind, ErrorKind(err), c.path)
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "method "+c.path+" exceeded the evaluation budget")
			assert.Contains(t, err.Error(), c.msg)
		}
		assert.Less(t, heap, uint64(200<<20), "%s: memory bounded by the budget", c.path)
	}
	v, err := NewEvaluator(ns, Options{}).EvaluatePath(`\FAST`)
	require.NoError(t, err)
	assert.Equal(t, uint64(42), v.Int)
}

// The wall-time limit ends a loop the step limit would let run.
func TestEvalBudgetTime(t *testing.T) {
	ns, _ := Load(fixture(t, "budget.aml"))
	e := NewEvaluator(ns, Options{MaxSteps: 1 << 40, MaxTime: 50 * time.Millisecond})
	start := time.Now()
	_, err := e.EvaluatePath(`\SPIN`)
	t.Logf("%v after %v", err, time.Since(start))
	assert.Equal(t, EvalBudget, ErrorKind(err))
	assert.ErrorContains(t, err, "ran longer than 50ms")
	assert.Less(t, time.Since(start), 10*time.Second, "hang guard")
}

// The run's budget adds up across evaluations and evaluators: once spent,
// every evaluation ends at once, even one that would be quick.
func TestEvalRunBudget(t *testing.T) {
	ns, _ := Load(fixture(t, "budget.aml"))
	run := &RunBudget{Steps: 250000, Bytes: 1 << 30, Time: time.Minute}
	var kinds []EvalKind
	for range 2 {
		e := NewEvaluator(ns, Options{Run: run})
		for range 2 {
			_, err := e.EvaluatePath(`\SPIN`)
			kinds = append(kinds, ErrorKind(err))
		}
	}
	assert.Equal(t, []EvalKind{EvalStepLimit, EvalStepLimit, EvalBudget, EvalBudget}, kinds)
	_, err := NewEvaluator(ns, Options{Run: run}).EvaluatePath(`\FAST`)
	assert.Equal(t, EvalBudget, ErrorKind(err))
	assert.ErrorContains(t, err, "the run's AML evaluation budget (250000 steps) is spent")
	steps, _, _ := run.Used()
	assert.Equal(t, int64(250000), steps, "the third evaluation was cut to what was left")
	assert.Equal(t, int64(5), run.Exceeded(), "the four loops and the quick one")
	assert.Contains(t, run.String(), "250000 of 250000 steps")

	bytes := &RunBudget{Steps: 1 << 40, Bytes: 40 << 20, Time: time.Minute}
	e := NewEvaluator(ns, Options{Run: bytes})
	for range 3 {
		e.EvaluatePath(`\BUFL`)
	}
	_, err = e.EvaluatePath(`\FAST`)
	assert.ErrorContains(t, err, "MiB allocated) is spent")
}

// aml builds AML: a method named name whose body is n Noop opcodes.
func noopMethod(name string, n int) []byte {
	body := make([]byte, n)
	for i := range body {
		body[i] = 0xA3 // Noop
	}
	inner := append([]byte(name), 0) // NameSeg, flags
	inner = append(inner, body...)
	l := len(inner) + 4 // a 4-byte PkgLength
	out := []byte{0x14, 0xC0 | byte(l&0xF), byte(l >> 4), byte(l >> 12), byte(l >> 20)}
	return append(out, inner...)
}

// Tables with more terms than Load keeps: one TooLarge problem, the
// methods beyond the budget unparsed and evaluated as EvalBudget, the
// ones before it as they are.
func TestLoadBudget(t *testing.T) {
	var dsdt []byte
	for i := range 7 {
		dsdt = append(dsdt, noopMethod("M0"+string(rune('0'+i/10))+string(rune('0'+i%10)), 100000)...)
	}
	var ns *Namespace
	var probs []Problem
	heap := peakHeap(func() { ns, probs = Load(Table{Name: "DSDT", Signature: "DSDT", Revision: 2, AML: dsdt}) })
	t.Logf("%d bytes of AML: peak heap %.1f MB", len(dsdt), float64(heap)/1e6)
	require.Len(t, probs, 1)
	assert.Equal(t, TooLarge, probs[0].Kind)
	assert.Contains(t, probs[0].Msg, "more than 524288 terms")
	assert.Contains(t, probs[0].Msg, "2 method bodies")
	e := NewEvaluator(ns, Options{MaxSteps: 1 << 30})
	_, err := e.EvaluatePath(`\M000`)
	assert.NoError(t, err)
	_, err = e.EvaluatePath(`\M006`)
	assert.Equal(t, EvalBudget, ErrorKind(err))
	assert.ErrorContains(t, err, "not parsed: the tables exceed the load budget")
}
