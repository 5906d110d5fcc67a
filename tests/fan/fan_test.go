package fan

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
	assert.Equal(t, []string{"cooling_device3: states 0-2, at 0; bound to thermal_zone1", "cooling_device4: states 0-2, at 0; bound to thermal_zone1"},
		[]string{r.Findings[0].Message, r.Findings[1].Message})
}

func TestBroken(t *testing.T) {
	r := checktest.Run(t, Check, platformtest.Fixture(t, "broken", nil))
	assert.Equal(t, []string{"FanMaxStateZero"}, checktest.FailLabels(r), render(r))
	assert.NotNil(t, checktest.FindingWith(r, "FanNotBound"), render(r))
}

func TestStates(t *testing.T) {
	d := sysdev.NewDump()
	d.Attrs["cooling_device0/type"] = "Fan"
	d.Attrs["cooling_device0/max_state"] = "1"
	d.Attrs["cooling_device0/cur_state"] = "3"
	d.Attrs["thermal_zone0/type"] = "acpitz"
	d.Attrs["thermal_zone0/cdev0_trip_point"] = "0"
	d.Links["thermal_zone0/cdev0"] = "cooling_device0"
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.ThermalFile: d.Marshal()}))
	assert.Equal(t, []string{"FanStateOutOfRange"}, checktest.FailLabels(r), render(r))

	// The cdev links missing (an older snapshot): not checked, not warned.
	delete(d.Links, "thermal_zone0/cdev0")
	d.Attrs["cooling_device0/cur_state"] = "1"
	r = checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"fwcheck/" + input.ThermalFile: d.Marshal()}))
	assert.Equal(t, tests.StatusIncomplete, r.Status, render(r))
}

func TestAbsent(t *testing.T) {
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
		"fwcheck/" + input.ThermalFile: {},
		"proc/cpuinfo":                 []byte("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu hypervisor\n\n"),
	}))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
	assert.Contains(t, r.Reason, "virtual machine (CPUID hypervisor bit)")
}
