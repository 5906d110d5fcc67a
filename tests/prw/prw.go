// Package prw is the prw check: each device's _PRW (power resources for
// wake) is well formed and names a wake GPE that exists in the FADT's
// general-purpose event blocks.
package prw

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"

	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

const spec = "ACPI 6.5 §7.3.13 (_PRW), §5.2.9 (FADT GPE blocks), §5.6.4"

var (
	labelMalformed = tests.NewLabel("PRWMalformed", tests.Medium, "ACPI 6.5 §7.3.13",
		"A _PRW is not a package of at least two elements whose first is the wake GPE (an integer, or a "+
			"package of a GPE block device and an index) and whose second is the deepest sleep state "+
			"(0-5) the device can wake from. The OS cannot set the device up for wake. Return a package "+
			"of that form.")
	labelGPERange = tests.NewLabel("PRWGPEOutOfRange", tests.High, "ACPI 6.5 §5.2.9, §5.6.4",
		"A _PRW names a wake GPE that neither FADT GPE block holds (GPE0 holds GPE0_BLK_LEN/2 × 8 "+
			"events from 0, GPE1 as many from GPE1_BASE). The OS rejects it and the device cannot wake "+
			"the machine. Name a GPE the chipset really has, or describe the GPE block.")
)

// Check is the prw check.
var Check = &tests.Check{
	ID:       "prw",
	Title:    "_PRW wake GPEs exist in the FADT GPE blocks",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelMalformed, labelGPERange},
	Run:      run,
}

func run(p *tests.Pass) error {
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	fadt, ferr := l.Tables.FADT()
	e := l.NewEvaluator()
	defer l.ReportBudget(p, e)
	n0, g1, n1 := 0, 0, 0
	if ferr == nil {
		n0 = int(fadt.GPE0BlkLen) / 2 * 8
		g1, n1 = int(fadt.GPE1Base), int(fadt.GPE1BlkLen)/2*8
	}
	total, unknown := 0, 0
	var unknownEx string
	warned := 0
	for _, n := range amlcheck.Devices(l.NS) {
		r := amlcheck.Eval(e, n, "_PRW")
		if r == nil {
			continue
		}
		path := amlcheck.Path(n) + "._PRW"
		if r.Err != nil {
			unknown++
			if unknownEx == "" {
				unknownEx = path + ": " + r.Err.Error()
			}
			continue
		}
		total++
		v := r.V
		if v == nil || v.Type != aml.TypePackage || len(v.Pkg) < 2 || v.Pkg[1] == nil || v.Pkg[1].Type != aml.TypeInteger {
			if r.Faked {
				unknown++
				continue
			}
			// not seen in the corpus yet: reported, not failed
			warned++
			p.Warn(labelMalformed, "%s is %s", path, v)
			continue
		}
		gpe := v.Pkg[0]
		switch {
		case gpe != nil && gpe.Type == aml.TypeInteger:
			if ferr != nil {
				p.NotChecked(path+" GPE", "no FADT: "+ferr.Error(), "")
				continue
			}
			g := gpe.Int
			if g < uint64(n0) || n1 > 0 && g >= uint64(g1) && g < uint64(g1+n1) {
				continue
			}
			msg := fmt.Sprintf("%s: GPE 0x%X, but the FADT's GPE0 block holds GPEs 0-0x%X", path, g, max(n0-1, 0))
			if n0 == 0 {
				msg = fmt.Sprintf("%s: GPE 0x%X, but the FADT has no GPE0 block", path, g)
			}
			if n1 > 0 {
				msg += fmt.Sprintf(" and GPE1 0x%X-0x%X", g1, g1+n1-1)
			}
			switch {
			case r.Faked:
				p.NotChecked(path, msg+", and the value depends on hardware state", "")
			case fadt.Flags&acpi.FADTFlagHWReduced != 0:
				// a hardware-reduced platform has no GPE blocks: wake
				// comes through GPIO events or the GED, and the OS
				// cannot use this GPE
				p.Info(nil, "%s (the FADT is hardware-reduced: no GPE blocks; the device's wake goes through GPIO or the GED, if at all)", msg)
			default:
				// not seen in the corpus yet: reported, not failed
				warned++
				p.Warn(labelGPERange, "%s", msg)
			}
		case gpe != nil && gpe.Type == aml.TypePackage && len(gpe.Pkg) == 2 && gpe.Pkg[1] != nil && gpe.Pkg[1].Type == aml.TypeInteger:
			// a GPE block device and an index into it: its range is the
			// block device's _CRS, not the FADT's
		default:
			if r.Faked {
				unknown++
				continue
			}
			warned++
			p.Warn(labelMalformed, "%s: wake GPE element is %s", path, gpe)
		}
	}
	if unknown > 0 {
		p.NotChecked(fmt.Sprintf("%d _PRW objects (e.g. %s)", unknown, unknownEx), "they cannot be evaluated without the machine (hardware state, objects only run-time tables define, or code that touches hardware)", "compare with the wakeup sources the OS lists in /proc/acpi/wakeup")
	}
	if total == 0 {
		if unknown == 0 {
			p.NotApplicable("no device has a _PRW")
		}
		return nil
	}
	if p.Failures() == 0 && warned == 0 {
		p.Passed("%d _PRW objects name GPEs within the FADT blocks (GPE0: %d events, GPE1: %d from 0x%X)", total, n0, n1, g1)
	}
	return nil
}
