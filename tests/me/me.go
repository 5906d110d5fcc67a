// Package me checks, read-only, that the Intel Management Engine (CSME)
// left the factory in production state: out of manufacturing mode, no
// security-override strap or debug mode, firmware in normal operation. A
// machine shipped in manufacturing mode lets software rewrite the ME
// region of the flash, and with it the code that runs before the CPU does.
//
// Evidence: the ME's host firmware status register HFSTS1, from the mei
// driver (/sys/class/mei/mei0/fw_status, with the firmware version) or
// from the HECI function's configuration space (PCI 00:16.0, HFSTS1 at
// 40h; root reads it, lockdown allows it). The HFSTS1 fields read are those
// of CSME 11 and later (Skylake on), as fwupd and coreboot document them:
//
//	bits 3:0   current working state (5 = normal; 2 = recovery;
//	           4 = disabled, as the HAP bit or a setup option leaves it)
//	bit 4      manufacturing mode
//	bits 19:16 operation mode (0 normal, 2 debug, 3 soft temporary
//	           disable, 4 security override by jumper, 5 by HECI message,
//	           7 enhanced debug)
//
// Labels and their fwupd HSI attributes:
//
//	MEManufacturingMode  org.fwupd.hsi.Mei.ManufacturingMode (HSI-1)
//	MEOverrideStrap      org.fwupd.hsi.Mei.OverrideStrap (HSI-1)
//	MEDebugMode          (no HSI attribute) operation mode debug
//	MENotNormal          (no HSI attribute) working state recovery, test
//	                     or initialising while the OS runs
//
// None has a real occurrence in the project's data yet: each is a warning
// until one is seen. The three fields read sit at the same bits in the
// layouts coreboot gives for ME 8 to 10 and fwupd and coreboot give for
// CSME 11 and later; the other HFSTS registers differ between generations
// and are not judged.
package me

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

var (
	labelMfg = tests.NewLabel("MEManufacturingMode", tests.High, "Intel CSME HFSTS1 bit 4 (fwupd HSI Mei.ManufacturingMode)",
		"The ME is still in manufacturing mode: the flash descriptor and ME region stay writable and "+
			"end-of-manufacturing fuses are not set. The OEM's production flow must close manufacturing mode "+
			"(end-of-manufacturing) before the machine ships.")
	labelOverride = tests.NewLabel("MEOverrideStrap", tests.High, "Intel CSME HFSTS1 operation mode (fwupd HSI Mei.OverrideStrap)",
		"The ME runs in security-override mode (the override strap or a HECI override message): its firmware "+
			"is not verified as it should be. Remove the strap or the override from production boards.")
	labelDebug = tests.NewLabel("MEDebugMode", tests.High, "Intel CSME HFSTS1 operation mode",
		"The ME runs in a debug operation mode, which production parts must not ship in. Ship production ME "+
			"firmware with the debug mode off.")
	labelState = tests.NewLabel("MENotNormal", tests.Medium, "Intel CSME HFSTS1 current working state",
		"The ME is not in normal operation while the OS runs (recovery, test or still initialising): its "+
			"firmware failed or did not finish starting, and the features built on it (firmware TPM, Boot Guard "+
			"reporting, updates) may be missing. Update or recover the ME firmware.")
)

// Check is the me check.
var Check = &tests.Check{
	ID: "me", Title: "Intel ME out of manufacturing mode, no override or debug mode, in normal operation",
	Category: tests.Security,
	Arch:     tests.X86,
	Optional: []input.Decl{input.MEI, input.PCIConfig},
	Spec:     "Intel CSME host firmware status (HFSTS1), as fwupd documents it",
	Labels:   []*tests.Label{labelMfg, labelOverride, labelDebug, labelState},
	Run:      run,
}

// heci is the ME's host interface (HECI 1) on every PCH since the 5 Series.
const heci = "0000:00:16.0"

func run(p *tests.Pass) error {
	mei, meiErr := tests.Load(p, input.MEI)
	cfg, cfgErr := tests.Load(p, input.PCIConfig)
	var hfsts1 uint32
	src := ""
	switch {
	case mei != nil && len(mei.Status) > 0:
		hfsts1, src = mei.Status[0], "mei fw_status"
	case cfg != nil:
		dev := cfg.Find(heci)
		v, _ := dev.ID()
		if dev == nil || v != 0x8086 || dev.Class()>>8 != 0x0780 {
			p.NotApplicable("no Intel ME host interface (no mei driver, nothing at PCI %s): the ME is absent or hidden", heci)
			return nil
		}
		x, ok := dev.U32(0x40)
		if !ok {
			p.NotChecked("ME status", fmt.Sprintf("HFSTS1 (config 40h) of %s not readable: only %d bytes of config space were recorded", heci, len(dev.Config)), "run as root")
			return nil
		}
		hfsts1, src = x, "PCI "+heci+" config 40h"
	default:
		p.Skip("neither the mei driver nor PCI configuration space could be read: %v; %v", meiErr, cfgErr)
		return nil
	}
	if hfsts1 == 0xFFFFFFFF || hfsts1 == 0 {
		p.NotChecked("ME status", fmt.Sprintf("HFSTS1=0x%08x (%s) holds no status", hfsts1, src), "")
		return nil
	}
	if mei != nil && len(mei.Versions) > 0 {
		p.Info(nil, "ME firmware version %s", strings.Join(mei.Versions, ", "))
	}
	state, mfg, mode := hfsts1&0xF, hfsts1&(1<<4) != 0, (hfsts1>>16)&0xF
	regs := fmt.Sprintf("HFSTS1=0x%08x (%s): working state %d (%s), operation mode %d (%s)", hfsts1, src, state, stateName(state), mode, modeName(mode))
	bad := false
	if mfg {
		p.Warn(labelMfg, "%s: manufacturing mode set", regs)
		bad = true
	}
	switch mode {
	case 0, 3:
	case 4, 5:
		p.Warn(labelOverride, "%s", regs)
		bad = true
	case 2, 7:
		p.Warn(labelDebug, "%s", regs)
		bad = true
	default:
		p.NotChecked("ME operation mode", regs+": a mode fwcheck does not know", "")
	}
	switch state {
	case 5:
	case 4:
		p.Info(nil, "%s: the ME is disabled", regs)
	case 1, 2, 3, 6, 7:
		p.Warn(labelState, "%s", regs)
		bad = true
	default:
		p.NotChecked("ME working state", regs+": a state fwcheck does not know", "")
	}
	if !bad {
		p.Passed("%s: production mode", regs)
	}
	return nil
}

func stateName(s uint32) string {
	if s < uint32(len(states)) {
		return states[s]
	}
	return "unknown"
}

var states = []string{"reset", "initialising", "recovery", "test", "disabled", "normal", "wait", "transition", "invalid CPU"}

func modeName(m uint32) string {
	switch m {
	case 0:
		return "normal"
	case 2:
		return "debug"
	case 3:
		return "soft temporary disable"
	case 4:
		return "security override (jumper)"
	case 5:
		return "security override (HECI message)"
	case 7:
		return "enhanced debug"
	}
	return "unknown"
}
