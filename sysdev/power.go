package sysdev

// PowerSupplyDir is the power supply class below a machine's root.
const PowerSupplyDir = "sys/class/power_supply"

// powerAttrs are the power_supply attributes the checks read
// (Documentation/ABI/testing/sysfs-class-power): energies in µWh,
// charges in µAh, voltages in µV.
var powerAttrs = map[string]bool{
	"type": true, "scope": true, "present": true, "online": true, "status": true, "technology": true,
	"energy_full_design": true, "energy_full": true, "energy_now": true,
	"charge_full_design": true, "charge_full": true, "charge_now": true,
	"voltage_now": true, "voltage_min_design": true, "cycle_count": true, "capacity": true,
	"manufacturer": true, "model_name": true,
}

// WantPower selects the power_supply attributes the checks read.
func WantPower(_, name string) bool { return powerAttrs[name] }

// Value is an integer attribute: its value, whether it is there and
// readable, and its read error if it is there but not readable.
type Value struct {
	N   int64
	OK  bool
	Err string
}

func value(d *Dump, dev, name string) Value {
	n, ok := d.Int(dev, name)
	return Value{n, ok, d.Err(dev, name)}
}

// Present reports whether the attribute exists (readable or not).
func (v Value) Present() bool { return v.OK || v.Err != "" }

// PowerSupply is one power supply.
type PowerSupply struct {
	Name       string
	Type       string // Battery, Mains, USB, UPS, Wireless
	Scope      string // "System", "Device" (a peripheral's battery), or ""
	Status     string
	Technology string
	Model      string
	Present    Value
	Online     Value
	// Energy (µWh) or charge (µAh) values, by family.
	EnergyFullDesign, EnergyFull, EnergyNow Value
	ChargeFullDesign, ChargeFull, ChargeNow Value
	VoltageNow, VoltageMinDesign            Value
	CycleCount, Capacity                    Value
}

// ParsePowerSupplies types the power_supply class dump.
func ParsePowerSupplies(d *Dump) []PowerSupply {
	var out []PowerSupply
	for _, dev := range d.Devices() {
		s := PowerSupply{Name: dev}
		s.Type, _ = d.Get(dev, "type")
		s.Scope, _ = d.Get(dev, "scope")
		s.Status, _ = d.Get(dev, "status")
		s.Technology, _ = d.Get(dev, "technology")
		s.Model, _ = d.Get(dev, "model_name")
		s.Present = value(d, dev, "present")
		s.Online = value(d, dev, "online")
		s.EnergyFullDesign = value(d, dev, "energy_full_design")
		s.EnergyFull = value(d, dev, "energy_full")
		s.EnergyNow = value(d, dev, "energy_now")
		s.ChargeFullDesign = value(d, dev, "charge_full_design")
		s.ChargeFull = value(d, dev, "charge_full")
		s.ChargeNow = value(d, dev, "charge_now")
		s.VoltageNow = value(d, dev, "voltage_now")
		s.VoltageMinDesign = value(d, dev, "voltage_min_design")
		s.CycleCount = value(d, dev, "cycle_count")
		s.Capacity = value(d, dev, "capacity")
		out = append(out, s)
	}
	return out
}
