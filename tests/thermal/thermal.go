// Package thermal checks the ACPI thermal zones as the kernel's ACPI
// thermal driver shows them in /sys/class/thermal (zones of type
// "acpitz"): the temperature (_TMP) is readable and plausible; the trip
// points (_CRT, _HOT, _PSV, _ACx) are readable, plausible and in order
// (critical above hot above passive, active below critical), above the
// current temperature where crossing them shuts the machine down or
// throttles it; and each passive and active trip point has a cooling
// device bound to it (_PSL, _ALx), without which crossing it does nothing.
//
// Zones registered by other drivers (x86_pkg_temp, pch_*, iwlwifi) carry
// trip points from hardware or the driver, not the firmware: they are
// listed, not judged. Polling (_TZP) and the passive constants (_TC1,
// _TC2, _TSP) do not appear in sysfs and are not checked here. Trip points
// the kernel found invalid (below -55 °C or above 175 °C as the firmware
// gave them) show as THERMAL_TEMP_INVALID (-274000); they are reported as
// implausible like any other out-of-range value.
package thermal

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/platform"
)

const spec = "ACPI 6.5 §11 (Thermal Management): §11.4 (_TMP, _CRT, _HOT, _PSV, _ACx, _PSL, _ALx)"

// The plausible range of a trip point, m°C: above freezing (a cooling
// trip at or below 0 °C fires at once) and at most 175 °C, the upper end
// of the range the kernel accepts from firmware.
const (
	tripMin = 0
	tripMax = 175000
	// tempMin and tempMax bound a plausible current temperature.
	tempMin = -55000
	tempMax = 175000
)

var (
	labelTempUnreadable = tests.NewLabel("ThermalTempUnreadable", tests.Medium, spec,
		"The thermal zone's temperature cannot be read: its _TMP method fails. The OS then cannot cool the zone or "+
			"shut down before damage. Make _TMP return the sensor's reading in tenths of a kelvin.")
	labelTempImplausible = tests.NewLabel("ThermalTempImplausible", tests.Medium, spec,
		"The thermal zone's temperature is outside -55 to 175 °C, so _TMP returns a value that is not a reading "+
			"(0 K is a common one). Return the sensor's temperature in tenths of a kelvin.")
	labelTripUnreadable = tests.NewLabel("ThermalTripUnreadable", tests.Medium, spec,
		"A trip point's temperature cannot be read. Make the object behind it (_CRT, _HOT, _PSV or _ACx) return "+
			"a temperature in tenths of a kelvin, or leave it out.")
	labelTripImplausible = tests.NewLabel("ThermalTripImplausible", tests.High, spec,
		"A trip point lies at or below 0 °C or above 175 °C: the object returns 0 K, a value in the wrong unit, or a "+
			"placeholder. A critical trip of 0 K shuts the machine down as soon as the zone is read; an absurdly high "+
			"one never protects it. Return the real limit in tenths of a kelvin.")
	labelTripOrder = tests.NewLabel("ThermalZoneTripOrder", tests.Medium, spec,
		"The zone's trip points are out of order: the critical trip must lie above the hot trip, the hot above the "+
			"passive, and active (fan) trips below the critical one, or the OS shuts down before it has tried to cool.")
	labelTripBelowTemp = tests.NewLabel("ThermalTripBelowTemperature", tests.High, spec,
		"The zone is already at or above its critical or hot trip point, so the OS shuts down or hibernates now; "+
			"either the trip point or _TMP is wrong.")
	labelPassiveActive = tests.NewLabel("ThermalPassiveTripCrossed", tests.Low, spec,
		"The zone is at or above its passive trip point, so the OS throttles the CPUs it lists in _PSL while "+
			"idle. Unless the machine is really that hot, the passive temperature (_PSV) is set too low.")
	labelTripUnbound = tests.NewLabel("ThermalTripWithoutCooling", tests.Medium, spec,
		"A passive or active trip point has no cooling device bound to it, so crossing it does nothing. List the "+
			"processors to throttle in _PSL (passive) and the fans in the matching _ALx (active), as devices the OS has "+
			"a driver for.")
)

// Check is the thermal check.
var Check = &tests.Check{
	ID: "thermal", Title: "ACPI thermal zones: temperatures readable, trip points plausible and ordered, cooling bound",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.Thermal},
	Optional: []input.Decl{input.DMI, input.CPUInfo},
	Spec:     spec,
	Labels: []*tests.Label{labelTempUnreadable, labelTempImplausible, labelTripUnreadable, labelTripImplausible,
		labelTripOrder, labelTripBelowTemp, labelPassiveActive, labelTripUnbound},
	Run: run,
}

func mc(v int64) string { return fmt.Sprintf("%.1f °C", float64(v)/1000) }

