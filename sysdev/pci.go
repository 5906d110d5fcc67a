package sysdev

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// PCI configuration space as sysfs exposes it
// (/sys/bus/pci/devices/DDDD:BB:DD.F/config: 64 bytes unprivileged, 256 or
// 4096 as root), and the PCI Express capability's device and link
// registers (PCI Express Base Specification 6.0 §7.5.3). A device's
// place in the hierarchy comes from its sysfs path: the device directory
// whose parent is another PCI device is below that bridge.
//
// u-root's pkg/pci reads the same files and decodes the header (vendor,
// class, BARs, bridge buses), but not the capability list, and
// fwcheck needs only the capability walk and six registers, with
// bounds on hostile data; so this file decodes them itself.

// PCIDevice is one function's configuration space and its parent bridge.
type PCIDevice struct {
	// Addr is "DDDD:BB:DD.F"; Parent the address of the bridge above, or
	// "" on a root bus.
	Addr, Parent string
	Config       []byte
}

// PCIe is what a function's PCI Express capability says.
type PCIe struct {
	// Offset is the capability's place in configuration space.
	Offset int
	// PortType is the Device/Port Type (PCIe Capabilities bits 7:4).
	PortType int
	// DevCap, DevCtl, LinkCap, LinkCtl are the registers (0 when the
	// capability is too short to hold them: HasLink false).
	DevCap  uint32
	DevCtl  uint16
	LinkCap uint32
	LinkCtl uint16
	HasLink bool
}

// Device/Port types (PCI Express Base 6.0 §7.5.3.2).
const (
	PCIeEndpoint       = 0x0
	PCIeLegacyEndpoint = 0x1
	PCIeRootPort       = 0x4
	PCIeUpstreamPort   = 0x5
	PCIeDownstreamPort = 0x6
	PCIeToPCIBridge    = 0x7
	PCIToPCIeBridge    = 0x8
	PCIeRCiEP          = 0x9
	PCIeEventCollector = 0xA
)

// PortTypeName names a Device/Port type.
func PortTypeName(t int) string {
	switch t {
	case PCIeEndpoint:
		return "endpoint"
	case PCIeLegacyEndpoint:
		return "legacy endpoint"
	case PCIeRootPort:
		return "root port"
	case PCIeUpstreamPort:
		return "switch upstream port"
	case PCIeDownstreamPort:
		return "switch downstream port"
	case PCIeToPCIBridge:
		return "PCIe-to-PCI bridge"
	case PCIToPCIeBridge:
		return "PCI-to-PCIe bridge"
	case PCIeRCiEP:
		return "root complex integrated endpoint"
	case PCIeEventCollector:
		return "root complex event collector"
	}
	return fmt.Sprintf("type %d", t)
}

// DownstreamPort reports whether the type is the upper end of a link.
func DownstreamPort(t int) bool {
	return t == PCIeRootPort || t == PCIeDownstreamPort || t == PCIToPCIeBridge
}

// MaxPayload is Device Control's Max_Payload_Size (bits 7:5) as an
// encoding (0 = 128 bytes … 5 = 4096; 6 and 7 reserved).
func (c *PCIe) MaxPayload() int { return int(c.DevCtl>>5) & 7 }

// MaxReadRequest is Device Control's Max_Read_Request_Size (bits 14:12),
// encoded as MaxPayload.
func (c *PCIe) MaxReadRequest() int { return int(c.DevCtl>>12) & 7 }

// MaxPayloadSupported is Device Capabilities' Max_Payload_Size Supported
// (bits 2:0).
func (c *PCIe) MaxPayloadSupported() int { return int(c.DevCap & 7) }

// ASPMSupport is Link Capabilities' ASPM Support (bits 11:10: 1 L0s, 2 L1).
func (c *PCIe) ASPMSupport() int { return int(c.LinkCap>>10) & 3 }

// ASPMControl is Link Control's ASPM Control (bits 1:0: 1 L0s, 2 L1).
func (c *PCIe) ASPMControl() int { return int(c.LinkCtl) & 3 }

// PayloadBytes is the size an MPS/MRRS encoding stands for, or 0 for a
// reserved one.
func PayloadBytes(enc int) int {
	if enc < 0 || enc > 5 {
		return 0
	}
	return 128 << enc
}

// ASPMName names ASPM bits ("L0s L1", "disabled").
func ASPMName(v int) string {
	var s []string
	if v&1 != 0 {
		s = append(s, "L0s")
	}
	if v&2 != 0 {
		s = append(s, "L1")
	}
	if len(s) == 0 {
		return "disabled"
	}
	return strings.Join(s, " ")
}

// PCIeCap walks the capability list of a configuration space for the PCI
// Express capability (ID 0x10). It returns nil when the function has none,
// or when the space is too short to show it (64 bytes unprivileged); err
// says what is malformed (a capability pointer into the header, a loop).
func PCIeCap(cfg []byte) (*PCIe, error) {
	if len(cfg) < 0x40 {
		return nil, fmt.Errorf("configuration space of %d bytes, shorter than the 64-byte header", len(cfg))
	}
	if binary.LittleEndian.Uint16(cfg[0x06:])&0x10 == 0 {
		return nil, nil // no capability list
	}
	ptr := int(cfg[0x34]) &^ 3
	seen := map[int]bool{}
	for n := 0; ptr != 0; n++ {
		switch {
		case n >= 48:
			return nil, fmt.Errorf("capability list longer than 48 entries")
		case ptr < 0x40 || ptr > 0xFC:
			return nil, fmt.Errorf("capability pointer 0x%02x outside 0x40-0xfc", ptr)
		case seen[ptr]:
			return nil, fmt.Errorf("capability list loops back to 0x%02x", ptr)
		}
		seen[ptr] = true
		if ptr+2 > len(cfg) {
			return nil, nil // beyond what could be read
		}
		if cfg[ptr] == 0x10 {
			return decodePCIe(cfg, ptr), nil
		}
		ptr = int(cfg[ptr+1]) &^ 3
	}
	return nil, nil
}

