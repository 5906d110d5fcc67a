// Package methods is the methods check: every object the ACPI
// specification predefines that the namespace has (the names NAMES.md
// lists, with the rule and the ACPI 6.5 section of each) is evaluated the
// way the OS evaluates it, and what it gives is checked: the type, the
// shape of a package (element count and types, sub-packages), the value
// ranges the spec gives and, across objects of one device, what they say
// together (thermal trip points in order, _PPC within _PSS, _BQC one of
// the _BCL levels, battery status consistent with its information). The
// argument count a method declares is checked against the count the spec
// (and so the OS) passes; a method that returns no value where one is
// required, hits an undefined name or an AML error, or leaves a Mutex
// acquired is a finding.
//
// # Hardware
//
// Methods read OperationRegions (EC, SystemIO, PCI configuration) the
// static evaluator cannot reach. They run over an emulated region space
// (aml.Emulation): reads give zero, or what the method itself wrote to
// system memory, writes reach nothing. A result that depended on an
// emulated read is marked: a finding that holds only under emulation is a
// warning, never a failure, and its message says so. What could not be
// evaluated at all (Timer, Events, run-time table loads, a loop waiting
// for hardware) is NOT CHECKED with the reason. _OSC gets its standard
// UUID (PCI host bridge, platform-wide, processor) with the query flag;
// _DSM the UUID its body compares with (the PCI firmware UUID when none
// is found) and function 0, the query. Objects that change state (_PSx,
// _ON, _OFF, _SRS, _DIS, _PTS, _WAK, _BCM, …) run after every query
// object, so that the values read first are the ones the OS would read
// at boot.
//
// # Label → machines
//
// For each failure label a machine of the shared corpus where it occurs,
// checked by reading the AML (iasl -d); see README.md in this directory.
package methods

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

const spec = "ACPI 6.5 §5.6-§12 and Appendix B (predefined objects; see NAMES.md)"