func run(p *tests.Pass) error {
	t := tests.Input(p, input.Thermal)
	var others []string
	n := 0
	for _, z := range t.Zones {
		if z.Type != sysdev.ZoneType {
			s := fmt.Sprintf("%s (%s)", z.Name, z.Type)
			if z.TempOK {
				s += " at " + mc(z.Temp)
			}
			others = append(others, s)
			continue
		}
		n++
		checkZone(p, z)
	}
	if len(others) > 0 {
		p.Info(nil, "zones from other drivers, whose trip points are not the firmware's: %s", strings.Join(others, ", "))
	}
	if n == 0 {
		p.NotApplicable("no ACPI thermal zone (type acpitz) in /sys/class/thermal: %s",
			platform.Absent(p, "the firmware defines no thermal zone (ThermalZone objects), or the ACPI thermal driver is not loaded"))
	}
	return nil
}

func checkZone(p *tests.Pass, z sysdev.Zone) {
	before := p.Failures()
	switch {
	case !z.TempOK:
		why := z.TempErr
		if why == "" {
			why = "no temp attribute"
		}
		p.Fail(labelTempUnreadable, "%s: temp: %s", z.Name, why)
	case z.Temp < tempMin || z.Temp > tempMax:
		p.Fail(labelTempImplausible, "%s: temperature %s (temp %d)", z.Name, mc(z.Temp), z.Temp)
	}
	tempOK := z.TempOK && z.Temp >= tempMin && z.Temp <= tempMax
	byType := map[string]int64{}
	var active []sysdev.Trip
	var good []sysdev.Trip
	for _, tp := range z.Trips {
		name := fmt.Sprintf("%s trip %d (%s)", z.Name, tp.Index, tp.Type)
		switch {
		case !tp.TempOK:
			why := tp.TempErr
			if why == "" {
				why = "no temperature"
			}
			p.Fail(labelTripUnreadable, "%s: %s", name, why)
			continue
		case tp.Temp <= tripMin || tp.Temp > tripMax:
			extra := ""
			if tp.Temp <= -273000 {
				extra = " (0 K or less: the kernel's mark for a value it rejected is -274000)"
			}
			p.Fail(labelTripImplausible, "%s at %s (%d)%s", name, mc(tp.Temp), tp.Temp, extra)
			continue
		}
		good = append(good, tp)
		kind := tp.Type
		if strings.HasPrefix(kind, "active") {
			active = append(active, tp)
			kind = "active"
			continue
		}
		byType[kind] = tp.Temp
	}
	crit, hasCrit := byType["critical"]
	hot, hasHot := byType["hot"]
	psv, hasPsv := byType["passive"]
	order := func(hi string, h int64, lo string, l int64) {
		if h <= l {
			p.Fail(labelTripOrder, "%s: %s trip %s is not above the %s trip %s", z.Name, hi, mc(h), lo, mc(l))
		}
	}
	if hasCrit && hasHot {
		order("critical", crit, "hot", hot)
	}
	if hasHot && hasPsv {
		order("hot", hot, "passive", psv)
	} else if hasCrit && hasPsv {
		order("critical", crit, "passive", psv)
	}
	for _, a := range active {
		if hasCrit {
			order("critical", crit, a.Type, a.Temp)
		}
	}
	if tempOK {
		for _, k := range []struct {
			name string
			v    int64
			ok   bool
		}{{"critical", crit, hasCrit}, {"hot", hot, hasHot}} {
			if k.ok && z.Temp >= k.v {
				p.Fail(labelTripBelowTemp, "%s: at %s, the %s trip is %s", z.Name, mc(z.Temp), k.name, mc(k.v))
			}
		}
		if hasPsv && z.Temp >= psv {
			p.Warn(labelPassiveActive, "%s: at %s, the passive trip is %s", z.Name, mc(z.Temp), mc(psv))
		}
	}
	for _, tp := range good {
		if tp.Type != "passive" && !strings.HasPrefix(tp.Type, "active") {
			continue
		}
		bound := false
		for _, b := range z.Bindings {
			if b.Trip == tp.Index {
				bound = true
			}
		}
		if !bound {
			p.Fail(labelTripUnbound, "%s: trip %d (%s at %s) has no cooling device (cdevN_trip_point %d)", z.Name, tp.Index, tp.Type, mc(tp.Temp), tp.Index)
		}
	}
	if p.Failures() == before {
		var trips []string
		for _, tp := range good {
			trips = append(trips, tp.Type+" "+mc(tp.Temp))
		}
		if len(trips) == 0 {
			trips = []string{"no trip points"}
		}
		p.Passed("%s at %s: %s; %d cooling bindings", z.Name, mc(z.Temp), strings.Join(trips, ", "), len(z.Bindings))
	}
}
