package cpuinfo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Leaf names a CPUID leaf and subleaf.
type Leaf struct{ Leaf, Sub uint32 }

// CPUID holds raw CPUID results per CPU: EAX, EBX, ECX, EDX.
type CPUID map[int]map[Leaf][4]uint32

// Leaves fwcheck reads: vendor and maximum leaf, features (VMX, the
// hypervisor bit), structured features, extended features (NX, LM, SVM)
// and address sizes.
var Leaves = []Leaf{{0, 0}, {1, 0}, {7, 0}, {0x80000000, 0}, {0x80000001, 0}, {0x80000008, 0}}

// Get returns CPU cpu's result for l and whether it was read.
func (c CPUID) Get(cpu int, l Leaf) ([4]uint32, bool) {
	r, ok := c[cpu][l]
	return r, ok
}

// Bit reports whether bit n of register reg (0 EAX … 3 EDX) of leaf l is
// set on cpu, and whether the leaf was read at all.
func (c CPUID) Bit(cpu int, l Leaf, reg, n int) (set, known bool) {
	r, ok := c.Get(cpu, l)
	if !ok {
		return false, false
	}
	return r[reg]&(1<<n) != 0, true
}

// CPUs returns the CPU numbers, in order.
func (c CPUID) CPUs() []int {
	var out []int
	for n := range c {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// ReadCPUID reads the given leaves from a /dev/cpu/N/cpuid device: a
// 16-byte read at offset (subleaf<<32 | leaf) returns EAX, EBX, ECX, EDX.
func ReadCPUID(f io.ReaderAt, leaves []Leaf) (map[Leaf][4]uint32, error) {
	out := map[Leaf][4]uint32{}
	for _, l := range leaves {
		var b [16]byte
		if _, err := f.ReadAt(b[:], int64(uint64(l.Sub)<<32|uint64(l.Leaf))); err != nil {
			return out, err
		}
		var r [4]uint32
		for i := range r {
			r[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		out[l] = r
	}
	return out, nil
}

// ReadCPUIDDevice opens dev and reads leaves.
func ReadCPUIDDevice(dev string, leaves []Leaf) (map[Leaf][4]uint32, error) {
	f, err := os.Open(dev)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCPUID(f, leaves)
}

// Format writes c as lines "cpu N 0xLEAF 0xSUB 0xEAX 0xEBX 0xECX 0xEDX".
func (c CPUID) Format(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, "# fwcheck cpuid dump 1: cpu N LEAF SUBLEAF EAX EBX ECX EDX")
	for _, n := range c.CPUs() {
		var ls []Leaf
		for l := range c[n] {
			ls = append(ls, l)
		}
		sort.Slice(ls, func(i, j int) bool {
			if ls[i].Leaf != ls[j].Leaf {
				return ls[i].Leaf < ls[j].Leaf
			}
			return ls[i].Sub < ls[j].Sub
		})
		for _, l := range ls {
			r := c[n][l]
			fmt.Fprintf(b, "cpu %d 0x%x 0x%x 0x%08x 0x%08x 0x%08x 0x%08x\n", n, l.Leaf, l.Sub, r[0], r[1], r[2], r[3])
		}
	}
	return b.Flush()
}

// ParseCPUID reads the format Format writes.
func ParseCPUID(b []byte) (CPUID, error) {
	c := CPUID{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		if n > maxLines {
			return nil, fmt.Errorf("cpuid dump: more than %d lines", maxLines)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 8 || f[0] != "cpu" {
			return nil, fmt.Errorf("cpuid dump line %d: %.60q", n, line)
		}
		cpu, err := strconv.Atoi(f[1])
		if err != nil || cpu < 0 {
			return nil, fmt.Errorf("cpuid dump line %d: bad CPU", n)
		}
		var v [6]uint32
		for i := range v {
			x, err := strconv.ParseUint(f[2+i], 0, 32)
			if err != nil {
				return nil, fmt.Errorf("cpuid dump line %d: %v", n, err)
			}
			v[i] = uint32(x)
		}
		if c[cpu] == nil {
			if len(c) >= maxCPUs {
				return nil, fmt.Errorf("cpuid dump: more than %d CPUs", maxCPUs)
			}
			c[cpu] = map[Leaf][4]uint32{}
		}
		c[cpu][Leaf{v[0], v[1]}] = [4]uint32{v[2], v[3], v[4], v[5]}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cpuid dump: %w", err)
	}
	return c, nil
}
