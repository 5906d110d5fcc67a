// Package powersupply checks the batteries, AC adapters and lid switches
// the ACPI drivers expose (/sys/class/power_supply from _BIF/_BIX, _BST and
// _PSR; /proc/acpi/button/lid from _LID). For each system battery that is
// present: its attributes read, its technology is known, its capacities
// are in one unit family (energy in µWh or charge in µAh, as _BIX's power
// unit says), design and last-full capacities are above 0, the last full
// capacity is at most 110 % of the design, the remaining capacity at most
// the last full one, the voltages plausible and the cycle count sane. The
// AC adapters' state is readable and agrees with the batteries' charging
// status; each lid's state reads open or closed.
//
// Peripheral batteries (scope "Device": mice, headsets) are not the
// firmware's and are left out.
package powersupply

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/platform"
)

const (
	specBat = "ACPI 6.5 §10.2.2 (_BIF, _BIX, _BST)"
	specAC  = "ACPI 6.5 §10.3 (AC Adapters and Power Sources, _PSR)"
	specLid = "ACPI 6.5 §9.4 (Control Method Lid Device, _LID)"
)

// Plausible battery voltages, µV: one Li-ion cell discharged (2.5 V) to a
// workstation pack of six cells in series charged (under 30 V).
const (
	voltMin = 2_500_000
	voltMax = 30_000_000
	// maxCycles: a battery worn out many times over.
	maxCycles = 10000
)

var (
	labelUnreadable = tests.NewLabel("BatteryAttributeUnreadable", tests.Medium, specBat,
		"A battery attribute exists but cannot be read: the _BIF/_BIX or _BST method behind it fails. Make the "+
			"battery methods return their packages whether or not the embedded controller is busy.")
	labelTechnology = tests.NewLabel("BatteryTechnologyUnknown", tests.Low, specBat,
		"The battery reports no known technology: _BIF/_BIX's battery type string is empty or not one the OS "+
			"recognises (\"LION\", \"LiP\", \"NiMH\", …). Give the pack's chemistry.")
	labelUnits = tests.NewLabel("BatteryUnitsMixed", tests.Medium, specBat,
		"The battery reports capacities in both energy (µWh) and charge (µAh) units, or in neither, so its "+
			"figures cannot be compared. _BIX's power unit field says which one all capacities use; report them all "+
			"in that unit.")
	labelCapacityZero = tests.NewLabel("BatteryCapacityZero", tests.High, specBat,
		"The battery's design or last full capacity is 0 (or _BIX says unknown). The OS cannot compute the "+
			"charge percentage or the time left, and may shut down at once thinking the battery is empty. Report "+
			"the pack's real capacities.")
	labelFullAboveDesign = tests.NewLabel("BatteryFullAboveDesign", tests.Low, specBat,
		"The battery's last full charge capacity is more than 110 % of its design capacity, which a real pack "+
			"does not reach: one of the two, or their unit, is wrong.")
	labelNowAboveFull = tests.NewLabel("BatteryRemainingAboveFull", tests.Low, specBat,
		"The battery's remaining capacity (_BST) is above its last full charge capacity (_BIX), so the OS "+
			"computes more than 100 %. Report both from the same gauge, in the same unit.")
	labelVoltage = tests.NewLabel("BatteryVoltageImplausible", tests.Low, specBat,
		"The battery's present or design voltage is outside 2.5-30 V: not a reading of a laptop pack (0 is a "+
			"common placeholder). Report it in millivolts, as _BST and _BIX define.")
	labelCycles = tests.NewLabel("BatteryCycleCountImplausible", tests.Low, specBat,
		"The battery's cycle count is negative or above 10000: _BIX returns a placeholder (0xFFFFFFFF means "+
			"unknown). Report the gauge's count.")
	labelACUnreadable = tests.NewLabel("ACAdapterStateUnreadable", tests.Medium, specAC,
		"The AC adapter's online state cannot be read: _PSR fails. The OS then cannot tell whether it runs on "+
			"battery.")
	labelACMismatch = tests.NewLabel("PowerSourceStateInconsistent", tests.Medium, specAC+"; "+specBat,
		"The AC adapters' state and the batteries' charging status disagree: a battery charges with every adapter "+
			"offline, or discharges with one online. _PSR or _BST is stale; send the notifications (0x80) when either "+
			"changes and report both from the embedded controller's current state.")
	labelLid = tests.NewLabel("LidStateUnreadable", tests.Medium, specLid,
		"The lid's state is neither open nor closed: _LID fails or returns a value the OS cannot use, so closing "+
			"the lid may not suspend the machine (or it suspends at boot). Return 1 for open and 0 for closed.")
)

