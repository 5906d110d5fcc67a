package image_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// cpuCheckIDs are the checks TestBootCPUChecks runs in the guests.
var cpuCheckIDs = []string{"mtrr", "msr-consistency", "smbios", "cpu-features", "e820"}

func twoCPUs(c *qemu.Config) { c.CPUs = 2 }

// TestBootCPUChecks boots pc/SeaBIOS and q35/OVMF guests with two vCPUs
// and runs mtrr, msr-consistency, smbios, cpu-features and e820 on the
// live MSRs, SMBIOS tables and memory map, twice per machine:
//
//   - A normal boot. Under TCG the virtual firmware programs the MTRRs of
//     the boot vCPU only; the guest kernel says so ("your CPUs had
//     inconsistent … MTRR settings") and copies the boot CPU's MTRRs onto
//     the other, so that the registers agree by the time fwcheck reads
//     them. msr-consistency reports the kernel's account, explained by the
//     virtual machine.
//   - A boot with clearcpuid=mtrr, which keeps the kernel's MTRR code from
//     touching the registers: msr-consistency must find from the MSRs
//     themselves what the kernel reported in the first boot (the fixed,
//     variable and default-type registers, naming CPU 1), explained by the
//     virtual machine. In that guest fwcheck then takes a snapshot, which
//     comes out over the console; run offline on it, the three checks must
//     give the verdicts and findings they gave live.
func TestBootCPUChecks(t *testing.T) {
	for _, m := range []qemu.Machine{qemu.SeaBIOS, qemu.OVMF} {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			a := boot(t, m, "fwcheck.run="+strings.Join(cpuCheckIDs, ","), false, false, twoCPUs)
			logResults(t, "normal boot", a.doc)
			byID := resultsByID(a.doc)
			require.Subset(t, keys(byID), cpuCheckIDs)

			mt := byID["mtrr"]
			assert.Equal(t, tests.StatusPassed, mt.Status, "QEMU's firmware programs RAM write-back and MMIO uncached")
			assert.True(t, mentions(mt, "from MSRs of CPU 0"), "the MTRRs are read from the registers")
			assert.True(t, mentions(mt, "from sysfs"), "the PCI BARs are read from sysfs")

			mc := byID["msr-consistency"]
			boot := findings(mc, "MTRRInconsistentAtBoot")
			require.Len(t, boot, 1, "the guest kernel reports inconsistent MTRRs: %+v", mc.Findings)
			assert.Contains(t, boot[0].Explained, "virtual machine")
			kinds := regexp.MustCompile(`inconsistent (.*) MTRR settings`).FindStringSubmatch(boot[0].Message)
			require.NotNil(t, kinds)
			assert.True(t, mentions(mc, "MTRRs identical on 2 CPUs"), "the kernel corrected them before fwcheck ran")
			assert.NotEqual(t, tests.StatusFailed, mc.Status)

			sm := byID["smbios"]
			assert.NotEqual(t, tests.StatusFailed, sm.Status, "what QEMU omits is explained: %+v", sm.Findings)
			assert.NotEqual(t, tests.StatusSkipped, sm.Status, sm.Reason)
			assert.True(t, mentions(sm, "entry point: length and checksums hold"), "%+v", sm.Findings)
			for _, f := range sm.Findings {
				if f.Kind == tests.KindFail {
					assert.Contains(t, f.Explained, "virtual machine", "%s: %s", f.Label, f.Message)
				}
			}

			for _, id := range []string{"cpu-features", "e820"} {
				assert.NotEqual(t, tests.StatusFailed, byID[id].Status, "%s on QEMU: %+v", id, byID[id].Findings)
				assert.NotEqual(t, tests.StatusSkipped, byID[id].Status, byID[id].Reason)
			}
			assert.True(t, mentions(byID["e820"], "EBDA"), "the BDA is read through /dev/mem: %+v", byID["e820"].Findings)

			// The firmware's own programming, untouched by the kernel.
			b, snap := bootSnapshot(t, m, "clearcpuid=mtrr fwcheck.run="+strings.Join(cpuCheckIDs, ","))
			logResults(t, "clearcpuid=mtrr", b)
			mc2 := resultsByID(b)["msr-consistency"]
			regs := map[string]bool{}
			for _, f := range findings(mc2, "MTRRInconsistent") {
				assert.Contains(t, f.Explained, "virtual machine", f.Message)
				assert.Regexp(t, `CPU 0 has 0x[0-9a-f]+; CPU 1 0x[0-9a-f]+$`, f.Message, "names the CPU and both values")
				regs[strings.Fields(f.Message)[0]] = true
			}
			assert.NotEqual(t, tests.StatusFailed, mc2.Status)
			for _, k := range strings.Split(kinds[1], ", ") {
				switch k {
				case "fixed":
					assert.True(t, anyPrefix(regs, "IA32_MTRR_FIX"), "the kernel saw fixed ranges differ; MSRs differing: %v", regs)
				case "variable":
					assert.True(t, anyPrefix(regs, "IA32_MTRR_PHYS"), "the kernel saw variable ranges differ; MSRs differing: %v", regs)
				case "MTRRdefType":
					assert.True(t, regs["IA32_MTRR_DEF_TYPE"], "the kernel saw the default type differ; MSRs differing: %v", regs)
				default:
					t.Errorf("unknown kind %q in %q", k, boot[0].Message)
				}
			}

			// Offline on the guest's snapshot: the same verdicts.
			src, err := input.Open(snap)
			require.NoError(t, err)
			var cs []*tests.Check
			for _, id := range cpuCheckIDs {
				cs = append(cs, tests.Lookup(all.Checks(), id))
			}
			offline := tests.Run(&tests.Env{Machine: input.New(src, input.Options{})}, cs)
			live := resultsByID(b)
			for _, r := range offline {
				l := live[r.ID]
				assert.Equal(t, l.Status, r.Status, "%s: live %s, offline %s", r.ID, l.Status, r.Status)
				assert.Equal(t, findingLines(l.Findings), findingLines(r.Findings), "%s findings live and offline", r.ID)
			}
			if dir := os.Getenv("FWCHECK_E2E_SNAPSHOTS"); dir != "" {
				data, err := os.ReadFile(snap)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, m.Name+".tar.gz"), data, 0o644))
			}
		})
	}
}

