package thermal

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
	assert.Equal(t, "thermal_zone1 at 37.0 °C: critical 100.0 °C, passive 80.0 °C, active0 70.0 °C, active1 60.0 °C; 3 cooling bindings", r.Findings[0].Message)
}

func TestBroken(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "broken", nil))
	assert.Equal(t, []string{"ThermalTripImplausible", "ThermalTripWithoutCooling"}, checktest.FailLabels(r), render(r))
	assert.Contains(t, r.Findings[0].Message, "thermal_zone0 trip 0 (critical) at -273.2 °C (-273200) (0 K or less")
}

func machine(t *testing.T, attrs, errs map[string]string) *input.Machine {
	d := sysdev.NewDump()
	d.Attrs["thermal_zone0/type"] = "acpitz"
	for k, v := range attrs {
		d.Attrs["thermal_zone0/"+k] = v
	}
	for k, v := range errs {
		d.Errors["thermal_zone0/"+k] = v
	}
	return checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.ThermalFile: d.Marshal()})
}

func TestDefects(t *testing.T) {
	for _, c := range []struct {
		name  string
		attrs map[string]string
		errs  map[string]string
		want  []string
	}{
		{"temp unreadable", map[string]string{}, map[string]string{"temp": "input/output error"}, []string{"ThermalTempUnreadable"}},
		{"temp 0 K", map[string]string{"temp": "-273150"}, nil, []string{"ThermalTempImplausible"}},
		{"order", map[string]string{"temp": "40000", "trip_point_0_type": "critical", "trip_point_0_temp": "90000",
			"trip_point_1_type": "hot", "trip_point_1_temp": "95000"}, nil, []string{"ThermalZoneTripOrder"}},
		{"hot crossed", map[string]string{"temp": "96000", "trip_point_0_type": "critical", "trip_point_0_temp": "105000",
			"trip_point_1_type": "hot", "trip_point_1_temp": "95000"}, nil, []string{"ThermalTripBelowTemperature"}},
		{"trip unreadable", map[string]string{"temp": "40000", "trip_point_0_type": "critical"}, map[string]string{"trip_point_0_temp": "no such device"},
			[]string{"ThermalTripUnreadable"}},
		{"absurd", map[string]string{"temp": "40000", "trip_point_0_type": "critical", "trip_point_0_temp": "3732000"}, nil, []string{"ThermalTripImplausible"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, machine(t, c.attrs, c.errs))
			assert.Equal(t, c.want, checktest.FailLabels(r), render(r))
		})
	}
	// Passive crossed: a warning.
	r := checktest.Run(t, Check, machine(t, map[string]string{"temp": "60000", "trip_point_0_type": "passive", "trip_point_0_temp": "50000",
		"cdev0_trip_point": "0"}, nil))
	assert.Equal(t, tests.StatusWarning, r.Status, render(r))
}

func TestAbsent(t *testing.T) {
	// No thermal class (a QEMU guest): not applicable, with the VM named.
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
		"fwcheck/" + input.ThermalFile:  {},
		"sys/class/dmi/id/sys_vendor":   []byte("QEMU\n"),
		"sys/class/dmi/id/product_name": []byte("Standard PC (i440FX + PIIX, 1996)\n"),
	}))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
	assert.Contains(t, r.Reason, "virtual machine (DMI: QEMU")
	// Only a driver's zone: listed, not judged.
	d := sysdev.NewDump()
	d.Attrs["thermal_zone0/type"] = "x86_pkg_temp"
	d.Attrs["thermal_zone0/temp"] = "52000"
	r = checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.ThermalFile: d.Marshal()}))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
	assert.Contains(t, r.Findings[0].Message, "thermal_zone0 (x86_pkg_temp) at 52.0 °C")
}
