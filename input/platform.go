package input

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/irq"
	"github.com/fwcheck/fwcheck/sysdev"
)

// The platform inputs of the interrupt, power, thermal and CPU frequency
// checks, read from procfs and sysfs.
var (
	// Interrupts is /proc/interrupts: each interrupt's chip, flow
	// (edge or level) and counts.
	Interrupts = Declare(Def[*irq.Table]{
		Name: "interrupts", Doc: "interrupt lines, their chips and trigger modes (/proc/interrupts)",
		Capture: []string{"proc/interrupts"},
		Load: func(src Source) (*irq.Table, error) {
			b, err := fs.ReadFile(src, "proc/interrupts")
			if err != nil {
				return nil, err
			}
			return irq.Parse(b)
		},
	})
)

// The sysfs classes, carried as sysdev dumps (their devices are links,
// which a snapshot of plain files cannot hold), recorded as
// fwcheck/thermal.txt and fwcheck/power-supply.txt. A machine without the
// class records an empty dump.
var (
	// Thermal is /sys/class/thermal: thermal zones, trip points, cooling
	// devices and their bindings.
	Thermal = Declare(Def[*sysdev.Thermal]{
		Name: "thermal", Doc: "thermal zones, trip points and cooling devices (/sys/class/thermal)",
		Capture: []string{RecordedDir + "/" + ThermalFile},
		Load: func(src Source) (*sysdev.Thermal, error) {
			d, err := loadDump(src, ThermalFile)
			if err != nil {
				return nil, err
			}
			return sysdev.ParseThermal(d), nil
		},
	})
	// PowerSupplies is /sys/class/power_supply (batteries, AC adapters)
	// and the lid switches the ACPI button driver shows.
	PowerSupplies = Declare(Def[*PowerSupplyState]{
		Name: "power-supply", Doc: "batteries, AC adapters (/sys/class/power_supply) and lid switches (/proc/acpi/button/lid)",
		Capture: []string{RecordedDir + "/" + PowerSupplyFile, lidDir},
		Load:    loadPowerState,
	})
)

// Recorded class dumps below RecordedDir.
const (
	ThermalFile     = "thermal.txt"
	PowerSupplyFile = "power-supply.txt"
)

const lidDir = "proc/acpi/button/lid"

// PowerSupplyState is the power supplies and lid switches.
type PowerSupplyState struct {
	Supplies []sysdev.PowerSupply
	// Lids maps a lid device (LID0) to its state line ("open"), or to
	// "unreadable: ERROR".
	Lids map[string]string
}

func loadDump(src Source, name string) (*sysdev.Dump, error) {
	b, err := fs.ReadFile(src, RecordedDir+"/"+name)
	if err != nil {
		return nil, err
	}
	return sysdev.Unmarshal(b)
}

func loadPowerState(src Source) (*PowerSupplyState, error) {
	d, err := loadDump(src, PowerSupplyFile)
	if err != nil {
		return nil, err
	}
	s := &PowerSupplyState{Supplies: sysdev.ParsePowerSupplies(d), Lids: map[string]string{}}
	ents, _ := fs.ReadDir(src, lidDir)
	for i, e := range ents {
		if i >= 16 {
			break
		}
		b, err := fs.ReadFile(src, lidDir+"/"+e.Name()+"/state")
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			s.Lids[e.Name()] = "unreadable: " + err.Error()
		default:
			// "state:      open"
			v := strings.TrimSpace(string(b))
			if _, after, ok := strings.Cut(v, ":"); ok {
				v = strings.TrimSpace(after)
			}
			if len(v) > 64 {
				v = v[:64]
			}
			s.Lids[e.Name()] = v
		}
	}
	return s, nil
}

func recordClass(dir string, want sysdev.Want) Recorder {
	return func(root string) ([]byte, error) {
		d, err := sysdev.ReadTree(os.DirFS(root), dir, want)
		if errors.Is(err, fs.ErrNotExist) {
			return []byte{}, nil
		}
		if err != nil {
			return nil, err
		}
		return d.Marshal(), nil
	}
}

// addPlatformRecorders adds the sysfs class dumps to a live source's recorders.
func addPlatformRecorders(add func(string, Recorder)) {
	add(ThermalFile, recordClass(sysdev.ThermalDir, sysdev.WantThermal))
	add(PowerSupplyFile, recordClass(sysdev.PowerSupplyDir, sysdev.WantPower))
	add(CPUSpeedFile, recordSpeed)
	add(CPUIdleFile, recordCPUIdle)
	add(PCIConfigFile, recordPCIConfig)
}

// CPUFreq is the cpufreq policies (sys/devices/system/cpu/cpufreq) and the
// boost switches.
var CPUFreq = Declare(Def[*CPUFreqState]{
	Name: "cpufreq", Doc: "CPU frequency scaling policies (/sys/devices/system/cpu/cpufreq)",
	Capture: []string{sysdev.CPUFreqDir, "sys/devices/system/cpu/intel_pstate/no_turbo", "sys/devices/system/cpu/online"},
	Load:    loadCPUFreq,
})

// CPUFreqState is the cpufreq policies and boost state.
type CPUFreqState struct {
	Policies []sysdev.Policy
	// Boost is cpufreq/boost ("1" on), NoTurbo intel_pstate/no_turbo;
	// "" when absent.
	Boost, NoTurbo string
	// Online is the online CPU list ("0-7").
	Online string
}