// Check is the power-supply check.
var Check = &tests.Check{
	ID: "power-supply", Title: "batteries, AC adapters and lids: readable, plausible capacities and voltages, consistent states",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.PowerSupplies},
	Optional: []input.Decl{input.DMI, input.CPUInfo},
	Spec:     specBat,
	Labels: []*tests.Label{labelUnreadable, labelTechnology, labelUnits, labelCapacityZero, labelFullAboveDesign,
		labelNowAboveFull, labelVoltage, labelCycles, labelACUnreadable, labelACMismatch, labelLid},
	Run: run,
}

func run(p *tests.Pass) error {
	s := tests.Input(p, input.PowerSupplies)
	var bats, acs []sysdev.PowerSupply
	for _, ps := range s.Supplies {
		switch {
		case ps.Type == "Battery" && ps.Scope != "Device":
			bats = append(bats, ps)
		case ps.Type == "Mains":
			acs = append(acs, ps)
		}
	}
	if len(bats)+len(acs)+len(s.Lids) == 0 {
		p.NotApplicable("no battery, AC adapter or lid switch: %s",
			platform.Absent(p, "the firmware describes none (a desktop or server), or the ACPI battery, AC and button drivers are not loaded"))
		return nil
	}
	var charging, discharging []string
	for _, b := range bats {
		checkBattery(p, b)
		switch b.Status {
		case "Charging":
			charging = append(charging, b.Name)
		case "Discharging":
			discharging = append(discharging, b.Name)
		}
	}
	checkAC(p, acs, s.Supplies, charging, discharging)
	checkLids(p, s.Lids)
	return nil
}

func mwh(v int64, unit string) string { return fmt.Sprintf("%.2f %s", float64(v)/1e6, unit) }

