package aml

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EvalKind classifies why an evaluation did not produce a value.
type EvalKind uint8

const (
	// EvalNotStatic: the code touches hardware other than by reading an
	// OperationRegion field (a write to a field, Timer, an Event, Load),
	// so its result cannot be known without the machine. Not a firmware
	// error.
	EvalNotStatic EvalKind = iota + 1
	// EvalStepLimit: the evaluation ran more terms than Options.MaxSteps — a
	// loop that does not end on the values it sees.
	EvalStepLimit
	// EvalDepthLimit: methods called each other more than Options.MaxDepth
	// deep — unbounded recursion.
	EvalDepthLimit
	// EvalUnresolved: the code uses an object no loaded table defines (or
	// only an External declares).
	EvalUnresolved
	// EvalAMLError: the code does something AML forbids at run time: an
	// uninitialised Local or Arg, an index out of range, a division by
	// zero, an operand of the wrong type, Fatal.
	EvalAMLError
	// EvalUnsupported: a construct this evaluator does not implement (RefOf
	// a Local, say). Not a firmware error.
	EvalUnsupported
	// EvalInternal: a bug in the evaluator (it recovered from a panic).
	EvalInternal
	// EvalBudget: the evaluation exceeded its budget of bytes allocated
	// or wall time, or the run's budget is spent (see budget.go). Not
	// evidence of a firmware error: the result is not known.
	EvalBudget
)

var evalKindNames = map[EvalKind]string{EvalNotStatic: "not evaluable statically", EvalStepLimit: "step limit",
	EvalDepthLimit: "call depth limit", EvalUnresolved: "unresolved", EvalAMLError: "AML error", EvalUnsupported: "unsupported",
	EvalInternal: "internal error", EvalBudget: "budget"}

func (k EvalKind) String() string {
	if s, ok := evalKindNames[k]; ok {
		return s
	}
	return "eval-kind-" + itoa(int(k))
}

// EvalError says why an evaluation stopped: the kind, the method being
// run and the term (table and offset) where it happened.
type EvalError struct {
	Kind   EvalKind
	Method string // the path of the method running, "" outside methods
	Table  string
	Offset int
	Msg    string
	// RunTime, for an EvalUnresolved error, names the table the firmware
	// loads at run time, absent from the tables given, that may define
	// the missing object (Namespace.RunTimeLoads).
	RunTime string
}

func (e *EvalError) Error() string {
	where := ""
	if e.Table != "" {
		where = fmt.Sprintf(" at %s+0x%X", e.Table, e.Offset)
	}
	if e.Kind == EvalBudget || e.Kind == EvalStepLimit {
		who := "the evaluation"
		if e.Method != "" {
			who = "method " + displayPath(e.Method)
		}
		return fmt.Sprintf("%s exceeded the evaluation budget%s: %s", who, where, e.Msg)
	}
	in := ""
	if e.Method != "" {
		in = " in " + displayPath(e.Method)
	}
	return fmt.Sprintf("%s%s%s: %s", e.Kind, in, where, e.Msg)
}

// ErrorKind returns the EvalKind of err (0 when err is not an *EvalError).
func ErrorKind(err error) EvalKind {
	// errors.As costs an allocation (its target escapes) on every
	// evaluation's end, 108,000 a pass of BenchmarkAllACPIChecksCorpus: a
	// nil error or an EvalError as it is need none
	if err == nil {
		return 0
	}
	if e, ok := err.(*EvalError); ok {
		return e.Kind
	}
	var e *EvalError
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// Options configure an Evaluator. The zero value answers _OSI as Linux
// does, reads every OperationRegion field as zeros and refuses writes to
// them.
type Options struct {
	// OSI answers \_OSI (interface) queries; nil answers as Linux does
	// by default (LinuxOSI).
	OSI func(iface string) bool
	// ReadField returns the value of an OperationRegion field unit
	// (Field, IndexField or BankField); nil reads zeros. The result must
	// be an Integer, or a Buffer for units wider than an integer.
	ReadField func(unit *Node) (*Object, error)
	// WriteField receives writes to field units; nil makes such a write
	// EvalNotStatic (the written value may change what later reads return).
	WriteField func(unit *Node, v *Object) error
	// MaxSteps bounds the terms one Evaluate call runs; 0 means
	// DefaultMaxSteps (100 000).
	MaxSteps int
	// MaxBytes bounds the bytes one Evaluate call allocates; 0 means
	// DefaultMaxBytes (16 MiB).
	MaxBytes int64
	// MaxTime bounds the wall time of one Evaluate call; 0 means
	// DefaultMaxTime (2 s).
	MaxTime time.Duration
	// Run, when set, is the budget shared with the other evaluations of
	// the run (NewRunBudget).
	Run *RunBudget
	// MaxDepth bounds nested method calls; 0 means 32.
	MaxDepth int
	// OnOSI, when set, is told of every _OSI query and its answer.
	OnOSI func(iface string, answer bool)
}

// LinuxInterfaces are the _OSI strings Linux answers true by default: the
// Windows versions ACPICA knows and the feature strings Linux enables.
// Linux answers false to "Linux" and "Darwin" unless told otherwise
// (acpi_osi=Linux), so firmware cannot single it out.
var LinuxInterfaces = []string{
	"Windows 2000", "Windows 2001", "Windows 2001 SP1", "Windows 2001.1", "Windows 2001 SP2",
	"Windows 2001.1 SP1", "Windows 2006", "Windows 2006.1", "Windows 2006 SP1", "Windows 2006 SP2",
	"Windows 2009", "Windows 2012", "Windows 2013", "Windows 2015", "Windows 2016", "Windows 2017",
	"Windows 2017.2", "Windows 2018", "Windows 2018.2", "Windows 2019", "Windows 2020", "Windows 2021",
	"Windows 2022",
	"Module Device", "Processor Device", "3.0 Thermal Model", "3.0 _SCP Extensions",
	"Processor Aggregator Device", "Extended Address Space Descriptor",
}

var linuxOSI = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, s := range LinuxInterfaces {
		m[s] = true
	}
	return m
})

// LinuxOSI answers an _OSI query as Linux does by default.
func LinuxOSI(iface string) bool { return linuxOSI()[iface] }