var (
	labelType = tests.NewLabel("MethodReturnType", tests.Medium, "ACPI 6.5 §5.6-§12 (each object's section)",
		"A predefined object gives a value of a type the specification does not allow for it (a name "+
			"where a package is required, an integer where a buffer is). The OS rejects the value or "+
			"misreads it, and the feature the object describes does not work. Return the type the "+
			"specification gives.")
	labelShape = tests.NewLabel("MethodPackageShape", tests.Medium, "ACPI 6.5 §5.6-§12 (each object's section)",
		"A predefined object returns a package with the wrong number of elements, or elements (or "+
			"sub-packages) of the wrong type. The OS reads the elements by position and rejects the "+
			"package or reads garbage. Return the layout the specification gives.")
	labelRange = tests.NewLabel("MethodValueRange", tests.Low, "ACPI 6.5 §5.6-§12 (each object's section)",
		"A predefined object returns a value outside the range the specification allows (a reserved bit "+
			"set, a state number that does not exist, a percentage above 100). The OS may reject it or "+
			"act on a state the firmware did not mean. Return a value within the range.")
	labelNoValue = tests.NewLabel("MethodNoReturnValue", tests.Medium, "ACPI 6.5 §19.6.120 (Return), each object's section",
		"A method the OS evaluates for a value ends without returning one on the path it took. ACPICA "+
			"reports AE_AML_NO_RETURN_VALUE and the OS goes without the value. Return a value on every "+
			"path.")
	labelRepaired = tests.NewLabel("MethodReturnTypeRepaired", tests.Low, "ACPI 6.5 §5.6-§12 (each object's section)",
		"A predefined object (or a package element of it) gives an Integer, String or Buffer where the "+
			"specification wants another of the three, or a single value where it wants a package. ACPICA "+
			"converts such values and logs a warning, so Linux works; other OSes and tools may not. "+
			"Return the type the specification gives.")
	labelArgs = tests.NewLabel("MethodArgCount", tests.Medium, "ACPI 6.5 §5.6-§12 (each object's section), §19.6.85 (Method)",
		"A predefined method declares a different number of arguments than the specification defines, "+
			"or a data object stands where the OS calls a method with arguments. The OS passes the "+
			"specification's count: arguments the method expects beyond it are uninitialised "+
			"(AE_AML_UNINITIALIZED_ARG when used). Declare the specification's count.")
	labelAMLError = tests.NewLabel("MethodAMLError", tests.Medium, "ACPI 6.5 §19 (ASL operators)",
		"Evaluating a predefined object hits an error the AML interpreter stops at: an uninitialised "+
			"Local, an index beyond a package, an operand of the wrong type. The OS gets no value and "+
			"the method's side effects are half done. Fix the code on that path.")
	labelUndefined = tests.NewLabel("MethodUndefinedName", tests.Medium, "ACPI 6.5 §5.3 (namespace), §19.6.45 (External)",
		"Evaluating a predefined object reaches a name no loaded table defines (an External that no "+
			"table fills in, or a path to a device this SKU lacks). ACPICA aborts the method with "+
			"AE_NOT_FOUND. Guard the use with CondRefOf, or define the object.")
	labelMutex = tests.NewLabel("MethodMutexHeld", tests.Medium, "ACPI 6.5 §19.6.2 (Acquire), §19.6.115 (Release)",
		"A method returns with a Mutex it acquired still held. ACPICA releases it and logs an error; "+
			"on other OSes the next caller of any method using the Mutex waits for ever. Release every "+
			"Mutex on every path, before each Return.")
	labelPRTEmpty = tests.NewLabel("PRTEmpty", tests.Medium, "ACPI 6.5 §6.2.13",
		"A _PRT is an empty package: the bridge routes none of its interrupt pins. Devices behind it "+
			"that use INTx get no interrupt (Linux: \"can't derive routing for PCI INT\"). List every "+
			"slot's pins, or remove the _PRT.")
	labelTSD = tests.NewLabel("TSDMultiple", tests.Medium, "ACPI 6.5 §8.4.4.4",
		"A _TSD holds more than one dependency package. A processor belongs to one T-state domain; "+
			"Linux reads exactly one package and rejects the object, so throttling coordination is "+
			"lost. Return one package per processor.")
	labelThermal = tests.NewLabel("ThermalTripOrder", tests.Medium, "ACPI 6.5 §11.1.5, §11.4",
		"A thermal zone's trip points are out of order: _CRT must lie above _HOT, _HOT above _PSV, "+
			"and _AC0 is the highest active trip point, _AC1 the next, and so on. The OS acts on the "+
			"wrong trip first (shuts down before throttling, or never cools actively). Order the trip "+
			"points.")
	labelPassive = tests.NewLabel("ThermalPassiveIncomplete", tests.Low, "ACPI 6.5 §11.1.5.1, §11.4.10-15, §11.4.21",
		"A thermal zone has _PSV (passive cooling) without the objects passive cooling needs: _PSL "+
			"(what to throttle), _TC1, _TC2 and _TSP. Linux disables passive cooling for the zone. "+
			"Declare them.")
	labelPSS = tests.NewLabel("PSSOrder", tests.Medium, "ACPI 6.5 §8.4.5.2",
		"A _PSS lists its P-states out of order: entry 0 must be the highest performance state and "+
			"frequencies must fall from there. The OS picks states by index and gets the wrong speed. "+
			"Sort the entries by descending frequency.")
	labelPPC = tests.NewLabel("PPCRange", tests.Medium, "ACPI 6.5 §8.4.5.3",
		"_PPC names a P-state index that the processor's _PSS does not have. The OS ignores the limit "+
			"or, worse, limits the processor to nothing. Return an index below the _PSS count.")
	labelCST = tests.NewLabel("CSTCount", tests.Medium, "ACPI 6.5 §8.4.1.1",
		"A _CST's first element (the number of C-states) differs from the number of C-state packages "+
			"that follow, or a C-state has a type other than 1-3. Linux rejects the object and the "+
			"processor stays in C1. Make the count match the entries.")
	labelBCL = tests.NewLabel("BCLLevels", tests.Medium, "ACPI 6.5 §B.6.2, §B.6.4",
		"A display's _BCL lists a brightness level above 100, or its two leading entries (the AC and "+
			"battery levels) are not among the levels that follow, or _BQC returns a level _BCL does not "+
			"list. Linux's backlight driver misreads the range or turns brightness control off. List "+
			"percentages 0-100 and keep the leading entries among them.")
	labelBattery = tests.NewLabel("BatteryInfoRange", tests.Medium, "ACPI 6.5 §10.2.2.1, §10.2.2.2, §10.2.2.6",
		"A battery's _BIF/_BIX/_BST has a field out of range: a power unit other than 0 (mW) or 1 (mA), "+
			"a technology other than 0 or 1, a _BIX revision the spec does not define, or a _BST that "+
			"says the battery is charging and discharging at once. The OS shows wrong capacities or "+
			"state. Fix the values.")
	labelWDG = tests.NewLabel("WDGSize", tests.Medium, "Microsoft WMI-ACPI (_WDG)",
		"A _WDG buffer is not a whole number of 20-byte GUID blocks. The WMI driver rejects it and "+
			"the vendor's hotkeys and controls do not work. Return complete blocks.")
	labelPLD = tests.NewLabel("PLDBuffer", tests.Low, "ACPI 6.5 §6.1.8",
		"A _PLD buffer is shorter than 16 bytes or has a revision other than 1 or 2. The OS cannot read "+
			"where the port or device is. Return the 16 (or 20) byte revision 2 buffer.")
)

