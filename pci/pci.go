// Package pci holds PCI configuration space as Linux shows it
// (/sys/bus/pci/devices/DDDD:BB:DD.F/config) and the text format in which
// a snapshot records it: each device's configuration bytes in hex, so that
// the checks that read registers (SMRAM and BIOS locks, PCIe link
// settings) run the same on the machine and offline.
//
// The dump format, one device per line, the bytes the kernel returned (64
// for an unprivileged reader, 256 or 4096 for root):
//
//	# fwcheck pci config 1
//	0000:00:00.0 8680c029070000...
//
// Reading config space needs no driver of fwcheck's own and is allowed
// under kernel lockdown, which refuses only writes. u-root's pkg/pci was
// weighed: it reads the same files but globs /sys itself, so it cannot be
// pointed at a test root or a snapshot; its vendor and device name tables
// would add a megabyte to the binary for names the reports do not need.
package pci

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Limits on a dump: no real machine has more than a few hundred PCI
// functions, and extended config space is 4096 bytes.
const (
	MaxDevices    = 4096
	MaxConfigSize = 4096
)

// Device is one PCI function's configuration space.
type Device struct {
	Address string // "0000:00:1f.0"
	Config  []byte
}

// Dump is the configuration space of every PCI function, sorted by address.
type Dump struct {
	Devices []Device
}

// ValidAddress reports whether s is a PCI address as sysfs names it:
// DDDD:BB:DD.F in lower-case hex.
func ValidAddress(s string) bool {
	if len(s) != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.' || s[11] < '0' || s[11] > '7' {
		return false
	}
	for i, c := range s[:10] {
		if i == 4 || i == 7 {
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Find returns the function at addr ("0000:00:00.0"), or nil.
func (d *Dump) Find(addr string) *Device {
	if d == nil {
		return nil
	}
	i := sort.Search(len(d.Devices), func(i int) bool { return d.Devices[i].Address >= addr })
	if i < len(d.Devices) && d.Devices[i].Address == addr {
		return &d.Devices[i]
	}
	return nil
}

// Add records a function's configuration bytes (at most MaxConfigSize),
// keeping the dump sorted. A second record of the same address replaces
// the first.
func (d *Dump) Add(addr string, config []byte) error {
	if !ValidAddress(addr) {
		return fmt.Errorf("pci: %.40q is not a PCI address", addr)
	}
	if len(config) > MaxConfigSize {
		config = config[:MaxConfigSize]
	}
	if e := d.Find(addr); e != nil {
		e.Config = append([]byte(nil), config...)
		return nil
	}
	if len(d.Devices) >= MaxDevices {
		return fmt.Errorf("pci: more than %d functions", MaxDevices)
	}
	d.Devices = append(d.Devices, Device{Address: addr, Config: append([]byte(nil), config...)})
	sort.Slice(d.Devices, func(i, j int) bool { return d.Devices[i].Address < d.Devices[j].Address })
	return nil
}

// Format writes the dump in its text format.
func (d *Dump) Format(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# fwcheck pci config 1")
	for _, dev := range d.Devices {
		fmt.Fprintf(bw, "%s %s\n", dev.Address, hex.EncodeToString(dev.Config))
	}
	return bw.Flush()
}

// Parse reads a dump written by Format. Damaged input is an error naming
// the line; it never yields more than MaxDevices functions of
// MaxConfigSize bytes each.
func Parse(b []byte) (*Dump, error) {
	d := &Dump{}
	line := 0
	for len(b) > 0 {
		var l []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			l, b = b, nil
		}
		line++
		s := strings.TrimSpace(string(l))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		addr, hx, ok := strings.Cut(s, " ")
		if !ok || !ValidAddress(addr) {
			return nil, fmt.Errorf("pci config line %d: %.60q is not \"ADDRESS HEX\"", line, s)
		}
		if len(hx) > 2*MaxConfigSize {
			return nil, fmt.Errorf("pci config line %d: %s holds more than %d bytes", line, addr, MaxConfigSize)
		}
		cfg, err := hex.DecodeString(hx)
		if err != nil {
			return nil, fmt.Errorf("pci config line %d: %s: %v", line, addr, err)
		}
		if err := d.Add(addr, cfg); err != nil {
			return nil, fmt.Errorf("pci config line %d: %v", line, err)
		}
	}
	return d, nil
}

// Register reads are bounded by what was recorded: a register beyond the
// bytes the kernel returned (an unprivileged read gives 64) is not there.

// U8 returns the byte at off, and whether it was recorded.
func (dev *Device) U8(off int) (uint8, bool) {
	if dev == nil || off < 0 || off+1 > len(dev.Config) {
		return 0, false
	}
	return dev.Config[off], true
}

// U16 returns the little-endian 16-bit register at off.
func (dev *Device) U16(off int) (uint16, bool) {
	if dev == nil || off < 0 || off+2 > len(dev.Config) {
		return 0, false
	}
	return binary.LittleEndian.Uint16(dev.Config[off:]), true
}

// U32 returns the little-endian 32-bit register at off.
func (dev *Device) U32(off int) (uint32, bool) {
	if dev == nil || off < 0 || off+4 > len(dev.Config) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(dev.Config[off:]), true
}

// ID returns the vendor and device IDs (0xFFFF when not recorded).
func (dev *Device) ID() (vendor, device uint16) {
	v, ok := dev.U16(0)
	if !ok {
		return 0xFFFF, 0xFFFF
	}
	dv, _ := dev.U16(2)
	return v, dv
}

// Class returns the 24-bit class code (base class, subclass, programming
// interface).
func (dev *Device) Class() uint32 {
	v, ok := dev.U32(8)
	if !ok {
		return 0
	}
	return v >> 8
}

// Capability returns the offset of the first capability with the given ID
// in the standard capability list, or 0. The walk is bounded: a list that
// loops or points outside the recorded bytes ends it.
func (dev *Device) Capability(id uint8) int {
	status, ok := dev.U16(6)
	if !ok || status&0x10 == 0 {
		return 0
	}
	p, ok := dev.U8(0x34)
	for steps := 0; ok && p >= 0x40 && steps < 48; steps++ {
		off := int(p &^ 3)
		cid, ok1 := dev.U8(off)
		next, ok2 := dev.U8(off + 1)
		if !ok1 || !ok2 {
			return 0
		}
		if cid == id {
			return off
		}
		p, ok = next, true
	}
	return 0
}
