// Package msr holds model-specific register values read from every CPU
// (Linux's /dev/cpu/N/msr), the register names fwcheck reports, and the
// text format in which a snapshot records them: the device files cannot
// be archived, so a snapshot carries what was read.
//
// The dump format, one register of one CPU per line:
//
//	# fwcheck msr dump 1
//	cpu 0 0x2ff 0x0000000000000c06
//	cpu 1 0xc0010010 error: input/output error
//
// Reading is a pread of 8 bytes at the register's address (os.File.ReadAt,
// the same system call as golang.org/x/sys/unix.Pread); u-root's pkg/msr
// was considered, but it globs /dev/cpu itself and cannot be pointed at
// another root, which the input layer needs for tests.
package msr

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

// Architectural and vendor registers fwcheck reads besides the MTRRs.
const (
	FeatureControl = 0x3A       // IA32_FEATURE_CONTROL
	MiscEnable     = 0x1A0      // IA32_MISC_ENABLE
	PAT            = 0x277      // IA32_PAT
	VMCR           = 0xC0010114 // AMD VM_CR (SVMDIS, LOCK)
	// The SMM protection registers the smm check reads.
	SMRRPhysBase = 0x1F2      // IA32_SMRR_PHYSBASE
	SMRRPhysMask = 0x1F3      // IA32_SMRR_PHYSMASK (bit 11: valid)
	HWCR         = 0xC0010015 // AMD HWCR (bit 0: SMMLOCK)
	SMMAddr      = 0xC0010112 // AMD SMM_ADDR (TSeg base)
	SMMMask      = 0xC0010113 // AMD SMM_MASK (bit 1: TSeg valid)
	// DebugInterface is IA32_DEBUG_INTERFACE (Intel DCI): bit 0 enable,
	// bit 30 lock.
	DebugInterface = 0xC80
	// BootGuardSACMInfo is MSR_BOOT_GUARD_SACM_INFO (Intel Boot Guard's
	// status after the startup ACM ran).
	BootGuardSACMInfo = 0x13A
)

var names = map[uint32]string{
	0xFE: "IA32_MTRRCAP", 0x2FF: "IA32_MTRR_DEF_TYPE", 0x250: "IA32_MTRR_FIX64K_00000",
	0x258: "IA32_MTRR_FIX16K_80000", 0x259: "IA32_MTRR_FIX16K_A0000",
	0x268: "IA32_MTRR_FIX4K_C0000", 0x269: "IA32_MTRR_FIX4K_C8000", 0x26A: "IA32_MTRR_FIX4K_D0000",
	0x26B: "IA32_MTRR_FIX4K_D8000", 0x26C: "IA32_MTRR_FIX4K_E0000", 0x26D: "IA32_MTRR_FIX4K_E8000",
	0x26E: "IA32_MTRR_FIX4K_F0000", 0x26F: "IA32_MTRR_FIX4K_F8000",
	PAT: "IA32_PAT", FeatureControl: "IA32_FEATURE_CONTROL", MiscEnable: "IA32_MISC_ENABLE",
	0xC0010010: "SYSCFG", 0xC001001A: "TOP_MEM", 0xC001001D: "TOP_MEM2", VMCR: "VM_CR",
	SMRRPhysBase: "IA32_SMRR_PHYSBASE", SMRRPhysMask: "IA32_SMRR_PHYSMASK", HWCR: "HWCR",
	SMMAddr: "SMM_ADDR", SMMMask: "SMM_MASK", DebugInterface: "IA32_DEBUG_INTERFACE",
	BootGuardSACMInfo: "MSR_BOOT_GUARD_SACM_INFO",
}

// Name returns the register's name ("IA32_MTRR_PHYSBASE3"), or its address.
func Name(addr uint32) string {
	if n, ok := names[addr]; ok {
		return n
	}
	if addr >= 0x200 && addr < 0x200+2*256 {
		if addr%2 == 0 {
			return fmt.Sprintf("IA32_MTRR_PHYSBASE%d", (addr-0x200)/2)
		}
		return fmt.Sprintf("IA32_MTRR_PHYSMASK%d", (addr-0x200)/2)
	}
	return fmt.Sprintf("MSR 0x%x", addr)
}

// Dump is what was read from each CPU's registers.
type Dump struct {
	// Values and Errors are keyed by CPU number, then register address.
	Values map[int]map[uint32]uint64
	Errors map[int]map[uint32]string
}

// NewDump returns an empty dump.
func NewDump() *Dump {
	return &Dump{Values: map[int]map[uint32]uint64{}, Errors: map[int]map[uint32]string{}}
}

