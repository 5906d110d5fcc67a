package powersupply

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/platform/platformtest"
)

func render(r tests.Result) string { return tests.Render([]tests.Result{r}) }

func TestLaptop(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "laptop", nil))
	assert.Equal(t, tests.StatusPassed, r.Status, render(r))
	var msgs []string
	for _, f := range r.Findings {
		msgs = append(msgs, f.Message)
	}
	assert.Equal(t, []string{
		"BAT0 (Li-ion, Charging): design 57.00 Wh, last full 51.30 Wh, remaining 38.48 Wh, 12.48 V, 143 cycles",
		"AC adapters readable (online: AC; offline: none) and consistent with the batteries' status",
		"lid LID: open",
	}, msgs)
}

func TestBroken(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "broken", nil))
	assert.Equal(t, []string{"BatteryCapacityZero", "PowerSourceStateInconsistent", "LidStateUnreadable"}, checktest.FailLabels(r), render(r))
	assert.Contains(t, r.Findings[0].Message, "BAT1: charge_full_design 0")
}

func battery(attrs map[string]string, errs map[string]string) []byte {
	d := sysdev.NewDump()
	base := map[string]string{"type": "Battery", "present": "1", "status": "Discharging", "technology": "Li-ion",
		"energy_full_design": "57000000", "energy_full": "51300000", "energy_now": "38475000", "voltage_now": "11900000", "cycle_count": "143"}
	for k, v := range attrs {
		base[k] = v
	}
	for k, v := range base {
		if v != "" {
			d.Attrs["BAT0/"+k] = v
		}
	}
	for k, v := range errs {
		d.Errors["BAT0/"+k] = v
	}
	return d.Marshal()
}

func TestBatteryDefects(t *testing.T) {
	for _, c := range []struct {
		name  string
		attrs map[string]string
		errs  map[string]string
		want  []string
	}{
		{"unreadable", nil, map[string]string{"energy_now": "no such device"}, []string{"BatteryAttributeUnreadable"}},
		{"technology", map[string]string{"technology": "Unknown"}, nil, []string{"BatteryTechnologyUnknown"}},
		{"mixed units", map[string]string{"charge_now": "2000000"}, nil, []string{"BatteryUnitsMixed"}},
		{"full above design", map[string]string{"energy_full": "64000000"}, nil, []string{"BatteryFullAboveDesign"}},
		{"now above full", map[string]string{"energy_now": "52000000"}, nil, []string{"BatteryRemainingAboveFull"}},
		{"voltage 0", map[string]string{"voltage_now": "0"}, nil, []string{"BatteryVoltageImplausible"}},
		{"voltage in mV", map[string]string{"voltage_min_design": "11400"}, nil, []string{"BatteryVoltageImplausible"}},
		{"cycles", map[string]string{"cycle_count": "65535000"}, nil, []string{"BatteryCycleCountImplausible"}},
		{"full 0", map[string]string{"energy_full": "0"}, nil, []string{"BatteryCapacityZero"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.PowerSupplyFile: battery(c.attrs, c.errs)}))
			assert.Equal(t, c.want, checktest.FailLabels(r), render(r))
		})
	}
	// An empty bay is said, not judged.
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.PowerSupplyFile: battery(map[string]string{"present": "0", "energy_full_design": "0"}, nil)}))
	assert.Empty(t, checktest.FailLabels(r), render(r))
	// A mouse's battery is not the firmware's.
	r = checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.PowerSupplyFile: battery(map[string]string{"scope": "Device", "energy_full_design": "0"}, nil)}))
	assert.Equal(t, tests.StatusNotApplicable, r.Status, render(r))
}

func TestAC(t *testing.T) {
	d := sysdev.NewDump()
	d.Attrs["AC/type"] = "Mains"
	d.Errors["AC/online"] = "input/output error"
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.PowerSupplyFile: d.Marshal()}))
	assert.Equal(t, []string{"ACAdapterStateUnreadable"}, checktest.FailLabels(r), render(r))
	// Online while the battery discharges.
	b, _ := sysdev.Unmarshal(battery(nil, nil))
	b.Attrs["AC/type"] = "Mains"
	b.Attrs["AC/online"] = "1"
	r = checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.PowerSupplyFile: b.Marshal()}))
	assert.Equal(t, []string{"PowerSourceStateInconsistent"}, checktest.FailLabels(r), render(r))
}

func TestAbsent(t *testing.T) {
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.PowerSupplyFile: {}}))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
	assert.Contains(t, r.Reason, "the firmware describes none")
}
