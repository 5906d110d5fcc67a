package me

import (
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// heciConfig is a HECI function (8086:a360, Cannon Lake PCH, class 0780h)
// with HFSTS1 at 40h.
func heciConfig(hfsts1 uint32) []byte {
	b := make([]byte, 256)
	copy(b, []byte{0x86, 0x80, 0x60, 0xa3})
	b[0x0a], b[0x0b] = 0x80, 0x07
	binary.LittleEndian.PutUint32(b[0x40:], hfsts1)
	return []byte("0000:00:16.0 - " + hex.EncodeToString(b) + "\n")
}

func TestME(t *testing.T) {
	cases := []checktest.Case{
		// 0x90000245: working state 5 (normal), FW init complete (bit 9),
		// operation mode 0: what a shipped CSME 12 laptop shows.
		{Name: "production", Files: map[string][]byte{"fwcheck/mei.txt": []byte("fw_status 90000245\nfw_status 89110136\nfw_ver 0:12.0.90.2072\n")},
			Warns: nil, Status: tests.StatusPassed, Says: "ME firmware version 0:12.0.90.2072"},
		{Name: "manufacturing mode", Files: map[string][]byte{"fwcheck/mei.txt": []byte("fw_status 90000255\n")},
			Warns: []string{"MEManufacturingMode"}, Status: tests.StatusWarning, Says: "manufacturing mode set"},
		{Name: "override strap, from config space", Files: map[string][]byte{"fwcheck/pci-config.txt": heciConfig(0x90040245)},
			Warns: []string{"MEOverrideStrap"}, Status: tests.StatusWarning, Says: "security override (jumper)"},
		{Name: "recovery", Files: map[string][]byte{"fwcheck/pci-config.txt": heciConfig(0x90000242)},
			Warns: []string{"MENotNormal"}, Status: tests.StatusWarning, Says: "working state 2 (recovery)"},
		{Name: "HAP disabled", Files: map[string][]byte{"fwcheck/mei.txt": []byte("fw_status 90000244\n")},
			Warns: nil, Status: tests.StatusPassed, Says: "the ME is disabled"},
		{Name: "no ME", Files: map[string][]byte{"fwcheck/pci-config.txt": []byte("0000:00:00.0 - 8680c029\n")},
			Warns: nil, Status: tests.StatusNotApplicable, Says: "no Intel ME host interface"},
	}
	checktest.RunCases(t, Check, cases)
}
