// Package fan checks the fans the ACPI fan driver registers as cooling
// devices (type "Fan" in /sys/class/thermal): each exposes a maximum
// state above 0 (on/off fans have 1, _FPS fans one per speed), its
// current state lies within it, and a thermal zone binds it (an _ALx
// list names it), without which no trip point ever turns it on.
//
// Whether a fan accepts a state change is not checked: that writes
// cur_state, which changes the machine, and this check only reads.
package fan

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/platform"
)

const spec = "ACPI 6.5 §11.3 (Fan Device: _FIF, _FPS, _FSL, _FST), §11.4.2 (_ALx)"

var (
	labelMaxZero = tests.NewLabel("FanMaxStateZero", tests.Medium, spec,
		"The fan's cooling device has no state to switch to (max_state 0, or unreadable): the OS cannot turn it "+
			"on. Give the fan power resources (_PR0) for on/off control, or an _FPS table with its speeds.")
	labelStateRange = tests.NewLabel("FanStateOutOfRange", tests.Low, spec,
		"The fan reports a current state above its maximum: _FST's control value matches no _FPS entry, or "+
			"the state cannot be read. Report the fan's state as one of the levels it offers.")
	labelUnbound = tests.NewLabel("FanNotBound", tests.Low, spec,
		"No thermal zone binds this fan: no _ALx list names it, so the OS never turns it on for a trip point. "+
			"List the fan in the active cooling list of the zone it cools (unless the embedded controller alone "+
			"drives it, in which case the fan device need not be exposed).")
)

// Check is the fan check.
var Check = &tests.Check{
	ID: "fan", Title: "ACPI fans: a maximum state above 0, the current state within it, bound to a thermal zone",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.Thermal},
	Optional: []input.Decl{input.DMI, input.CPUInfo},
	Spec:     spec,
	Labels:   []*tests.Label{labelMaxZero, labelStateRange, labelUnbound},
	Run:      run,
}

func run(p *tests.Pass) error {
	t := tests.Input(p, input.Thermal)
	// A binding whose cdevN link is missing (a snapshot that did not
	// record links) leaves open which device it binds.
	unknown := false
	for _, z := range t.Zones {
		for _, b := range z.Bindings {
			unknown = unknown || b.Device == ""
		}
	}
	n := 0
	for _, c := range t.Cooling {
		if c.Type != sysdev.FanType {
			continue
		}
		n++
		before := p.Failures()
		switch {
		case !c.MaxOK:
			why := c.MaxErr
			if why == "" {
				why = "no max_state attribute"
			}
			p.Fail(labelMaxZero, "%s: max_state: %s", c.Name, why)
		case c.MaxState <= 0:
			p.Fail(labelMaxZero, "%s: max_state %d", c.Name, c.MaxState)
		case !c.CurOK:
			p.Fail(labelStateRange, "%s: cur_state cannot be read", c.Name)
		case c.CurState < 0 || c.CurState > c.MaxState:
			p.Fail(labelStateRange, "%s: cur_state %d, max_state %d", c.Name, c.CurState, c.MaxState)
		}
		zones := t.BoundTo(c.Name)
		switch {
		case len(zones) > 0:
		case unknown:
			p.NotChecked(fmt.Sprintf("%s is bound to a thermal zone", c.Name), "the zones' cdevN links were not recorded", "take the snapshot with this version of fwcheck")
		default:
			p.Warn(labelUnbound, "%s: no thermal zone's cdevN links to it (%d zones)", c.Name, len(t.Zones))
		}
		if p.Failures() == before && len(zones) > 0 {
			p.Passed("%s: states 0-%d, at %d; bound to %s", c.Name, c.MaxState, c.CurState, strings.Join(zones, ", "))
		} else if p.Failures() == before && c.MaxOK {
			p.Passed("%s: states 0-%d, at %d", c.Name, c.MaxState, c.CurState)
		}
	}
	if n == 0 {
		p.NotApplicable("no fan cooling device (type Fan, the ACPI fan driver's) in /sys/class/thermal: %s",
			platform.Absent(p, "the firmware exposes no fan device (PNP0C0B), or the embedded controller drives the fans itself"))
	}
	return nil
}