// CPUs returns the CPU numbers in the dump, in order.
func (d *Dump) CPUs() []int {
	seen := map[int]bool{}
	for c := range d.Values {
		seen[c] = true
	}
	for c := range d.Errors {
		seen[c] = true
	}
	out := make([]int, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}

// Get returns the value of register addr on cpu and whether it was read.
func (d *Dump) Get(cpu int, addr uint32) (uint64, bool) {
	v, ok := d.Values[cpu][addr]
	return v, ok
}

// Set records a value.
func (d *Dump) Set(cpu int, addr uint32, v uint64) {
	if d.Values[cpu] == nil {
		d.Values[cpu] = map[uint32]uint64{}
	}
	d.Values[cpu][addr] = v
}

// SetError records that a register could not be read.
func (d *Dump) SetError(cpu int, addr uint32, err string) {
	if d.Errors[cpu] == nil {
		d.Errors[cpu] = map[uint32]string{}
	}
	d.Errors[cpu][addr] = err
}

const header = "# fwcheck msr dump 1"

// Limits on a dump read from a snapshot.
const (
	maxCPUs  = 8192
	maxLines = 1 << 20
)

// Format writes d in the dump format, sorted by CPU and register.
func (d *Dump) Format(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, header)
	for _, c := range d.CPUs() {
		var addrs []uint32
		for a := range d.Values[c] {
			addrs = append(addrs, a)
		}
		for a := range d.Errors[c] {
			if _, ok := d.Values[c][a]; !ok {
				addrs = append(addrs, a)
			}
		}
		sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
		for _, a := range addrs {
			if v, ok := d.Values[c][a]; ok {
				fmt.Fprintf(b, "cpu %d 0x%x 0x%016x\n", c, a, v)
			} else {
				fmt.Fprintf(b, "cpu %d 0x%x error: %s\n", c, a, strings.ReplaceAll(d.Errors[c][a], "\n", " "))
			}
		}
	}
	return b.Flush()
}

// Parse reads the dump format.
func Parse(b []byte) (*Dump, error) {
	d := NewDump()
	sc := bufio.NewScanner(bytes.NewReader(b))
	cpus := map[int]bool{}
	for n := 1; sc.Scan(); n++ {
		if n > maxLines {
			return nil, fmt.Errorf("msr dump: more than %d lines", maxLines)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 4)
		if len(f) < 4 || f[0] != "cpu" {
			return nil, fmt.Errorf("msr dump line %d: want \"cpu N ADDR VALUE\", got %.60q", n, line)
		}
		c, err := strconv.Atoi(f[1])
		if err != nil || c < 0 {
			return nil, fmt.Errorf("msr dump line %d: bad CPU %.20q", n, f[1])
		}
		if !cpus[c] {
			if len(cpus) >= maxCPUs {
				return nil, fmt.Errorf("msr dump: more than %d CPUs", maxCPUs)
			}
			cpus[c] = true
		}
		a, err := strconv.ParseUint(f[2], 0, 32)
		if err != nil {
			return nil, fmt.Errorf("msr dump line %d: bad register %.20q", n, f[2])
		}
		if e, ok := strings.CutPrefix(f[3], "error:"); ok {
			d.SetError(c, uint32(a), strings.TrimSpace(e))
			continue
		}
		v, err := strconv.ParseUint(f[3], 0, 64)
		if err != nil {
			return nil, fmt.Errorf("msr dump line %d: bad value %.30q", n, f[3])
		}
		d.Set(c, uint32(a), v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("msr dump: %w", err)
	}
	return d, nil
}

// ReadFrom reads registers from an open MSR device (/dev/cpu/N/msr).
func ReadFrom(f io.ReaderAt, addr uint32) (uint64, error) {
	var b [8]byte
	if _, err := f.ReadAt(b[:], int64(addr)); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// ReadCPU reads the given registers from one CPU's device file into d,
// recording each failure; more, when not nil, is called with the values
// read so far and returns further registers to read (the variable MTRRs,
// whose count IA32_MTRRCAP gives).
func ReadCPU(d *Dump, cpu int, dev string, addrs []uint32, more func(cpu int, d *Dump) []uint32) error {
	f, err := os.Open(dev)
	if err != nil {
		return err
	}
	defer f.Close()
	read := func(as []uint32) {
		for _, a := range as {
			v, err := ReadFrom(f, a)
			if err != nil {
				d.SetError(cpu, a, errText(err))
				continue
			}
			d.Set(cpu, a, v)
		}
	}
	read(addrs)
	if more != nil {
		read(more(cpu, d))
	}
	return nil
}

// errText is an error's reason without the path (it is the same for every
// register of a CPU).
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
