package methods

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi/aml"
)

// classes checks what several objects of one device say together.
func (c *run1) classes() {
	for _, dev := range c.order {
		rs := c.results[dev]
		c.thermal(dev, rs)
		c.perf(dev, rs)
		c.video(dev, rs)
	}
}

// ok returns an object's value when it evaluated to the wanted type.
func ok(r *result, t aml.Type) *aml.Object {
	if r == nil || r.err != nil || r.v == nil || r.v.Type != t {
		return nil
	}
	return r.v
}

// temp is a thermal zone's trip point when it is a real temperature (not
// 0 or all ones, which firmware uses for "none").
func temp(rs map[string]*result, name string) (uint64, bool, bool) {
	v := ok(rs[name], aml.TypeInteger)
	if v == nil || v.Int == 0 || v.Int&0xFFFFFFFF == 0xFFFFFFFF {
		return 0, false, false
	}
	return v.Int, rs[name].emulated, true
}

func kelvin(t uint64) string { return fmt.Sprintf("%d (%.1f °C)", t, float64(t)/10-273.15) }

func (c *run1) thermal(dev *aml.Node, rs map[string]*result) {
	if dev.Type != aml.TypeThermalZone {
		return
	}
	path := c.path(dev)
	order := []string{"_CRT", "_HOT", "_PSV"}
	for i := 0; i < len(order); i++ {
		hi, eh, okh := temp(rs, order[i])
		if !okh {
			continue
		}
		for j := i + 1; j < len(order); j++ {
			lo, el, okl := temp(rs, order[j])
			if okl && lo > hi {
				c.report(labelThermal, eh || el, "%s: %s %s lies above %s %s", path, order[j], kelvin(lo), order[i], kelvin(hi))
			}
		}
	}
	prev, pe, pn := uint64(0), false, ""
	for k := 0; k <= 9; k++ {
		name := fmt.Sprintf("_AC%d", k)
		t, e, okt := temp(rs, name)
		if !okt {
			continue
		}
		if pn != "" && t > prev {
			c.report(labelThermal, e || pe, "%s: %s %s lies above %s %s (_AC0 is the highest)", path, name, kelvin(t), pn, kelvin(prev))
		}
		prev, pe, pn = t, e, name
	}
	if _, e, okp := temp(rs, "_PSV"); okp {
		var missing []string
		for _, name := range []string{"_PSL", "_TC1", "_TC2", "_TSP"} {
			if dev.Child(name) == nil {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			c.report(labelPassive, e, "%s has _PSV but no %v", path, missing)
		}
	}
}

func (c *run1) perf(dev *aml.Node, rs map[string]*result) {
	pss := ok(rs["_PSS"], aml.TypePackage)
	if ppc := ok(rs["_PPC"], aml.TypeInteger); ppc != nil && pss != nil && len(pss.Pkg) > 0 && ppc.Int >= uint64(len(pss.Pkg)) {
		c.report(labelPPC, rs["_PPC"].emulated || rs["_PSS"].emulated, "%s._PPC is %d, but _PSS has %d states", c.path(dev), ppc.Int, len(pss.Pkg))
	}
	tss := ok(rs["_TSS"], aml.TypePackage)
	if tpc := ok(rs["_TPC"], aml.TypeInteger); tpc != nil && tss != nil && len(tss.Pkg) > 0 && tpc.Int >= uint64(len(tss.Pkg)) {
		c.report(labelPPC, rs["_TPC"].emulated || rs["_TSS"].emulated, "%s._TPC is %d, but _TSS has %d states", c.path(dev), tpc.Int, len(tss.Pkg))
	}
}

func (c *run1) video(dev *aml.Node, rs map[string]*result) {
	bcl := ok(rs["_BCL"], aml.TypePackage)
	bqc := ok(rs["_BQC"], aml.TypeInteger)
	if bcl == nil || bqc == nil || len(bcl.Pkg) < 3 {
		return
	}
	for _, e := range bcl.Pkg[2:] {
		if e != nil && e.Type == aml.TypeInteger && e.Int == bqc.Int {
			return
		}
	}
	c.report(labelBCL, rs["_BQC"].emulated || rs["_BCL"].emulated, "%s._BQC is %d, a level _BCL does not list", c.path(dev), bqc.Int)
}
