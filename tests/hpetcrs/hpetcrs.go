// Package hpetcrs is the hpet-crs check: the HPET device's _CRS (PNP0103)
// describes the same timer block as the HPET table's base address.
package hpetcrs

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

const spec = "IA-PC HPET 1.0a §3.2.4, §3.2.5; ACPI 6.5 §6.2.2"

var (
	labelMismatch = tests.NewLabel("HPETCRSMismatch", tests.High, spec,
		"The HPET device's _CRS gives a memory range that does not start at the HPET table's base "+
			"address. The OS programs the timer at one address and reserves the other, so it may use a "+
			"timer block that is not there or leave the real one unreserved. Make _CRS and the HPET table "+
			"describe the same address.")
	labelNoMemory = tests.NewLabel("HPETCRSNoMemory", tests.Medium, spec,
		"The HPET device's _CRS describes no memory range, so the OS cannot reserve the timer's registers "+
			"from it. Add a Memory32Fixed descriptor for the 1 KiB timer block.")
)

// Check is the hpet-crs check.
var Check = &tests.Check{
	ID:       "hpet-crs",
	Title:    "The HPET device's _CRS agrees with the HPET table",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelMismatch, labelNoMemory},
	Run:      run,
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	tabs := ts.Get(acpi.SigHPET)
	if len(tabs) == 0 {
		p.NotApplicable("no HPET table")
		return nil
	}
	h, err := acpi.ParseHPET(tabs[0])
	if err != nil {
		p.NotApplicable("the HPET table cannot be read (the hpet check reports it): %v", err)
		return nil
	}
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	base := h.BaseAddress.Address
	e := l.NewEvaluator()
	defer l.ReportBudget(p, e)
	found := 0
	for _, n := range amlcheck.Devices(l.NS) {
		if !isHPET(e, n) {
			continue
		}
		found++
		path := amlcheck.Path(n)
		pr, why := amlcheck.PresenceOf(e, n)
		if pr == amlcheck.Absent {
			p.Info(nil, "%s is not present (_STA); not compared", path)
			continue
		}
		r := amlcheck.Eval(e, n, "_CRS")
		switch {
		case r == nil:
			p.NotChecked(path+" _CRS", "the device has no _CRS", "")
			continue
		case r.Err != nil:
			p.NotChecked(path+" _CRS", r.Err.Error(), "")
			continue
		case r.Faked:
			p.NotChecked(path+" _CRS", "its value depends on hardware state (OperationRegion fields the check cannot read)", "compare /proc/iomem with the HPET table on the machine")
			continue
		case r.V == nil || r.V.Type != aml.TypeBuffer:
			p.NotChecked(path+" _CRS", "it gives no buffer (the resources check reports it)", "")
			continue
		}
		rs, err := aml.DecodeResources(r.V.Buf)
		if err != nil && len(rs) == 0 {
			p.NotChecked(path+" _CRS", "it does not decode (the resources check reports it): "+err.Error(), "")
			continue
		}
		var mems []string
		match := false
		for _, res := range rs {
			if res.Space != "Memory" || res.Length == 0 {
				continue
			}
			mems = append(mems, fmt.Sprintf("0x%X-0x%X", res.Min, res.Min+res.Length-1))
			if res.Min == base {
				match = true
			}
		}
		switch {
		case pr == amlcheck.Unknown && (len(mems) == 0 || !match):
			p.NotChecked(path+" _CRS", fmt.Sprintf("its memory %v differs from the HPET table base 0x%X, but whether the device is present depends on hardware state (%s)", mems, base, why),
				"compare /proc/iomem with the HPET table on the machine")
		case len(mems) == 0:
			// not seen in the corpus yet: reported, not failed
			p.Warn(labelNoMemory, "%s._CRS has no memory descriptor (HPET table base 0x%X)", path, base)
		case !match:
			// not seen in the corpus yet: reported, not failed
			p.Warn(labelMismatch, "%s._CRS memory %v, HPET table base 0x%X", path, mems, base)
		default:
			p.Passed("%s._CRS memory %v matches the HPET table base 0x%X", path, mems, base)
		}
	}
	if found == 0 {
		p.NotApplicable("no device with _HID or _CID PNP0103 (HPET): the HPET table alone describes it")
	}
	return nil
}

func isHPET(e *aml.Evaluator, n *aml.Node) bool {
	for _, name := range []string{"_HID", "_CID"} {
		r := amlcheck.Eval(e, n, name)
		if r == nil || r.Err != nil || r.V == nil {
			continue
		}
		vs := []*aml.Object{r.V}
		if r.V.Type == aml.TypePackage {
			vs = r.V.Pkg
		}
		for _, v := range vs {
			if s, ok := amlcheck.ID(v); ok && s == "PNP0103" {
				return true
			}
		}
	}
	return false
}
