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
	cases := []checktest.Case{
		// Sunrise Point A145: BIOS_CNTL 0x2a = SMM_BWP | BLE | (SRC=10b).
		{Name: "locked", Files: map[string][]byte{"fwcheck/pci-config.txt": lpcConfig(0xa145, 0x2a)}, Warns: nil, Status: tests.StatusIncomplete, Says: "flash writes locked to SMM"},
		{Name: "write enabled", Files: map[string][]byte{"fwcheck/pci-config.txt": lpcConfig(0x1e44, 0x09)},
			Warns: []string{"BIOSWriteEnabled", "BIOSLockDisabled", "SMMBWPDisabled"}, Status: tests.StatusIncomplete, Says: "BIOS_CNTL(0xdc)=0x09"},
		{Name: "300 series", Files: map[string][]byte{"fwcheck/pci-config.txt": lpcConfig(0xa305, 0x2a)}, Warns: nil, Status: tests.StatusIncomplete, Says: "8086:a305 is not in fwcheck's chipset table"},
		{Name: "AMD", Files: map[string][]byte{"fwcheck/pci-config.txt": []byte("0000:00:1f.0 - 22100000\n")}, Warns: nil, Status: tests.StatusNotApplicable, Says: "not an Intel LPC bridge"},
	}
	checktest.RunCases(t, Check, cases)
	// QEMU's ICH9 reads 0 there: explained by the VM.
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
		"fwcheck/pci-config.txt":      lpcConfig(0x2918, 0),
		"sys/class/dmi/id/sys_vendor": []byte("QEMU\n"),
	}))
	f := checktest.FindingWith(r, "BIOSLockDisabled")
	if assert.NotNil(t, f, tests.Render([]tests.Result{r})) {
		assert.Contains(t, f.Explained, "no BIOS_CNTL")
	}
	assert.Equal(t, tests.StatusPassed, r.Status, "explained, and nothing left unchecked on a chipset model without SPI: %s", tests.Render([]tests.Result{r}))
}