// Evaluator runs AML of a namespace without hardware. Objects that code
// stores into (Names, buffer fields, package elements) keep their new
// values for later evaluations by the same Evaluator; the namespace itself
// is never modified. An Evaluator is not safe for concurrent use.
type Evaluator struct {
	ns      *Namespace
	opt     Options
	mask    uint64 // integer width: 32 bits for DSDT revision < 2
	width   int    // integer width in bytes
	values  map[*Node]*Object
	fields  map[*Node]*bufField
	steps   int
	reads   int
	depth   int
	current *frame
	frames  []*frame // returned calls' frames, for reuse (see call)
	meter   meter
	// evaluations ended by the budget, and the first one's error
	exceeded      int
	firstExceeded error
	held          []*Node // Mutexes acquired and not released (mutex.go)
	// condMisses counts CondRefOf answers "absent" (mutex.go)
	condMisses int
	// ints is where integer objects beyond the shared ones come from
	// (see intObj)
	ints []Object
}

type bufField struct {
	buf          *Object
	bitOff, bits int
}

type frame struct {
	method *Node
	scope  *Node
	args   []*Object
	locals [8]*Object
	ret    *Object
}

// NewEvaluator returns an evaluator over ns with the given options.
func NewEvaluator(ns *Namespace, opt Options) *Evaluator {
	if opt.OSI == nil {
		opt.OSI = LinuxOSI
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = DefaultMaxSteps
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.MaxTime <= 0 {
		opt.MaxTime = DefaultMaxTime
	}
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = 32
	}
	e := &Evaluator{ns: ns, opt: opt, mask: ^uint64(0), width: 8,
		values: map[*Node]*Object{}, fields: map[*Node]*bufField{}}
	if len(ns.Tables) > 0 && ns.Tables[0].Signature == "DSDT" && ns.Tables[0].Revision < 2 {
		e.mask, e.width = 0xFFFFFFFF, 4
	}
	return e
}

// IntegerWidth is the width of AML integers in bytes: 4 when the DSDT's
// revision is below 2, else 8.
func (e *Evaluator) IntegerWidth() int { return e.width }

// maxBytes bounds one buffer or string; maxElems one package.
const (
	maxBytes = 1 << 20
	maxElems = 1 << 16
)

// evalPanic carries an EvalError through the interpreter's recursion.
type evalPanic struct{ err *EvalError }

// Evaluate evaluates the object n: a method is run with args; a Name
// gives its value; a field unit or buffer field is read; a device or other
// object gives a Reference to it. A method that returns nothing gives a
// nil Object and no error.
func (e *Evaluator) Evaluate(n *Node, args ...*Object) (obj *Object, err error) {
	e.steps, e.reads, e.depth, e.current, e.held, e.condMisses = 0, 0, 0, nil, nil, 0
	defer func() {
		if r := recover(); r != nil {
			obj = nil
			if p, ok := r.(evalPanic); ok {
				err = p.err
			} else {
				err = &EvalError{Kind: EvalInternal, Msg: fmt.Sprint(r) + " (" + panicSite() + ")"}
			}
		}
		e.end(err)
	}()
	e.begin()
	if n == nil {
		return nil, &EvalError{Kind: EvalUnresolved, Msg: "no object"}
	}
	m := n.Resolved()
	if m != nil && m.Type == TypeMethod && !m.Predefined {
		return e.call(m, args, nil), nil
	}
	return e.nodeValue(n, nil), nil
}

