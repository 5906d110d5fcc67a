// Package amlcheck is what the AML checks (aml-parse, unique-id,
// device-ids, hpet-crs, sleep-states, prw, osi, resources) share: the
// machine's namespace, an input derived from its tables (Namespace), and the device
// objects evaluated the way the checks need them (present or not, IDs,
// resources), each result saying whether it depended on the fake
// OperationRegion values the evaluator reads.
package amlcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

// Loaded is a machine's namespace with the problems found loading it.
type Loaded struct {
	Tables   *acpi.Tables
	NS       *aml.Namespace
	Problems []aml.Problem
	// Budget is the AML evaluation budget the checks of the run share.
	Budget *aml.RunBudget
}

// Namespace is the machine's AML namespace, derived from its ACPI tables:
// the driver computes it once per phase and every AML check of the run
// shares it (it is never modified after loading). A check that declares
// input.ACPITables may read it.
var Namespace = input.Declare(input.Def[*Loaded]{
	Name: "aml-namespace", Doc: "the AML namespace the DSDT and SSDTs load",
	Requires: []input.Decl{input.ACPITables},
	Derive: func(d input.Deps) (*Loaded, error) {
		return LoadTables(input.Dep(d, input.ACPITables)), nil
	},
})

// Load returns the namespace of the pass's ACPI tables. With no DSDT it
// reports the check not applicable and returns nil.
func Load(p *tests.Pass) *Loaded {
	ts := tests.Input(p, input.ACPITables)
	if len(ts.Get(acpi.SigDSDT)) == 0 {
		for _, w := range ts.Warnings {
			if strings.Contains(w, acpi.SigDSDT) {
				// a DSDT was there but left out: not the same as none
				p.NotChecked("the AML", w, "give the complete tables")
				return nil
			}
		}
		p.NotApplicable("no DSDT: the tables hold no AML")
		return nil
	}
	for _, t := range append(ts.Get(acpi.SigDSDT), ts.Get(acpi.SigSSDT)...) {
		if n := t.DeclaredLength(); int64(n) > int64(len(t.Raw)) {
			p.NotChecked(fmt.Sprintf("%s beyond its %d bytes", t.Name(), len(t.Raw)), fmt.Sprintf("its length field says %d bytes", n), "")
		}
	}
	return tests.Input(p, Namespace)
}

// LoadTables loads the DSDT and SSDTs of ts, anew on every call: checks
// read the run's one namespace through Load.
func LoadTables(ts *acpi.Tables) *Loaded {
	ns, probs := aml.Load(aml.Definitions(ts)...)
	return &Loaded{Tables: ts, NS: ns, Problems: probs, Budget: aml.NewRunBudget()}
}

// Result is an object's value with how it was had.
type Result struct {
	V   *aml.Object
	Err error
	// Faked: the value depends on hardware state: on OperationRegion
	// reads the evaluator answered with zeros, or on load-time code that
	// decides whether the object exists at all (aml.Node.Conditional).
	Faked bool
}

// Eval evaluates the child name of n, if there is one (nil otherwise).
func Eval(e *aml.Evaluator, n *aml.Node, name string) *Result {
	c := n.Child(name)
	if c == nil {
		return nil
	}
	v, err := e.Evaluate(c)
	return &Result{V: v, Err: err, Faked: e.FieldReads() > 0 || c.Conditional}
}

// Presence is what _STA says of a device.
type Presence int

// Presences.
const (
	Present Presence = iota // no _STA, or its value has bit 0 (present) or 3 (functioning) set
	Absent                  // _STA evaluated, statically, with bits 0 and 3 clear
	Unknown                 // _STA could not be evaluated statically, or depends on hardware
)

// PresenceOf evaluates the device's _STA; reason says why it is Unknown.
func PresenceOf(e *aml.Evaluator, n *aml.Node) (pr Presence, reason string) {
	if n.Conditional {
		return Unknown, "the device is declared inside an If block that runs when the table loads"
	}
	r := Eval(e, n, "_STA")
	switch {
	case r == nil:
		return Present, ""
	case r.Err != nil:
		return Unknown, r.Err.Error()
	case r.V == nil || r.V.Type != aml.TypeInteger:
		return Unknown, "_STA gives no integer"
	case r.Faked:
		return Unknown, "_STA reads hardware state"
	case r.V.Int&(1|8) == 0:
		// neither present (bit 0) nor functioning (bit 3): Linux
		// enumerates a device that is either (acpi_device_is_present)
		return Absent, ""
	}
	return Present, ""
}

// Devices returns the namespace's devices (Device objects, not those
// declared inside method bodies nor under an External-only object), in
// namespace order.
func Devices(ns *aml.Namespace) []*aml.Node {
	var out []*aml.Node
	ns.Walk(func(n *aml.Node) bool {
		if n.InMethod || n.External {
			// an External-only object is not in the OS's namespace, nor
			// what a Scope of it declares (ACPICA drops the body)
			return false
		}
		if n.Type == aml.TypeDevice {
			out = append(out, n)
		}
		return true
	})
	return out
}

// ID renders an _HID/_CID value: a string as it is, an integer as its
// EISA ID (or in hex when it is not one); ok is false for other types.
func ID(v *aml.Object) (string, bool) {
	if v == nil {
		return "", false
	}
	switch v.Type {
	case aml.TypeString:
		return v.Str, true
	case aml.TypeInteger:
		if s, ok := aml.EISAID(v.Int); ok {
			return s, true
		}
		return fmt.Sprintf("0x%08X", v.Int), true
	}
	return "", false
}

// IDs returns a device's _HID and _CIDs (a _CID package's each) that
// evaluate to IDs, each once, _HID first.
func IDs(e *aml.Evaluator, n *aml.Node) []string {
	var ids []string
	add := func(v *aml.Object) {
		if s, ok := ID(v); ok && !slices.Contains(ids, s) {
			ids = append(ids, s)
		}
	}
	if r := Eval(e, n, "_HID"); r != nil && r.Err == nil {
		add(r.V)
	}
	if r := Eval(e, n, "_CID"); r != nil && r.Err == nil && r.V != nil {
		if r.V.Type == aml.TypePackage {
			for _, el := range r.V.Pkg {
				add(el)
			}
		} else {
			add(r.V)
		}
	}
	return ids
}

// Path is a node's path as iasl prints it (\_SB.PCI0).
func Path(n *aml.Node) string { return aml.DisplayPath(n.Path()) }

// NewEvaluator returns an evaluator over the namespace in the state the
// OS brings it to before it looks at devices: every _REG has run (see
// aml.Evaluator.RunREG), _OSI answers as Linux does, region fields read
// as zeros.
func (l *Loaded) NewEvaluator() *aml.Evaluator {
	e := aml.NewEvaluator(l.NS, aml.Options{Run: l.Budget})
	e.RunREG()
	return e
}

// ReportBudget lists as not checked the evaluations of e that the budget
// ended and, when there were any, says what the budget is and what the
// run spent of it (an info line, shown by --verbose). A run within its
// budget prints nothing, so results do not vary with step counts.
func (l *Loaded) ReportBudget(p *tests.Pass, e *aml.Evaluator) {
	if n, first := e.Exceeded(); n > 0 {
		p.Info(nil, "AML evaluation budget: %s; the run's: %s", e.Budget(), l.Budget)
		what, why := "1 AML evaluation", first.Error()
		if n > 1 {
			what, why = fmt.Sprintf("%d AML evaluations", n), "the first: "+why
		}
		p.NotChecked(what, why, "")
	}
}
