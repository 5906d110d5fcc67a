package aml

import (
	"fmt"
	"sync/atomic"
	"time"
)

// The evaluation budget. AML is code from firmware, and firmware loops:
// a While that polls an EC or I/O status bit never ends when the read is
// emulated, and a hostile table can allocate a megabyte a step. A step
// limit alone caps neither time (one step can copy a megabyte) nor memory
// (a megabyte stored into each of 65,536 package elements), and
// per-evaluation limits do not add up across the thousands of
// evaluations of a run. So every evaluation is bounded in steps (terms
// run), bytes allocated (buffers, strings, packages, copies: what the
// evaluator allocates, charged before it does) and wall time, and the
// evaluations sharing a RunBudget (those of one fwcheck run) are bounded
// in all three together. Exceeding the budget ends that evaluation with an
// EvalBudget error (EvalStepLimit for the per-evaluation step limit, the
// signature of an endless loop); the next evaluation starts afresh, unless
// the run's budget is spent.

// Defaults of the budget (Options and NewRunBudget).
const (
	DefaultMaxSteps = 100000
	DefaultMaxBytes = 16 << 20
	DefaultMaxTime  = 2 * time.Second

	DefaultRunSteps = 20000000
	DefaultRunBytes = 512 << 20
	DefaultRunTime  = 20 * time.Second
)

// maxTerms bounds the terms Load keeps for all the tables together: the
// largest machine of the corpus has 302,263 (875 KB of AML, 0.35 terms a
// byte), so 524,288 leaves it 1.7 times the room; at about 110 bytes a
// term (the Term itself and its place in a list) this bounds the tree to
// some 58 MB whatever the tables hold, so that a 32 MiB DSDT of one term a
// byte loads within the 128 MiB a snapshot may hold.
const maxTerms = 1 << 19

// RunBudget is the budget shared by the evaluations of one run, across
// evaluators; it is safe for concurrent use.
type RunBudget struct {
	Steps int64
	Bytes int64
	Time  time.Duration

	steps, bytes, nanos atomic.Int64
	exceeded            atomic.Int64
}

// NewRunBudget returns a run budget with the default limits.
func NewRunBudget() *RunBudget {
	return &RunBudget{Steps: DefaultRunSteps, Bytes: DefaultRunBytes, Time: DefaultRunTime}
}

// Used returns what the run's evaluations have spent so far.
func (r *RunBudget) Used() (steps, bytes int64, d time.Duration) {
	return r.steps.Load(), r.bytes.Load(), time.Duration(r.nanos.Load())
}

// Exceeded is how many evaluations ended by the budget.
func (r *RunBudget) Exceeded() int64 { return r.exceeded.Load() }

// spent says which part of the run's budget is used up, "" when none is.
func (r *RunBudget) spent() string {
	s, b, d := r.Used()
	switch {
	case s >= r.Steps:
		return fmt.Sprintf("%d steps", r.Steps)
	case b >= r.Bytes:
		return sizeText(r.Bytes) + " allocated"
	case d >= r.Time:
		return r.Time.String()
	}
	return ""
}

// String states the run's limits and what is used of them.
func (r *RunBudget) String() string {
	s, b, d := r.Used()
	return fmt.Sprintf("%d of %d steps, %s of %s allocated, %s of %s", s, r.Steps, sizeText(b), sizeText(r.Bytes),
		d.Round(time.Millisecond), r.Time)
}

// Budget states an evaluator's per-evaluation limits.
func (e *Evaluator) Budget() string {
	return fmt.Sprintf("%d steps, %s allocated and %s an evaluation", e.opt.MaxSteps, sizeText(e.opt.MaxBytes), e.opt.MaxTime)
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// meter is one evaluation's account.
type meter struct {
	start              time.Time
	deadline           time.Time
	stepsMax, bytesMax int64
	bytes              int64
	checked            int // steps at the last clock reading
}

// begin opens the account of one evaluation: the per-evaluation limits,
// lowered to what is left of the run's budget. A spent run budget fails
// the evaluation at once.
func (e *Evaluator) begin() {
	m := &e.meter
	*m = meter{start: time.Now(), stepsMax: int64(e.opt.MaxSteps), bytesMax: e.opt.MaxBytes}
	maxTime := e.opt.MaxTime
	if r := e.opt.Run; r != nil {
		if what := r.spent(); what != "" {
			e.failBudget(nil, "the run's AML evaluation budget (%s) is spent", what)
		}
		s, b, d := r.Used()
		m.stepsMax = min(m.stepsMax, r.Steps-s)
		m.bytesMax = min(m.bytesMax, r.Bytes-b)
		maxTime = min(maxTime, r.Time-d)
	}
	m.deadline = m.start.Add(maxTime)
}

// end books the evaluation's spending to the run.
func (e *Evaluator) end(err error) {
	over := false
	if k := ErrorKind(err); k == EvalBudget || k == EvalStepLimit {
		over = true
		if e.exceeded == 0 {
			e.firstExceeded = err
		}
		e.exceeded++
	}
	r := e.opt.Run
	if r == nil {
		return
	}
	r.steps.Add(min(int64(e.steps), e.meter.stepsMax))
	r.bytes.Add(e.meter.bytes)
	r.nanos.Add(int64(time.Since(e.meter.start)))
	if over {
		r.exceeded.Add(1)
	}
}

// Exceeded returns how many of the evaluator's evaluations ended by the
// budget (EvalBudget or EvalStepLimit), and the first such error.
func (e *Evaluator) Exceeded() (int, error) { return e.exceeded, e.firstExceeded }

// clock fails the evaluation past its deadline; step calls it every 256
// steps, charge on every large allocation.
func (e *Evaluator) clock(t *Term) {
	e.meter.checked = e.steps
	if time.Now().After(e.meter.deadline) {
		e.failBudget(t, "it ran longer than %s", e.meter.deadline.Sub(e.meter.start).Round(time.Millisecond))
	}
}

// charge books n bytes the evaluator is about to allocate.
func (e *Evaluator) charge(n int, t *Term) {
	e.meter.bytes += int64(n)
	if e.meter.bytes > e.meter.bytesMax {
		e.failBudget(t, "it allocated more than %s", sizeText(e.meter.bytesMax))
	}
	if n >= 64<<10 {
		e.clock(t)
	}
}

// objectCost is what one object costs besides its contents.
const objectCost = 64

// copyOf is Object.copy, charged as it copies: a package holding the same
// large buffer many times would otherwise cost its copies before any
// limit is checked.
func (e *Evaluator) copyOf(o *Object, t *Term) *Object {
	if o == nil {
		return nil
	}
	e.charge(objectCost, t)
	if o.Type == TypeInteger {
		return o // integers are never changed in place (see Integer)
	}
	c := *o
	switch o.Type {
	case TypeBuffer:
		e.charge(len(o.Buf), t)
		c.Buf = append([]byte(nil), o.Buf...)
	case TypePackage:
		e.charge(8*len(o.Pkg), t)
		c.Pkg = make([]*Object, len(o.Pkg))
		for i, el := range o.Pkg {
			c.Pkg[i] = e.copyOf(el, t)
		}
	}
	return &c
}

// failBudget ends the evaluation as exceeding its budget.
func (e *Evaluator) failBudget(t *Term, format string, args ...any) {
	e.fail(t, EvalBudget, format, args...)
}
