package methods

import (
	"github.com/fwcheck/fwcheck/acpi/aml"
)

// intAt is element i of package v as an integer; a reference to a named
// integer (or field) stands for its value, as firmware means it.
func (c *run1) intAt(v *aml.Object, i int) (uint64, bool) {
	if v == nil || v.Type != aml.TypePackage || i >= len(v.Pkg) || v.Pkg[i] == nil {
		return 0, false
	}
	el := v.Pkg[i]
	if el.Type == aml.TypeReference && el.Ref != nil && refType(el) == tInt {
		x, err := c.e.Evaluate(el.Ref)
		if err != nil || x == nil {
			return 0, false
		}
		el = x
	}
	if el.Type != aml.TypeInteger {
		return 0, false
	}
	return el.Int, true
}

// ranges checks the values of one object against the spec's ranges; the
// type and shape are right when it is called.
func (c *run1) ranges(path string, res *result) {
	v, em := res.v, res.emulated
	rng := func(max uint64) {
		if v.Type == aml.TypeInteger && v.Int > max {
			c.report(labelRange, em, "%s is 0x%X; the spec allows 0 to %d", path, v.Int, max)
		}
	}
	switch res.r.name {
	case "_STA":
		if v.Int&^uint64(0x1F) != 0 {
			c.report(labelRange, em, "%s is 0x%X: reserved bits above bit 4 are set", path, v.Int)
		}
	case "_PSC", "_S1D", "_S2D", "_S3D", "_S4D":
		rng(3)
	case "_S0W", "_S1W", "_S2W", "_S3W", "_S4W":
		rng(4)
	case "_PSR", "_RMV", "_CCA", "_GLK":
		rng(1)
	case "_SBS":
		rng(4)
	case "_SEG":
		rng(0xFFFF)
	case "_MTL":
		rng(100)
	case "_PRT":
		for k, e := range v.Pkg {
			addr, _ := c.intAt(e, 0)
			pin, _ := c.intAt(e, 1)
			if addr&0xFFFF != 0xFFFF {
				c.report(labelRange, em, "%s entry %d: address 0x%X does not end in 0xFFFF (all functions of the device)", path, k, addr)
				return
			}
			if pin > 3 {
				c.report(labelRange, em, "%s entry %d: pin %d (INTA-INTD are 0-3)", path, k, pin)
				return
			}
			if src := e.Pkg[2]; src.Type == aml.TypeInteger && src.Int != 0 {
				c.report(labelRange, em, "%s entry %d: source is the integer 0x%X; it must be 0 (then the index is a GSI) or a link device", path, k, src.Int)
				return
			}
		}
	case "_TSD", "_PSD", "_CSD":
		if res.r.name == "_TSD" && len(v.Pkg) > 1 {
			c.report(labelTSD, em, "%s holds %d dependency packages", path, len(v.Pkg))
			return
		}
		want := uint64(5)
		if res.r.name == "_CSD" {
			want = 6
		}
		for k, e := range v.Pkg {
			num, _ := c.intAt(e, 0)
			rev, _ := c.intAt(e, 1)
			coord, _ := c.intAt(e, 3)
			switch {
			case num != want:
				c.report(labelRange, em, "%s package %d: NumEntries %d, want %d", path, k, num, want)
			case rev != 0:
				c.report(labelRange, em, "%s package %d: revision %d, want 0", path, k, rev)
			case coord < 0xFC || coord > 0xFE:
				c.report(labelRange, em, "%s package %d: coordination type 0x%X (SW_ALL 0xFC, SW_ANY 0xFD, HW_ALL 0xFE)", path, k, coord)
			default:
				continue
			}
			return
		}
	case "_CST":
		count, _ := c.intAt(v, 0)
		if count != uint64(len(v.Pkg)-1) {
			c.report(labelCST, em, "%s: count %d, but %d C-state packages follow", path, count, len(v.Pkg)-1)
			return
		}
		for k, e := range v.Pkg[1:] {
			if t, _ := c.intAt(e, 1); t < 1 || t > 3 {
				c.report(labelCST, em, "%s C-state %d: type %d (C1-C3 are 1-3)", path, k+1, t)
				return
			}
		}
	case "_PSS":
		for k := 1; k < len(v.Pkg); k++ {
			f0, _ := c.intAt(v.Pkg[k-1], 0)
			f1, _ := c.intAt(v.Pkg[k], 0)
			if f1 > f0 {
				c.report(labelPSS, em, "%s: P%d runs at %d MHz, above P%d's %d MHz", path, k, f1, k-1, f0)
				return
			}
		}
	case "_TSS":
		for k, e := range v.Pkg {
			if pc, _ := c.intAt(e, 0); pc < 1 || pc > 100 {
				c.report(labelRange, em, "%s T%d: %d percent (1-100)", path, k, pc)
				return
			}
		}
	case "_BCL":
		levels := map[uint64]bool{}
		for k, e := range v.Pkg {
			if e.Int > 100 {
				c.report(labelBCL, em, "%s element %d is %d, above 100 percent", path, k, e.Int)
				return
			}
			if k >= 2 {
				levels[e.Int] = true
			}
		}
		for k, what := range []string{"AC", "battery"} {
			if !levels[v.Pkg[k].Int] {
				c.report(labelBCL, em, "%s: the %s level %d (element %d) is not among the levels that follow", path, what, v.Pkg[k].Int, k)
				return
			}
		}
	case "_BIF":
		unit, _ := c.intAt(v, 0)
		tech, _ := c.intAt(v, 3)
		c.battery(path, em, unit, tech)
	case "_BIX":
		rev, _ := c.intAt(v, 0)
		unit, _ := c.intAt(v, 1)
		tech, _ := c.intAt(v, 4)
		switch {
		case rev == 0 && len(v.Pkg) != 20 || rev == 1 && len(v.Pkg) != 21:
			c.report(labelBattery, em, "%s: revision %d with %d elements (revision 0 has 20, revision 1 has 21)", path, rev, len(v.Pkg))
		case rev > 1:
			c.report(labelBattery, em, "%s: revision %d (the spec defines 0 and 1)", path, rev)
		default:
			c.battery(path, em, unit, tech)
		}
	case "_BST":
		if st, _ := c.intAt(v, 0); st&3 == 3 {
			c.report(labelBattery, em, "%s: state 0x%X says charging and discharging at once", path, st)
		} else if st > 7 {
			c.report(labelRange, em, "%s: state 0x%X has reserved bits set", path, st)
		}
	case "_WDG":
		if len(v.Buf)%20 != 0 {
			c.report(labelWDG, em, "%s is %d bytes, not a multiple of 20", path, len(v.Buf))
		}
	case "_PLD":
		for k, e := range v.Pkg {
			switch {
			case len(e.Buf) < 16:
				c.report(labelPLD, em, "%s buffer %d is %d bytes (at least 16)", path, k, len(e.Buf))
			case e.Buf[0]&0x7F != 1 && e.Buf[0]&0x7F != 2:
				c.report(labelPLD, em, "%s buffer %d: revision %d (1 or 2)", path, k, e.Buf[0]&0x7F)
			default:
				continue
			}
			return
		}
	case "_FIF", "_FST", "_FPS":
		if rev, _ := c.intAt(v, 0); rev != 0 {
			c.report(labelRange, em, "%s: revision %d (the spec defines 0)", path, rev)
		}
	case "_GRT":
		if len(v.Buf) != 16 {
			c.report(labelShape, em, "%s is a %d-byte buffer; the time structure is 16 bytes", path, len(v.Buf))
		}
	case "_UPC":
		if t, _ := c.intAt(v, 1); t > 0x0A && t != 0xFF {
			c.report(labelRange, em, "%s: connector type 0x%X (0-0x0A, or 0xFF proprietary)", path, t)
		}
	case "_CPC":
		num, _ := c.intAt(v, 0)
		rev, _ := c.intAt(v, 1)
		want := map[uint64]int{1: 17, 2: 21, 3: 23}[rev]
		if want == 0 || num != uint64(len(v.Pkg)) || len(v.Pkg) != want {
			c.report(labelShape, em, "%s: NumEntries %d, revision %d, %d elements (revision 1: 17, 2: 21, 3: 23)", path, num, rev, len(v.Pkg))
		}
	case "_PUR":
		if rev, _ := c.intAt(v, 0); rev != 1 {
			c.report(labelRange, em, "%s: revision %d (the spec defines 1)", path, rev)
		}
	}
}

func (c *run1) battery(path string, em bool, unit, tech uint64) {
	switch {
	case unit > 1:
		c.report(labelBattery, em, "%s: power unit %d (0 mW, 1 mA)", path, unit)
	case tech > 1:
		c.report(labelBattery, em, "%s: battery technology %d (0 primary, 1 rechargeable)", path, tech)
	}
}
