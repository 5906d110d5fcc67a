package securitysummary

import (
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func verdicts(r tests.Result) map[string]string {
	out := map[string]string{}
	for _, f := range r.Findings {
		for _, a := range Attributes {
			if strings.HasPrefix(f.Message, a.ID+" ") {
				out[a.ID] = f.Message
			}
		}
	}
	for _, u := range r.Unchecked {
		for _, a := range Attributes {
			if strings.HasPrefix(u.What, a.ID+" ") {
				out[a.ID] = "not evaluated: " + u.Reason
			}
		}
	}
	return out
}

// Every attribute is reported once, in one class, and the tallies add up.
func TestFixtures(t *testing.T) {
	for _, c := range []struct {
		dir    string
		status tests.Status
		want   map[string]string // attribute → substring of its line
		level  string
	}{
		{"../biosprotect/testdata/hsw-8series-open", tests.StatusIncomplete, map[string]string{
			"org.fwupd.hsi.Spi.Bioswe":        "unmet: bios-write-protect: BIOSWriteEnabled",
			"org.fwupd.hsi.Spi.Ble":           "unmet: bios-write-protect: BIOSLockDisabled",
			"org.fwupd.hsi.Spi.SmmBwp":        "unmet",
			"org.fwupd.hsi.Spi.Descriptor":    "unmet: bios-write-protect: FlashRegionWritable",
			"org.fwupd.hsi.Mei.OverrideStrap": "not applicable: me: no Intel ME host interface",
			"org.fwupd.hsi.Amd.SmmLocked":     "not evaluated: smm could not check SMRR and SmmLock",
		}, "Level these attributes reach: HSI:0;"},
		{"../biosprotect/testdata/ivb-7series-locked", tests.StatusIncomplete, map[string]string{
			"org.fwupd.hsi.Spi.Bioswe":           "met: bios-write-protect",
			"org.fwupd.hsi.Spi.SmmBwp":           "met: bios-write-protect",
			"org.fwupd.hsi.Spi.Descriptor":       "met: bios-write-protect: Intel 7 Series PCH SPI (RCBA+3800h): FRAP=0x00000a0b",
			"org.fwupd.hsi.PlatformDebugEnabled": "not evaluated: cpu-locks skipped: neither MSRs nor /proc/cpuinfo could be read",
		}, "at least HSI:0 (attributes of HSI-1 not evaluated)"},
		{"../smm/testdata/amd-zen2-open", tests.StatusIncomplete, map[string]string{
			"org.fwupd.hsi.Amd.SmmLocked": "unmet: smm: AMDSMMNotLocked (HWCR.SmmLock clear on CPUs [0 1 2 3])",
		}, "HSI:0"},
	} {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.SnapshotMachine(t, c.dir))
			text := tests.Render([]tests.Result{r})
			assert.Equal(t, c.status, r.Status, text)
			got := verdicts(r)
			assert.Len(t, got, len(Attributes), "every attribute reported once: %s", text)
			for id, s := range c.want {
				assert.Contains(t, got[id], s, id)
			}
			assert.Contains(t, text, c.level)
			assert.Contains(t, text, "12 fwupd attributes that fwcheck's security checks decide: HSI-1: 8 = ")
			assert.Empty(t, checktest.FailLabels(r), "the summary never fails a run")
		})
	}
}

// On a VM whose chipset model has no BIOS_CNTL, the BLE attribute is
// unmet and explained, and BIOSWE is not taken as met from a register the
// model lacks.
func TestVM(t *testing.T) {
	b := make([]byte, 256)
	copy(b, []byte{0x86, 0x80, 0x18, 0x29})
	b[0x0a], b[0x0b] = 0x01, 0x06
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
		"fwcheck/pci-config.txt":      []byte("0000:00:1f.0 - " + hex.EncodeToString(b) + "\n"),
		"sys/class/dmi/id/sys_vendor": []byte("QEMU\n"),
	}))
	got := verdicts(r)
	assert.Contains(t, got["org.fwupd.hsi.Spi.Ble"], "unmet: bios-write-protect: BIOSLockDisabled")
	assert.Contains(t, got["org.fwupd.hsi.Spi.Bioswe"], "not applicable: bios-write-protect: Intel ICH9 (QEMU q35): BIOS_CNTL(0xdc)=0x00: BLE clear: virtual machine")
	assert.Contains(t, got["org.fwupd.hsi.Spi.SmmBwp"], "not applicable: bios-write-protect:")
	assert.Contains(t, got["org.fwupd.hsi.Spi.Descriptor"], "has no SPI controller")
	f := checktest.FindingWith(r, "HSIAttributeUnmet")
	if assert.NotNil(t, f) {
		assert.Contains(t, f.Explained, "virtual machine")
	}
	assert.Empty(t, checktest.WarnLabels(r), tests.Render([]tests.Result{r}))
}

func TestTallyAndLevel(t *testing.T) {
	vs := []Verdict{
		{Attribute: Attribute{Level: 1}, Class: Met},
		{Attribute: Attribute{Level: 1}, Class: NotApplicable},
		{Attribute: Attribute{Level: 2}, Class: Unmet, Explained: "vm"},
		{Attribute: Attribute{Level: 2}, Class: NotEvaluated},
		{Attribute: Attribute{Level: 3}, Class: Met},
	}
	ts := Tallies(vs)
	n := 0
	for _, t := range ts {
		n += t.Total()
	}
	assert.Equal(t, len(vs), n, "every verdict counted once")
	assert.Equal(t, Tally{Level: 2, Unmet: 1, Explained: 1, NotEvaluated: 1}, ts[1])
	l, settled := Level(ts)
	assert.Equal(t, 1, l)
	assert.True(t, settled, "an unmet HSI-2 attribute settles it at HSI:1")
	l, settled = Level(Tallies(vs[:2]))
	assert.Equal(t, 4, l)
	assert.True(t, settled)
	l, settled = Level(Tallies([]Verdict{{Attribute: Attribute{Level: 1}, Class: NotEvaluated}}))
	assert.Equal(t, 0, l)
	assert.False(t, settled)
	// Attribute levels are 1-4 and IDs unique.
	seen := map[string]bool{}
	for _, a := range Attributes {
		assert.True(t, a.Level >= 1 && a.Level <= 4, a.ID)
		assert.False(t, seen[a.ID], a.ID)
		seen[a.ID] = true
		found := false
		for _, c := range members {
			if c.ID == a.Check {
				found = true
				for _, l := range a.Unmet {
					assert.NotNil(t, c.Label(l), "%s: %s is not a label of %s", a.ID, l, c.ID)
				}
			}
		}
		assert.True(t, found, "%s: %s is not a member check", a.ID, a.Check)
	}
}
