package input

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/klog"
)

// Name names an input a check may declare.
type Name string

// The inputs checks can declare.
const (
	ACPITables Name = "acpi-tables"
	KernelLog  Name = "kernel-log"
	DMI        Name = "dmi"
	MemoryMap  Name = "memory-map"
	Kernel     Name = "kernel"
)

// Input describes one kind of machine state: where it lives, whether the
// live machine needs root to read it, and what a snapshot captures of it.
type Input struct {
	Name Name
	Doc  string
	// Root is true when reading it live needs root.
	Root bool
	// Capture lists the files and directory trees (machine paths) a
	// snapshot copies for this input; recorded values are under RecordedDir.
	Capture []string
	load    func(m *Machine) (any, error)
}

// Inputs is every input fwcheck knows, by name.
var Inputs = map[Name]*Input{
	ACPITables: {
		Name: ACPITables, Doc: "ACPI tables (sysfs, plus RSDP/XSDT/RSDT recorded from /dev/mem)", Root: true,
		Capture: []string{acpi.SysfsDir, RecordedDir + "/acpi/RSDP", RecordedDir + "/acpi/XSDT", RecordedDir + "/acpi/RSDT"},
		load:    loadACPI,
	},
	KernelLog: {
		Name: KernelLog, Doc: "the kernel log (/dev/kmsg)", Root: false,
		Capture: []string{RecordedDir + "/" + KlogFile},
		load:    loadKlog,
	},
	DMI: {
		Name: DMI, Doc: "DMI identity (/sys/class/dmi/id)",
		Capture: dmiPaths(),
		load:    loadDMI,
	},
	Kernel: {
		Name: Kernel, Doc: "the running kernel's version (/proc/version)",
		Capture: []string{"proc/version"},
		load:    loadKernel,
	},
	MemoryMap: {
		Name: MemoryMap, Doc: "the firmware memory map (/sys/firmware/memmap, /proc/iomem)", Root: true,
		Capture: []string{"sys/firmware/memmap", "proc/iomem"},
		load:    loadMemoryMap,
	},
}

// KlogFile is the recorded kernel log's name below RecordedDir.
const KlogFile = "klog.txt"

// Options are inputs given as files rather than taken from the source.
type Options struct {
	// ACPIDump is an acpidump text file, or a directory of raw tables.
	ACPIDump string
	// KernelLog is a dmesg/journalctl text file, "-" for standard input.
	KernelLog string
	// Stdin supplies "-" for KernelLog.
	Stdin []byte
}

// Machine is the machine under test as checks see it: a Source plus inputs
// given as files, each input loaded at most once.
type Machine struct {
	Src  Source
	opts Options

	mu    sync.Mutex
	cache map[Name]loaded
}

type loaded struct {
	v   any
	err error
}

// New returns a Machine reading src, with the inputs in opts taking
// precedence over it.
func New(src Source, opts Options) *Machine {
	return &Machine{Src: src, opts: opts, cache: map[Name]loaded{}}
}

// Unavailable is the error for an input that cannot be had; its message is
// the reason the checks needing it skip.
type Unavailable struct {
	Input  Name
	Reason string
}

func (u *Unavailable) Error() string { return fmt.Sprintf("%s unavailable: %s", u.Input, u.Reason) }

// FromFile reports whether input n comes from a file named on the command
// line rather than from the source.
func (m *Machine) FromFile(n Name) bool {
	switch n {
	case ACPITables:
		return m.opts.ACPIDump != ""
	case KernelLog:
		return m.opts.KernelLog != ""
	}
	return false
}

// NeedsRoot reports whether reading n here needs privileges this process
// lacks.
func (m *Machine) NeedsRoot(n Name) bool {
	in := Inputs[n]
	return in != nil && in.Root && !m.FromFile(n) && !m.Src.Privileged()
}

// Load loads input n (once) and returns its value, or an error saying why
// it is unavailable.
func (m *Machine) Load(n Name) (any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.cache[n]; ok {
		return l.v, l.err
	}
	in, ok := Inputs[n]
	if !ok {
		return nil, &Unavailable{n, "no such input"}
	}
	var l loaded
	if m.NeedsRoot(n) {
		l.err = &Unavailable{n, "needs root"}
	} else {
		l.v, l.err = in.load(m)
		if l.err != nil {
			var u *Unavailable
			if !errors.As(l.err, &u) {
				l.err = &Unavailable{n, l.err.Error()}
			}
		}
	}
	m.cache[n] = l
	return l.v, l.err
}

// ACPI returns the ACPI tables, or nil if unavailable.
func (m *Machine) ACPI() *acpi.Tables {
	v, _ := m.Load(ACPITables)
	t, _ := v.(*acpi.Tables)
	return t
}

// KernelLog returns the kernel log records, or nil if unavailable.
func (m *Machine) KernelLog() []klog.Record {
	v, _ := m.Load(KernelLog)
	r, _ := v.([]klog.Record)
	return r
}

// DMIInfo is the machine's identity from DMI (SMBIOS).
type DMIInfo struct {
	SysVendor   string `json:"sys_vendor,omitempty"`
	ProductName string `json:"product_name,omitempty"`
	BoardVendor string `json:"board_vendor,omitempty"`
	BoardName   string `json:"board_name,omitempty"`
	BIOSVendor  string `json:"bios_vendor,omitempty"`
	BIOSVersion string `json:"bios_version,omitempty"`
	BIOSDate    string `json:"bios_date,omitempty"`
}

