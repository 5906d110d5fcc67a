// Package biosprotect checks, read-only, that the BIOS flash cannot be
// written from the OS: in the LPC bridge's BIOS_CNTL, BIOSWE clear, BLE
// set (an attempt to set BIOSWE traps to SMM, which refuses it) and, where
// the chipset has it, SMM_BWP set (writes only from SMM). This is the
// register half of flash protection; the SPI controller's FLOCKDN and
// protected ranges (PR0-PR4) live in the SPI BAR, which needs /dev/mem,
// and are not read yet: the result says so.
//
// Evidence: the LPC bridge's configuration space (PCI 00:1f.0, input
// pci-config; root reads past 64 bytes, lockdown allows it). Register
// offsets per chipset are data in package chipset; a bridge not there is
// NOT CHECKED with its PCI ID.
//
// Labels and their fwupd HSI attributes:
//
//	BIOSWriteEnabled   BIOSWE set while the OS runs: org.fwupd.hsi.Spi.Bioswe (HSI-1)
//	BIOSLockDisabled   BLE clear: org.fwupd.hsi.Spi.Ble (HSI-1)
//	SMMBWPDisabled     SMM_BWP clear: org.fwupd.hsi.Spi.SmmBwp (HSI-1)
//
// QEMU's ICH9 model has no BIOS_CNTL (it reads 0) and no SPI controller:
// its flash is guarded by the pflash device itself (secure=on with OVMF's
// SMM build), so a zero register under a detected hypervisor is explained,
// and the SPI half is information there, not a part left unchecked. None of the labels has
// a real hardware occurrence in the project's data yet: each is a warning
// until one is seen.
package biosprotect

import (
	"fmt"

	"github.com/fwcheck/fwcheck/chipset"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

var (
	labelWE = tests.NewLabel("BIOSWriteEnabled", tests.High, "Intel PCH datasheets, LPC BIOS_CNTL bit 0 (BIOSWE)",
		"The BIOS flash is writable from the OS right now (BIOS_CNTL.BIOSWE set): any ring-0 code can replace the "+
			"firmware. Firmware must leave BIOSWE clear when it boots the OS and set it only inside SMM for an update.")
	labelBLE = tests.NewLabel("BIOSLockDisabled", tests.High, "Intel PCH datasheets, LPC BIOS_CNTL bit 1 (BLE)",
		"BIOS_CNTL.BLE is clear, so the OS can set BIOSWE and write the flash without SMM being asked. Set BLE "+
			"(and handle the SMI it raises) before booting the OS.")
	labelBWP = tests.NewLabel("SMMBWPDisabled", tests.High, "Intel PCH datasheets, LPC BIOS_CNTL bit 5 (SMM_BWP)",
		"BIOS_CNTL.SMM_BWP is clear: once BIOSWE is set, code outside SMM may write the flash (the race that "+
			"CVE-2015-3692-class attacks use). Set SMM_BWP so that only SMM can write it.")
)

// Check is the bios-write-protect check.
var Check = &tests.Check{
	ID: "bios-write-protect", Title: "BIOS flash not writable from the OS (BIOS_CNTL: BIOSWE clear, BLE and SMM_BWP set)",
	Category: tests.Security,
	Arch:     tests.X86,
	Optional: []input.Decl{input.PCIConfig, input.DMI, input.KernelLog, input.CPUInfo},
	Spec:     "Intel ICH/PCH datasheets, LPC BIOS_CNTL (DCh)",
	Labels:   []*tests.Label{labelWE, labelBLE, labelBWP},
	Run:      run,
}

const lpc = "0000:00:1f.0"

func run(p *tests.Pass) error {
	cfg, err := tests.Load(p, input.PCIConfig)
	if cfg == nil {
		p.Skip("PCI configuration space not read: %v", err)
		return nil
	}
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	cpus, _ := tests.Load(p, input.CPUInfo)
	why := vm.Evidence(dmi, recs, cpus)
	dev := cfg.Find(lpc)
	if dev == nil {
		p.NotApplicable("no LPC bridge at PCI %s (not an Intel PC chipset)", lpc)
		return nil
	}
	ven, id := dev.ID()
	if ven != 0x8086 {
		p.NotApplicable("the function at %s is %s, not an Intel LPC bridge", lpc, chipset.ID(ven, id))
		return nil
	}
	b := chipset.LookupLPCBridge(ven, id)
	if b == nil {
		p.NotChecked("BIOS_CNTL", fmt.Sprintf("LPC bridge %s is not in fwcheck's chipset table (from the 300 Series on, BIOS_CNTL is in the SPI controller)", chipset.ID(ven, id)),
			"report the chipset with its datasheet so its layout can be added")
		return nil
	}
	v, ok := dev.U8(b.Control.Offset)
	if !ok {
		p.NotChecked("BIOS_CNTL", fmt.Sprintf("%s: only %d bytes of configuration space were readable (the kernel gives the registers past 64 bytes to root only)", b.Name, len(dev.Config)), "run as root")
		return nil
	}
	regs := fmt.Sprintf("%s: BIOS_CNTL(0x%02x)=0x%02x", b.Name, b.Control.Offset, v)
	fail := func(l *tests.Label, what string) {
		switch {
		case v == 0 && why != "":
			p.Explained(l, why+": QEMU's chipset model has no BIOS_CNTL (it reads 0); its flash is write-protected by the pflash device itself", "%s: %s", regs, what)
		default:
			// no real reading has shown any of the labels yet: warnings
			// until one does (the project's rule for new labels)
			p.Warn(l, "%s: %s", regs, what)
		}
	}
	ok = true
	if v&chipset.BIOSWE != 0 {
		fail(labelWE, "BIOSWE set")
		ok = false
	}
	if v&chipset.BLE == 0 {
		fail(labelBLE, "BLE clear")
		ok = false
	}
	if b.Control.HasSMMBWP && v&chipset.SMMBWP == 0 {
		fail(labelBWP, "SMM_BWP clear")
		ok = false
	}
	if ok {
		p.Passed("%s: flash writes locked to SMM", regs)
	}
	if v == 0 && why != "" {
		// The chipset model has no BIOS_CNTL, and no SPI controller either.
		p.Info(nil, "SPI flash locks: %s: the VM's chipset model has no SPI controller; its flash is the hypervisor's pflash device", why)
		return nil
	}
	p.NotChecked("SPI flash locks (FLOCKDN, PR0-PR4, descriptor access)", "they are in the SPI controller's memory BAR, which fwcheck does not read yet", "")
	return nil
}
