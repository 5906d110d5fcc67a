package sysdev

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// ThermalDir is the thermal class below a machine's root.
const ThermalDir = "sys/class/thermal"

// ZoneType is the type the ACPI thermal driver gives its zones.
const ZoneType = "acpitz"

// FanType is the type the ACPI fan driver gives its cooling devices.
const FanType = "Fan"

var (
	tripRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^trip_point_([0-9]+)_(temp|type|hyst)$`) })
	cdevRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cdev([0-9]+)(_trip_point|_weight)?$`) })
)

// WantThermal selects the thermal class attributes the checks read.
func WantThermal(dev, name string) bool {
	switch {
	case strings.HasPrefix(dev, "thermal_zone"):
		switch name {
		case "type", "temp", "mode", "policy", "passive":
			return true
		}
		return tripRE().MatchString(name) || cdevRE().MatchString(name)
	case strings.HasPrefix(dev, "cooling_device"):
		return name == "type" || name == "max_state" || name == "cur_state"
	}
	return false
}

// Trip is a thermal zone's trip point; temperatures in millidegrees
// Celsius, as sysfs gives them.
type Trip struct {
	Index   int
	Type    string // critical, hot, passive, active
	Temp    int64
	TempOK  bool
	TempErr string
	Hyst    int64
}

// Binding is a cooling device bound to a zone (cdevN).
type Binding struct {
	Name   string // "cdev0"
	Device string // "cooling_device3"
	Trip   int    // the trip point it serves, -1 if not stated
}

// Zone is a thermal zone.
type Zone struct {
	Name    string // "thermal_zone0"
	Type    string
	Temp    int64
	TempOK  bool
	TempErr string
	Mode    string
	Policy  string
	// Passive is the "passive" attribute (m°C), 0 when absent.
	Passive  int64
	Trips    []Trip
	Bindings []Binding
}

// CoolingDevice is a cooling device.
type CoolingDevice struct {
	Name               string
	Type               string
	MaxState, CurState int64
	MaxOK, CurOK       bool
	MaxErr             string
}

// Thermal is the thermal class.
type Thermal struct {
	Zones   []Zone
	Cooling []CoolingDevice
}

// Cooler returns the cooling device named name, or nil.
func (t *Thermal) Cooler(name string) *CoolingDevice {
	for i := range t.Cooling {
		if t.Cooling[i].Name == name {
			return &t.Cooling[i]
		}
	}
	return nil
}

// BoundTo returns the zones and trip points a cooling device serves.
func (t *Thermal) BoundTo(dev string) []string {
	var out []string
	for _, z := range t.Zones {
		for _, b := range z.Bindings {
			if b.Device == dev {
				out = append(out, z.Name)
				break
			}
		}
	}
	return out
}

// ParseThermal types the thermal class dump.
func ParseThermal(d *Dump) *Thermal {
	t := &Thermal{}
	// Each zone's entries, gathered once: a hostile dump may hold many.
	keys := map[string][]string{}
	for _, m := range []map[string]string{d.Attrs, d.Errors, d.Links} {
		for k := range m {
			dev, name, _ := strings.Cut(k, "/")
			keys[dev] = append(keys[dev], name)
		}
	}
	for _, dev := range d.Devices() {
		switch {
		case strings.HasPrefix(dev, "thermal_zone"):
			t.Zones = append(t.Zones, parseZone(d, dev, keys[dev]))
		case strings.HasPrefix(dev, "cooling_device"):
			c := CoolingDevice{Name: dev}
			c.Type, _ = d.Get(dev, "type")
			c.MaxState, c.MaxOK = d.Int(dev, "max_state")
			c.MaxErr = d.Err(dev, "max_state")
			c.CurState, c.CurOK = d.Int(dev, "cur_state")
			t.Cooling = append(t.Cooling, c)
		}
	}
	sort.Slice(t.Zones, func(i, j int) bool { return natLess(t.Zones[i].Name, t.Zones[j].Name) })
	sort.Slice(t.Cooling, func(i, j int) bool { return natLess(t.Cooling[i].Name, t.Cooling[j].Name) })
	return t
}

func parseZone(d *Dump, dev string, names []string) Zone {
	z := Zone{Name: dev}
	z.Type, _ = d.Get(dev, "type")
	z.Temp, z.TempOK = d.Int(dev, "temp")
	z.TempErr = d.Err(dev, "temp")
	z.Mode, _ = d.Get(dev, "mode")
	z.Policy, _ = d.Get(dev, "policy")
	z.Passive, _ = d.Int(dev, "passive")
	trips := map[int]*Trip{}
	cdevs := map[int]*Binding{}
	for _, name := range names {
		k := dev + "/" + name
		if s := tripRE().FindStringSubmatch(name); s != nil {
			i, _ := strconv.Atoi(s[1])
			if trips[i] == nil {
				if len(trips) >= MaxAttrs {
					continue
				}
				trips[i] = &Trip{Index: i}
			}
			tp := trips[i]
			switch s[2] {
			case "temp":
				tp.Temp, tp.TempOK = d.Int(dev, name)
				tp.TempErr = d.Err(dev, name)
			case "type":
				tp.Type, _ = d.Get(dev, name)
			case "hyst":
				tp.Hyst, _ = d.Int(dev, name)
			}
		} else if s := cdevRE().FindStringSubmatch(name); s != nil {
			i, _ := strconv.Atoi(s[1])
			if cdevs[i] == nil {
				if len(cdevs) >= MaxAttrs {
					continue
				}
				cdevs[i] = &Binding{Name: "cdev" + s[1], Trip: -1}
			}
			switch s[2] {
			case "":
				cdevs[i].Device = d.Links[k]
			case "_trip_point":
				if v, ok := d.Int(dev, name); ok {
					cdevs[i].Trip = int(v)
				}
			}
		}
	}
	for _, tp := range trips {
		z.Trips = append(z.Trips, *tp)
	}
	sort.Slice(z.Trips, func(i, j int) bool { return z.Trips[i].Index < z.Trips[j].Index })
	for _, b := range cdevs {
		z.Bindings = append(z.Bindings, *b)
	}
	sort.Slice(z.Bindings, func(i, j int) bool { return natLess(z.Bindings[i].Name, z.Bindings[j].Name) })
	return z
}

// natLess orders "x2" before "x10".
func natLess(a, b string) bool {
	ta, na := splitNum(a)
	tb, nb := splitNum(b)
	if ta != tb {
		return ta < tb
	}
	return na < nb
}

func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}
