// Package memmap reads the machine's physical address map as Linux shows
// it: the e820 map the kernel prints at boot ("BIOS-e820: [mem …] usable"),
// /proc/iomem's resource tree, and PCI BARs (sysfs resource files or the
// kernel's "pci …: reg 0x10: [mem …]" boot lines). Ranges are inclusive.
// It knows nothing of checks or reports; parsers bound what they read and
// return errors, never panic, on malformed input.
package memmap

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Range is a physical address range with what it is.
type Range struct {
	Start, End uint64 // inclusive
	Type       string
}

// Size returns the range's length in bytes (0 for an inverted range).
func (r Range) Size() uint64 {
	if r.End < r.Start {
		return 0
	}
	return r.End - r.Start + 1
}

func (r Range) String() string { return fmt.Sprintf("[mem 0x%x-0x%x] %s", r.Start, r.End, r.Type) }

// Overlaps reports whether r and o share an address.
func (r Range) Overlaps(o Range) bool { return r.Start <= o.End && o.Start <= r.End }

// Usable reports whether an e820 or memmap type is RAM the OS may use.
func Usable(t string) bool { return t == "usable" || t == "System RAM" }

const maxLines = 1 << 17

var (
	// Linux ≥ 4.x: "BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable".
	e820New = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:BIOS-e820|e820): \[mem 0x([0-9a-fA-F]{1,16})-0x([0-9a-fA-F]{1,16})\] (.+)$`)
	})
	// Older: "BIOS-e820: 0000000000000000 - 000000000009f800 (usable)", end exclusive.
	e820Old = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^BIOS-e820: ([0-9a-fA-F]{1,16}) - ([0-9a-fA-F]{1,16}) \((.+)\)$`)
	})
)

// E820FromLog returns the firmware's e820 map as the kernel printed it at
// boot ("BIOS-e820:" lines; the first boot's only), from the text of
// kernel-log records, or nil when there is none. Types are as printed
// ("usable", "reserved", "ACPI data", "ACPI NVS", "unusable",
// "persistent (type 12)", …).
func E820FromLog(texts []string) []Range {
	var out []Range
	ended := false
	for i, t := range texts {
		if i >= maxLines {
			break
		}
		line := strings.TrimSpace(t)
		if !strings.HasPrefix(line, "BIOS-e820: ") {
			if len(out) > 0 {
				ended = true
			}
			continue
		}
		if ended {
			break // a second map: a later boot
		}
		if m := e820New().FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			e, _ := strconv.ParseUint(m[2], 16, 64)
			out = append(out, Range{Start: a, End: e, Type: m[3]})
			continue
		}
		if m := e820Old().FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			e, _ := strconv.ParseUint(m[2], 16, 64)
			if e == 0 {
				continue // zero-end entry: nothing to describe
			}
			out = append(out, Range{Start: a, End: e - 1, Type: m[3]})
		}
	}
	return out
}

// Resource is one node of /proc/iomem.
type Resource struct {
	Range
	// Depth is the nesting level (0 for top-level resources).
	Depth int
}

var iomemLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^( *)([0-9a-fA-F]{1,16})-([0-9a-fA-F]{1,16}) : (.*)$`)
})

// ParseIOMem reads /proc/iomem. Without root the kernel prints every
// address as zero; such a file is an error, not a map.
func ParseIOMem(b []byte) ([]Resource, error) {
	var out []Resource
	nonzero := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 0; sc.Scan(); n++ {
		if n >= maxLines {
			return nil, fmt.Errorf("iomem: more than %d lines", maxLines)
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		m := iomemLine().FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("iomem: line %d unrecognised: %.80q", n+1, sc.Text())
		}
		a, _ := strconv.ParseUint(m[2], 16, 64)
		e, _ := strconv.ParseUint(m[3], 16, 64)
		if a != 0 || e != 0 {
			nonzero = true
		}
		out = append(out, Resource{Range: Range{Start: a, End: e, Type: m[4]}, Depth: len(m[1]) / 2})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("iomem: %w", err)
	}
	if len(out) > 0 && !nonzero {
		return nil, fmt.Errorf("iomem: every address reads as zero (the kernel hides them from non-root readers)")
	}
	return out, nil
}

// BAR is a PCI memory BAR.
type BAR struct {
	Device string // "0000:00:02.0"
	Index  int    // resource index (0-5 BARs, 6 ROM, …)
	Range
	Prefetchable, Bits64 bool
}

func (b BAR) String() string {
	p := ""
	if b.Prefetchable {
		p = " prefetchable"
	}
	return fmt.Sprintf("%s BAR %d [mem 0x%x-0x%x%s]", b.Device, b.Index, b.Start, b.End, p)
}

// Resource flag bits of the kernel's struct resource, as sysfs prints them.
const (
	ioresourceMem      = 0x00000200
	ioresourcePrefetch = 0x00002000
	ioresourceMem64    = 0x00100000
)

// ParseSysfsResource reads one device's sysfs "resource" file: a line per
// resource, "0x<start> 0x<end> 0x<flags>", and returns its memory BARs
// (unassigned ones, all zeros, are left out).
func ParseSysfsResource(dev string, b []byte) ([]BAR, error) {
	var out []BAR
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if i >= 64 {
			return nil, fmt.Errorf("%s: more than 64 resources", dev)
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s: resource line %d: want 3 fields, got %.60q", dev, i, line)
		}
		var v [3]uint64
		for k := range f {
			x, err := strconv.ParseUint(strings.TrimPrefix(f[k], "0x"), 16, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: resource line %d: %v", dev, i, err)
			}
			v[k] = x
		}
		if v[2]&ioresourceMem == 0 || (v[0] == 0 && v[1] == 0) {
			continue
		}
		out = append(out, BAR{Device: dev, Index: i, Range: Range{Start: v[0], End: v[1], Type: "PCI BAR"},
			Prefetchable: v[2]&ioresourcePrefetch != 0, Bits64: v[2]&ioresourceMem64 != 0})
	}
	return out, nil
}

// "pci 0000:00:02.0: reg 0x10: [mem 0xfd000000-0xfdffffff pref]" (Linux < 6.8)
// "pci 0000:00:02.0: BAR 0 [mem 0xfd000000-0xfdffffff pref]" (Linux ≥ 6.8)
var pciLogBAR = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^pci ([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): (?:reg 0x([0-9a-fA-F]+):|BAR (\d+)) \[mem 0x([0-9a-fA-F]{1,16})-0x([0-9a-fA-F]{1,16})([^\]]*)\]$`)
})

// BARsFromLog returns the PCI memory BARs the kernel printed while it
// enumerated devices at boot: the addresses firmware assigned, before any
// reassignment. The first line for a device and BAR wins.
func BARsFromLog(texts []string) []BAR {
	var out []BAR
	seen := map[string]bool{}
	for i, t := range texts {
		if i >= maxLines {
			break
		}
		m := pciLogBAR().FindStringSubmatch(strings.TrimSpace(t))
		if m == nil {
			continue
		}
		idx := 0
		if m[2] != "" {
			reg, _ := strconv.ParseUint(m[2], 16, 32)
			if reg < 0x10 {
				continue
			}
			idx = int(reg-0x10) / 4
			if reg == 0x30 {
				idx = 6 // expansion ROM
			}
		} else {
			idx, _ = strconv.Atoi(m[3])
		}
		key := fmt.Sprintf("%s/%d", m[1], idx)
		if seen[key] {
			continue
		}
		seen[key] = true
		a, _ := strconv.ParseUint(m[4], 16, 64)
		e, _ := strconv.ParseUint(m[5], 16, 64)
		out = append(out, BAR{Device: m[1], Index: idx, Range: Range{Start: a, End: e, Type: "PCI BAR"},
			Prefetchable: strings.Contains(m[6], "pref"), Bits64: strings.Contains(m[6], "64bit")})
	}
	return out
}

