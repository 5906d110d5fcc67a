package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/memmap"
)

// The inputs checks can declare. Each is one declaration here, beside the
// call into the library that parses it.
var (
	// ACPITables are the ACPI tables: sysfs, plus the RSDP, XSDT and RSDT
	// recorded from /dev/mem; or an acpidump file or raw-table directory.
	ACPITables = Declare(Def[*acpi.Tables]{
		Name: "acpi-tables", Doc: "ACPI tables (sysfs, plus RSDP/XSDT/RSDT recorded from /dev/mem)", Root: true,
		Capture: []string{acpi.SysfsDir, RecordedDir + "/acpi/RSDP", RecordedDir + "/acpi/XSDT", RecordedDir + "/acpi/RSDT", RecordedDir + "/acpi/" + EntriesFile},
		Load:    loadACPI,
		File:    loadACPIFile,
	})
	// KernelLog is the kernel log: /dev/kmsg live, or a dmesg/journalctl
	// text file, which is read record by record on each pass rather than
	// held in memory.
	KernelLog = Declare(Def[*klog.Log]{
		Name: "kernel-log", Doc: "the kernel log (/dev/kmsg)",
		Capture: []string{RecordedDir + "/" + KlogFile},
		Load:    loadKlog,
		File:    loadKlogFile,
	})
	// DMI is the machine's DMI (SMBIOS) identity.
	DMI = Declare(Def[*DMIInfo]{
		Name: "dmi", Doc: "DMI identity (/sys/class/dmi/id)",
		Capture: dmiPaths(),
		Load:    loadDMI,
	})
	// Kernel is the running kernel's version string.
	Kernel = Declare(Def[string]{
		Name: "kernel", Doc: "the running kernel's version (/proc/version)",
		Capture: []string{"proc/version"},
		Load:    loadKernel,
	})
	// MemoryMap is the firmware memory map (the map the firmware handed
	// the kernel), sorted by start address.
	MemoryMap = Declare(Def[[]memmap.Range]{
		Name: "memory-map", Doc: "the firmware memory map (/sys/firmware/memmap)", Root: true,
		Capture: []string{"sys/firmware/memmap", "proc/iomem"},
		Load:    loadMemoryMap,
	})
)

// KlogFile is the recorded kernel log's name below RecordedDir.
const KlogFile = "klog.txt"

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

func loadKernel(src Source) (string, error) {
	b, err := fs.ReadFile(src, "proc/version")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// loadACPIFile reads tables the user named: acpidump text, or a directory
// of raw tables. Input that is neither is an error naming the file, not a
// table the checks would then blame the firmware for.
func loadACPIFile(p string, _ []byte) (*acpi.Tables, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		ts, err := acpi.LoadDumpFile(p)
		if err != nil {
			return nil, err
		}
		if ts.SkippedLines > ts.TableLines {
			return nil, fmt.Errorf("%s: not acpidump text: %d of its %d lines are not table data", p, ts.SkippedLines, ts.SkippedLines+ts.TableLines)
		}
		return ts, nil
	}
	// Within the snapshot limits: regular files only, nothing outside p.
	d, err := openDirSnapshot(p)
	if err != nil {
		return nil, err
	}
	ts, err := acpi.LoadFS(d, ".")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for _, t := range ts.List {
		if !t.PlausibleHeader() {
			return nil, fmt.Errorf("%s: %s is not an ACPI table (no valid table header): give a directory of raw tables or an acpidump file", p, t.Origin)
		}
	}
	return ts, nil
}

func loadACPI(src Source) (*acpi.Tables, error) {
	ts, err := acpi.LoadFS(src, acpi.SysfsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if dt := devicetreeOnly(src); dt != "" {
				return nil, &Absent{Unavailable{"acpi-tables", "the machine has no ACPI tables: its firmware describes it with a devicetree (" + dt + "), which is as valid as ACPI"}}
			}
			return nil, &Unavailable{"acpi-tables", "no /" + acpi.SysfsDir + " on " + src.String()}
		}
		return nil, err
	}
	// The root tables, recorded in a snapshot or read live through /dev/mem;
	// where they cannot be had, the checks that need them say so.
	roots := &acpi.Tables{Source: RecordedDir + "/" + acpiRootsDir}
	for _, file := range []string{"RSDP", "XSDT", "RSDT"} {
		b, err := fs.ReadFile(src, path.Join(RecordedDir, acpiRootsDir, file))
		if errors.Is(err, errNoRootTable) {
			continue
		}
		if err != nil {
			if ts.RootsMissing == nil {
				ts.RootsMissing = map[string]string{}
			}
			// "record fwcheck/acpi/RSDP: open /dev/mem: …" says how, not what:
			// keep the cause.
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Op == "record" {
				err = pe.Err
			}
			ts.RootsMissing[rootFiles[file]] = fmt.Sprintf("%s could not be read: %v", file, err)
			if ts.RootsRemedy == nil {
				ts.RootsRemedy = map[string]string{}
			}
			ts.RootsRemedy[rootFiles[file]] = remedyFor(src, "acpi-tables", err.Error(), "run as root")
			continue
		}
		roots.Add(&acpi.Table{Signature: rootFiles[file], Raw: b, Origin: "recorded " + file})
	}
	ts.MergeRoots(roots)
	// What lay at each root table entry's address, where it was read.
	if b, err := fs.ReadFile(src, path.Join(RecordedDir, acpiRootsDir, EntriesFile)); err == nil {
		ps, err := acpi.ParseProbes(b)
		if err != nil {
			ts.Warnings = append(ts.Warnings, fmt.Sprintf("%s: %v", EntriesFile, err))
		}
		ts.Probes = ps
	}
	// What the snapshot left out (the MSDM table) is said, not silently
	// missing.
	if b, err := fs.ReadFile(src, RecordedDir+"/"+OmittedFile); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, acpi.SysfsDir+"/") {
				ts.Warnings = append(ts.Warnings, "snapshot: "+l)
			}
		}
	}
	return ts, nil
}

