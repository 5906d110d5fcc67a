package input

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"runtime"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
)

// ArchFile is the recorded architecture's name below RecordedDir: one line,
// the GOARCH name ("amd64", "arm64").
const ArchFile = "arch.txt"

// Arch is the architecture of the machine the source describes, as GOARCH
// names it: on the live machine the running fwcheck's, in a snapshot the
// recorded one (fwcheck/arch.txt), or, in a snapshot taken before that
// was recorded, the one /proc/cpuinfo's fields show. Checks do not read it:
// the framework does, for a check's declared architectures (tests.Check.Arch),
// through Machine.Arch, which also looks at the ACPI tables.
var Arch = Declare(Def[string]{
	Name: "arch", Doc: "the machine's architecture (recorded as fwcheck/arch.txt; else from /proc/cpuinfo)",
	Capture: []string{RecordedDir + "/" + ArchFile, "proc/cpuinfo"},
	Load:    loadArch,
})

func recordArch(string) ([]byte, error) { return []byte(runtime.GOARCH + "\n"), nil }

func loadArch(src Source) (string, error) {
	b, err := fs.ReadFile(src, RecordedDir+"/"+ArchFile)
	if err == nil {
		if a := ArchName(string(b)); a != "" {
			return a, nil
		}
	}
	ci, cerr := fs.ReadFile(src, "proc/cpuinfo")
	if cerr != nil {
		if err == nil {
			return "", &Unavailable{"arch", "the recorded architecture is empty"}
		}
		return "", err
	}
	if a := CPUInfoArch(ci); a != "" {
		return a, nil
	}
	return "", &Unavailable{"arch", "neither a recorded architecture nor /proc/cpuinfo fields that show one"}
}

// ArchName normalises an architecture as uname, Debian or Go spell it
// ("x86_64", "aarch64", "i686") to its GOARCH name; "" for an empty one.
func ArchName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(s, " \t\n"); i >= 0 {
		s = s[:i]
	}
	switch s {
	case "x86_64", "amd64", "x64":
		return "amd64"
	case "i386", "i486", "i586", "i686", "x86", "386":
		return "386"
	case "aarch64", "arm64", "armv8":
		return "arm64"
	}
	return s
}

// CPUInfoArch infers the architecture from /proc/cpuinfo's field names:
// x86 kernels print vendor_id and flags, arm64 kernels CPU implementer and
// CPU architecture, RISC-V kernels isa. It returns "" when none is there.
// A 32-bit x86 machine is taken for amd64: the checks that gate on
// architecture treat the two alike.
func CPUInfoArch(b []byte) string {
	if len(b) > 1<<20 {
		b = b[:1<<20]
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch string(bytes.TrimSpace(k)) {
		case "vendor_id", "flags":
			return "amd64"
		case "CPU implementer", "CPU architecture":
			if string(bytes.TrimSpace(v)) == "7" {
				return "arm"
			}
			return "arm64"
		case "isa":
			if bytes.HasPrefix(bytes.TrimSpace(v), []byte("rv64")) {
				return "riscv64"
			}
		}
	}
	return ""
}

// MADT interrupt controller structure types that only one architecture
// has (ACPI 6.5 §5.2.12): the local APIC and x2APIC on x86, the GIC CPU
// interface on Arm, the RISC-V hart-local controller.
const (
	madtLocalAPIC = 0x0
	madtX2APIC    = 0x9
	madtGICC      = 0xB
	madtRINTC     = 0x18
)

// ACPIArch infers the architecture the ACPI tables were made for from the
// MADT's processor structures, then the FADT's boot architecture flags
// (ARM_BOOT_ARCH set only on Arm); "" when they show none.
func ACPIArch(ts *acpi.Tables) string {
	if ts == nil {
		return ""
	}
	if t := ts.First("APIC"); t != nil && len(t.Raw) > acpi.HeaderSize+8 {
		b := t.Raw[acpi.HeaderSize+8:]
		if n := int(t.Header.Length) - acpi.HeaderSize - 8; n >= 0 && n < len(b) {
			b = b[:n]
		}
		for len(b) >= 2 && b[1] >= 2 && int(b[1]) <= len(b) {
			switch b[0] {
			case madtLocalAPIC, madtX2APIC:
				return "amd64"
			case madtGICC:
				return "arm64"
			case madtRINTC:
				return "riscv64"
			}
			b = b[b[1]:]
		}
	}
	if t := ts.First("FACP"); t != nil && len(t.Raw) >= acpi.FADTOffARMBootArch+2 && t.Header.Revision >= 5 {
		if binary.LittleEndian.Uint16(t.Raw[acpi.FADTOffARMBootArch:]) != 0 {
			return "arm64"
		}
	}
	return ""
}

// Arch returns the architecture of the machine m describes, as GOARCH
// names it, and what said so; ("", "") when nothing does. ACPI tables the
// user gave as a file (--acpidump) describe the machine they were dumped
// on, whatever this one is, and come first: an x86 dump read on an arm64
// host is checked as x86. Then the source's own architecture (Arch), then
// its ACPI tables.
func (m *Machine) Arch() (arch, from string) {
	if _, file := m.files[ACPITables]; file {
		if ts, err := ACPITables.Get(m); err == nil {
			if a := ACPIArch(ts); a != "" {
				return a, "the ACPI tables given"
			}
		}
	}
	if a, err := Arch.Get(m); err == nil && a != "" {
		if m.Src.Live() {
			return a, ""
		}
		return a, "the snapshot"
	}
	if ts, err := ACPITables.Get(m); err == nil {
		if a := ACPIArch(ts); a != "" {
			return a, "the ACPI tables"
		}
	}
	return "", ""
}

// devicetreeOnly returns the devicetree file the source holds when it
// holds no ACPI tables ("/sys/firmware/fdt"), or "".
func devicetreeOnly(src Source) string {
	for _, p := range []string{FDTFile, "sys/firmware/devicetree/base"} {
		if _, err := fs.Stat(src, p); err == nil {
			return "/" + p
		}
	}
	return ""
}