var labels = []*tests.Label{labelType, labelRepaired, labelShape, labelRange, labelNoValue, labelArgs, labelAMLError,
	labelUndefined, labelMutex, labelPRTEmpty, labelTSD, labelThermal, labelPassive, labelPSS, labelPPC,
	labelCST, labelBCL, labelBattery, labelWDG, labelPLD}

// unconfirmed labels have no occurrence in the shared corpus yet: they
// are reported as warnings until one is seen and read in the AML.
var unconfirmed = map[*tests.Label]bool{labelThermal: true, labelPassive: true, labelPSS: true, labelPPC: true,
	labelCST: true, labelBCL: true, labelBattery: true, labelWDG: true, labelTSD: true,
	labelECGPE: true, labelECNoGPE: true, labelButtons: true, labelPSD: true, labelPRTSource: true, labelLink: true,
	labelTAD: true}

// Check is the methods check.
var Check = &tests.Check{
	ID:       "methods",
	Title:    "Predefined ACPI objects give the types, package shapes and values the specification requires",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   append(append([]*tests.Label{}, labels...), classLabels...),
	Run:      run,
}

// result is one evaluated object.
type result struct {
	n        *aml.Node // the object (resolved)
	r        *rule
	v        *aml.Object
	err      error
	emulated bool
}

type run1 struct {
	p        *tests.Pass
	l        *amlcheck.Loaded
	e        *aml.Evaluator
	em       *aml.Emulation
	dynamic  bool // the tables load others at run time
	results  map[*aml.Node]map[string]*result
	order    []*aml.Node
	total    int
	emulated int
	findings int
	// unchecked groups NOT CHECKED objects by reason
	unchecked map[string][]string
	// limits counts evaluations that ran into the step limit: past
	// maxLimits, methods are not run (hostile AML where a common
	// helper never ends would otherwise cost every caller the limit)
	limits int
}

const maxLimits = 25

func run(p *tests.Pass) error {
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	c := evaluate(p, l)
	c.classes()
	c.devClasses()
	c.finish()
	return nil
}

// evaluate evaluates every predefined object of the namespace.
func evaluate(p *tests.Pass, l *amlcheck.Loaded) *run1 {
	em := &aml.Emulation{}
	// the run's AML budget, shared with aml-parse and the other AML checks
	e := aml.NewEvaluator(l.NS, em.Options(aml.Options{Run: l.Budget}))
	e.RunREG()
	c := &run1{p: p, l: l, e: e, em: em, results: map[*aml.Node]map[string]*result{}, unchecked: map[string][]string{}}
	c.dynamic = loadsTables(l.NS)
	var queries, controls []*aml.Node
	l.NS.Walk(func(n *aml.Node) bool {
		if n.InMethod || n.External {
			// not in the OS's namespace, nor what a Scope of it declares
			return false
		}
		if n.Predefined || n.Parent == nil {
			return true
		}
		r := lookup(n.Name)
		if r == nil {
			return true
		}
		if r.control {
			controls = append(controls, n)
		} else {
			queries = append(queries, n)
		}
		return true
	})
	for _, n := range append(queries, controls...) {
		c.one(n, lookup(n.Name))
	}
	return c
}