func loadKlog(src Source) (*klog.Log, error) {
	// Parsed as it is read, not read whole first: the log is the largest
	// input, and one copy of it (its records) is enough.
	f, err := src.Open(RecordedDir + "/" + KlogFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := klog.Parse(f)
	return klog.LogOf(recs), err
}

// pipeDeadline bounds reading a kernel log from a pipe or FIFO.
const pipeDeadline = 30 * time.Second

// loadKlogFile reads a kernel log the user named ("-": standard input). A
// file in which no line is a kernel-log record is an error. A regular file
// is streamed by its readers, not held in memory, up to MaxSnapshotFile
// bytes; anything else (a pipe from a shell's process substitution,
// /dev/zero) is read once, within the same limit.
func loadKlogFile(p string, stdin []byte) (*klog.Log, error) {
	var l *klog.Log
	switch fi, err := os.Stat(p); {
	case p == "-":
		l = klog.LogBytes(stdin)
	case err != nil:
		return nil, err
	case fi.Mode().IsRegular():
		if fi.Size() > MaxSnapshotFile {
			return nil, &tooLarge{p, MaxSnapshotFile}
		}
		l = klog.LogFile(p)
	default:
		// non-blocking: a FIFO no one writes to gives end of file at
		// once instead of blocking the run; a pipe that goes quiet ends
		// by the deadline
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, err
		}
		_ = f.SetReadDeadline(time.Now().Add(pipeDeadline))
		b, err := io.ReadAll(&limitedFile{r: f, name: p, left: MaxSnapshotFile})
		f.Close()
		if err != nil {
			return nil, err
		}
		l = klog.LogBytes(b)
	}
	ok, err := l.Recognised()
	if err != nil {
		return nil, err
	}
	if !ok && !l.Empty() {
		return nil, errors.New("not a kernel log: no line carries a kernel-log prefix (a [seconds] stamp, a <level>, a /dev/kmsg or journalctl form)")
	}
	return l, nil
}

// limitedFile reads a file a user named (which may be a pipe: a shell's
// process substitution), failing past left bytes (/dev/zero).
type limitedFile struct {
	r    io.Reader
	name string
	left int64
}

type tooLarge struct {
	name string
	max  int64
}

func (e *tooLarge) Error() string {
	return fmt.Sprintf("%s: larger than %d MiB, more than a kernel log holds", e.name, e.max>>20)
}

func (l *limitedFile) Read(b []byte) (int, error) {
	if l.left <= 0 {
		// At the limit: an end of file here is fine, a byte more is not.
		var one [1]byte
		if n, err := l.r.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, &tooLarge{l.name, MaxSnapshotFile}
	}
	if int64(len(b)) > l.left {
		b = b[:l.left]
	}
	n, err := l.r.Read(b)
	l.left -= int64(n)
	return n, err
}

func loadDMI(src Source) (*DMIInfo, error) {
	d := &DMIInfo{}
	vals := map[string]*string{
		"sys_vendor": &d.SysVendor, "product_name": &d.ProductName, "board_vendor": &d.BoardVendor,
		"board_name": &d.BoardName, "bios_vendor": &d.BIOSVendor, "bios_version": &d.BIOSVersion, "bios_date": &d.BIOSDate,
	}
	found := false
	for _, f := range dmiFields {
		b, err := fs.ReadFile(src, path.Join(dmiDir, f))
		if err == nil {
			*vals[f] = strings.TrimSpace(string(b))
			found = true
		}
	}
	if !found {
		return nil, &Unavailable{"dmi", "no /" + dmiDir}
	}
	return d, nil
}

func loadMemoryMap(src Source) ([]memmap.Range, error) {
	ents, err := fs.ReadDir(src, "sys/firmware/memmap")
	if err != nil {
		return nil, err
	}
	var out []memmap.Range
	for _, e := range ents {
		dir := path.Join("sys/firmware/memmap", e.Name())
		var r memmap.Range
		s, err1 := fs.ReadFile(src, dir+"/start")
		en, err2 := fs.ReadFile(src, dir+"/end")
		t, err3 := fs.ReadFile(src, dir+"/type")
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
