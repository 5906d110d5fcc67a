package chipset

import "fmt"

// SPILayout says where an Intel SPI controller keeps, in its memory-mapped
// register block (the SPI BAR), the registers that protect the flash. All
// offsets are from the start of the block; every register is 32 bits
// wide and read as such.
type SPILayout struct {
	// BFPR is the BIOS flash primary region (base and limit of the BIOS
	// region as the descriptor sets it).
	BFPR int
	// HSFS is the hardware sequencing status (16 bits, in the low half of
	// HSFSTS_CTL on 100 Series and later): FLOCKDN, FDV, FDOPSS.
	HSFS int
	// FRAP is the BIOS master's region access: BRRA (bits 7:0) and BRWA
	// (bits 15:8), one bit per flash region.
	FRAP int
	// FREG0 is flash region 0 (the descriptor); region n is at FREG0+4n.
	FREG0 int
	// PR0 is the first protected range register; NPR of them follow.
	PR0, NPR int
	// AddrBits is the width of the base and limit fields of FREGn, BFPR
	// and PRn, which hold address bits 12 and up: 13 (a 32 MiB flash
	// space) before the 100 Series, 15 (128 MiB) from it on.
	AddrBits int
}

// Offsets returns every register offset the layout names, in ascending
// order: what a reader records.
func (l SPILayout) Offsets() []int {
	out := []int{l.BFPR, l.HSFS, l.FRAP}
	for i := 0; i < NRegions; i++ {
		out = append(out, l.FREG0+4*i)
	}
	for i := 0; i < l.NPR; i++ {
		out = append(out, l.PR0+4*i)
	}
	return out
}

// Range decodes a base/limit register (BFPR, FREGn, PRn): base in the low
// field, limit in the field from bit 16, each holding address bits 12
// and up; the limit is inclusive of its 4 KiB block. A region whose base
// is above its limit is unused (ok false).
func (l SPILayout) Range(v uint32) (base, limit uint64, ok bool) {
	mask := uint32(1)<<l.AddrBits - 1
	base = uint64(v&mask) << 12
	limit = uint64(v>>16&mask)<<12 | 0xFFF
	return base, limit, base <= limit
}

// HSFS bits.
const (
	FLOCKDN = 1 << 15 // flash configuration lock-down
	FDV     = 1 << 14 // flash descriptor valid
	FDOPSS  = 1 << 13 // descriptor override pin-strap status: 1 means no override
)

// Protected range register bits.
const (
	PRWriteProtect = 1 << 31 // WPE
	PRReadProtect  = 1 << 15 // RPE
)

// Flash regions (FREGn and the FRAP bits).
const (
	RegionDescriptor = 0
	RegionBIOS       = 1
	RegionME         = 2
	RegionGbE        = 3
	RegionPlatform   = 4
	// NRegions is how many regions fwcheck reads (the five every
	// generation has).
	NRegions = 5
)

// RegionName names flash region n.
func RegionName(n int) string {
	switch n {
	case RegionDescriptor:
		return "descriptor"
	case RegionBIOS:
		return "BIOS"
	case RegionME:
		return "ME"
	case RegionGbE:
		return "GbE"
	case RegionPlatform:
		return "platform data"
	}
	return fmt.Sprintf("region %d", n)
}

// SPIWhere says how the SPI BAR is found.
type SPIWhere int

const (
	// SPIBehindRCBA: the SPI registers are at RCBA+3800h, RCBA being the
	// LPC bridge's root complex base address (config F0h, bit 0 enable,
	// bits 31:14 the base). The table's IDs are the LPC bridge's.
	SPIBehindRCBA SPIWhere = iota
	// SPIFunction: the SPI controller is PCI function 00:1f.5, its BAR0
	// (config 10h) the register block and BIOS_CNTL at its DCh. The
	// table's IDs are the SPI function's.
	SPIFunction
)

// Where the SPI controller lives.
const (
	RCBAOffset   = 0xF0   // LPC bridge config: RCBA
	RCBASPI      = 0x3800 // SPI registers' offset from RCBA
	RCBAEnable   = 1 << 0
	RCBABaseMask = 0xFFFFC000
	SPIBAR0      = 0x10 // SPI function config: BAR0
	SPIBARMask   = 0xFFFFF000
)

// SPIController is one family of Intel SPI controllers.
type SPIController struct {
	Name     string
	Vendor   uint16
	From, To uint16 // device ID range, inclusive (of the LPC bridge or the SPI function, see Where)
	Where    SPIWhere
	Layout   SPILayout
	// BIOSControl is BIOS_CNTL in the SPI function's configuration space
	// (SPIFunction only).
	BIOSControl BIOSControl
	Source      string
}

// ich9Style is the register block of the 6 to 9 Series PCHs (and of the
// ICH9/ICH10 before them): BFPR 00h, HSFS 04h, FRAP 50h, FREG0-4 54h-64h,
// PR0-PR4 74h-84h, 13-bit address fields.
var ich9Style = SPILayout{BFPR: 0x00, HSFS: 0x04, FRAP: 0x50, FREG0: 0x54, PR0: 0x74, NPR: 5, AddrBits: 13}

