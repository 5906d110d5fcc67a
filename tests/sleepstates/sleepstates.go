// Package sleepstates is the sleep-states check: the \_S0_ … \_S5_
// objects are well-formed packages of SLP_TYP values, and the FADT has the
// registers the OS writes them to.
package sleepstates

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

const spec = "ACPI 6.5 §7.4.2 (\\_Sx), §4.8.3.2.1 (SLP_TYP), §5.2.9 (FADT)"

var (
	labelPackage = tests.NewLabel("SleepStatePackage", tests.High, "ACPI 6.5 §7.4.2",
		"A \\_Sx object is not a package whose first elements are integers (SLP_TYPa, SLP_TYPb). The OS "+
			"cannot read the value to write to the PM1 control registers and does not offer the state. "+
			"Return Package () { SLP_TYPa, SLP_TYPb, 0, 0 }.")
	labelRange = tests.NewLabel("SleepTypeRange", tests.Medium, "ACPI 6.5 §4.8.3.2.1",
		"A SLP_TYP value does not fit the 3-bit SLP_TYP field of the PM1 control register, so the value "+
			"the hardware sees is not the one the firmware meant. Use a value from 0 to 7.")
	labelNoRegister = tests.NewLabel("SleepNoControlRegister", tests.High, "ACPI 6.5 §5.2.9",
		"The firmware declares sleep states but the FADT gives no register to enter them: no PM1a control "+
			"block (or, on a hardware-reduced platform, no sleep control register). The OS cannot enter "+
			"S3, S4 or S5 (power off). Give the register in the FADT.")
	labelNoS5 = tests.NewLabel("SleepNoS5", tests.Medium, "ACPI 6.5 §7.4.2.6",
		"There is no \\_S5_ object, so the OS cannot power the machine off through ACPI. Declare \\_S5_ "+
			"with the SLP_TYP values for soft-off.")
)

// Check is the sleep-states check.
var Check = &tests.Check{
	ID:       "sleep-states",
	Title:    "\\_Sx sleep state packages and the FADT registers they need",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelPackage, labelRange, labelNoRegister, labelNoS5},
	Run:      run,
}

func run(p *tests.Pass) error {
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	e := l.NewEvaluator()
	defer l.ReportBudget(p, e)
	var states []string
	sleeping := false
	warned := 0
	for x := 0; x <= 5; x++ {
		n := l.NS.Root.Child(fmt.Sprintf("_S%d_", x))
		if n == nil || n.External {
			continue
		}
		v, err := e.Evaluate(n)
		name := fmt.Sprintf(`\_S%d`, x)
		if err != nil {
			p.NotChecked(name, err.Error(), "")
			continue
		}
		if e.FieldReads() > 0 {
			p.NotChecked(name, "its value depends on hardware state", "")
			continue
		}
		a, b, ok := slpTyp(v)
		if !ok {
			// not seen in the corpus yet: reported, not failed
			warned++
			p.Warn(labelPackage, "%s is %s", name, v)
			continue
		}
		// not seen in the corpus yet: reported, not failed
		switch {
		case a > 7 && a == b:
			warned++
			p.Warn(labelRange, "%s: SLP_TYPa and SLP_TYPb 0x%X", name, a)
		default:
			for _, r := range []struct {
				reg string
				t   uint64
			}{{"SLP_TYPa", a}, {"SLP_TYPb", b}} {
				if r.t > 7 {
					warned++
					p.Warn(labelRange, "%s: %s 0x%X", name, r.reg, r.t)
				}
			}
		}
		states = append(states, fmt.Sprintf("S%d (SLP_TYP %d/%d)", x, a, b))
		if x > 0 {
			sleeping = true
		}
	}
	fadt, ferr := l.Tables.FADT()
	hwReduced := ferr == nil && fadt.Flags&acpi.FADTFlagHWReduced != 0
	if len(states) == 0 && !sleeping && hwReduced {
		// A hardware-reduced platform may sleep and power off by other
		// means (PSCI on Arm): nothing to check.
		p.NotApplicable("no \\_Sx object on a hardware-reduced platform: it offers no ACPI sleep state")
		return nil
	}
	if len(states) == 0 && !sleeping {
		p.Info(nil, "no \\_Sx object: the firmware offers no ACPI sleep state")
	}
	// a hardware-reduced platform may power off otherwise (PSCI on Arm)
	if l.NS.Root.Child("_S5_") == nil && !hwReduced {
		// not seen in the corpus yet: reported, not failed
		p.Warn(labelNoS5, "no \\_S5_ object")
	}
	if sleeping {
		switch {
		case ferr != nil:
			p.NotChecked("the FADT sleep registers", "no FADT: "+ferr.Error(), "")
		case hwReduced:
			if fadt.SleepControl.Address == 0 {
				p.Warn(labelNoRegister, "hardware-reduced FADT without a sleep control register")
			}
		case fadt.PM1aCntBlk == 0 && fadt.XPM1aCntBlk.Address == 0:
			p.Warn(labelNoRegister, "FADT PM1a control block is 0")
		}
	}
	if p.Failures() == 0 && warned == 0 && len(states) > 0 {
		p.Passed("sleep states %s", strings.Join(states, ", "))
	}
	return nil
}

// slpTyp reads SLP_TYPa and SLP_TYPb from an \_Sx value: a package whose
// first element (and second, when there is one) is an integer. As ACPICA
// does, a package of one element gives both values.
func slpTyp(v *aml.Object) (a, b uint64, ok bool) {
	if v == nil || v.Type != aml.TypePackage || len(v.Pkg) == 0 {
		return 0, 0, false
	}
	el := v.Pkg[0]
	if el == nil || el.Type != aml.TypeInteger {
		return 0, 0, false
	}
	a, b = el.Int, el.Int
	if len(v.Pkg) > 1 {
		el = v.Pkg[1]
		if el == nil || el.Type != aml.TypeInteger {
			return 0, 0, false
		}
		b = el.Int
	}
	return a, b, true
}
