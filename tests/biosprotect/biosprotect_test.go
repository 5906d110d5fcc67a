package biosprotect

import (
	"encoding/hex"
	"path/filepath"
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
		{Name: "300 series", Files: map[string][]byte{"fwcheck/pci-config.txt": lpcConfig(0xa305, 0x2a)}, Warns: nil, Status: tests.StatusIncomplete, Says: "neither the LPC bridge (8086:a305) nor the SPI function"},
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

// The fixtures (testdata/README.md says where each value comes from): one
// locked machine, one with each flash lock open, one protected by
// BIOS_CNTL alone, one without a descriptor, one under kernel lockdown.
func TestFixtures(t *testing.T) {
	cases := []struct {
		name   string
		warns  []string
		status tests.Status
		says   []string
	}{
		{"ivb-7series-locked", nil, tests.StatusPassed, []string{"FLOCKDN set", "write-protected ranges cover it all, locked by FLOCKDN", "cannot write the descriptor or ME region"}},
		{"hsw-8series-open", []string{"BIOSWriteEnabled", "BIOSLockDisabled", "SMMBWPDisabled", "SPIConfigNotLocked", "FlashDescriptorOverride", "FlashRegionWritable", "BIOSRegionUnprotected"},
			tests.StatusWarning, []string{"HSFS=0x4000", "BRWA=0x0f lets the BIOS master write the descriptor and ME regions", "no write-protected range"}},
		{"cfl-300series-smm", nil, tests.StatusPassed, []string{"BIOS_CNTL(0xdc)=0x2a", "writes restricted to SMM by BIOS_CNTL; locked protected ranges cover 0 of 8192 KiB"}},
		{"cfl-300series-nodesc", []string{"SMMBWPDisabled", "FlashDescriptorInvalid", "BIOSRegionUnprotected"}, tests.StatusWarning, []string{"FDV clear"}},
		{"cfl-300series-lockdown", nil, tests.StatusIncomplete, []string{"BIOS_CNTL was checked, this half was not", "/dev/mem refused: kernel lockdown (integrity)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.SnapshotMachine(t, filepath.Join("testdata", c.name)))
			text := tests.Render([]tests.Result{r})
			assert.Equal(t, c.warns, checktest.WarnLabels(r), text)
			assert.Empty(t, checktest.FailLabels(r), text)
			assert.Equal(t, c.status, r.Status, text)
			for _, s := range c.says {
				assert.Contains(t, text, s)
			}
		})
	}
}

func TestCoveredBytes(t *testing.T) {
	assert.Equal(t, uint64(0x1000), coveredBytes(0, 0xfff, [][2]uint64{{0, 0xfff}}))
	assert.Equal(t, uint64(0x800), coveredBytes(0, 0xfff, [][2]uint64{{0x800, 0x1fff}}))
	assert.Equal(t, uint64(0x3000), coveredBytes(0x1000, 0x3fff, [][2]uint64{{0x2000, 0x2fff}, {0, 0x1fff}, {0x2800, 0x5000}}), "overlaps count once")
	assert.Equal(t, uint64(0x1000), coveredBytes(0x1000, 0x3fff, [][2]uint64{{0x2000, 0x2fff}, {0x5000, 0x6000}}))
	assert.Zero(t, coveredBytes(0x1000, 0x1fff, nil))
	assert.Equal(t, uint64(1<<27), coveredBytes(0, 1<<27-1, [][2]uint64{{0, 1<<64 - 1}}), "no overflow at the top")
}