var dmiFields = []string{"sys_vendor", "product_name", "board_vendor", "board_name", "bios_vendor", "bios_version", "bios_date"}

const dmiDir = "sys/class/dmi/id"

func dmiPaths() []string {
	var p []string
	for _, f := range dmiFields {
		p = append(p, path.Join(dmiDir, f))
	}
	return p
}

// DMI returns the DMI identity, or nil if unavailable.
func (m *Machine) DMI() *DMIInfo {
	v, _ := m.Load(DMI)
	d, _ := v.(*DMIInfo)
	return d
}

// MemoryRange is one entry of the firmware memory map.
type MemoryRange struct {
	Start, End uint64 // inclusive
	Type       string // "System RAM", "Reserved", "ACPI Tables", …
}

// MemoryMap returns the firmware memory map (from /sys/firmware/memmap, the
// map the firmware handed the kernel), or nil if unavailable.
func (m *Machine) MemoryMap() []MemoryRange {
	v, _ := m.Load(MemoryMap)
	r, _ := v.([]MemoryRange)
	return r
}

// Kernel returns the running kernel's version string (/proc/version);
// empty when unknown.
func (m *Machine) Kernel() string {
	v, _ := m.Load(Kernel)
	k, _ := v.(string)
	return k
}

func loadKernel(m *Machine) (any, error) {
	b, err := fs.ReadFile(m.Src, "proc/version")
	if err != nil {
		return nil, err
	}
	return strings.TrimSpace(string(b)), nil
}

func loadACPI(m *Machine) (any, error) {
	if p := m.opts.ACPIDump; p != "" {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return acpi.LoadFS(os.DirFS(p), ".")
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return acpi.ParseDump(f)
	}
	ts, err := acpi.LoadFS(m.Src, acpi.SysfsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Unavailable{ACPITables, "no /" + acpi.SysfsDir + " on " + m.Src.String()}
		}
		return nil, err
	}
	// The root tables, recorded in a snapshot or read live through /dev/mem;
	// where they cannot be had, the checks that need them say so.
	roots := &acpi.Tables{Source: RecordedDir + "/" + acpiRootsDir}
	for _, file := range []string{"RSDP", "XSDT", "RSDT"} {
		b, err := fs.ReadFile(m.Src, path.Join(RecordedDir, acpiRootsDir, file))
		if errors.Is(err, errNoRootTable) {
			continue
		}
		if err != nil {
			ts.Warnings = append(ts.Warnings, fmt.Sprintf("%s not available: %v", file, err))
			continue
		}
		roots.Add(&acpi.Table{Signature: rootFiles[file], Raw: b, Origin: "recorded " + file})
	}
	ts.MergeRoots(roots)
	return ts, nil
}

func loadKlog(m *Machine) (any, error) {
	var b []byte
	var err error
	switch p := m.opts.KernelLog; p {
	case "":
		b, err = fs.ReadFile(m.Src, RecordedDir+"/"+KlogFile)
	case "-":
		b = m.opts.Stdin
	default:
		b, err = os.ReadFile(p)
	}
	if err != nil {
		return nil, err
	}
	return klog.Parse(bytes.NewReader(b))
}

func loadDMI(m *Machine) (any, error) {
	d := &DMIInfo{}
	vals := map[string]*string{
		"sys_vendor": &d.SysVendor, "product_name": &d.ProductName, "board_vendor": &d.BoardVendor,
		"board_name": &d.BoardName, "bios_vendor": &d.BIOSVendor, "bios_version": &d.BIOSVersion, "bios_date": &d.BIOSDate,
	}
	found := false
	for _, f := range dmiFields {
		b, err := fs.ReadFile(m.Src, path.Join(dmiDir, f))
		if err == nil {
			*vals[f] = strings.TrimSpace(string(b))
			found = true
		}
	}
	if !found {
		return nil, &Unavailable{DMI, "no /" + dmiDir}
	}
	return d, nil
}

func loadMemoryMap(m *Machine) (any, error) {
	ents, err := fs.ReadDir(m.Src, "sys/firmware/memmap")
	if err != nil {
		return nil, err
	}
	var out []MemoryRange
	for _, e := range ents {
		dir := path.Join("sys/firmware/memmap", e.Name())
		var r MemoryRange
		s, err1 := fs.ReadFile(m.Src, dir+"/start")
		en, err2 := fs.ReadFile(m.Src, dir+"/end")
		t, err3 := fs.ReadFile(m.Src, dir+"/type")
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, err
		}
		if _, err := fmt.Sscanf(strings.TrimSpace(string(s)), "0x%x", &r.Start); err != nil {
			return nil, fmt.Errorf("memmap %s start: %w", e.Name(), err)
		}
		if _, err := fmt.Sscanf(strings.TrimSpace(string(en)), "0x%x", &r.End); err != nil {
			return nil, fmt.Errorf("memmap %s end: %w", e.Name(), err)
		}
		r.Type = strings.TrimSpace(string(t))
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out, nil
}
