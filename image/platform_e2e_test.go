package image_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// platformCheckIDs are the checks TestBootPlatformChecks runs.
var platformCheckIDs = []string{"legacy-bios", "apic-edge", "thermal", "fan", "power-supply", "cpufreq", "cpufreq-steps", "cstates", "wakealarm", "pcie"}

// acting are the platform checks that change the machine: named, they run
// live; offline (no Control) they are skipped.
var acting = map[string]bool{"cpufreq-steps": true, "wakealarm": true}

// platformExpected asserts each platform check's verdict on QEMU's
// firmware. SeaBIOS on pc builds an EBDA (at the top of base memory,
// reserved in its E820 map), an MP table from the same CPU and I/O APIC
// list it gives the MADT, a $PIR for the PIIX3 router, an "_SM_" entry
// point, and BIOS32 and PnP headers in the F segment; OVMF on q35 has no
// CSM, so none of that exists there. The guests have two vCPUs.
var platformExpected = map[string]func(t *testing.T, m qemu.Machine, r report.Result){
	"legacy-bios": func(t *testing.T, m qemu.Machine, r report.Result) {
		if m.UEFI {
			assert.Equal(t, tests.StatusNotApplicable, r.Status, "%s %+v", r.Reason, r.Findings)
			assert.Contains(t, r.Reason, "UEFI")
			return
		}
		assert.Equal(t, tests.StatusPassed, r.Status, "%s %+v %+v", r.Reason, r.Findings, r.Unchecked)
		for _, s := range []string{"EBDA at 0x9fc00", "in reserved memory", "MP floating pointer at 0xf", "MP configuration table at",
			"the MP table agrees with the MADT", "$PIR at 0xf", "SMBIOS 2.", "the kernel's SMBIOS entry point names the same table",
			"BIOS32 service directory at", "$PnP installation structure at"} {
			assert.True(t, mentions(r, s), "%q in %+v", s, r.Findings)
		}
		// SeaBIOS lists the first logical CPU of each package only (both
		// vCPUs are cores of one package, and the entry carries CPUID's
		// HTT flag): said, not a warning.
		assert.Empty(t, findings(r, "MPProcessorMissing"), "%+v", r.Findings)
		assert.True(t, mentions(r, "lists 1 of the MADT's 2 enabled processors"), "%+v", r.Findings)
		assert.True(t, mentions(r, "one entry per package"), "%+v", r.Findings)
	},
	// Both MADTs override IRQ 0 (to GSI 2) and make 5, 9, 10 and 11 level,
	// active high; the guest kernel's ISA lines follow them.
	"apic-edge": func(t *testing.T, m qemu.Machine, r report.Result) {
		assert.Equal(t, tests.StatusPassed, r.Status, "%s %+v %+v", r.Reason, r.Findings, r.Unchecked)
		assert.True(t, mentions(r, "MADT's 5 overrides"), "%+v", r.Findings)
		assert.True(t, mentions(r, "level 9"), "the SCI is level-triggered: %+v", r.Findings)
	},
	// QEMU emulates no thermal zone, fan, battery or AC adapter (nor a lid):
	// not applicable, and the reason names the virtual machine.
	"thermal":      absentOnQEMU,
	"fan":          absentOnQEMU,
	"power-supply": absentOnQEMU,
	// No cpufreq driver binds in a TCG guest: not applicable, saying why;
	// TCG has no APERF/MPERF either, and the check says that too.
	"cpufreq": func(t *testing.T, m qemu.Machine, r report.Result) {
		absentOnQEMU(t, m, r)
		assert.True(t, mentions(r, "the speed under load cannot be measured either: cpu0: IA32_"), "%+v", r.Findings)
	},
	"cpufreq-steps": absentOnQEMU,
	// The RTC alarm armed 2 s ahead fires on both machines (rtc-cmos:
	// alarm_IRQ yes while armed, no after) and reads empty once cleared.
	"wakealarm": func(t *testing.T, m qemu.Machine, r report.Result) {
		assert.Equal(t, tests.StatusPassed, r.Status, "%s %+v %+v", r.Reason, r.Findings, r.Unchecked)
		assert.True(t, mentions(r, "rtc0's alarm, armed for"), "%+v", r.Findings)
		assert.True(t, mentions(r, "wakealarm cleared itself; /proc/driver/rtc alarm_IRQ yes while armed, no after"), "%+v", r.Findings)
		assert.True(t, mentions(r, "rtc0's alarm reads empty once cleared"), "%+v", r.Findings)
	},
	// The TCG guests' kernel binds no cpuidle driver: QEMU's processor
	// objects have no _CST, and intel_idle does not run in them.
	"cstates": func(t *testing.T, m qemu.Machine, r report.Result) {
		absentOnQEMU(t, m, r)
		assert.Contains(t, r.Reason, "no cpuidle driver is bound")
	},
	// pc has no PCI Express function; q35's sit on the root complex with
	// no link, their payload sizes sound. The kernel's _OSC account is
	// said on q35.
	"pcie": func(t *testing.T, m qemu.Machine, r report.Result) {
		if !m.UEFI {
			assert.Equal(t, tests.StatusNotApplicable, r.Status, "%s %+v", r.Reason, r.Findings)
			assert.Contains(t, r.Reason, "has a PCI Express capability: virtual machine (DMI: QEMU")
			return
		}
		assert.Equal(t, tests.StatusPassed, r.Status, "%s %+v %+v", r.Reason, r.Findings, r.Unchecked)
		assert.True(t, mentions(r, "0 links, 0 with ASPM enabled"), "%+v", r.Findings)
		assert.True(t, mentions(r, "_OSC: OS now controls"), "%+v", r.Findings)
		assert.True(t, mentions(r, "leaves ASPM to the OS"), "%+v", r.Findings)
	},
}

