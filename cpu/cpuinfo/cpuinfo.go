// Package cpuinfo parses Linux's /proc/cpuinfo on x86: per logical CPU,
// the vendor, family/model/stepping, microcode revision, feature flags and
// physical address width. The kernel derives these from CPUID, so they are
// what a snapshot can carry of CPUID.
package cpuinfo

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// CPU is one logical CPU's entry.
type CPU struct {
	Processor             int
	Vendor                string // "GenuineIntel", "AuthenticAMD"
	Family, Model, Step   int
	ModelName             string
	Microcode             uint64
	HaveMicrocode         bool
	Flags                 map[string]bool
	PhysBits, VirtualBits int
}

// Has reports whether the CPU lists feature flag f ("nx", "vmx").
func (c CPU) Has(f string) bool { return c.Flags[f] }

// Intel reports whether the CPU is Intel's.
func (c CPU) Intel() bool { return c.Vendor == "GenuineIntel" }

// AMD reports whether the CPU is AMD's or Hygon's (the same MSRs and
// machine checks: Hygon licenses AMD's Zen design).
func (c CPU) AMD() bool { return c.Vendor == "AuthenticAMD" || c.Vendor == "HygonGenuine" }

const (
	maxCPUs  = 8192
	maxLines = 1 << 20
)

// Parse reads /proc/cpuinfo text.
func Parse(b []byte) ([]CPU, error) {
	var out []CPU
	var cur *CPU
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n > maxLines {
			return nil, fmt.Errorf("cpuinfo: more than %d lines", maxLines)
		}
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "processor" {
			p, err := strconv.Atoi(v)
			if err != nil || p < 0 {
				return nil, fmt.Errorf("cpuinfo line %d: bad processor number %.20q", n, v)
			}
			if len(out) >= maxCPUs {
				return nil, fmt.Errorf("cpuinfo: more than %d CPUs", maxCPUs)
			}
			out = append(out, CPU{Processor: p, Flags: map[string]bool{}})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch k {
		case "vendor_id":
			cur.Vendor = v
		case "cpu family":
			cur.Family, _ = strconv.Atoi(v)
		case "model":
			cur.Model, _ = strconv.Atoi(v)
		case "stepping":
			cur.Step, _ = strconv.Atoi(v)
		case "model name":
			cur.ModelName = v
		case "microcode":
			if m, err := strconv.ParseUint(v, 0, 64); err == nil {
				cur.Microcode, cur.HaveMicrocode = m, true
			}
		case "flags":
			for _, f := range strings.Fields(v) {
				cur.Flags[f] = true
			}
		case "address sizes":
			fmt.Sscanf(v, "%d bits physical, %d bits virtual", &cur.PhysBits, &cur.VirtualBits)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cpuinfo: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cpuinfo: no processor entries")
	}
	return out, nil
}
