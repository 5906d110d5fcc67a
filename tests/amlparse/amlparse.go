// Package amlparse is the aml-parse check: every DSDT and SSDT parses into
// one namespace, and each problem the parser finds (malformed AML,
// duplicate declarations, references to objects no table defines, External
// declarations that contradict the definition) is a finding with its table
// and offset.
package amlparse

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

const spec = "ACPI 6.5 §5.3 (namespace), §20 (AML grammar)"

var (
	labelMalformed = tests.NewLabel("AMLMalformed", tests.High, "ACPI 6.5 §20",
		"This AML cannot be parsed (an unknown opcode, a length or name running past its object, a call "+
			"with the wrong number of arguments). The OS's interpreter stops at the same place: the rest of "+
			"the method or scope is lost, or the table fails to load. Rebuild the table with a current "+
			"ASL compiler and fix what it reports; check that External declarations give methods their "+
			"real argument counts.")
	labelBadName = tests.NewLabel("AMLBadName", tests.Medium, "ACPI 6.5 §20.2.2",
		"A name segment holds characters other than A-Z, 0-9 and '_' (or starts with a digit). Use "+
			"valid four-character names.")
	labelDuplicate = tests.NewLabel("AMLDuplicate", tests.Medium, "ACPI 6.5 §5.3",
		"An object is declared twice in the same scope. The OS keeps the first declaration and rejects "+
			"the second (ACPICA: AE_ALREADY_EXISTS), so whatever the second one defines is missing. "+
			"Declare each object once, or guard alternatives with If blocks.")
	labelUnresolved = tests.NewLabel("AMLUnresolved", tests.Low, "ACPI 6.5 §5.3",
		"Code refers to an object that no loaded table defines. When the OS runs that code it aborts the "+
			"method with AE_NOT_FOUND. Remove the reference, define the object on every SKU that runs the "+
			"code, or guard the use with CondRefOf.")
	labelConflict = tests.NewLabel("AMLExternalConflict", tests.Medium, "ACPI 6.5 §19.6.45",
		"An External declaration says an object is (or is not) a method, or gives a method an argument "+
			"count, that the object's definition contradicts. Calls are parsed by argument count, so code "+
			"compiled against the wrong External is misparsed. Make External declarations match the "+
			"definitions.")
	labelForwardCall = tests.NewLabel("AMLForwardCall", tests.Medium, "ACPI 6.5 §20",
		"Load-time code (outside any method) calls a method with arguments before the method is declared, "+
			"so the call cannot be parsed with its arguments. Declare the method before the code that "+
			"calls it.")
	labelExternalScope = tests.NewLabel("AMLExternalScope", tests.High, "ACPI 6.5 §19.6.122 (Scope), §19.6.45 (External)",
		"A table opens Scope (X) at load time where X is only declared External: no table loaded before "+
			"it defines X. ACPICA fails the lookup with AE_NOT_FOUND and drops the whole scope body, so "+
			"every object declared in it is missing on the running system. Define X in this table or an "+
			"earlier one, or put the Scope inside If (CondRefOf (X)).")

	labelLoadOrder = tests.NewLabel("AMLLoadOrder", tests.Medium, "ACPI 6.5 §5.3, §19.6.45 (External)",
		"Code that runs while a table loads (an If at table level, a Field's region, a Scope) uses an "+
			"object only a table loaded after it defines. The OS loads the tables one after another and "+
			"runs each table's load-time code as it goes, so the object does not exist yet: ACPICA fails "+
			"the lookup (AE_NOT_FOUND) and skips the code, or the whole scope. Define the object in this "+
			"table or an earlier one, or move the code into a method that runs later (_INI).")

	labelEndless = tests.NewLabel("AMLEndlessLoop", tests.High, "ACPI 6.5 §19.6.150 (While)",
		"Evaluating a standard object runs a loop (or a chain of calls) that does not end on the "+
			"values the firmware itself holds, without reading any hardware register. The OS thread "+
			"evaluating it hangs until ACPICA's loop limit aborts the method, and the device or state it "+
			"describes is lost. Bound the loop by a counter or a condition that changes inside it.")
)

