// Package osi is the osi check: it lists the interface strings the
// firmware asks \_OSI about, and flags code that behaves differently when
// the OS claims to be "Linux".
package osi

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

const spec = "ACPI 6.5 §5.7.2 (_OSI)"

var labelLinux = tests.NewLabel("OSILinux", tests.Low, spec,
	"The firmware asks _OSI (\"Linux\") and does something different when the answer is yes. Linux "+
		"answers no (it says yes to the Windows strings the firmware was tested with), so this code only "+
		"runs for users who boot with acpi_osi=Linux, and it is tested by nobody. Key behaviour on the "+
		"Windows version strings or on feature strings, or use _DSM, never on the OS name.")

// Check is the osi check.
var Check = &tests.Check{
	ID:       "osi",
	Title:    "_OSI strings the firmware queries",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelLinux},
	Run:      run,
}

// Query is one \_OSI call with a constant string.
type Query struct {
	Table  string
	Offset int
	Iface  string
	// Guards is set when the call is the predicate (or part of it) of
	// an If whose body is not empty.
	Guards bool
}

// Queries finds every \_OSI call with a constant argument in the tables,
// in table order.
func Queries(ns *aml.Namespace) []Query {
	var out []Query
	for _, t := range ns.Tables {
		guards := map[int]bool{} // offsets of calls in the predicate of an If with a body
		aml.WalkTerms(t.Code, func(tm *aml.Term) bool {
			if tm.Op == aml.OpIf && len(tm.Args()) > 0 && len(tm.Body()) > 0 {
				aml.WalkTerms(tm.Args()[:1], func(c *aml.Term) bool {
					if q, ok := query(c); ok {
						guards[q.Offset] = true
					}
					return true
				})
			}
			if q, ok := query(tm); ok {
				q.Table = t.Name
				out = append(out, q)
			}
			return true
		})
		for i := range out {
			if out[i].Table == t.Name && guards[out[i].Offset] {
				out[i].Guards = true
			}
		}
	}
	return out
}

func query(t *aml.Term) (Query, bool) {
	if t.Op != aml.OpCall || t.Node == nil || !t.Node.Predefined || t.Node.Name != "_OSI" || len(t.Args()) != 1 {
		return Query{}, false
	}
	s, ok := t.Args()[0].StringValue()
	if !ok {
		return Query{}, false
	}
	return Query{Offset: int(t.Offset), Iface: s}, true
}

func run(p *tests.Pass) error {
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	qs := Queries(l.NS)
	if len(qs) == 0 {
		p.NotApplicable("the firmware does not call \\_OSI")
		return nil
	}
	count := map[string]int{}
	var ifaces []string
	for _, q := range qs {
		if count[q.Iface] == 0 {
			ifaces = append(ifaces, q.Iface)
		}
		count[q.Iface]++
		if q.Iface == "Linux" && q.Guards {
			p.Fail(labelLinux, "%s+0x%X: If (_OSI (\"Linux\")) guards code", q.Table, q.Offset)
		}
	}
	var parts []string
	for _, s := range ifaces {
		ans := "no"
		if aml.LinuxOSI(s) {
			ans = "yes"
		}
		parts = append(parts, fmt.Sprintf("%q ×%d (Linux: %s)", s, count[s], ans))
	}
	p.Info(nil, "_OSI strings queried: %s", strings.Join(parts, ", "))
	if p.Failures() == 0 {
		p.Passed("%d _OSI queries of %d strings; none changes behaviour for \"Linux\"", len(qs), len(ifaces))
	}
	return nil
}
