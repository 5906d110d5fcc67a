package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/cpu/msr"
	"github.com/fwcheck/fwcheck/cpu/mtrr"
	"github.com/fwcheck/fwcheck/memmap"
)

// The CPU and memory inputs: model-specific registers of every CPU,
// /proc/cpuinfo (what the kernel read from CPUID), /proc/mtrr, /proc/iomem,
// the PCI memory BARs and the raw SMBIOS tables.
var (
	// MSRs are the MTRRs and the architectural registers firmware
	// programs, read on every CPU through /dev/cpu/N/msr (the msr module is
	// loaded when the device files are missing). A snapshot records the
	// values read as fwcheck/msr.txt.
	MSRs = Declare(Def[*msr.Dump]{
		Name: "msrs", Doc: "MTRRs and firmware-programmed MSRs of every CPU (/dev/cpu/N/msr)", Root: true,
		Capture: []string{RecordedDir + "/" + MSRFile},
		Load:    loadMSRs,
	})
	// CPUInfo is /proc/cpuinfo: vendor, model, microcode, flags, address
	// widths per logical CPU.
	CPUInfo = Declare(Def[[]cpuinfo.CPU]{
		Name: "cpuinfo", Doc: "per-CPU identification, microcode and CPUID flags (/proc/cpuinfo)",
		Capture: []string{"proc/cpuinfo"},
		Load: func(src Source) ([]cpuinfo.CPU, error) {
			b, err := fs.ReadFile(src, "proc/cpuinfo")
			if err != nil {
				return nil, err
			}
			return cpuinfo.Parse(b)
		},
	})
	// CPUID is raw CPUID of every CPU through /dev/cpu/N/cpuid (the cpuid
	// module is loaded when the device files are missing), recorded as
	// fwcheck/cpuid.txt: what the CPU reports before the kernel clears
	// flags (vmx, svm) that firmware disabled.
	CPUID = Declare(Def[cpuinfo.CPUID]{
		Name: "cpuid", Doc: "raw CPUID leaves of every CPU (/dev/cpu/N/cpuid)", Root: true,
		Capture: []string{RecordedDir + "/" + CPUIDFile},
		Load: func(src Source) (cpuinfo.CPUID, error) {
			b, err := fs.ReadFile(src, RecordedDir+"/"+CPUIDFile)
			if err != nil {
				return nil, err
			}
			c, err := cpuinfo.ParseCPUID(b)
			if err == nil && len(c) == 0 {
				return nil, &Unavailable{"cpuid", "no CPUID leaf could be read"}
			}
			return c, err
		},
	})
	// ProcMTRR is the kernel's view of the variable MTRRs (/proc/mtrr),
	// for when the registers cannot be read.
	ProcMTRR = Declare(Def[*mtrr.State]{
		Name: "proc-mtrr", Doc: "the variable MTRRs as the kernel shows them (/proc/mtrr)", Root: true,
		Capture: []string{"proc/mtrr"},
		Load: func(src Source) (*mtrr.State, error) {
			b, err := fs.ReadFile(src, "proc/mtrr")
			if err != nil {
				return nil, err
			}
			return mtrr.ParseProc(b)
		},
	})
	// IOMem is /proc/iomem, the kernel's physical resource tree.
	IOMem = Declare(Def[[]memmap.Resource]{
		Name: "iomem", Doc: "the physical address resource tree (/proc/iomem)", Root: true,
		Capture: []string{"proc/iomem"},
		Load: func(src Source) ([]memmap.Resource, error) {
			b, err := fs.ReadFile(src, "proc/iomem")
			if err != nil {
				return nil, err
			}
			return memmap.ParseIOMem(b)
		},
	})
	// PCIBARs are the memory BARs of every PCI device, with their
	// prefetchable bit (sysfs resource files, recorded as
	// fwcheck/pci-bars.txt).
	PCIBARs = Declare(Def[[]memmap.BAR]{
		Name: "pci-bars", Doc: "PCI memory BARs and their prefetchable bit (/sys/bus/pci/devices/*/resource)",
		Capture: []string{RecordedDir + "/" + PCIBARFile},
		Load:    loadPCIBARs,
	})
	// CPUVulns are the kernel's CPU vulnerability verdicts, by name
	// ("mds": "Vulnerable: Clear CPU buffers attempted, no microcode").
	CPUVulns = Declare(Def[map[string]string]{
		Name: "cpu-vulnerabilities", Doc: "the kernel's CPU vulnerability and mitigation status (/sys/devices/system/cpu/vulnerabilities)",
		Capture: []string{vulnDir},
		Load:    loadVulns,
	})
	// BDA is the BIOS data area (256 bytes at physical 0x400, read through
	// /dev/mem), where legacy firmware records the EBDA's segment.
	BDA = Declare(Def[[]byte]{
		Name: "bda", Doc: "the BIOS data area at 0x400 (/dev/mem)", Root: true,
		Capture: []string{RecordedDir + "/" + BDAFile},
		Load: func(src Source) ([]byte, error) {
			b, err := fs.ReadFile(src, RecordedDir+"/"+BDAFile)
			if err == nil && len(b) != 256 {
				return nil, fmt.Errorf("recorded BDA is %d bytes, not 256", len(b))
			}
			return b, err
		},
	})
	// SMBIOS is the raw SMBIOS entry point and structure table.
	SMBIOS = Declare(Def[*SMBIOSTables]{
		Name: "smbios", Doc: "the raw SMBIOS entry point and table (/sys/firmware/dmi/tables)", Root: true,
		Capture: []string{smbiosDir + "/smbios_entry_point", smbiosDir + "/DMI"},
		Load:    loadSMBIOS,
	})
)