func keys(m map[string]report.Result) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func anyPrefix(m map[string]bool, p string) bool {
	for k := range m {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func findings(r report.Result, label string) []tests.Finding {
	var out []tests.Finding
	for _, f := range r.Findings {
		if f.Label == label {
			out = append(out, f)
		}
	}
	return out
}

func findingLines(fs []tests.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Kind)+" "+f.Label+" "+f.Message+" "+f.Explained)
	}
	return out
}

func logResults(t *testing.T, what string, d *report.Document) {
	for _, res := range d.Results {
		t.Logf("%s: %-16s %-14s %s", what, res.ID, res.Status, res.Reason)
		for _, f := range res.Findings {
			t.Logf("    %s %s %s %s: %s", f.Kind, f.Label, f.Severity, f.Explained, f.Message)
		}
		for _, u := range res.Unchecked {
			t.Logf("    not checked: %s: %s", u.What, u.Reason)
		}
	}
}

// bootSnapshot boots m with two vCPUs and args and a results disk, and
// returns the results document and the snapshot the live image saved in
// its run folder there after the checks.
func bootSnapshot(t *testing.T, m qemu.Machine, args string) (*report.Document, string) {
	r := boot(t, m, args, true, false, func(c *qemu.Config) { c.CPUs = 2 })
	if r.disk == "" {
		t.Skip("no FAT tools for the results disk (make deps-image)")
	}
	data := readRunFile(t, r.disk, image.RunSnapshot)
	require.True(t, len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b, "the snapshot is a gzip stream")
	p := filepath.Join(t.TempDir(), image.RunSnapshot)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	t.Logf("%s: snapshot of %d bytes taken in the guest", m.Name, len(data))
	return r.doc, p
}

// TestBootSMBIOSPlaceholders boots pc/SeaBIOS with System Information
// strings set to the template text BIOS vendors ship and a UUID given, as
// QEMU's -smbios lets a platform configuration do: SeaBIOS builds the
// tables from them, and the smbios check must name each placeholder (not
// explained: these are the platform's own strings) and accept the UUID.
func TestBootSMBIOSPlaceholders(t *testing.T) {
	t.Parallel()
	r := boot(t, qemu.SeaBIOS, "fwcheck.run=smbios", false, false, func(c *qemu.Config) {
		c.Extra = []string{"-smbios", "type=1,manufacturer=To Be Filled By O.E.M.,product=System Product Name,serial=0123456789," +
			"uuid=8f0c7a52-3b1e-4d6a-9c2f-1e5b7d9a0c34"}
	})
	sm := resultsByID(r.doc)["smbios"]
	logResults(t, "placeholders", r.doc)
	ph := findings(sm, "SMBIOSPlaceholderString")
	require.Len(t, ph, 3, "%+v", sm.Findings)
	for i, want := range []string{`manufacturer is "To Be Filled By O.E.M."`, `product name is "System Product Name"`, `serial number is "0123456789"`} {
		assert.Contains(t, ph[i].Message, want)
		assert.Empty(t, ph[i].Explained, "the platform chose these strings")
	}
	assert.Equal(t, tests.StatusFailed, sm.Status)
	assert.Empty(t, findings(sm, "SMBIOSUUIDUnset"))
	assert.True(t, mentions(sm, "8f0c7a52-3b1e-4d6a-9c2f-1e5b7d9a0c34 is set"), "%+v", sm.Findings)
}