func checkBattery(p *tests.Pass, b sysdev.PowerSupply) {
	before := p.Failures()
	if b.Present.OK && b.Present.N == 0 {
		p.Info(nil, "%s: not present (an empty battery bay)", b.Name)
		return
	}
	all := map[string]sysdev.Value{"present": b.Present, "energy_full_design": b.EnergyFullDesign, "energy_full": b.EnergyFull,
		"energy_now": b.EnergyNow, "charge_full_design": b.ChargeFullDesign, "charge_full": b.ChargeFull, "charge_now": b.ChargeNow,
		"voltage_now": b.VoltageNow, "voltage_min_design": b.VoltageMinDesign, "cycle_count": b.CycleCount, "capacity": b.Capacity}
	var bad []string
	for k, v := range all {
		if v.Err != "" {
			bad = append(bad, k+": "+v.Err)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		p.Fail(labelUnreadable, "%s: %s", b.Name, strings.Join(bad, "; "))
	}
	if b.Technology == "" || b.Technology == "Unknown" {
		p.Fail(labelTechnology, "%s: technology %q", b.Name, b.Technology)
	}
	energy := b.EnergyFullDesign.Present() || b.EnergyFull.Present() || b.EnergyNow.Present()
	charge := b.ChargeFullDesign.Present() || b.ChargeFull.Present() || b.ChargeNow.Present()
	var design, full, now sysdev.Value
	unit := ""
	switch {
	case energy && charge:
		p.Fail(labelUnits, "%s: both energy_* (µWh) and charge_* (µAh) attributes", b.Name)
	case !energy && !charge:
		p.Fail(labelUnits, "%s: neither energy_* nor charge_* attributes", b.Name)
	case energy:
		design, full, now, unit = b.EnergyFullDesign, b.EnergyFull, b.EnergyNow, "Wh"
	default:
		design, full, now, unit = b.ChargeFullDesign, b.ChargeFull, b.ChargeNow, "Ah"
	}
	if unit != "" {
		family := map[string]string{"Wh": "energy", "Ah": "charge"}[unit]
		for _, x := range []struct {
			name string
			v    sysdev.Value
		}{{family + "_full_design", design}, {family + "_full", full}} {
			if x.v.OK && x.v.N <= 0 {
				p.Fail(labelCapacityZero, "%s: %s %d", b.Name, x.name, x.v.N)
			}
		}
		if design.OK && full.OK && design.N > 0 && full.N*10 > design.N*11 {
			p.Fail(labelFullAboveDesign, "%s: last full %s is %.0f %% of the design %s", b.Name, mwh(full.N, unit), 100*float64(full.N)/float64(design.N), mwh(design.N, unit))
		}
		if full.OK && now.OK && full.N > 0 && now.N*100 > full.N*101 {
			p.Fail(labelNowAboveFull, "%s: remaining %s is above the last full %s", b.Name, mwh(now.N, unit), mwh(full.N, unit))
		}
	}
	for _, x := range []struct {
		name string
		v    sysdev.Value
	}{{"voltage_now", b.VoltageNow}, {"voltage_min_design", b.VoltageMinDesign}} {
		if x.v.OK && (x.v.N < voltMin || x.v.N > voltMax) {
			p.Fail(labelVoltage, "%s: %s %.3f V", b.Name, x.name, float64(x.v.N)/1e6)
		}
	}
	if b.CycleCount.OK && (b.CycleCount.N < 0 || b.CycleCount.N > maxCycles) {
		p.Fail(labelCycles, "%s: cycle_count %d", b.Name, b.CycleCount.N)
	}
	if p.Failures() == before {
		msg := fmt.Sprintf("%s (%s, %s): ", b.Name, b.Technology, b.Status)
		if unit != "" {
			msg += fmt.Sprintf("design %s, last full %s, remaining %s", mwh(design.N, unit), mwh(full.N, unit), mwh(now.N, unit))
		}
		if b.VoltageNow.OK {
			msg += fmt.Sprintf(", %.2f V", float64(b.VoltageNow.N)/1e6)
		}
		if b.CycleCount.OK {
			msg += fmt.Sprintf(", %d cycles", b.CycleCount.N)
		}
		p.Passed("%s", msg)
	}
}

func checkAC(p *tests.Pass, acs, all []sysdev.PowerSupply, charging, discharging []string) {
	before := p.Failures()
	var online, offline []string
	for _, a := range acs {
		switch {
		case !a.Online.OK:
			why := a.Online.Err
			if why == "" {
				why = "no online attribute"
			}
			p.Fail(labelACUnreadable, "%s: online: %s", a.Name, why)
		case a.Online.N != 0:
			online = append(online, a.Name)
		default:
			offline = append(offline, a.Name)
		}
	}
	if len(acs) == 0 || p.Failures() != before {
		return
	}
	// A USB-C or wireless charger may charge the battery with the
	// adapters offline.
	otherOnline := false
	for _, s := range all {
		if s.Type != "Mains" && s.Type != "Battery" && s.Online.OK && s.Online.N != 0 {
			otherOnline = true
		}
	}
	switch {
	case len(online) == 0 && len(charging) > 0 && !otherOnline:
		p.Fail(labelACMismatch, "%s charging while every AC adapter (%s) is offline", strings.Join(charging, ", "), strings.Join(offline, ", "))
	case len(online) > 0 && len(discharging) > 0:
		p.Fail(labelACMismatch, "%s discharging while %s is online", strings.Join(discharging, ", "), strings.Join(online, ", "))
	default:
		p.Passed("AC adapters readable (online: %s; offline: %s) and consistent with the batteries' status", orNone(online), orNone(offline))
	}
}

func checkLids(p *tests.Pass, lids map[string]string) {
	var names []string
	for k := range lids {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, n := range names {
		if v := lids[n]; v == "open" || v == "closed" {
			p.Passed("lid %s: %s", n, v)
		} else {
			p.Fail(labelLid, "lid %s: state %q", n, v)
		}
	}
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