// panicSite names the evaluator's function and line that panicked.
func panicSite() string {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, "/acpi/aml.") {
			return fmt.Sprintf("%s:%d", f.Function[strings.LastIndexByte(f.Function, '.')+1:], f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

// RunREG does what an OS does once it can reach each address space:
// it calls _REG (space, 1) in every scope that declares an OperationRegion
// of that space (ACPI 6.5 §6.5.4), in namespace order, so that the flags
// firmware keeps about its regions (an EC "ready" flag, say) hold what
// they hold on a running machine. Like Evaluate it changes only the
// Evaluator's state. A _REG that cannot be evaluated statically keeps
// what it did before it stopped; the errors are returned.
func (e *Evaluator) RunREG() []error {
	type key struct {
		scope *Node
		space uint8
	}
	seen := map[key]bool{}
	var errs []error
	e.ns.Walk(func(n *Node) bool {
		if n.InMethod || n.External {
			return false
		}
		if n.Type != TypeOperationRegion || n.Region == nil || n.Region.Space == 0xFF || n.Parent == nil {
			return true
		}
		k := key{n.Parent, n.Region.Space}
		if seen[k] {
			return true
		}
		seen[k] = true
		reg := n.Parent.Child("_REG")
		if reg == nil || reg.Resolved() == nil || reg.Resolved().Type != TypeMethod {
			return true
		}
		if _, err := e.Evaluate(reg, e.integer(uint64(n.Region.Space)), e.integer(1)); err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return errs
}

// EvaluatePath evaluates the object at an absolute path; a missing
// object is an EvalUnresolved error.
func (e *Evaluator) EvaluatePath(path string, args ...*Object) (*Object, error) {
	n := e.ns.Lookup(path)
	if n == nil {
		return nil, &EvalError{Kind: EvalUnresolved, Msg: displayPath(path) + " does not exist"}
	}
	return e.Evaluate(n, args...)
}

func (e *Evaluator) fail(t *Term, k EvalKind, format string, args ...any) {
	err := &EvalError{Kind: k, Msg: fmt.Sprintf(format, args...)}
	if e.current != nil && e.current.method != nil {
		err.Method = e.current.method.Path()
	}
	if t != nil {
		err.Offset = int(t.Offset)
		if e.current != nil && e.current.method != nil {
			err.Table = e.current.method.Table
		}
	}
	panic(evalPanic{err})
}

// unresolved fails the evaluation on a name that names nothing, saying
// which run-time table, absent here, may define it.
func (e *Evaluator) unresolved(t *Term, name string, format string, args ...any) {
	var scope *Node
	if e.current != nil && e.current.method != nil {
		scope = e.current.method
	}
	if ld := e.ns.runTimeSource(scope, name); ld != nil {
		err := &EvalError{Kind: EvalUnresolved, Msg: fmt.Sprintf(format, args...) + " (" + ld.says() + ")", RunTime: ld.Want}
		if scope != nil {
			err.Method = scope.Path()
		}
		if t != nil {
			err.Offset = int(t.Offset)
			if scope != nil {
				err.Table = scope.Table
			}
		}
		panic(evalPanic{err})
	}
	e.fail(t, EvalUnresolved, format, args...)
}

func (e *Evaluator) step(t *Term) {
	e.steps++
	if int64(e.steps) > e.meter.stepsMax {
		if e.meter.stepsMax < int64(e.opt.MaxSteps) {
			e.failBudget(t, "more than %d steps: the run's AML evaluation budget is spent", e.meter.stepsMax)
		}
		why := "a loop that does not end?"
		if e.reads > 0 {
			why = "a loop polling a region field the evaluator emulates?"
		}
		e.fail(t, EvalStepLimit, "more than %d steps (%s)", e.opt.MaxSteps, why)
	}
	if e.steps-e.meter.checked >= 256 {
		e.clock(t)
	}
}

func (e *Evaluator) call(m *Node, args []*Object, at *Term) *Object {
	if m.Method == nil {
		e.fail(at, EvalUnresolved, "%s is not a defined method", displayPath(m.Path()))
	}
	if m.External {
		e.unresolved(at, m.Path(), "%s is declared External but no loaded table defines it", displayPath(m.Path()))
	}
	if m.Method.Unparsed {
		e.failBudget(at, "%s is not parsed: the tables exceed the load budget of %d terms", displayPath(m.Path()), maxTerms)
	}
	if e.depth >= e.opt.MaxDepth {
		e.fail(at, EvalDepthLimit, "calls nested more than %d deep calling %s (unbounded recursion?)", e.opt.MaxDepth, displayPath(m.Path()))
	}
	e.depth++
	var f *frame
	if k := len(e.frames); k > 0 {
		f, e.frames = e.frames[k-1], e.frames[:k-1]
	} else {
		f = new(frame)
	}
	f.method, f.scope, f.args = m, m, args
	saved := e.current
	e.current = f
	e.execList(m.Method.Body, f)
	e.current = saved
	e.depth--
	ret := f.ret
	// Nothing keeps a frame once its call returns (objects never point
	// into one), so it is reused: a frame per call was 7 MB a pass of
	// BenchmarkAllACPIChecksCorpus (tests/all). A call a failure unwinds
	// leaves its frame to the collector.
	*f = frame{}
	e.frames = append(e.frames, f)
	return ret
}

type ctl uint8

const (
	ctlNext ctl = iota
	ctlReturn
	ctlBreak
	ctlContinue
)

func (e *Evaluator) execList(list []*Term, f *frame) ctl {
	for i := 0; i < len(list); i++ {
		t := list[i]
		e.step(t)
		switch t.Op {
		case OpIf, OpWhile:
			if len(t.Args()) == 0 {
				e.fail(t, EvalAMLError, "malformed %s without its predicate", t.Op)
			}
		}
		switch t.Op {
		case OpIf:
			hasElse := i+1 < len(list) && list[i+1].Op == OpElse
			if e.toInt(e.eval(t.Args()[0], f), t) != 0 {
				if hasElse {
					i++
				}
				if c := e.execList(t.Body(), f); c != ctlNext {
					return c
				}
			} else if hasElse {
				i++
				if c := e.execList(list[i].Body(), f); c != ctlNext {
					return c
				}
			}
		case OpElse:
			// an Else without its If (after a malformed If): skipped
		case OpWhile:
			for {
				e.step(t)
				if e.toInt(e.eval(t.Args()[0], f), t) == 0 {
					break
				}
				c := e.execList(t.Body(), f)
				if c == ctlBreak {
					break
				}
				if c == ctlReturn {
					return c
				}
			}
		case OpReturn:
			if len(t.Args()) > 0 {
				f.ret = e.eval(t.Args()[0], f)
			}
			return ctlReturn
		case OpBreak:
			return ctlBreak
		case OpContinue:
			return ctlContinue
		default:
			e.eval(t, f)
		}
	}
	return ctlNext
}

// intObj returns an integer object of the evaluator's width. Those not
// shared (see Integer) are cut from a slab of the evaluator's, 64 at a
// time: one allocation each was a fifth of evaluating every predefined
// object of the corpus (the methods check), most of it the collector's
// setting up of fresh memory. Integer objects are never written into, so
// sharing a slab is safe; a slab lives as long as any of its objects.
func (e *Evaluator) intObj(v uint64) *Object { return e.integer(v & e.mask) }

// integer is Integer, from the evaluator's slab.
func (e *Evaluator) integer(v uint64) *Object {
	if v < uint64(len(sharedInts.tab)) || v == 0xFFFFFFFF || v == ^uint64(0) {
		return Integer(v)
	}
	if len(e.ints) == 0 {
		e.ints = make([]Object, 64)
	}
	o := &e.ints[0]
	e.ints = e.ints[1:]
	o.Type, o.Int = TypeInteger, v
	return o
}

func (e *Evaluator) boolObj(b bool) *Object {
	if b {
		return e.integer(e.mask)
	}
	return e.integer(0)
}

// eval evaluates a term as a TermArg and returns its value (nil for a
// statement without one).
func (e *Evaluator) eval(t *Term, f *frame) *Object {
	if t == nil {
		e.fail(nil, EvalAMLError, "missing operand")
	}
	e.step(t)
	if need := operands(t.Op); len(t.Args()) < need {
		e.fail(t, EvalAMLError, "malformed %s: %d of its %d operands were parsed", t.Op, len(t.Args()), need)
	}
	switch t.Op {
	case OpZero, OpOne, OpByteConst, OpWordConst, OpDWordConst, OpQWordConst:
		v, _ := t.IntegerValue()
		return e.intObj(v)
	case OpOnes:
		return e.integer(e.mask)
	case OpRevision:
		return e.integer(2)
	case OpString:
		return String(t.Name)
	case OpBuffer:
		size := e.toInt(e.eval(t.Args()[0], f), t)
		if size > maxBytes {
			e.fail(t, EvalAMLError, "buffer of %d bytes (more than this evaluator allows)", size)
		}
		n := int(size)
		if len(t.Name) > n {
			n = len(t.Name)
		}
		e.charge(objectCost+n, t)
		b := make([]byte, n)
		copy(b, t.Name)
		return Buffer(b)
	case OpPackage, OpVarPackage:
		n := int(t.Int)
		if t.Op == OpVarPackage {
			c := e.toInt(e.eval(t.Args()[0], f), t)
			if c > maxElems {
				e.fail(t, EvalAMLError, "package of %d elements (more than this evaluator allows)", c)
			}
			n = int(c)
		}
		if len(t.Body()) > n {
			n = len(t.Body())
		}
		e.charge(objectCost+8*n, t)
		p := make([]*Object, n)
		for i, el := range t.Body() {
			p[i] = e.element(el, f)
		}
		return PackageOf(p...)
	case OpLocal0, OpLocal0 + 1, OpLocal0 + 2, OpLocal0 + 3, OpLocal0 + 4, OpLocal0 + 5, OpLocal0 + 6, OpLocal7:
		v := f.locals[t.Op-OpLocal0]
		if v == nil {
			e.fail(t, EvalAMLError, "%s is used before a value is stored in it", t.Op)
		}
		return v
	case OpArg0, OpArg0 + 1, OpArg0 + 2, OpArg0 + 3, OpArg0 + 4, OpArg0 + 5, OpArg6:
		i := int(t.Op - OpArg0)
		if f == nil || i >= len(f.args) || f.args[i] == nil {
			e.fail(t, EvalAMLError, "%s was not passed", t.Op)
		}
		return f.args[i]
	case OpNamePath:
		if t.Node == nil {
			e.unresolved(t, t.Name, "%s not found", displayPath(t.Name))
		}
		return e.nodeValue(t.Node, t)
	case OpCall:
		return e.invoke(t, f)
	case OpName:
		if t.Node != nil && len(t.Args()) > 0 {
			e.values[t.Node] = e.copyOf(e.element(t.Args()[0], f), t)
		}
		return nil
	case OpCreateDWord, OpCreateWord, OpCreateByte, OpCreateBit, OpCreateQWord, OpCreateField:
		if t.Node != nil {
			e.fields[t.Node] = e.createField(t, f)
		}
		return nil
	case OpMethod, OpDevice, OpScope, OpRegion, OpField, OpIndexField, OpBankField, OpMutex, OpEvent,
		OpExternal, OpAlias, OpProcessor, OpPowerRes, OpThermalZone, OpDataRegion:
		return nil
	case OpIf, OpWhile, OpElse, OpReturn, OpBreak, OpContinue:
		// control flow used where a value is expected: run it as a list
		e.execList([]*Term{t}, f)
		return nil
	}
	return e.operator(t, f)
}

// operands is the number of operands a term of op must have to be run.
func operands(op Op) int {
	switch op {
	case OpCreateField:
		return 3
	case OpCreateDWord, OpCreateWord, OpCreateByte, OpCreateBit, OpCreateQWord:
		return 2
	case OpBuffer, OpVarPackage:
		return 1
	}
	if info := exprOp(op); info != nil {
		return len(info.args)
	}
	return 0
}

// element evaluates a package element or Name value: a name there is a
// reference to the object, not its value.
func (e *Evaluator) element(t *Term, f *frame) *Object {
	if t.Op == OpNamePath {
		if t.Node == nil {
			// ACPICA leaves an unresolvable package element
			// uninitialised and goes on.
			return nil
		}
		return &Object{Type: TypeReference, Ref: t.Node}
	}
	return e.eval(t, f)
}

func (e *Evaluator) invoke(t *Term, f *frame) *Object {
	if t.Node == nil {
		e.unresolved(t, t.Name, "%s not found", displayPath(t.Name))
	}
	m := t.Node.Resolved()
	if m == nil {
		e.fail(t, EvalUnresolved, "%s: alias to nothing", displayPath(t.Name))
	}
	if m.Predefined && m.Name == "_OSI" {
		if len(t.Args()) != 1 {
			e.fail(t, EvalAMLError, "_OSI takes one argument")
		}
		s := e.toStr(e.eval(t.Args()[0], f), t)
		ans := e.opt.OSI(s)
		if e.opt.OnOSI != nil {
			e.opt.OnOSI(s, ans)
		}
		return e.boolObj(ans)
	}
	if m.Type != TypeMethod {
		return e.nodeValue(m, t)
	}
	args := make([]*Object, len(t.Args()))
	for i, a := range t.Args() {
		v := e.eval(a, f)
		if v == nil {
			e.fail(a, EvalAMLError, "argument %d of %s has no value", i, displayPath(t.Name))
		}
		args[i] = v
	}
	r := e.call(m, args, t)
	return r
}

// nodeValue is the value of a named object used as a TermArg.
func (e *Evaluator) nodeValue(n *Node, at *Term) *Object {
	n0 := n
	n = n.Resolved()
	if n == nil {
		e.fail(at, EvalUnresolved, "alias %s stands for nothing", displayPath(n0.Path()))
	}
	if v, ok := e.values[n]; ok {
		return v
	}
	if n.External {
		e.fail(at, EvalUnresolved, "%s is declared External but no loaded table defines it", displayPath(n.Path()))
	}
	if n.Predefined {
		switch n.Name {
		case "_OS_":
			return String("Microsoft Windows NT")
		case "_REV":
			return e.integer(2)
		}
	}
	switch n.Type {
	case TypeMethod:
		if n.Predefined {
			e.fail(at, EvalAMLError, "%s used without its argument", displayPath(n.Path()))
		}
		return e.call(n, nil, at)
	case TypeFieldUnit:
		return e.readField(n, at)
	case TypeBufferField:
		return e.readBufField(e.bufFieldOf(n, at))
	case TypeInteger, TypeString, TypeBuffer, TypePackage, TypeAny:
		if n.Def != nil && n.Def.Op == OpName && n.Value != nil {
			f := &frame{scope: n.Parent}
			if n.InMethod && e.current != nil {
				f = e.current
			}
			v := e.element(n.Value, f)
			if v == nil {
				v = &Object{}
			}
			e.values[n] = v
			return v
		}
		e.fail(at, EvalUnresolved, "%s has no value", displayPath(n.Path()))
	}
	return &Object{Type: TypeReference, Ref: n}
}

// FieldReads is the number of OperationRegion field reads the last
// Evaluate made: when it is not 0, the result depends on the fake values
// Options.ReadField gave (zeros by default), not on the firmware alone.
func (e *Evaluator) FieldReads() int { return e.reads }

// bufFieldOf returns the buffer field n, creating it from its
// definition when load-time code (or a method that has not run yet)
// creates it.
func (e *Evaluator) bufFieldOf(n *Node, at *Term) *bufField {
	if bf := e.fields[n]; bf != nil {
		return bf
	}
	if n.Def == nil || operands(n.Def.Op) == 0 {
		e.fail(at, EvalUnresolved, "buffer field %s has no definition", displayPath(n.Path()))
	}
	f := &frame{scope: n.Parent}
	if n.InMethod && e.current != nil {
		f = e.current
	}
	bf := e.createField(n.Def, f)
	e.fields[n] = bf
	return bf
}

func (e *Evaluator) readField(n *Node, at *Term) *Object {
	e.reads++
	if e.opt.ReadField != nil {
		v, err := e.opt.ReadField(n)
		if err != nil {
			e.fail(at, EvalNotStatic, "reading %s: %v", displayPath(n.Path()), err)
		}
		if v == nil || v.Type != TypeInteger && v.Type != TypeBuffer {
			e.fail(at, EvalInternal, "ReadField gave no Integer or Buffer for %s", displayPath(n.Path()))
		}
		return v
	}
	bits := 0
	if n.Field != nil {
		bits = n.Field.BitLength
	}
	if bits <= 8*e.width {
		return e.integer(0)
	}
	return Buffer(make([]byte, (bits+7)/8))
}

func (e *Evaluator) createField(t *Term, f *frame) *bufField {
	src := e.eval(t.Args()[0], f)
	src = e.deref(src, t)
	if src == nil || src.Type != TypeBuffer {
		e.fail(t, EvalAMLError, "%s: source is not a Buffer", t.Op)
	}
	idx := e.toInt(e.eval(t.Args()[1], f), t)
	var off, bits uint64
	switch t.Op {
	case OpCreateBit:
		off, bits = idx, 1
	case OpCreateByte:
		off, bits = idx*8, 8
	case OpCreateWord:
		off, bits = idx*8, 16
	case OpCreateDWord:
		off, bits = idx*8, 32
	case OpCreateQWord:
		off, bits = idx*8, 64
	case OpCreateField:
		off, bits = idx, e.toInt(e.eval(t.Args()[2], f), t)
		if bits == 0 {
			e.fail(t, EvalAMLError, "CreateField of 0 bits")
		}
	}
	if idx > maxBytes*8 || bits > maxBytes*8 || off+bits > uint64(len(src.Buf))*8 {
		e.fail(t, EvalAMLError, "%s %s: bits %d to %d lie outside the %d-byte buffer", t.Op, displayPath(t.Name), off, off+bits, len(src.Buf))
	}
	return &bufField{buf: src, bitOff: int(off), bits: int(bits)}
}

func (e *Evaluator) readBufField(bf *bufField) *Object {
	b := bf.buf.Buf
	if bf.bitOff+bf.bits > len(b)*8 {
		// the buffer was replaced by a shorter one
		e.fail(nil, EvalAMLError, "buffer field beyond the end of its buffer")
	}
	out := make([]byte, (bf.bits+7)/8)
	for i := 0; i < bf.bits; i++ {
		s := bf.bitOff + i
		if b[s/8]>>(s%8)&1 != 0 {
			out[i/8] |= 1 << (i % 8)
		}
	}
	if bf.bits <= 8*e.width {
		return e.integer(le(out))
	}
	return Buffer(out)
}

func (e *Evaluator) writeBufField(bf *bufField, v *Object, t *Term) {
	if v == nil {
		e.fail(t, EvalAMLError, "storing a value-less result")
	}
	var src []byte
	if v.Type == TypeBuffer {
		src = v.Buf
	} else {
		x := e.toInt(v, t)
		src = make([]byte, 8)
		for i := range src {
			src[i] = byte(x >> (8 * i))
		}
	}
	b := bf.buf.Buf
	if bf.bitOff+bf.bits > len(b)*8 {
		e.fail(t, EvalAMLError, "buffer field beyond the end of its buffer")
	}
	for i := 0; i < bf.bits; i++ {
		bit := byte(0)
		if i/8 < len(src) {
			bit = src[i/8] >> (i % 8) & 1
		}
		s := bf.bitOff + i
		b[s/8] = b[s/8]&^(1<<(s%8)) | bit<<(s%8)
	}
}

func le(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		if i < 8 {
			v = v<<8 | uint64(b[i])
		}
	}
	return v
}

// deref follows a Reference to what it refers to (an Index reference to a
// package element gives the element; into a buffer or string, the byte as
// an Integer).
func (e *Evaluator) deref(v *Object, t *Term) *Object {
	for i := 0; i < 8 && v != nil && v.Type == TypeReference; i++ {
		switch {
		case v.Ref != nil:
			v = e.nodeValue(v.Ref, t)
		case v.In != nil:
			in := v.In
			switch in.Type {
			case TypePackage:
				if v.Idx >= len(in.Pkg) {
					e.fail(t, EvalAMLError, "index %d beyond the %d-element package", v.Idx, len(in.Pkg))
				}
				el := in.Pkg[v.Idx]
				if el == nil {
					e.fail(t, EvalAMLError, "package element %d is uninitialised", v.Idx)
				}
				v = el
			case TypeBuffer:
				if v.Idx >= len(in.Buf) {
					e.fail(t, EvalAMLError, "index %d beyond the %d-byte buffer", v.Idx, len(in.Buf))
				}
				return e.integer(uint64(in.Buf[v.Idx]))
			case TypeString:
				if v.Idx >= len(in.Str) {
					e.fail(t, EvalAMLError, "index %d beyond the %d-character string", v.Idx, len(in.Str))
				}
				return e.integer(uint64(in.Str[v.Idx]))
			default:
				e.fail(t, EvalAMLError, "index into a %s", in.Type)
			}
		default:
			e.fail(t, EvalAMLError, "null reference")
		}
	}
	return v
}

// toInt converts implicitly to an Integer (ACPI 6.5 §19.3.5.7).
func (e *Evaluator) toInt(v *Object, t *Term) uint64 {
	v = e.deref(v, t)
	if v == nil {
		e.fail(t, EvalAMLError, "operand has no value (a method that returns nothing?)")
	}
	switch v.Type {
	case TypeInteger:
		return v.Int & e.mask
	case TypeBuffer:
		n := len(v.Buf)
		if n > e.width {
			n = e.width
		}
		return le(v.Buf[:n])
	case TypeString:
		s := strings.TrimSpace(v.Str)
		if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
			s = s[2:]
		}
		var x uint64
		for i := 0; i < len(s) && i < 2*e.width; i++ {
			d, ok := hexVal(s[i])
			if !ok {
				break
			}
			x = x<<4 | uint64(d)
		}
		return x
	}
	e.fail(t, EvalAMLError, "a %s where an Integer is needed", v.Type)
	return 0
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// toStr converts implicitly to a String.
func (e *Evaluator) toStr(v *Object, t *Term) string {
	v = e.deref(v, t)
	if v == nil {
		e.fail(t, EvalAMLError, "operand has no value")
	}
	switch v.Type {
	case TypeString:
		return v.Str
	case TypeInteger:
		s := hex(v.Int & e.mask)
		return strings.Repeat("0", 2*e.width-len(s)) + s
	case TypeBuffer:
		e.charge(3*len(v.Buf), t)
		var b strings.Builder
		for i, c := range v.Buf {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
		return b.String()
	}
	e.fail(t, EvalAMLError, "a %s where a String is needed", v.Type)
	return ""
}

// toBuf converts implicitly to a Buffer (a fresh slice).
func (e *Evaluator) toBuf(v *Object, t *Term) []byte {
	v = e.deref(v, t)
	if v == nil {
		e.fail(t, EvalAMLError, "operand has no value")
	}
	switch v.Type {
	case TypeBuffer:
		e.charge(len(v.Buf), t)
		return append([]byte(nil), v.Buf...)
	case TypeInteger:
		b := make([]byte, e.width)
		for i := range b {
			b[i] = byte(v.Int >> (8 * i))
		}
		return b
	case TypeString:
		if v.Str == "" {
			return []byte{}
		}
		return append([]byte(v.Str), 0)
	}
	e.fail(t, EvalAMLError, "a %s where a Buffer is needed", v.Type)
	return nil
}

func (e *Evaluator) checkSize(n int, t *Term) {
	if n > maxBytes {
		e.fail(t, EvalAMLError, "a value of %d bytes (more than this evaluator allows)", n)
	}
}

// store implements Store: the value converted to the target's type where
// the target is a typed named object or a field.
func (e *Evaluator) store(target *Term, v *Object, f *frame, copyObj bool) {
	if v == nil {
		e.fail(target, EvalAMLError, "storing a value-less result (a method that returns nothing?)")
	}
	switch {
	case target.Op == OpNullName || target.Op == OpDebug:
		return
	case target.Op >= OpLocal0 && target.Op <= OpLocal7:
		// a reference stays a reference (CondRefOf (X, Local0),
		// Store (Index (P, 1), Local1)); anything else is copied
		if v.Type != TypeReference {
			v = e.copyOf(v, target)
		}
		f.locals[target.Op-OpLocal0] = v
		return
	case target.Op >= OpArg0 && target.Op <= OpArg6:
		i := int(target.Op - OpArg0)
		if i < len(f.args) && f.args[i] != nil && f.args[i].Type == TypeReference && !copyObj {
			e.storeRef(f.args[i], v, target, copyObj)
			return
		}
		for len(f.args) <= i {
			f.args = append(f.args, nil)
		}
		f.args[i] = e.copyOf(e.deref(v, target), target)
		return
	case target.Op == OpNamePath || target.Op == OpCall && len(target.Args()) == 0:
		if target.Node == nil {
			e.fail(target, EvalUnresolved, "%s not found", displayPath(target.Name))
		}
		e.storeNode(target.Node, v, target, copyObj)
		return
	}
	r := e.eval(target, f)
	if r == nil || r.Type != TypeReference {
		e.fail(target, EvalAMLError, "the target of a store is not a name, Local, Arg or reference")
	}
	e.storeRef(r, v, target, copyObj)
}

func (e *Evaluator) storeRef(r, v *Object, t *Term, copyObj bool) {
	if r.Ref != nil {
		e.storeNode(r.Ref, v, t, copyObj)
		return
	}
	if r.In == nil {
		e.fail(t, EvalAMLError, "store through a null reference")
	}
	switch r.In.Type {
	case TypePackage:
		if r.Idx >= len(r.In.Pkg) {
			e.fail(t, EvalAMLError, "index %d beyond the %d-element package", r.Idx, len(r.In.Pkg))
		}
		r.In.Pkg[r.Idx] = e.copyOf(e.deref(v, t), t)
	case TypeBuffer:
		if r.Idx >= len(r.In.Buf) {
			e.fail(t, EvalAMLError, "index %d beyond the %d-byte buffer", r.Idx, len(r.In.Buf))
		}
		r.In.Buf[r.Idx] = byte(e.toInt(v, t))
	default:
		e.fail(t, EvalAMLError, "store into an element of a %s", r.In.Type)
	}
}

func (e *Evaluator) storeNode(n *Node, v *Object, t *Term, copyObj bool) {
	n = n.Resolved()
	if n == nil {
		e.fail(t, EvalUnresolved, "store to an alias of nothing")
	}
	if n.External {
		e.fail(t, EvalUnresolved, "%s is declared External but no loaded table defines it", displayPath(n.Path()))
	}
	switch n.Type {
	case TypeFieldUnit:
		if e.opt.WriteField == nil {
			e.fail(t, EvalNotStatic, "writes to %s, a field of an OperationRegion (hardware or firmware memory)", displayPath(n.Path()))
		}
		v = e.deref(v, t)
		if v == nil {
			e.fail(t, EvalAMLError, "storing a value-less result")
		}
		if v.Type != TypeInteger && v.Type != TypeBuffer {
			v = Buffer(e.toBuf(v, t))
		}
		if err := e.opt.WriteField(n, v); err != nil {
			e.fail(t, EvalNotStatic, "writing %s: %v", displayPath(n.Path()), err)
		}
		return
	case TypeBufferField:
		e.writeBufField(e.bufFieldOf(n, t), e.deref(v, t), t)
		return
	case TypeMethod, TypeDevice, TypeProcessor, TypeThermalZone, TypePowerResource, TypeMutex, TypeEvent,
		TypeOperationRegion, TypeScope:
		e.fail(t, EvalAMLError, "store to %s, a %s", displayPath(n.Path()), n.Type)
	}
	v = e.deref(v, t)
	if v == nil {
		e.fail(t, EvalAMLError, "storing a value-less result")
	}
	if !copyObj {
		if old := e.nodeValueOrNil(n, t); old != nil {
			switch old.Type {
			case TypeInteger:
				v = e.integer(e.toInt(v, t))
			case TypeString:
				v = String(e.toStr(v, t))
			case TypeBuffer:
				// the buffer keeps its length: shorter data is
				// zero-filled, longer data cut (§19.3.5.7); written in
				// place, so buffer fields over it see the new bytes
				b := e.toBuf(v, t)
				for i := range old.Buf {
					old.Buf[i] = 0
				}
				copy(old.Buf, b)
				return
			}
		}
	}
	e.values[n] = e.copyOf(v, t)
}

// nodeValueOrNil is the current value of a data object, nil when it has
// none yet.
func (e *Evaluator) nodeValueOrNil(n *Node, t *Term) *Object {
	if v, ok := e.values[n]; ok {
		return v
	}
	if n.Def != nil && n.Def.Op == OpName && n.Value != nil {
		return e.nodeValue(n, t)
	}
	return nil
}

func (e *Evaluator) result(t *Term, i int, v *Object, f *frame) *Object {
	if i < len(t.Args()) {
		e.store(t.Args()[i], v, f, false)
	}
	return v
}

func (e *Evaluator) operator(t *Term, f *frame) *Object {
	a := func(i int) *Object {
		if i >= len(t.Args()) {
			e.fail(t, EvalAMLError, "%s: operand %d missing", t.Op, i)
		}
		return e.eval(t.Args()[i], f)
	}
	ai := func(i int) uint64 { return e.toInt(a(i), t.Args()[i]) }
	switch t.Op {
	case OpStore:
		v := a(0)
		e.store(t.Args()[1], v, f, false)
		return v
	case OpCopyObject:
		v := a(0)
		e.store(t.Args()[1], v, f, true)
		return v
	case OpAdd, OpSubtract, OpMultiply, OpShiftLeft, OpShiftRight, OpAnd, OpNand, OpOr, OpNor, OpXor, OpMod:
		x, y := ai(0), ai(1)
		var r uint64
		switch t.Op {
		case OpAdd:
			r = x + y
		case OpSubtract:
			r = x - y
		case OpMultiply:
			r = x * y
		case OpShiftLeft:
			if y < 64 {
				r = x << y
			}
		case OpShiftRight:
			if y < 64 {
				r = x >> y
			}
		case OpAnd:
			r = x & y
		case OpNand:
			r = ^(x & y)
		case OpOr:
			r = x | y
		case OpNor:
			r = ^(x | y)
		case OpXor:
			r = x ^ y
		case OpMod:
			if y == 0 {
				e.fail(t, EvalAMLError, "Mod by zero")
			}
			r = x % y
		}
		return e.result(t, 2, e.intObj(r), f)
	case OpDivide:
		x, y := ai(0), ai(1)
		if y == 0 {
			e.fail(t, EvalAMLError, "Divide by zero")
		}
		q := e.intObj(x / y)
		e.result(t, 2, e.intObj(x%y), f)
		return e.result(t, 3, q, f)
	case OpNot:
		return e.result(t, 1, e.intObj(^ai(0)), f)
	case OpFindSetLeft, OpFindSetRt:
		x := ai(0)
		r := uint64(0)
		if x != 0 {
			if t.Op == OpFindSetLeft {
				for r = 64; x>>(r-1)&1 == 0; r-- {
				}
			} else {
				for r = 1; x>>(r-1)&1 == 0; r++ {
				}
			}
		}
		return e.result(t, 1, e.integer(r), f)
	case OpIncrement, OpDecrement:
		x := ai(0)
		if t.Op == OpIncrement {
			x++
		} else {
			x--
		}
		v := e.intObj(x)
		e.store(t.Args()[0], v, f, false)
		return v
	case OpLAnd:
		return e.boolObj(ai(0) != 0 && ai(1) != 0)
	case OpLOr:
		return e.boolObj(ai(0) != 0 || ai(1) != 0)
	case OpLNot:
		return e.boolObj(ai(0) == 0)
	case OpLEqual, OpLGreater, OpLLess:
		c := e.compare(a(0), a(1), t)
		switch t.Op {
		case OpLEqual:
			return e.boolObj(c == 0)
		case OpLGreater:
			return e.boolObj(c > 0)
		}
		return e.boolObj(c < 0)
	case OpToInteger:
		v := e.deref(a(0), t)
		var r uint64
		if v != nil && v.Type == TypeString {
			r = e.explicitInt(v.Str, t)
		} else {
			r = e.toInt(v, t)
		}
		return e.result(t, 1, e.intObj(r), f)
	case OpToBuffer:
		return e.result(t, 1, Buffer(e.toBuf(a(0), t)), f)
	case OpToHexString:
		v := e.deref(a(0), t)
		var s string
		switch {
		case v != nil && v.Type == TypeInteger:
			s = e.toStr(v, t) // as ACPICA: every digit of the integer width, no 0x
		case v != nil && v.Type == TypeBuffer:
			e.charge(32*len(v.Buf), t) // a string, its header and 5 bytes of text a byte
			parts := make([]string, len(v.Buf))
			for i, c := range v.Buf {
				parts[i] = fmt.Sprintf("0x%02X", c)
			}
			s = strings.Join(parts, ",")
		default:
			s = e.toStr(v, t)
		}
		return e.result(t, 1, String(s), f)
	case OpToDecString:
		v := e.deref(a(0), t)
		var s string
		switch {
		case v != nil && v.Type == TypeInteger:
			s = strconv.FormatUint(v.Int&e.mask, 10)
		case v != nil && v.Type == TypeBuffer:
			e.charge(24*len(v.Buf), t)
			parts := make([]string, len(v.Buf))
			for i, c := range v.Buf {
				parts[i] = strconv.Itoa(int(c))
			}
			s = strings.Join(parts, ",")
		default:
			s = e.toStr(v, t)
		}
		return e.result(t, 1, String(s), f)
	case OpToString:
		b := e.toBuf(a(0), t)
		n := ai(1)
		i := 0
		for i < len(b) && b[i] != 0 && (uint64(i) < n) {
			i++
		}
		return e.result(t, 2, String(string(b[:i])), f)
	case OpMid:
		v := e.deref(a(0), t)
		idx, n := ai(1), ai(2)
		var r *Object
		if v != nil && v.Type == TypeString {
			s := v.Str
			lo, hi := clip(idx, n, len(s))
			r = String(s[lo:hi])
		} else {
			b := e.toBuf(v, t)
			lo, hi := clip(idx, n, len(b))
			r = Buffer(b[lo:hi])
		}
		return e.result(t, 3, r, f)
	case OpConcat:
		x := e.deref(a(0), t)
		y := a(1)
		var r *Object
		switch {
		case x != nil && x.Type == TypeInteger:
			xb := e.toBuf(x, t)
			yb := e.toBuf(e.integer(e.toInt(y, t)), t)
			r = Buffer(append(xb, yb...))
		case x != nil && x.Type == TypeString:
			ys := e.toStr(y, t)
			e.charge(len(x.Str)+len(ys), t)
			r = String(x.Str + ys)
		case x != nil && x.Type == TypeBuffer:
			yb := e.toBuf(y, t)
			e.charge(len(x.Buf)+len(yb), t)
			r = Buffer(append(append([]byte(nil), x.Buf...), yb...))
		default:
			e.fail(t, EvalAMLError, "Concatenate of a %s", typeOf(x))
		}
		e.checkSize(len(r.Buf)+len(r.Str), t)
		return e.result(t, 2, r, f)
	case OpConcatRes:
		x, y := e.toBuf(a(0), t), e.toBuf(a(1), t)
		r := append(stripEndTag(x), stripEndTag(y)...)
		r = append(r, 0x79, 0)
		e.checkSize(len(r), t)
		return e.result(t, 2, Buffer(r), f)
	case OpSizeOf:
		v := e.deref(a(0), t)
		switch typeOf(v) {
		case TypeString:
			return e.integer(uint64(len(v.Str)))
		case TypeBuffer:
			return e.integer(uint64(len(v.Buf)))
		case TypePackage:
			return e.integer(uint64(len(v.Pkg)))
		}
		e.fail(t, EvalAMLError, "SizeOf a %s", typeOf(v))
	case OpIndex:
		src := a(0)
		if src != nil && src.Type == TypeReference {
			src = e.deref(src, t)
		}
		i := ai(1)
		n := 0
		switch typeOf(src) {
		case TypePackage:
			n = len(src.Pkg)
		case TypeBuffer:
			n = len(src.Buf)
		case TypeString:
			n = len(src.Str)
		default:
			e.fail(t, EvalAMLError, "Index into a %s", typeOf(src))
		}
		if i >= uint64(n) {
			e.fail(t, EvalAMLError, "Index %d beyond the end of a %d-element %s", i, n, src.Type)
		}
		return e.result(t, 2, &Object{Type: TypeReference, In: src, Idx: int(i)}, f)
	case OpDerefOf:
		v := a(0)
		if v != nil && v.Type == TypeString {
			n := e.ns.Resolve(f.scope, v.Str)
			if n == nil {
				e.fail(t, EvalUnresolved, "DerefOf %q: no such object", v.Str)
			}
			return e.nodeValue(n, t)
		}
		if v == nil || v.Type != TypeReference {
			e.fail(t, EvalAMLError, "DerefOf a %s", typeOf(v))
		}
		return e.deref(v, t)
	case OpRefOf:
		x := t.Args()[0]
		if x.Op == OpNamePath || x.Op == OpCall {
			if x.Node == nil {
				e.fail(t, EvalUnresolved, "%s not found", displayPath(x.Name))
			}
			return &Object{Type: TypeReference, Ref: x.Node}
		}
		v := e.eval(x, f)
		if v != nil && v.Type == TypeReference {
			return v
		}
		e.fail(t, EvalUnsupported, "RefOf %s", x.Op)
	case OpCondRefOf:
		x := t.Args()[0]
		var n *Node
		if x.Op == OpNamePath || x.Op == OpCall {
			n = x.Node
		}
		if n == nil || n.External {
			e.condMisses++
			return e.integer(0)
		}
		e.result(t, 1, &Object{Type: TypeReference, Ref: n}, f)
		return e.boolObj(true)
	case OpObjectType:
		x := t.Args()[0]
		if (x.Op == OpNamePath || x.Op == OpCall) && x.Node != nil {
			n := x.Node.Resolved()
			if n == nil {
				return e.integer(0)
			}
			if n.Type < 17 {
				if n.Type == TypeAny && n.Def != nil && n.Def.Op == OpName {
					return e.integer(uint64(typeOf(e.nodeValue(n, t))))
				}
				return e.integer(uint64(n.Type))
			}
			return e.integer(0)
		}
		v := e.deref(e.eval(x, f), t)
		return e.integer(uint64(typeOf(v)))
	case OpMatch:
		p := e.deref(a(0), t)
		if typeOf(p) != TypePackage {
			e.fail(t, EvalAMLError, "Match over a %s", typeOf(p))
		}
		op1, v1, op2, v2, start := t.Args()[1].Int, a(2), t.Args()[3].Int, a(4), ai(5)
		for i := start; i < uint64(len(p.Pkg)); i++ {
			el := e.deref(p.Pkg[i], t)
			if el == nil || el.Type != TypeInteger && el.Type != TypeString && el.Type != TypeBuffer {
				continue
			}
			if e.match(el, op1, v1, t) && e.match(el, op2, v2, t) {
				return e.integer(i)
			}
		}
		return e.integer(e.mask)
	case OpFromBCD:
		x := ai(0)
		var r, m uint64 = 0, 1
		for ; x != 0; x >>= 4 {
			r += (x & 15) * m
			m *= 10
		}
		return e.result(t, 1, e.intObj(r), f)
	case OpToBCD:
		x := ai(0)
		var r uint64
		for s := 0; x != 0 && s < 64; s += 4 {
			r |= (x % 10) << s
			x /= 10
		}
		return e.result(t, 1, e.intObj(r), f)
	case OpAcquire:
		return e.acquire(t) // acquired: nothing else runs
	case OpRelease:
		e.release(t)
		return nil
	case OpSleep, OpStall, OpNoop, OpBreakPoint, OpNotify:
		for i, k := range t.Args() {
			if t.Op != OpRelease && t.Op != OpNotify || i > 0 {
				e.eval(k, f)
			}
		}
		return nil
	case OpDebug:
		e.fail(t, EvalAMLError, "Debug read as a value")
	case OpTimer:
		e.fail(t, EvalNotStatic, "Timer reads the platform clock")
	case OpSignal, OpWait, OpReset:
		e.fail(t, EvalNotStatic, "%s on an Event waits for or signals another thread", t.Op)
	case OpLoad, OpLoadTable, OpUnload:
		e.fail(t, EvalNotStatic, "%s loads or unloads tables at run time", t.Op)
	case OpFatal:
		e.fail(t, EvalAMLError, "Fatal (type 0x%X, code 0x%X)", t.Args()[0].Int, t.Args()[1].Int)
	}
	e.fail(t, EvalUnsupported, "%s", t.Op)
	return nil
}

func clip(idx, n uint64, l int) (int, int) {
	if idx >= uint64(l) {
		return l, l
	}
	hi := uint64(l)
	if n < hi-idx {
		hi = idx + n
	}
	return int(idx), int(hi)
}

func typeOf(v *Object) Type {
	if v == nil {
		return TypeAny
	}
	return v.Type
}

func stripEndTag(b []byte) []byte {
	if len(b) >= 2 && b[len(b)-2] == 0x79 {
		return b[:len(b)-2]
	}
	return b
}

// explicitInt is ToInteger of a string: hexadecimal with 0x, else decimal.
func (e *Evaluator) explicitInt(s string, t *Term) uint64 {
	s = strings.TrimSpace(s)
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		return e.toInt(String(s), t)
	}
	var x uint64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		x = x*10 + uint64(s[i]-'0')
	}
	return x & e.mask
}

// compare compares x and y, y converted to x's type: -1, 0 or 1.
func (e *Evaluator) compare(x, y *Object, t *Term) int {
	x = e.deref(x, t)
	switch typeOf(x) {
	case TypeInteger:
		a, b := x.Int&e.mask, e.toInt(y, t)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	case TypeString:
		return strings.Compare(x.Str, e.toStr(y, t))
	case TypeBuffer:
		return strings.Compare(string(x.Buf), string(e.toBuf(y, t)))
	}
	e.fail(t, EvalAMLError, "comparison of a %s", typeOf(x))
	return 0
}

func (e *Evaluator) match(el *Object, op uint64, v *Object, t *Term) bool {
	if op == 0 {
		return true
	}
	c := e.compare(el, v, t)
	switch op {
	case 1:
		return c == 0
	case 2:
		return c <= 0
	case 3:
		return c < 0
	case 4:
		return c >= 0
	case 5:
		return c > 0
	}
	e.fail(t, EvalAMLError, "Match operator %d", op)
	return false
}