// Recorded file names below RecordedDir.
const (
	MSRFile    = "msr.txt"
	PCIBARFile = "pci-bars.txt"
	BDAFile    = "bda.bin"
	CPUIDFile  = "cpuid.txt"
)

const (
	smbiosDir = "sys/firmware/dmi/tables"
	vulnDir   = "sys/devices/system/cpu/vulnerabilities"
)

func loadVulns(src Source) (map[string]string, error) {
	ents, err := fs.ReadDir(src, vulnDir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range ents {
		if len(out) >= 256 {
			break
		}
		b, err := fs.ReadFile(src, path.Join(vulnDir, e.Name()))
		if err == nil && len(b) < 4096 {
			out[e.Name()] = strings.TrimSpace(string(b))
		}
	}
	return out, nil
}

// SMBIOSTables are the raw SMBIOS data as the kernel exports it.
type SMBIOSTables struct {
	EntryPoint, Table []byte
}

func loadSMBIOS(src Source) (*SMBIOSTables, error) {
	ep, err := fs.ReadFile(src, smbiosDir+"/smbios_entry_point")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Unavailable{"smbios", "no /" + smbiosDir + " (no SMBIOS, or a kernel without CONFIG_DMI_SYSFS)"}
	}
	if err != nil {
		return nil, err
	}
	tb, err := fs.ReadFile(src, smbiosDir+"/DMI")
	if err != nil {
		return nil, err
	}
	return &SMBIOSTables{EntryPoint: ep, Table: tb}, nil
}

func loadMSRs(src Source) (*msr.Dump, error) {
	b, err := fs.ReadFile(src, RecordedDir+"/"+MSRFile)
	if err != nil {
		return nil, err
	}
	d, err := msr.Parse(b)
	if err != nil {
		return nil, err
	}
	if len(d.Values) == 0 {
		return nil, &Unavailable{"msrs", "no MSR could be read"}
	}
	return d, nil
}

// msrRegs are read on every CPU; the variable MTRR pairs follow, as many as
// IA32_MTRRCAP.VCNT says. Registers a CPU lacks (the AMD ones on Intel)
// are recorded as errors.
var msrRegs = append(append([]uint32{mtrr.MSRCap, mtrr.MSRDefType}, mtrr.FixedMSRs...),
	msr.PAT, msr.FeatureControl, msr.MiscEnable, mtrr.MSRSysCfg, mtrr.MSRTOM, mtrr.MSRTOM2, msr.VMCR,
	msr.SMRRPhysBase, msr.SMRRPhysMask, msr.HWCR, msr.SMMAddr, msr.SMMMask, msr.DebugInterface,
	msr.BootGuardSACMInfo)