// pch100Style is the register block from the 100 Series on: BFPREG 00h,
// HSFSTS_CTL 04h, FRAP 50h, FREG0.. 54h.., FPR0-FPR4 84h-94h, 15-bit
// address fields.
var pch100Style = SPILayout{BFPR: 0x00, HSFS: 0x04, FRAP: 0x50, FREG0: 0x54, PR0: 0x84, NPR: 5, AddrBits: 15}

// The SPI controllers fwcheck reads. The PCI-function device IDs are
// those Linux's spi-intel-pci driver binds with the Cannon Lake register
// layout (FPR0 at 84h); 100 and 200 Series desktop PCHs whose SPI function
// is not listed are NOT CHECKED with their ID, never guessed.
var spiControllers = []SPIController{
	{Name: "Intel 6 Series PCH SPI (RCBA+3800h)", Vendor: 0x8086, From: 0x1C40, To: 0x1C5F, Where: SPIBehindRCBA, Layout: ich9Style,
		Source: "Intel 6 Series Chipset datasheet (324645), LPC RCBA (F0h) and SPI memory-mapped registers at RCBA+3800h"},
	{Name: "Intel 7 Series PCH SPI (RCBA+3800h)", Vendor: 0x8086, From: 0x1E40, To: 0x1E5F, Where: SPIBehindRCBA, Layout: ich9Style,
		Source: "Intel 7 Series Chipset datasheet (326776), LPC RCBA (F0h) and SPI memory-mapped registers at RCBA+3800h"},
	{Name: "Intel 8 Series PCH SPI (RCBA+3800h)", Vendor: 0x8086, From: 0x8C40, To: 0x8C5F, Where: SPIBehindRCBA, Layout: ich9Style,
		Source: "Intel 8 Series Chipset datasheet (328904), LPC RCBA (F0h) and SPI memory-mapped registers at RCBA+3800h"},
	{Name: "Intel 8 Series PCH-LP SPI (RCBA+3800h)", Vendor: 0x8086, From: 0x9C40, To: 0x9C47, Where: SPIBehindRCBA, Layout: ich9Style,
		Source: "Intel 8 Series Chipset datasheet (328904), LPC RCBA (F0h) and SPI memory-mapped registers at RCBA+3800h"},
	{Name: "Intel 9 Series PCH SPI (RCBA+3800h)", Vendor: 0x8086, From: 0x8CC0, To: 0x8CDF, Where: SPIBehindRCBA, Layout: ich9Style,
		Source: "Intel 9 Series Chipset datasheet (330550), LPC RCBA (F0h) and SPI memory-mapped registers at RCBA+3800h"},
}

// spiFunctions are the SPI controllers that are PCI function 00:1f.5,
// by the function's device ID.
var spiFunctions = []struct {
	ID   uint16
	Name string
}{
	{0x9D24, "Intel 100/200 Series PCH"},
	{0xA2A4, "Intel 200 Series PCH (Union Point)"},
	{0xA324, "Intel 300 Series PCH (Cannon Point-H)"},
	{0x9DA4, "Intel 300 Series PCH-LP (Cannon Point-LP)"},
	{0xA3A4, "Intel 400 Series PCH-V (Comet Lake-V)"},
	{0x02A4, "Intel 400 Series PCH-LP (Comet Lake-LP)"},
	{0x06A4, "Intel 400 Series PCH-H (Comet Lake-H)"},
	{0x34A4, "Intel 495 Series PCH-LP (Ice Lake-LP)"},
	{0xA0A4, "Intel 500 Series PCH-LP (Tiger Lake-LP)"},
	{0x43A4, "Intel 500 Series PCH-H (Tiger Lake-H)"},
	{0x51A4, "Intel 600 Series PCH-P (Alder Lake-P)"},
	{0x54A4, "Intel 600 Series PCH-M (Alder Lake-M)"},
	{0x7AA4, "Intel 600 Series PCH-S (Alder Lake-S)"},
	{0x7A24, "Intel 700 Series PCH-S (Raptor Lake-S)"},
	{0x7E23, "Intel Meteor Lake-P SoC"},
}

// LookupSPIBehindRCBA returns the SPI controller of an LPC bridge with
// these IDs that keeps it behind RCBA, or nil.
func LookupSPIBehindRCBA(vendor, device uint16) *SPIController {
	for i := range spiControllers {
		c := &spiControllers[i]
		if c.Where == SPIBehindRCBA && c.Vendor == vendor && device >= c.From && device <= c.To {
			return c
		}
	}
	return nil
}

// LookupSPIFunction returns the SPI controller that is the PCI function
// with these IDs (at 00:1f.5), or nil.
func LookupSPIFunction(vendor, device uint16) *SPIController {
	if vendor != 0x8086 {
		return nil
	}
	for _, f := range spiFunctions {
		if f.ID == device {
			return &SPIController{
				Name: f.Name + " SPI (00:1f.5)", Vendor: vendor, From: device, To: device, Where: SPIFunction, Layout: pch100Style,
				BIOSControl: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
				Source: "Intel 100 Series Chipset datasheet vol. 2 (332691) and 300 Series datasheet vol. 2 (337348), SPI (D31:F5) BAR0 (10h), " +
					"BIOS_CNTL (DCh; bit 5 named EISS there) and the SPI BAR registers BFPREG, HSFSTS_CTL, FRAP, FREGn, FPR0-4; " +
					"device IDs as Linux's spi-intel-pci driver lists them",
			}
		}
	}
	return nil
}
