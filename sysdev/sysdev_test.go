package sysdev

import (
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtures = "../tests/internal/platform/platformtest/testdata"

func TestReadTreeLaptop(t *testing.T) {
	d, err := ReadTree(os.DirFS(fixtures+"/laptop"), ThermalDir, WantThermal)
	require.NoError(t, err)
	th := ParseThermal(d)
	require.Len(t, th.Zones, 1)
	z := th.Zones[0]
	assert.Equal(t, "acpitz", z.Type)
	assert.Equal(t, int64(37000), z.Temp)
	assert.Len(t, z.Trips, 4)
	assert.Equal(t, Trip{Index: 2, Type: "active0", Temp: 70000, TempOK: true}, z.Trips[2])
	assert.Equal(t, []Binding{{"cdev0", "cooling_device0", 1}, {"cdev1", "cooling_device3", 2}, {"cdev2", "cooling_device4", 3}}, z.Bindings)
	require.Len(t, th.Cooling, 3)
	assert.Equal(t, CoolingDevice{Name: "cooling_device3", Type: "Fan", MaxState: 2, MaxOK: true, CurOK: true}, th.Cooling[1])
	assert.Equal(t, []string{"thermal_zone1"}, th.BoundTo("cooling_device4"))

	// Carried through a snapshot unchanged.
	back, err := Unmarshal(d.Marshal())
	require.NoError(t, err)
	assert.Equal(t, d, back)

	p, err := ReadTree(os.DirFS(fixtures+"/laptop"), PowerSupplyDir, WantPower)
	require.NoError(t, err)
	ps := ParsePowerSupplies(p)
	require.Len(t, ps, 2)
	assert.Equal(t, "Mains", ps[0].Type)
	assert.Equal(t, Value{N: 57000000, OK: true}, ps[1].EnergyFullDesign)
	assert.False(t, ps[1].ChargeNow.Present())
}

func TestReadErrors(t *testing.T) {
	// An attribute that cannot be read keeps its error; a value over the
	// bound is an error too.
	fsys := fstest.MapFS{
		"c/BAT0/type":   {Data: []byte("Battery\n")},
		"c/BAT0/status": {Data: make([]byte, MaxValue+1)},
	}
	d, err := ReadTree(fsys, "c", WantPower)
	require.NoError(t, err)
	assert.Equal(t, "Battery", d.Attrs["BAT0/type"])
	assert.Contains(t, d.Errors["BAT0/status"], "longer than")
	_, err = ReadTree(fsys, "nope", WantPower)
	assert.Error(t, err)
}

func TestUnmarshalBad(t *testing.T) {
	for _, b := range []string{"x \"a/b\" \"c\"\n", "a \"ab\" \"c\"\n", "a \"a/b\"\n", "a a/b c\n", "a \"a/b/c\" \"v\"\n"} {
		_, err := Unmarshal([]byte(b))
		assert.Error(t, err, b)
	}
}

func FuzzUnmarshal(f *testing.F) {
	d, _ := ReadTree(os.DirFS(fixtures+"/laptop"), ThermalDir, WantThermal)
	f.Add(d.Marshal())
	f.Add([]byte("e \"BAT0/energy_now\" \"no such device\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Unmarshal(b)
		if err != nil {
			return
		}
		ParseThermal(d)
		ParsePowerSupplies(d)
		again, err := Unmarshal(d.Marshal())
		require.NoError(t, err)
		assert.Equal(t, d, again)
	})
}
