package chipset

// BIOSControl says where an LPC bridge keeps BIOS_CNTL, the register that
// gates writes to the BIOS flash: BIOSWE (bit 0) enables writes, BLE
// (bit 1) makes setting BIOSWE raise an SMI so SMM can refuse it, and
// SMM_BWP (bit 5, where HasSMMBWP) allows writes only from SMM.
type BIOSControl struct {
	Offset    int
	HasSMMBWP bool
}

// BIOS_CNTL bits.
const (
	BIOSWE = 1 << 0
	BLE    = 1 << 1
	SMMBWP = 1 << 5
)

// LPCBridge is one family of LPC bridges (PCI 00:1f.0).
type LPCBridge struct {
	Name     string
	Vendor   uint16
	From, To uint16 // device ID range, inclusive
	Control  BIOSControl
	Source   string
}

// The LPC bridges whose BIOS_CNTL fwcheck reads. From the 300 Series on,
// Intel moved the register to the SPI controller (00:1f.5); those are not
// in the table yet, and are NOT CHECKED with their ID.
var lpcBridges = []LPCBridge{
	{Name: "Intel ICH9 (QEMU q35)", Vendor: 0x8086, From: 0x2910, To: 0x291F, Control: BIOSControl{Offset: 0xDC},
		Source: "Intel I/O Controller Hub 9 datasheet (316972), LPC BIOS_CNTL (DCh): BIOSWE, BLE; no SMM_BWP"},
	{Name: "Intel 6 Series PCH (Cougar Point)", Vendor: 0x8086, From: 0x1C40, To: 0x1C5F, Control: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
		Source: "Intel 6 Series Chipset datasheet (324645), LPC BIOS_CNTL (DCh)"},
	{Name: "Intel 7 Series PCH (Panther Point)", Vendor: 0x8086, From: 0x1E40, To: 0x1E5F, Control: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
		Source: "Intel 7 Series Chipset datasheet (326776), LPC BIOS_CNTL (DCh)"},
	{Name: "Intel 8 Series PCH (Lynx Point)", Vendor: 0x8086, From: 0x8C40, To: 0x8C5F, Control: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
		Source: "Intel 8 Series Chipset datasheet (328904), LPC BIOS_CNTL (DCh)"},
	{Name: "Intel 8 Series PCH-LP (Lynx Point-LP)", Vendor: 0x8086, From: 0x9C40, To: 0x9C47, Control: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
		Source: "Intel 8 Series Chipset datasheet (328904), LPC BIOS_CNTL (DCh)"},
	{Name: "Intel 9 Series PCH (Wildcat Point)", Vendor: 0x8086, From: 0x8CC0, To: 0x8CDF, Control: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
		Source: "Intel 9 Series Chipset datasheet (330550), LPC BIOS_CNTL (DCh)"},
	{Name: "Intel 100 Series PCH (Sunrise Point)", Vendor: 0x8086, From: 0xA140, To: 0xA15F, Control: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
		Source: "Intel 100 Series Chipset datasheet vol. 2 (332691), LPC/eSPI BIOS_CNTL (DCh)"},
	{Name: "Intel 100 Series PCH-LP (Sunrise Point-LP)", Vendor: 0x8086, From: 0x9D40, To: 0x9D5F, Control: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
		Source: "Intel 6th Generation Core processor I/O datasheet vol. 2, LPC/eSPI BIOS_CNTL (DCh)"},
	{Name: "Intel 200 Series PCH (Union Point)", Vendor: 0x8086, From: 0xA2C0, To: 0xA2DF, Control: BIOSControl{Offset: 0xDC, HasSMMBWP: true},
		Source: "Intel 200 Series Chipset datasheet vol. 2, LPC/eSPI BIOS_CNTL (DCh)"},
}

// LookupLPCBridge returns the LPC bridge family of these IDs, or nil.
func LookupLPCBridge(vendor, device uint16) *LPCBridge {
	for i := range lpcBridges {
		b := &lpcBridges[i]
		if b.Vendor == vendor && device >= b.From && device <= b.To {
			return b
		}
	}
	return nil
}