func loadCPUFreq(src Source) (*CPUFreqState, error) {
	s := &CPUFreqState{}
	d, err := sysdev.ReadTree(src, sysdev.CPUFreqDir, sysdev.WantCPUFreq)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if d != nil {
		s.Policies = sysdev.ParsePolicies(d)
	}
	read := func(p string) string {
		b, err := fs.ReadFile(src, p)
		if err != nil || len(b) > 256 {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	s.Boost = read(sysdev.CPUFreqDir + "/boost")
	s.NoTurbo = read("sys/devices/system/cpu/intel_pstate/no_turbo")
	s.Online = read("sys/devices/system/cpu/online")
	return s, nil
}

// CPUIdle is every CPU's cpuidle states (sys/devices/system/cpu/cpuN/
// cpuidle/stateM) sampled twice, IdleSpan apart while fwcheck sleeps, so
// that the usage and time counters show which states the CPUs entered.
// A snapshot records both samples as fwcheck/cpuidle.txt.
var CPUIdle = Declare(Def[*sysdev.CPUIdle]{
	Name: "cpuidle", Doc: "CPU idle states and their counters sampled twice (/sys/devices/system/cpu/cpu*/cpuidle)",
	Capture: []string{RecordedDir + "/" + CPUIdleFile},
	Load: func(src Source) (*sysdev.CPUIdle, error) {
		d, err := loadDump(src, CPUIdleFile)
		if err != nil {
			return nil, err
		}
		return sysdev.ParseCPUIdle(d), nil
	},
})

// CPUIdleFile is the recorded CPUIdle below RecordedDir.
const CPUIdleFile = "cpuidle.txt"

// IdleSpan is how long the live recorder idles between the two cpuidle
// samples.
const IdleSpan = 2 * time.Second

func recordCPUIdle(root string) ([]byte, error) {
	fsys := os.DirFS(root)
	d := sysdev.ReadCPUIdle(fsys)
	if len(sysdev.ParseCPUIdle(d).CPUs) > 0 {
		// Only a machine with idle states waits for the second sample.
		time.Sleep(IdleSpan)
		d.AddAfter(sysdev.ReadCPUIdle(fsys))
		d.Attrs["sample/seconds"] = strconv.FormatFloat(IdleSpan.Seconds(), 'f', -1, 64)
	}
	if b, err := os.ReadFile(filepath.Join(root, "proc/cmdline")); err == nil && len(b) <= sysdev.MaxValue {
		d.Attrs["sample/cmdline"] = strings.TrimSpace(string(b))
	}
	return d.Marshal(), nil
}

// PCIConfig is every PCI function's configuration space as sysfs exposes
// it (sys/bus/pci/devices/*/config: the whole space as root, the 64-byte
// header otherwise) with the bridge above it, and the kernel's ASPM policy
// (sys/module/pcie_aspm/parameters/policy). A snapshot records the spaces
// as fwcheck/pci-config.txt.
var PCIConfig = Declare(Def[*PCIState]{
	Name: "pci-config", Doc: "PCI configuration spaces and their bridges (/sys/bus/pci/devices/*/config)", Root: true,
	Capture: []string{RecordedDir + "/" + PCIConfigFile, aspmPolicy},
	Load: func(src Source) (*PCIState, error) {
		b, err := fs.ReadFile(src, RecordedDir+"/"+PCIConfigFile)
		if err != nil {
			return nil, err
		}
		devs, err := sysdev.ParsePCI(b)
		if err != nil {
			return nil, err
		}
		s := &PCIState{Devices: devs}
		if p, err := fs.ReadFile(src, aspmPolicy); err == nil && len(p) < 256 {
			s.ASPMPolicy = strings.TrimSpace(string(p))
		}
		return s, nil
	},
})

// PCIState is the PCI functions and the kernel's ASPM policy.
type PCIState struct {
	Devices []sysdev.PCIDevice
	// ASPMPolicy is pcie_aspm's policy line ("[default] performance
	// powersave powersupersave", the chosen one bracketed), "" when the
	// kernel has no ASPM support.
	ASPMPolicy string
}

// PCIConfigFile is the recorded PCIConfig below RecordedDir.
const PCIConfigFile = "pci-config.txt"

const aspmPolicy = "sys/module/pcie_aspm/parameters/policy"

func recordPCIConfig(root string) ([]byte, error) {
	dir := filepath.Join(root, pciDevices)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var devs []sysdev.PCIDevice
	for _, e := range ents {
		if !sysdev.IsPCIAddr(e.Name()) || len(devs) >= sysdev.MaxPCIDevices {
			continue
		}
		d := sysdev.PCIDevice{Addr: e.Name()}
		if t, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			d.Parent = sysdev.ParentOf(t)
		}
		f, err := os.Open(filepath.Join(dir, e.Name(), "config"))
		if err != nil {
			continue
		}
		d.Config, err = io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if err != nil || len(d.Config) == 0 {
			continue
		}
		devs = append(devs, d)
	}
	return sysdev.FormatPCI(devs), nil
}

// Find returns the function at addr ("0000:00:1f.0"), or nil.
func (s *PCIState) Find(addr string) *sysdev.PCIDevice {
	if s == nil {
		return nil
	}
	for i := range s.Devices {
		if s.Devices[i].Addr == addr {
			return &s.Devices[i]
		}
	}
	return nil
}