// MMIO is a register block that must be uncached: an I/O APIC, the HPET,
// a PCI Express ECAM window.
type MMIO struct {
	Range
	What string // "IOAPIC 0", "HPET", "ECAM segment 0 buses 00-ff"
}

var (
	logIOAPIC = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^IOAPIC\[(\d+)\]: apic_id \d+, version \d+, address 0x([0-9a-fA-F]{1,16}),`)
	})
	logHPET = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^hpet(\d*): at MMIO 0x([0-9a-fA-F]{1,16}),`) })
	logECAM = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^PCI: (?:MMCONFIG for domain ([0-9a-fA-F]{4}) \[bus ([0-9a-fA-F]{2})-([0-9a-fA-F]{2})\] at \[mem 0x([0-9a-fA-F]{1,16})-0x([0-9a-fA-F]{1,16})\]|ECAM \[mem 0x([0-9a-fA-F]{1,16})-0x([0-9a-fA-F]{1,16})\] \(base 0x[0-9a-fA-F]+\) for domain ([0-9a-fA-F]{4}) \[bus ([0-9a-fA-F]{2})-([0-9a-fA-F]{2})\])`)
	})
)

// MMIOFromLog returns the I/O APICs, HPET and ECAM windows the kernel
// reported at boot. I/O APIC and HPET register blocks are taken as 4 KiB
// (their architectural size is 1 KiB; mappings are page-sized).
func MMIOFromLog(texts []string) []MMIO {
	var out []MMIO
	seen := map[string]bool{}
	add := func(m MMIO) {
		if !seen[m.What] {
			seen[m.What] = true
			out = append(out, m)
		}
	}
	for i, t := range texts {
		if i >= maxLines {
			break
		}
		line := strings.TrimSpace(t)
		if m := logIOAPIC().FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseUint(m[2], 16, 64)
			add(MMIO{Range: Range{Start: a, End: a + 0xFFF, Type: "IOAPIC"}, What: "IOAPIC " + m[1]})
		}
		if m := logHPET().FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseUint(m[2], 16, 64)
			add(MMIO{Range: Range{Start: a, End: a + 0xFFF, Type: "HPET"}, What: "HPET" + m[1]})
		}
		if m := logECAM().FindStringSubmatch(line); m != nil {
			seg, b0, b1, s, e := m[1], m[2], m[3], m[4], m[5]
			if s == "" {
				s, e, seg, b0, b1 = m[6], m[7], m[8], m[9], m[10]
			}
			a, _ := strconv.ParseUint(s, 16, 64)
			z, _ := strconv.ParseUint(e, 16, 64)
			add(MMIO{Range: Range{Start: a, End: z, Type: "ECAM"}, What: fmt.Sprintf("ECAM segment %s buses %s-%s", seg, b0, b1)})
		}
	}
	return out
}

// logACPI matches the kernel's table list: "ACPI: FACP 0x000000003F7E5684
// 0000F4 (v04 HP …)", "ACPI: FACS 0x000000003F7F7E80 000040".
var logACPI = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^ACPI: ([A-Z0-9_!$ ]{4}) 0x([0-9A-Fa-f]{8,16}) ([0-9A-Fa-f]{6,8})(?: |$)`)
})

// ACPITablesFromLog returns where the kernel said each ACPI table is, as
// ranges typed with the table's signature (first boot's list only: a
// signature and address seen again is skipped).
func ACPITablesFromLog(texts []string) []Range {
	var out []Range
	seen := map[Range]bool{}
	for i, t := range texts {
		if i >= maxLines {
			break
		}
		m := logACPI().FindStringSubmatch(strings.TrimSpace(t))
		if m == nil {
			continue
		}
		a, _ := strconv.ParseUint(m[2], 16, 64)
		n, _ := strconv.ParseUint(m[3], 16, 64)
		if n == 0 || a == 0 || a+n-1 < a {
			continue
		}
		r := Range{Start: a, End: a + n - 1, Type: m[1]}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
