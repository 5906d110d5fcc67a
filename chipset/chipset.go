// Package chipset holds, as data, where chipsets keep the protection
// registers fwcheck's security checks read: the host bridge's SMRAM and
// TSEG locks (PCI configuration space), the LPC or SPI function's BIOS_CNTL,
// and the SPI controller's memory-mapped flash protection registers (how
// its register block is found, and the offsets and field widths in it):
// which device (by PCI vendor and device ID) has which register at which
// offset, and the document each fact comes from. A device not in the
// tables is unknown, and the checks say so with its PCI ID rather than
// guess: register offsets move between generations.
package chipset

import "fmt"

// SMRAMLayout says where a host bridge keeps its SMRAM controls. An
// offset of 0 means the bridge has no such register.
type SMRAMLayout struct {
	// SMRAMC is the legacy SMRAM control register (one byte): D_OPEN
	// (bit 6), D_CLS (bit 5), D_LCK (bit 4), G_SMRAME (bit 3).
	SMRAMC int
	// ESMRAMC is the extended SMRAM control (one byte) of the ICH9-era
	// MCH: H_SMRAME (bit 7), TSEG_SZ (bits 2:1), T_EN (bit 0).
	ESMRAMC int
	// TSEGMB and BGSM are the 32-bit TSEG and graphics-stolen memory base
	// registers of Core-family host bridges, bit 0 of each its lock.
	TSEGMB, BGSM int
}

// SMRAMC and ESMRAMC bits.
const (
	DOpen   = 1 << 6
	DCls    = 1 << 5
	DLck    = 1 << 4
	GSMRAME = 1 << 3
	HSMRAME = 1 << 7
	TEn     = 1 << 0
)

// HostBridge is one family of host bridges.
type HostBridge struct {
	Name    string
	Vendor  uint16
	Devices []uint16
	SMRAM   SMRAMLayout
	// Source is the public document the layout is taken from.
	Source string
}

// Intel Core host bridges from Sandy Bridge to Coffee Lake share one
// layout; their device IDs are those Linux's ie31200_edac and intel-agp
// drivers bind to, and QEMU's q35 is the MCH of Intel's 3 Series (ICH9)
// chipset as QEMU models it.
var hostBridges = []HostBridge{
	{
		Name: "QEMU q35 (Intel 82G33/ICH9 MCH)", Vendor: 0x8086, Devices: []uint16{0x29C0},
		SMRAM:  SMRAMLayout{SMRAMC: 0x9D, ESMRAMC: 0x9E},
		Source: "Intel 3 Series Express Chipset Family datasheet (316966), host bridge SMRAM (9Dh) and ESMRAMC (9Eh); QEMU hw/pci-host/q35 implements the same bits",
	},
	{
		Name: "Intel Core 2nd-9th generation host bridge", Vendor: 0x8086,
		Devices: []uint16{
			0x0100, 0x0104, 0x0108, 0x010C, // Sandy Bridge
			0x0150, 0x0154, 0x0158, 0x015C, // Ivy Bridge
			0x0C00, 0x0C04, 0x0C08, 0x0A04, 0x0D04, // Haswell
			0x1604, 0x1614, // Broadwell
			0x1900, 0x1904, 0x190C, 0x190F, 0x1910, 0x1918, 0x191F, // Skylake
			0x5904, 0x590C, 0x590F, 0x5910, 0x5918, 0x591F, // Kaby Lake
			0x3E0F, 0x3E10, 0x3E18, 0x3E1F, 0x3E30, 0x3E31, 0x3E32, 0x3E33, 0x3EC2, 0x3EC4, 0x3EC6, 0x3ECA, 0x3ECC, 0x3ED0, // Coffee Lake
		},
		SMRAM:  SMRAMLayout{SMRAMC: 0x88, TSEGMB: 0xB8, BGSM: 0xB4},
		Source: "Intel Core processor family datasheets, volume 2 (2nd to 9th generation), host bridge/DRAM registers SMRAMC (88h), BGSM (B4h), TSEGMB (B8h)",
	},
}

// LookupHostBridge returns the layout of the host bridge with these IDs,
// or nil when the table does not know it.
func LookupHostBridge(vendor, device uint16) *HostBridge {
	for i := range hostBridges {
		h := &hostBridges[i]
		if h.Vendor != vendor {
			continue
		}
		for _, d := range h.Devices {
			if d == device {
				return h
			}
		}
	}
	return nil
}

// ID formats a PCI vendor:device pair as lspci does ("8086:29c0").
func ID(vendor, device uint16) string { return fmt.Sprintf("%04x:%04x", vendor, device) }