var cpuDir = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+$`) })

// recordMSRs reads the registers of every CPU under root.
func recordMSRs(root string) ([]byte, error) {
	d := msr.NewDump()
	more := func(cpu int, d *msr.Dump) []uint32 {
		c, ok := d.Get(cpu, mtrr.MSRCap)
		if !ok {
			return nil
		}
		var out []uint32
		for i := uint32(0); i < uint32(c&0xFF); i++ {
			out = append(out, mtrr.MSRPhysBase0+2*i, mtrr.MSRPhysBase0+2*i+1)
		}
		return out
	}
	err := eachCPU(root, "msr", func(cpu int, dev string) error {
		if err := msr.ReadCPU(d, cpu, dev, msrRegs, more); err != nil {
			d.SetError(cpu, mtrr.MSRCap, err.Error()) // the CPU is known, its registers unread
			return err
		}
		return nil
	}, func() bool { return len(d.Values) > 0 })
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = d.Format(&b)
	return b.Bytes(), err
}

// recordCPUID reads cpuinfo.Leaves on every CPU under root. A leaf past
// the CPU's maximum reads as whatever the CPU returns for it; a read error
// ends that CPU's leaves.
func recordCPUID(root string) ([]byte, error) {
	c := cpuinfo.CPUID{}
	err := eachCPU(root, "cpuid", func(cpu int, dev string) error {
		r, err := cpuinfo.ReadCPUIDDevice(dev, cpuinfo.Leaves)
		if len(r) > 0 {
			c[cpu] = r
		}
		return err
	}, func() bool { return len(c) > 0 })
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = c.Format(&b)
	return b.Bytes(), err
}

// eachCPU is the one per-CPU reading loop: it calls read with every CPU
// number under root's /dev/cpu, in order, and that CPU's device file
// (/dev/cpu/N/<dev>), loading the kernel module named dev first when CPU
// 0's device is missing on the real root. A read error is kept and the
// loop goes on to the next CPU. When got reports that nothing at all was
// read, the error returned names every distinct reason (or the missing
// device) and the module load's failure.
func eachCPU(root, dev string, read func(cpu int, dev string) error, got func() bool) error {
	dir := filepath.Join(root, "dev/cpu")
	modErr := ""
	if filepath.Clean(root) == "/" {
		if _, err := os.Stat(filepath.Join(dir, "0", dev)); errors.Is(err, fs.ErrNotExist) {
			modErr = loadModule(dev)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var cpus []int
	for _, e := range ents {
		if cpuDir().MatchString(e.Name()) {
			n, _ := strconv.Atoi(e.Name())
			cpus = append(cpus, n)
		}
	}
	sort.Ints(cpus)
	var errs []string
	for _, n := range cpus {
		if err := read(n, filepath.Join(dir, strconv.Itoa(n), dev)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if got() {
		return nil
	}
	if len(errs) == 0 {
		errs = append(errs, fmt.Sprintf("no /dev/cpu/N/%s device (is the %s module available?)", dev, dev))
	}
	if modErr != "" {
		errs = append(errs, modErr)
	}
	return errors.New(strings.Join(uniqStrings(errs), "; "))
}

func uniqStrings(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// loadModule asks modprobe to load a kernel module, best effort: where it
// fails it returns modprobe's own words ("modprobe: FATAL: Module msr not
// found in directory /lib/modules/…"), one line, for the input that
// needed the module to say what is missing; "" when it loaded or there is
// no modprobe.
func loadModule(name string) string {
	p, err := exec.LookPath("modprobe")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, name).CombinedOutput()
	if err == nil {
		return ""
	}
	return moduleError(name, out, err)
}

// moduleError is modprobe's first line of output, bounded, or its exit
// status when it said nothing.
func moduleError(name string, out []byte, err error) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if len(line) > 200 {
		line = line[:200]
	}
	if line == "" {
		return fmt.Sprintf("modprobe %s: %v", name, err)
	}
	return line
}

const pciDevices = "sys/bus/pci/devices"

// recordPCIBARs writes every PCI device's sysfs resource file as lines
// "DEVICE START END FLAGS".
func recordPCIBARs(root string) ([]byte, error) {
	dir := filepath.Join(root, pciDevices)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("# fwcheck pci resources 1: DEVICE START END FLAGS, one line per resource index\n")
	for _, e := range ents {
		res, err := os.ReadFile(filepath.Join(dir, e.Name(), "resource"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(res)), "\n") {
			fmt.Fprintf(&b, "%s %s\n", e.Name(), strings.TrimSpace(line))
		}
	}
	return b.Bytes(), nil
}

func loadPCIBARs(src Source) ([]memmap.BAR, error) {
	b, err := fs.ReadFile(src, path.Join(RecordedDir, PCIBARFile))
	if err != nil {
		return nil, err
	}
	return ParsePCIBARs(b)
}

// ParsePCIBARs reads the recorded PCI resource lines.
func ParsePCIBARs(b []byte) ([]memmap.BAR, error) {
	var order []string
	per := map[string]*bytes.Buffer{}
	for i, line := range strings.Split(string(b), "\n") {
		if i > 1<<18 {
			return nil, errors.New("pci resources: too many lines")
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		dev, rest, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("pci resources line %d: %.60q", i+1, line)
		}
		if per[dev] == nil {
			per[dev] = &bytes.Buffer{}
			order = append(order, dev)
		}
		per[dev].WriteString(rest + "\n")
	}
	var out []memmap.BAR
	for _, dev := range order {
		bars, err := memmap.ParseSysfsResource(dev, per[dev].Bytes())
		if err != nil {
			return nil, err
		}
		out = append(out, bars...)
	}
	return out, nil
}

// recordBDA reads the BIOS data area (256 bytes at 0x400) through
// /dev/mem under root.
func recordBDA(root string) ([]byte, error) {
	f, err := os.Open(filepath.Join(root, "dev/mem"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 256)
	if _, err := (devMem{f}).ReadAt(b, 0x400); err != nil {
		return nil, err
	}
	return b, nil
}
