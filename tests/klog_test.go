package tests

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/klog"
)

func logMachine(path string) *input.Machine {
	return input.New(input.Empty(), input.Options{KernelLog: path})
}

func runOnLog(t *testing.T, id, path string) Result {
	t.Helper()
	return runCheckOn(t, id, logMachine(path))
}

// findingsWith returns r's findings labelled l.
func findingsWith(r Result, l string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Label == l {
			out = append(out, f)
		}
	}
	return out
}

// The q35/SeaBIOS guest of the suspend corpus logs the firmware's RTC
// fixed-event fault once per suspend cycle.
func TestKlogQ35SeaBIOS(t *testing.T) {
	r := runOnLog(t, "klog", filepath.Join(corpus.Dir(t, "suspend-qemu"), "s3-rtc-q35-bios.serial.txt"))
	assert.Equal(t, StatusFailed, r.Status)
	rtc := findingsWith(r, "ACPIFixedEventDisableFailed")
	require.Len(t, rtc, 3)
	assert.Equal(t, "[    3.082295] ACPI Error: Could not disable RealTimeClock events (20220331/evxfevnt-243)", rtc[0].Message)
	assert.Equal(t, KindFail, rtc[0].Kind)
	assert.Equal(t, Medium, rtc[0].Severity)
	assert.Contains(t, rtc[0].Advice, "FIXED_RTC")
	assert.Equal(t, "printed by drivers/acpi/acpica/evxfevnt.c", rtc[0].Spec)
	// _OSC declining optional features (QEMU's q35 keeps hotplug and LTR)
	// is negotiation, not a fault.
	assert.Empty(t, findingsWith(r, "OSCPlatformNoSupport"))
	// QEMU's TCG emulation clears each AP's MTRRs on INIT, so the kernel's
	// MTRR complaints get the low virtual-machine entry, not the firmware ones.
	mtrr := findingsWith(r, "VMMTRRInconsistent")
	require.Len(t, mtrr, 5)
	assert.Equal(t, Low, mtrr[0].Severity)
	for _, l := range []string{"MTRRInconsistentFixed", "MTRRInconsistentVariable", "MTRRBIOSNotAllCPUs"} {
		assert.Empty(t, findingsWith(r, l), l)
	}
	// Its DMI line says QEMU, so the timer complaints get the virtual
	// machine entries (low) rather than the real-hardware ones.
	for _, l := range []string{"VMTSCUnsynchronized", "VMDelayCalibrationFailed"} {
		require.Len(t, findingsWith(r, l), 1, l)
		assert.Equal(t, Low, findingsWith(r, l)[0].Severity)
	}
	assert.Empty(t, findingsWith(r, "TSCUnsynchronized"))
	// The log has no levels, so error-like wording decides; the only
	// unexplained line is QEMU's own, captured on the same console.
	un := findingsWith(r, "KlogUnexplained")
	require.Len(t, un, 1)
	assert.Contains(t, un[0].Message, "qemu-system-x86_64: terminating on signal 15")
}

// Real linuxhw boot logs must produce the findings their firmware bugs call for.
func TestKlogLinuxHWCorpus(t *testing.T) {
	dir := corpus.Dir(t, "klog", "linuxhw")
	cases := []struct {
		file   string
		labels []string
	}{
		{"074C5C2E091B__57037EB714.dmesg.txt", []string{"DMARBadRMRR", "AMLDivideByZero", "AMLMethodDivideByZero", "MTRRInconsistentVariable"}},
		{"1979FBF2D488__3955B91269.dmesg.txt", []string{"FADTLengthMismatch", "GHESZeroPollInterval"}},
		{"02C917C9A536__5229FAFC3E.dmesg.txt", []string{"OpRegionConflict", "OSCMissingConventionalBridge", "MTRRInconsistentVariable"}},
		{"57ED146F2C3C__4C5837816D.dmesg.txt", []string{"OSCFailedDisablingASPM"}},
		{"22C25EDFF9A3__DE045A212C.dmesg.txt", []string{"MMCONFIGPartialBridge"}},
		{"04FF5A51E4B0__73363DC346.dmesg.txt", []string{"ThermalNoValidTrip"}},
		{"E888852CC4DB__50527E087E.dmesg.txt", []string{"AMLUnresolvedSymbol"}},
		{"6952A10726AB__8C35250407.dmesg.txt", []string{"TPMSelfTestFailed"}},
		{"9112EC3CC44C__D62625A751.dmesg.txt", []string{"VMTSCUnsynchronized"}}, // "DMI: Optimized Hosting KVM"
	}
	for _, c := range cases {
		r := runOnLog(t, "klog", filepath.Join(dir, c.file))
		got := map[string]bool{}
		for _, f := range r.Findings {
			got[f.Label] = true
		}
		for _, l := range c.labels {
			assert.True(t, got[l], "%s: want %s", c.file, l)
		}
	}
}

