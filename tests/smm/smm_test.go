package smm

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/sysdev"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func labels(r tests.Result) (fails, warns []string) {
	for _, f := range r.Findings {
		switch f.Kind {
		case tests.KindFail:
			if f.Explained == "" {
				fails = append(fails, f.Label)
			}
		case tests.KindWarning:
			warns = append(warns, f.Label)
		}
	}
	return fails, warns
}

func TestFixtures(t *testing.T) {
	cases := []struct {
		name         string
		fails, warns []string
		status       tests.Status
		mentions     string
	}{
		{"snb-locked", nil, nil, tests.StatusPassed, "SMRR 0xcb000000-0xcb7fffff covers TSEG 0xcb000000-0xcb7fffff on all 4 CPUs"},
		{"kbl-smrr-short", nil, []string{"TSEGNotCoveredBySMRR"}, tests.StatusWarning, "TSEG 0xcb000000-0xcb7fffff (TSEGMB to BGSM) not covered by SMRR on CPUs [0 1 2 3] (CPU 0: SMRR 0xcb000000-0xcb3fffff)"},
		{"skl-open", []string{"SMRAMNotLocked"}, []string{"TSEGNotLocked", "SMRRNotProgrammed"}, tests.StatusFailed, "TSEGMB(0xb8)=0x8b000000"},
		{"cfl-dopen", []string{"SMRAMNotLocked"}, []string{"SMRAMOpen"}, tests.StatusFailed, "some CPUs refuse it outside SMM"},
		{"amd-zen2-locked", nil, nil, tests.StatusPassed, "AMD processors keep SMRAM's controls in MSRs"},
		{"amd-zen2-open", nil, []string{"AMDSMMNotLocked"}, tests.StatusWarning, "HWCR.SmmLock clear on CPUs [0 1 2 3]"},
		{"unprivileged", nil, nil, tests.StatusIncomplete, "only 64 bytes of configuration space were readable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.SnapshotMachine(t, filepath.Join("testdata", c.name)))
			fails, warns := labels(r)
			text := tests.Render([]tests.Result{r})
			assert.Equal(t, c.fails, fails, text)
			assert.Equal(t, c.warns, warns, text)
			assert.Contains(t, text, c.mentions)
			assert.Equal(t, c.status, r.Status, text)
		})
	}
}

// q35 builds QEMU's q35 host bridge with the given SMRAM and ESMRAMC.
func q35(smram, esmramc byte) string {
	b := make([]byte, 256)
	copy(b, []byte{0x86, 0x80, 0xc0, 0x29})
	b[0x9d], b[0x9e] = smram, esmramc
	return string(sysdev.FormatPCI([]sysdev.PCIDevice{{Addr: "0000:00:00.0", Config: b}}))
}

// On a VM whose firmware never enabled SMRAM, an unlocked SMRAM is the
// firmware build's choice and explained; on a VM whose firmware enabled
// TSEG and did not lock it, it is a real failure.
func TestVM(t *testing.T) {
	vmFiles := func(cfg string) map[string][]byte {
		return map[string][]byte{
			"fwcheck/pci-config.txt":      []byte(cfg),
			"sys/class/dmi/id/sys_vendor": []byte("QEMU\n"),
			"proc/cpuinfo":                []byte("processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu hypervisor\n\n"),
			"fwcheck/msr.txt":             []byte("cpu 0 0xc0010015 0x0\n"),
		}
	}
	r := checktest.Run(t, Check, checktest.FilesMachine(t, vmFiles(q35(0x02, 0x38))))
	fails, _ := labels(r)
	assert.Empty(t, fails, tests.Render([]tests.Result{r}))
	f := checktest.FindingWith(r, "SMRAMNotLocked")
	if assert.NotNil(t, f) {
		assert.Contains(t, f.Explained, "virtual machine")
		assert.Contains(t, f.Explained, "does not use SMM")
	}
	if f := checktest.FindingWith(r, "AMDSMMNotLocked"); assert.NotNil(t, f) {
		assert.Contains(t, f.Explained, "virtual CPUs do not model SmmLock")
	}

	r = checktest.Run(t, Check, checktest.FilesMachine(t, vmFiles(q35(0x0a, 0x39))))
	fails, _ = labels(r)
	assert.Equal(t, []string{"SMRAMNotLocked"}, fails, "TSEG enabled and not locked is the firmware's fault, VM or not")

	r = checktest.Run(t, Check, checktest.FilesMachine(t, vmFiles(q35(0x1a, 0x39))))
	assert.Contains(t, tests.Render([]tests.Result{r}), "SMRAM locked (D_LCK set)")
}

func TestSMRRRange(t *testing.T) {
	assert.Equal(t, span{0xcb000000, 0xcb7fffff}, smrrRange(0xcb000006, 0xff800800))
	assert.Equal(t, span{0x7f000000, 0x7fffffff}, smrrRange(0x7f000006, 0xff000800))
	assert.Equal(t, span{0, 0xffffffff}, smrrRange(0, 0x800), "a zero mask matches every address")
}

func TestNothingReadable(t *testing.T) {
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"proc/version": []byte("Linux\n")}))
	assert.Equal(t, tests.StatusSkipped, r.Status)
}