// loadsTables reports whether some method loads a table at run time.
func loadsTables(ns *aml.Namespace) bool {
	if !ns.HasLoadTerms() {
		return false // most machines: no walk of every term
	}
	found := false
	ns.Walk(func(n *aml.Node) bool {
		if found {
			return false
		}
		if n.Method != nil && !n.External && n.Method.MayLoadTables() {
			aml.WalkTerms(n.Method.Body, func(t *aml.Term) bool {
				if t.Op == aml.OpLoad || t.Op == aml.OpLoadTable {
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
}

func (c *run1) path(n *aml.Node) string { return amlcheck.Path(n) }

// report records a finding: a failure, or a warning when it holds only
// under emulated region reads or its label is not yet confirmed.
func (c *run1) report(l *tests.Label, emulated bool, format string, args ...any) {
	c.findings++
	msg := fmt.Sprintf(format, args...)
	switch {
	case c.p == nil:
		// no pass: the fuzz test counts findings only
	case emulated:
		c.p.Warn(l, "%s (under emulation: it depends on OperationRegion reads answered with zeros, on the arguments fwcheck passed, or on objects tables loaded at run time may define)", msg)
	case unconfirmed[l]:
		// not seen in the corpus yet: reported, not failed
		c.p.Warn(l, "%s", msg)
	default:
		c.p.Fail(l, "%s", msg)
	}
}

func (c *run1) notChecked(reason, what string) {
	c.unchecked[reason] = append(c.unchecked[reason], what)
}

// one checks and evaluates one object.
func (c *run1) one(n *aml.Node, r *rule) {
	path := c.path(n)
	m := n.Resolved()
	if m == nil {
		return
	}
	isMethod := m.Type == aml.TypeMethod && m.Method != nil
	if r.args >= 0 {
		switch {
		case isMethod && m.Method.Args != r.args && m.Method.Args != r.alt:
			c.report(labelArgs, false, "%s declares %d arguments; the OS passes %d", path, m.Method.Args, r.args)
		case !isMethod && r.args > 0 && m.Type != aml.TypeAny:
			c.report(labelArgs, false, "%s is a %s; the OS calls it as a method with %d arguments", path, m.Type, r.args)
		}
	}
	if eventNames[r.name] {
		return
	}
	if r.name == "_REG" {
		return // run by RunREG, as the OS does, before anything else
	}
	switch m.Type {
	case aml.TypeMethod, aml.TypeInteger, aml.TypeString, aml.TypeBuffer, aml.TypePackage, aml.TypeAny,
		aml.TypeFieldUnit, aml.TypeBufferField:
	default:
		// a Device, Mutex, … with a predefined name: nothing to evaluate
		if r.ret&tRef == 0 {
			c.report(labelType, false, "%s is a %s object; the spec defines it as giving %s", path, m.Type, r.ret)
		}
		return
	}
	if isMethod && c.limits >= maxLimits {
		c.notChecked(fmt.Sprintf("%d evaluations already ran into the step limit: the check stops running methods", maxLimits), path)
		return
	}
	args := c.args(n, r)
	v, err := c.e.Evaluate(n, args...)
	if aml.ErrorKind(err) == aml.EvalStepLimit {
		c.limits++
	}
	// the path depends on hardware (region reads, load-time If), or on
	// an object absent here that a table loaded at run time may define
	emulated := c.e.FieldReads() > 0 || n.Conditional || c.dynamic && c.e.CondRefOfMisses() > 0
	held := c.e.HeldMutexes()
	c.total++
	if emulated {
		c.emulated++
	}
	res := &result{n: n, r: r, v: v, err: err, emulated: emulated}
	if c.results[n.Parent] == nil {
		c.results[n.Parent] = map[string]*result{}
		c.order = append(c.order, n.Parent)
	}
	c.results[n.Parent][r.name] = res
	if err != nil {
		// the arguments of a control method are fwcheck's choice, not
		// necessarily what the OS would pass: what they cause is a warning
		c.evalError(path, err, emulated || r.control && len(args) > 0)
		return
	}
	if len(held) > 0 {
		var names []string
		for _, h := range held {
			names = append(names, c.path(h))
		}
		c.report(labelMutex, emulated, "%s returns with %s acquired and not released", path, strings.Join(names, ", "))
	}
	c.value(path, res)
}

// evalError sorts an evaluation error into a finding or NOT CHECKED.
func (c *run1) evalError(path string, err error, emulated bool) {
	switch aml.ErrorKind(err) {
	case aml.EvalAMLError:
		c.report(labelAMLError, emulated, "%s: %v", path, err)
	case aml.EvalUnresolved:
		var ee *aml.EvalError
		if errors.As(err, &ee) && ee.RunTime != "" {
			c.notChecked("it uses an object that a table the firmware loads at run time (Load/LoadTable), absent from the tables given, may define", path+" ("+ee.RunTime+")")
			return
		}
		c.report(labelUndefined, emulated, "%s: %v", path, err)
	case aml.EvalStepLimit:
		if emulated {
			c.notChecked("it loops waiting for hardware the emulated region space does not give", path)
			return
		}
		c.notChecked("it runs past the step limit (see aml-parse's AMLEndlessLoop)", path)
	case aml.EvalDepthLimit:
		c.notChecked("its calls nest past the depth limit", path)
	case aml.EvalBudget:
		// the per-evaluation bytes or time, or the run's AML budget that
		// aml-parse and the other AML checks share
		b := c.l.Budget
		c.notChecked(fmt.Sprintf("the AML evaluation budget ended it (%s; the run's evaluations together: %d steps, %d MiB, %s)",
			c.e.Budget(), b.Steps, b.Bytes>>20, b.Time), path+": "+err.Error())
	case aml.EvalNotStatic:
		c.notChecked("it uses what the evaluator cannot emulate (Timer, Events, table loads)", path)
	default:
		c.notChecked("the evaluator does not support what it does ("+aml.ErrorKind(err).String()+")", path+": "+err.Error())
	}
}

// typeOf is the ret bit of an evaluated value.
func typeOf(v *aml.Object) ret {
	if v == nil {
		return tNone
	}
	switch v.Type {
	case aml.TypeInteger:
		return tInt
	case aml.TypeString:
		return tStr
	case aml.TypeBuffer:
		return tBuf
	case aml.TypePackage:
		return tPkg
	case aml.TypeReference:
		return tRef
	}
	return 0
}

// value checks an evaluated value against its rule.
func (c *run1) value(path string, res *result) {
	r, v := res.r, res.v
	t := typeOf(v)
	if r.ret&t == 0 {
		if t == tNone {
			// Linux takes a _DSM without a value as "nothing supported"
			c.report(labelNoValue, res.emulated || r.name == "_DSM", "%s returns no value; the OS expects %s", path, r.ret)
			return
		}
		if repairable(t, r.ret) && (r.ret&tPkg == 0 || r.pkg == nil || r.pkg.sub == nil) {
			c.report(labelRepaired, res.emulated, "%s is %s (%s); the spec requires %s (ACPICA converts it)", path, typeName(v), v, r.ret)
			return
		}
		c.report(labelType, res.emulated, "%s is %s (%s); the spec requires %s", path, typeName(v), v, r.ret)
		return
	}
	if t == tPkg && r.pkg != nil && !(r.ret&tNone != 0 && r.name != "_WAK") {
		if msg, fixable := checkShape(v, r.pkg, r.name); msg != "" {
			switch {
			case fixable:
				c.report(labelRepaired, res.emulated, "%s: %s (ACPICA converts it)", path, msg)
			case r.name == "_PRT" && len(v.Pkg) == 0:
				c.report(labelPRTEmpty, res.emulated, "%s is an empty package", path)
			case r.name == "_WAK":
				// many firmware return nothing from _WAK; a package of the
				// wrong shape is ignored by Linux: reported, not failed
				c.findings++
				if c.p != nil {
					c.p.Warn(labelShape, "%s: %s", path, msg)
				}
			default:
				c.report(labelShape, res.emulated, "%s: %s", path, msg)
			}
			return
		}
	}
	c.ranges(path, res)
}

func typeName(v *aml.Object) string {
	if v == nil {
		return "nothing"
	}
	if v.Type == aml.TypeReference {
		if v.Ref != nil {
			return "a reference to " + v.Ref.Type.String() + " " + amlcheck.Path(v.Ref)
		}
		return "a reference"
	}
	return "a " + v.Type.String()
}

// repairable: ACPICA converts a value of type got into one of want
// (Integer, String and Buffer into each other; one of them wrapped into
// a package).
func repairable(got, want ret) bool {
	const scalar = tInt | tStr | tBuf
	return got&scalar != 0 && want&(scalar|tPkg) != 0
}

// checkShape says what is wrong with package v against s ("" if
// nothing); fixable when it is an element ACPICA converts.
func checkShape(v *aml.Object, s *shape, name string) (string, bool) {
	return shapeAt(v, s, "", 0)
}

// refType is the type a reference to a data object stands for in a
// package: firmware writes a Name or field there for its value.
func refType(el *aml.Object) ret {
	if el == nil || el.Type != aml.TypeReference || el.Ref == nil {
		return 0
	}
	switch n := el.Ref.Resolved(); {
	case n == nil:
		return 0
	case n.Type == aml.TypeInteger || n.Type == aml.TypeFieldUnit || n.Type == aml.TypeBufferField:
		return tInt
	case n.Type == aml.TypeString:
		return tStr
	case n.Type == aml.TypeBuffer:
		return tBuf
	}
	return 0
}

func shapeAt(v *aml.Object, s *shape, where string, depth int) (string, bool) {
	n := len(v.Pkg)
	if n < s.min || s.max > 0 && n > s.max {
		want := fmt.Sprintf("%d", s.min)
		switch {
		case s.max == 0:
			want = fmt.Sprintf("at least %d", s.min)
		case s.max != s.min:
			want = fmt.Sprintf("%d to %d", s.min, s.max)
		}
		return fmt.Sprintf("%spackage of %d elements, want %s", where, n, want), false
	}
	for i, el := range v.Pkg {
		var want ret
		var sub *shape
		switch {
		case i < len(s.fields) && (i < s.from || s.from == 0):
			want = s.fields[i]
		case i < s.from:
			continue
		case s.sub != nil:
			want, sub = tPkg, s.sub
		case s.elem != 0:
			want = s.elem
		default:
			continue
		}
		got := typeOf(el)
		if el == nil || el.Type == aml.TypeAny {
			return fmt.Sprintf("%selement %d is uninitialised (an unresolved name?), want %s", where, i, want), false
		}
		if want&got == 0 && want&refType(el) == 0 {
			return fmt.Sprintf("%selement %d is %s (%s), want %s", where, i, typeName(el), el, want), sub == nil && repairable(got, want&^tPkg)
		}
		if sub != nil && depth < 4 && got == tPkg {
			if msg, fix := shapeAt(el, sub, fmt.Sprintf("%selement %d: ", where, i), depth+1); msg != "" {
				return msg, fix
			}
		}
	}
	return "", false
}

// finish reports what could not be checked and the verdict.
func (c *run1) finish() {
	c.p.Record("objects", c.total)
	c.p.Record("emulated", c.emulated)
	reasons := make([]string, 0, len(c.unchecked))
	for r := range c.unchecked {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	nc := 0
	for _, r := range reasons {
		ps := c.unchecked[r]
		nc += len(ps)
		ex := strings.Join(ps[:min(3, len(ps))], ", ")
		if len(ps) > 3 {
			ex += ", …"
		}
		c.p.NotChecked(fmt.Sprintf("%d objects (%s)", len(ps), ex), r, "run fwcheck on the machine with acpidbg, or compare with acpiexec")
	}
	if c.total == 0 && nc == 0 {
		c.p.NotApplicable("the namespace has no predefined object to evaluate")
		return
	}
	if c.findings == 0 {
		c.p.Passed("%d predefined objects evaluated (%d under emulated region reads); none breaks its rule", c.total-nc, c.emulated)
	}
}