// Every corpus log runs without aborting, and every failure carries a
// label, a severity, advice and a timestamped line.
func TestKlogWholeCorpus(t *testing.T) {
	files := append(corpus.Glob(t, "klog/linuxhw/*.dmesg.txt"), corpus.Glob(t, "suspend-qemu/*.serial.txt")...)
	total := 0
	for _, p := range files {
		r := runOnLog(t, "klog", p)
		require.Contains(t, []Status{StatusPassed, StatusFailed}, r.Status, p)
		for _, f := range r.Findings {
			if f.Kind != KindFail {
				continue
			}
			total++
			assert.NotEmpty(t, f.Label)
			assert.NotEqual(t, None, f.Severity)
			assert.NotEmpty(t, f.Advice)
			assert.Regexp(t, `^\[ *\d+\.\d{6}\] `, f.Message, p)
		}
	}
	assert.Greater(t, total, 100, "the corpus holds many firmware complaints")
}

// The Firecracker guest has no DMI data; its "Hypervisor detected" line
// makes the hypervisor's quirks low virtual-machine findings.
func TestKlogFirecracker(t *testing.T) {
	r := runOnLog(t, "klog", filepath.Join(corpus.Dir(t, "klog"), "firecracker-vm-6.18.dmesg.txt"))
	for _, l := range []string{"VMAMDTSCNotP0", "VMOSCNotFound", "VMAMDPStateNoCPPC"} {
		if assert.NotEmpty(t, findingsWith(r, l), l) {
			assert.Equal(t, Low, findingsWith(r, l)[0].Severity, l)
		}
	}
	for _, f := range r.Findings {
		if f.Kind == KindFail {
			assert.Equal(t, Low, f.Severity, "%s: %s", f.Label, f.Message)
		}
	}
}

// On real hardware the same TSC message gets the firmware entry.
func TestKlogScopeByDMI(t *testing.T) {
	r := runOnLog(t, "klog", filepath.Join("testdata", "klog", "tsc-hw.txt"))
	assert.Equal(t, []string{"TSCUnsynchronized"}, failLabels(r))
	assert.Equal(t, Medium, findingWith(r, "TSCUnsynchronized").Severity)
}

func TestKlogUnexplainedAndLevels(t *testing.T) {
	r := runOnLog(t, "klog", filepath.Join("testdata", "klog", "levels.txt"))
	assert.Len(t, findingsWith(r, "ACPIFixedEventDisableFailed"), 1)
	un := findingsWith(r, "KlogUnexplained")
	require.Len(t, un, 1, "identical lines fold; warnings and info lines are not unexplained errors")
	assert.Equal(t, KindInfo, un[0].Kind)
	assert.Equal(t, Low, un[0].Severity)
	assert.Equal(t, "unexplained: [    1.500000] frobnicator 0000:00:1f.0: frob engine refused to start (repeated 2 times)", un[0].Message)
}

// Without levels, error wording decides, but error-record tables, taint
// notes and userspace lines are not kernel errors.
func TestKlogUnexplainedWithoutLevels(t *testing.T) {
	r := runOnLog(t, "klog", filepath.Join("testdata", "klog", "nolevels.txt"))
	un := findingsWith(r, "KlogUnexplained")
	require.Len(t, un, 1)
	assert.Equal(t, "unexplained: [    4.000000] frobnicator 0000:00:1f.0: probe failed with error -5", un[0].Message)
}

func TestKlogCleanAndEmpty(t *testing.T) {
	r := runOnLog(t, "klog", filepath.Join("testdata", "klog", "clean.txt"))
	assert.Equal(t, StatusPassed, r.Status)
	require.Len(t, r.Findings, 1)
	assert.Equal(t, KindPass, r.Findings[0].Kind)

	empty := filepath.Join(t.TempDir(), "empty.txt")
	require.NoError(t, writeFile(empty, ""))
	r = runOnLog(t, "klog", empty)
	assert.Equal(t, StatusSkipped, r.Status)
}

