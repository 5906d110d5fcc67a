package biosprotect

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func lpcConfig(dev uint16, biosCntl byte) []byte {
	b := make([]byte, 256)
	b[0], b[1], b[2], b[3] = 0x86, 0x80, byte(dev), byte(dev>>8)
	b[0x0a], b[0x0b] = 0x01, 0x06 // ISA bridge
	b[0xdc] = biosCntl
	return []byte("0000:00:1f.0 - " + hex.EncodeToString(b) + "\n")
}

func TestBIOSProtect(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string][]byte
		warns  []string
		status tests.Status
		says   string
	}{
		// Sunrise Point A145: BIOS_CNTL 0x2a = SMM_BWP | BLE | (SRC=10b).
		{"locked", map[string][]byte{"fwcheck/pci-config.txt": lpcConfig(0xa145, 0x2a)}, nil, tests.StatusIncomplete, "flash writes locked to SMM"},
		{"write enabled", map[string][]byte{"fwcheck/pci-config.txt": lpcConfig(0x1e44, 0x09)},
			[]string{"BIOSWriteEnabled", "BIOSLockDisabled", "SMMBWPDisabled"}, tests.StatusIncomplete, "BIOS_CNTL(0xdc)=0x09"},
		{"300 series", map[string][]byte{"fwcheck/pci-config.txt": lpcConfig(0xa305, 0x2a)}, nil, tests.StatusIncomplete, "8086:a305 is not in fwcheck's chipset table"},
		{"AMD", map[string][]byte{"fwcheck/pci-config.txt": []byte("0000:00:1f.0 - 22100000\n")}, nil, tests.StatusNotApplicable, ""},
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
	// QEMU's ICH9 reads 0 there: explained by the VM.
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
		"fwcheck/pci-config.txt":      lpcConfig(0x2918, 0),
		"sys/class/dmi/id/sys_vendor": []byte("QEMU\n"),
	}))
	f := checktest.FindingWith(r, "BIOSLockDisabled")
	if assert.NotNil(t, f, tests.Render([]tests.Result{r})) {
		assert.Contains(t, f.Explained, "no BIOS_CNTL")
	}
	assert.NotEqual(t, tests.StatusFailed, r.Status)
}