func absentOnQEMU(t *testing.T, m qemu.Machine, r report.Result) {
	assert.Equal(t, tests.StatusNotApplicable, r.Status, "%s %+v", r.Reason, r.Findings)
	assert.Contains(t, r.Reason, "virtual machine (DMI: QEMU")
}

// TestBootPlatformChecks boots pc/SeaBIOS and q35/OVMF with two vCPUs,
// runs the platform checks live, and runs them again offline on the
// snapshot the guest took: the same statuses and findings.
func TestBootPlatformChecks(t *testing.T) {
	for _, m := range []qemu.Machine{qemu.SeaBIOS, qemu.OVMF} {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			doc, snap := bootSnapshot(t, m, "fwcheck.run="+strings.Join(platformCheckIDs, ","))
			logResults(t, "live", doc)
			live := resultsByID(doc)
			require.Subset(t, keys(live), platformCheckIDs)
			for _, id := range platformCheckIDs {
				t.Run(id, func(t *testing.T) { platformExpected[id](t, m, live[id]) })
			}

			src, err := input.Open(snap)
			require.NoError(t, err)
			var cs []*tests.Check
			for _, id := range platformCheckIDs {
				if !acting[id] {
					cs = append(cs, tests.Lookup(all.Checks(), id))
				}
			}
			for _, r := range tests.Run(&tests.Env{Machine: input.New(src, input.Options{})}, cs) {
				l := live[r.ID]
				assert.Equal(t, l.Status, r.Status, "%s: live %s, offline %s (%s)", r.ID, l.Status, r.Status, r.Reason)
				if r.ID == "apic-edge" || r.ID == "cstates" {
					// cstates: the snapshot's counters are another sample.
					// /proc/interrupts grows between the checks and the
					// snapshot (ata_piix registers IRQs 14 and 15 late).
					continue
				}
				assert.Equal(t, findingLines(l.Findings), findingLines(r.Findings), "%s findings live and offline", r.ID)
			}
			if dir := os.Getenv("FWCHECK_E2E_SNAPSHOTS"); dir != "" {
				data, err := os.ReadFile(snap)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "platform-"+m.Name+".tar.gz"), data, 0o644))
			}
		})
	}
}