func decodePCIe(cfg []byte, off int) *PCIe {
	c := &PCIe{Offset: off}
	u16 := func(o int) uint16 {
		if off+o+2 > len(cfg) {
			return 0
		}
		return binary.LittleEndian.Uint16(cfg[off+o:])
	}
	u32 := func(o int) uint32 {
		if off+o+4 > len(cfg) {
			return 0
		}
		return binary.LittleEndian.Uint32(cfg[off+o:])
	}
	c.PortType = int(u16(2)>>4) & 0xF
	c.DevCap, c.DevCtl = u32(4), u16(8)
	c.HasLink = off+0x14 <= len(cfg)
	c.LinkCap, c.LinkCtl = u32(0x0C), u16(0x10)
	return c
}

var bdfRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)
})

// IsPCIAddr reports whether s is a PCI function address ("0000:00:1c.0").
func IsPCIAddr(s string) bool { return bdfRE().MatchString(s) }

// ParentOf returns the PCI address above addr in a sysfs device path
// ("../../../devices/pci0000:00/0000:00:1c.0/0000:01:00.0" gives
// "0000:00:1c.0"), or "" when addr is on a root bus.
func ParentOf(link string) string {
	parts := strings.Split(link, "/")
	if len(parts) < 2 {
		return ""
	}
	if p := parts[len(parts)-2]; IsPCIAddr(p) {
		return p
	}
	return ""
}

// Bounds of a recorded PCI configuration dump.
const (
	MaxPCIDevices = 4096
	pciConfigMax  = 4096
)

// FormatPCI writes devices one a line: "ADDR PARENT HEX", PARENT "-" on a
// root bus.
func FormatPCI(devs []PCIDevice) []byte {
	var b bytes.Buffer
	b.WriteString("# fwcheck pci config 1: ADDRESS PARENT(- on a root bus) CONFIG-HEX\n")
	for _, d := range devs {
		p := d.Parent
		if p == "" {
			p = "-"
		}
		fmt.Fprintf(&b, "%s %s %s\n", d.Addr, p, hex.EncodeToString(d.Config))
	}
	return b.Bytes()
}

// ParsePCI reads what FormatPCI wrote, sorted by address.
func ParsePCI(b []byte) ([]PCIDevice, error) {
	var out []PCIDevice
	seen := map[string]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if len(out) >= MaxPCIDevices {
			return nil, fmt.Errorf("pci config: more than %d devices", MaxPCIDevices)
		}
		f := strings.Fields(line)
		if len(f) != 3 || !IsPCIAddr(f[0]) || (f[1] != "-" && !IsPCIAddr(f[1])) || seen[f[0]] || f[0] == f[1] {
			return nil, fmt.Errorf("pci config line %d: %.60q", i+1, line)
		}
		if len(f[2]) > 2*pciConfigMax {
			return nil, fmt.Errorf("pci config line %d: more than %d bytes", i+1, pciConfigMax)
		}
		cfg, err := hex.DecodeString(f[2])
		if err != nil {
			return nil, fmt.Errorf("pci config line %d: %v", i+1, err)
		}
		seen[f[0]] = true
		d := PCIDevice{Addr: f[0], Config: cfg}
		if f[1] != "-" {
			d.Parent = f[1]
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out, nil
}

// Register reads are bounded by what was recorded: a register beyond the
// bytes the kernel returned (an unprivileged read gives 64) is not there.

// U8 returns the byte at off, and whether it was recorded.
func (d *PCIDevice) U8(off int) (uint8, bool) {
	if d == nil || off < 0 || off+1 > len(d.Config) {
		return 0, false
	}
	return d.Config[off], true
}

// U16 returns the little-endian 16-bit register at off.
func (d *PCIDevice) U16(off int) (uint16, bool) {
	if d == nil || off < 0 || off+2 > len(d.Config) {
		return 0, false
	}
	return binary.LittleEndian.Uint16(d.Config[off:]), true
}

// U32 returns the little-endian 32-bit register at off.
func (d *PCIDevice) U32(off int) (uint32, bool) {
	if d == nil || off < 0 || off+4 > len(d.Config) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(d.Config[off:]), true
}

// ID returns the vendor and device IDs (0xFFFF each when not recorded).
func (d *PCIDevice) ID() (vendor, device uint16) {
	v, ok := d.U16(0)
	if !ok {
		return 0xFFFF, 0xFFFF
	}
	dv, _ := d.U16(2)
	return v, dv
}

// Class returns the 24-bit class code: base class, subclass, programming
// interface (0 when not recorded).
func (d *PCIDevice) Class() uint32 {
	v, ok := d.U32(8)
	if !ok {
		return 0
	}
	return v >> 8
}
