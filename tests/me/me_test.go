package me

import (
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"

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
	cases := []struct {
		name   string
		files  map[string][]byte
		warns  []string
		status tests.Status
		says   string
	}{
		// 0x90000245: working state 5 (normal), FW init complete (bit 9),
		// operation mode 0: what a shipped CSME 12 laptop shows.
		{"production", map[string][]byte{"fwcheck/mei.txt": []byte("fw_status 90000245\nfw_status 89110136\nfw_ver 0:12.0.90.2072\n")},
			nil, tests.StatusPassed, "ME firmware version 0:12.0.90.2072"},
		{"manufacturing mode", map[string][]byte{"fwcheck/mei.txt": []byte("fw_status 90000255\n")},
			[]string{"MEManufacturingMode"}, tests.StatusWarning, "manufacturing mode set"},
		{"override strap, from config space", map[string][]byte{"fwcheck/pci-config.txt": heciConfig(0x90040245)},
			[]string{"MEOverrideStrap"}, tests.StatusWarning, "security override (jumper)"},
		{"recovery", map[string][]byte{"fwcheck/pci-config.txt": heciConfig(0x90000242)},
			[]string{"MENotNormal"}, tests.StatusWarning, "working state 2 (recovery)"},
		{"HAP disabled", map[string][]byte{"fwcheck/mei.txt": []byte("fw_status 90000244\n")},
			nil, tests.StatusPassed, "the ME is disabled"},
		{"no ME", map[string][]byte{"fwcheck/pci-config.txt": []byte("0000:00:00.0 - 8680c029\n")},
			nil, tests.StatusNotApplicable, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.FilesMachine(t, c.files))
			text := tests.Render([]tests.Result{r})
			var warns []string
			for _, f := range r.Findings {
				if f.Kind == tests.KindWarning {
					warns = append(warns, f.Label)
				}
			}
			assert.Equal(t, c.warns, warns, text)
			assert.Equal(t, c.status, r.Status, text)
			assert.Contains(t, text, c.says)
		})
	}
}