// The lab's fwts database is matched before fwcheck's own.
func TestKlogFwtsDatabase(t *testing.T) {
	t.Cleanup(func() { klogExtra = nil })
	c := Lookup("klog")
	require.NoError(t, c.Settings.Set("db", filepath.Join("testdata", "klog", "fwts-klog.json")))
	r := runOnLog(t, "klog", filepath.Join("testdata", "klog", "levels.txt"))
	lab := findingsWith(r, "LabRTCFixedEvent")
	require.Len(t, lab, 1)
	assert.Equal(t, High, lab[0].Severity)
	assert.Contains(t, lab[0].Advice, "Lab advice")
	assert.Empty(t, findingsWith(r, "ACPIFixedEventDisableFailed"))

	// A file that cannot be read is refused when the setting is made, so
	// the command line reports it before any check runs.
	err := c.Settings.Set("db", filepath.Join("testdata", "klog", "missing.json"))
	assert.ErrorContains(t, err, "missing.json")
}

// Database labels share the namespace of every check's labels.
func TestKlogLabelsDoNotClash(t *testing.T) {
	es, err := klog.DefaultDB()
	require.NoError(t, err)
	for _, l := range Labels() {
		for _, e := range es {
			require.NotEqual(t, l.Name, e.Label, "advice entry %s clashes with a check label", e.Label)
		}
	}
	assert.True(t, strings.HasPrefix(klogUnexplained.Name, "Klog"))
}

// klogGoldenCase is one real kernel log of the shared corpus and the name of
// its golden file.
type klogGoldenCase struct {
	name, path string
}

// klogGoldenCases lists every real kernel log in the corpus: the boot logs
// under klog/ (QEMU, Firecracker and linux-hardware.org machines), the QEMU
// suspend runs and the pm-graph suspend logs.
func klogGoldenCases(t *testing.T) []klogGoldenCase {
	root := filepath.Dir(corpus.Dir(t, "klog"))
	var cs []klogGoldenCase
	add := func(prefix, pattern string, name func(string) string) {
		ps, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, p := range ps {
			cs = append(cs, klogGoldenCase{prefix + name(p), p})
		}
	}
	trim := func(suffix string) func(string) string {
		return func(p string) string { return strings.TrimSuffix(filepath.Base(p), suffix) }
	}
	add("", "klog/*.dmesg.txt", trim(".dmesg.txt"))
	add("", "klog/*.serial.txt", trim(".serial.txt"))
	add("linuxhw-", "klog/linuxhw/*.dmesg.txt", trim(".dmesg.txt"))
	add("suspend-qemu-", "suspend-qemu/*.serial.txt", trim(".serial.txt"))
	add("pmgraph-", "suspend-pmgraph/*/*/*_dmesg.txt", trim("_dmesg.txt"))
	require.NotEmpty(t, cs)
	return cs
}

// TestKlogGolden runs the klog and oops checks over every real kernel log in
// the corpus and compares the findings (label, severity, line) with
// testdata/klog/golden/NAME.txt. Regenerate after an intended change of the
// advice database or the checks, then review the diff:
//
//	go test ./tests -run KlogGolden -update
func TestKlogGolden(t *testing.T) {
	checks := []*Check{Lookup("klog"), Lookup("oops")}
	require.NotNil(t, checks[0])
	require.NotNil(t, checks[1])
	dir := filepath.Join("testdata", "klog", "golden")
	seen := map[string]bool{}
	for _, c := range klogGoldenCases(t) {
		require.False(t, seen[c.name], "two corpus logs map to the golden name %s", c.name)
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			rs := RunChecks(logMachine(c.path), checks)
			for _, r := range rs {
				require.Contains(t, []Status{StatusPassed, StatusFailed}, r.Status, "%s: %s", r.ID, r.Reason)
			}
			checkGolden(t, dir, c.name, Render(rs))
		})
	}
}

// TestKlogGoldenHasNoStaleFiles fails when a golden file no longer has a
// corpus log behind it.
func TestKlogGoldenHasNoStaleFiles(t *testing.T) {
	var names []string
	for _, c := range klogGoldenCases(t) {
		names = append(names, c.name)
	}
	checkNoStaleGolden(t, filepath.Join("testdata", "klog", "golden"), names)
}