// evaluated are the device objects the check evaluates for endless loops.
var evaluated = []string{"_HID", "_CID", "_UID", "_ADR", "_STA", "_CRS", "_PRS", "_PRW"}

// Check is the aml-parse check.
var Check = &tests.Check{
	ID:       "aml-parse",
	Title:    "DSDT and SSDTs parse into one namespace; standard objects evaluate to an end",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels: []*tests.Label{labelMalformed, labelBadName, labelDuplicate, labelUnresolved, labelConflict, labelForwardCall,
		labelExternalScope, labelLoadOrder, labelEndless},
	Run: run,
}

func run(p *tests.Pass) error {
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	runTime := 0
	for _, pr := range l.Problems {
		switch pr.Kind {
		case aml.Malformed:
			p.Fail(labelMalformed, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
		case aml.BadName:
			// no occurrence in the corpus yet: reported, not failed
			p.Warn(labelBadName, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
		case aml.Duplicate:
			p.Fail(labelDuplicate, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
		case aml.Unresolved:
			p.Fail(labelUnresolved, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
		case aml.Conflict:
			p.Fail(labelConflict, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
		case aml.ForwardCall:
			// no occurrence in the corpus yet: reported, not failed
			p.Warn(labelForwardCall, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
		case aml.ExternalScope:
			if strings.Contains(pr.Msg, "load-time If") {
				// what the OS does depends on the condition on the machine
				p.Warn(labelExternalScope, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
			} else {
				p.Fail(labelExternalScope, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
			}
		case aml.ExternalOnly:
			// decided once, as in the methods check: the OS fails the code
			// that uses it (AE_NOT_FOUND); uses guarded by CondRefOf and
			// names a run-time table may define are not reported
			p.Fail(labelUnresolved, "%s+0x%X: %s", pr.Table, pr.Offset, pr.Msg)
		case aml.RunTimeOnly:
			runTime++
		case aml.LoadOrder:
			// an acpidump lists the tables in the order Linux's sysfs
			// gives, not always the XSDT's, and the order is what decides
			p.Warn(labelLoadOrder, "%s+0x%X: %s (in the order the tables were given)", pr.Table, pr.Offset, pr.Msg)
		case aml.TooLarge:
			p.NotChecked("the AML beyond the load budget", pr.Msg, "")
		}
	}
	if runTime > 0 {
		p.NotChecked(fmt.Sprintf("%d references to objects no table given defines", runTime),
			"the firmware loads tables at run time (Load/LoadTable) in their scopes that the tables given lack, and those may define them",
			"take the tables from the running machine after boot (Linux lists the loaded ones in /sys/firmware/acpi/tables/dynamic)")
	}
	// endless loops: the standard objects whose evaluation hits the step
	// or call depth limit without reading a region field
	e := l.NewEvaluator()
	defer l.ReportBudget(p, e)
	endless := 0
	check := func(n *aml.Node) {
		if n == nil || n.External {
			return
		}
		_, err := e.Evaluate(n)
		if k := aml.ErrorKind(err); (k == aml.EvalStepLimit || k == aml.EvalDepthLimit) && e.FieldReads() == 0 {
			endless++
			// not seen in the corpus yet: reported, not failed
			p.Warn(labelEndless, "%s: %v", amlcheck.Path(n), err)
		}
	}
	for x := 0; x <= 5; x++ {
		check(l.NS.Root.Child("_S" + string(rune('0'+x)) + "_"))
	}
	for _, d := range amlcheck.Devices(l.NS) {
		for _, name := range evaluated {
			check(d.Child(name))
		}
	}
	size := 0
	for _, t := range l.NS.Tables {
		size += len(t.AML)
	}
	if p.Failures() == 0 && endless == 0 {
		p.Passed("%d definition blocks (%d bytes of AML) parse into %d objects", len(l.NS.Tables), size, l.NS.Nodes())
	}
	return nil
}
