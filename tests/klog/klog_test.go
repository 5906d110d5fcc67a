package klog

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	klog "github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/logscan"
	"github.com/fwcheck/fwcheck/tests/oops"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

// The q35/SeaBIOS guest of the suspend corpus logs the firmware's RTC
// fixed-event fault once per suspend cycle: one finding with the count and
// the first and last times.
func TestKlogQ35SeaBIOS(t *testing.T) {
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join(corpus.Dir(t, "suspend-qemu"), "s3-rtc-q35-bios.serial.txt")))
	assert.Equal(t, tests.StatusFailed, r.Status)
	rtc := checktest.FindingsWith(r, "ACPIFixedEventDisableFailed")
	require.Len(t, rtc, 1)
	assert.Equal(t, "[    3.082295] ACPI Error: Could not disable RealTimeClock events (20220331/evxfevnt-243) (repeated 3 times, last at 3.392677)", rtc[0].Message)
	assert.Equal(t, tests.KindFail, rtc[0].Kind)
	assert.Equal(t, tests.Medium, rtc[0].Severity)
	assert.Contains(t, rtc[0].Advice, "FIXED_RTC")
	assert.Equal(t, "printed by drivers/acpi/acpica/evxfevnt.c", rtc[0].Spec)
	// _OSC declining optional features (QEMU's q35 keeps hotplug and LTR)
	// is negotiation, not a fault.
	assert.Empty(t, checktest.FindingsWith(r, "OSCPlatformNoSupport"))
	// QEMU's TCG emulation clears each AP's MTRRs on INIT, so the kernel's
	// MTRR complaints get the low virtual-machine entry, not the firmware ones.
	mtrr := checktest.FindingsWith(r, "VMMTRRInconsistent")
	require.Len(t, mtrr, 5)
	assert.Equal(t, tests.Low, mtrr[0].Severity)
	for _, l := range []string{"MTRRInconsistentFixed", "MTRRInconsistentVariable", "MTRRBIOSNotAllCPUs"} {
		assert.Empty(t, checktest.FindingsWith(r, l), l)
	}
	// Its DMI line says QEMU, so the timer complaints get the virtual
	// machine entries (low) rather than the real-hardware ones.
	for _, l := range []string{"VMTSCUnsynchronized", "VMDelayCalibrationFailed"} {
		require.Len(t, checktest.FindingsWith(r, l), 1, l)
		assert.Equal(t, tests.Low, checktest.FindingsWith(r, l)[0].Severity)
	}
	assert.Empty(t, checktest.FindingsWith(r, "TSCUnsynchronized"))
	// The log has no levels, so error-like wording decides; the only
	// unexplained line is QEMU's own, captured on the same console.
	un := checktest.FindingsWith(r, "KlogUnexplained")
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
		r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join(dir, c.file)))
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
		r := checktest.Run(t, Check, checktest.LogMachine(p))
		require.Contains(t, []tests.Status{tests.StatusPassed, tests.StatusFailed}, r.Status, p)
		for _, f := range r.Findings {
			if f.Kind != tests.KindFail {
				continue
			}
			total++
			assert.NotEmpty(t, f.Label)
			assert.NotEqual(t, tests.None, f.Severity)
			assert.NotEmpty(t, f.Advice)
			assert.Regexp(t, `^\[ *\d+\.\d{6}\] `, f.Message, p)
		}
	}
	assert.Greater(t, total, 100, "the corpus holds many firmware complaints")
}

// The Firecracker guest has no DMI data; its "Hypervisor detected" line
// makes the hypervisor's quirks low virtual-machine findings.
func TestKlogFirecracker(t *testing.T) {
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join(corpus.Dir(t, "klog"), "firecracker-vm-6.18.dmesg.txt")))
	for _, l := range []string{"VMAMDTSCNotP0", "VMOSCNotFound", "VMAMDPStateNoCPPC"} {
		if assert.NotEmpty(t, checktest.FindingsWith(r, l), l) {
			assert.Equal(t, tests.Low, checktest.FindingsWith(r, l)[0].Severity, l)
		}
	}
	for _, f := range r.Findings {
		if f.Kind == tests.KindFail {
			assert.Equal(t, tests.Low, f.Severity, "%s: %s", f.Label, f.Message)
		}
	}
}

// On real hardware the same TSC message gets the firmware entry.
func TestKlogScopeByDMI(t *testing.T) {
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join("testdata", "tsc-hw.txt")))
	assert.Equal(t, []string{"TSCUnsynchronized"}, checktest.FailLabels(r))
	assert.Equal(t, tests.Medium, checktest.FindingWith(r, "TSCUnsynchronized").Severity)
}

func TestKlogUnexplainedAndLevels(t *testing.T) {
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join("testdata", "levels.txt")))
	assert.Len(t, checktest.FindingsWith(r, "ACPIFixedEventDisableFailed"), 1)
	un := checktest.FindingsWith(r, "KlogUnexplained")
	require.Len(t, un, 1, "identical lines fold; warnings and info lines are not unexplained errors")
	assert.Equal(t, tests.KindInfo, un[0].Kind)
	assert.Equal(t, tests.Low, un[0].Severity)
	assert.Equal(t, "unexplained: [    1.500000] frobnicator 0000:00:1f.0: frob engine refused to start (repeated 2 times, last at 1.500001)", un[0].Message)
}

// Without levels, error wording decides, but error-record tables, taint
// notes and userspace lines are not kernel errors.
func TestKlogUnexplainedWithoutLevels(t *testing.T) {
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join("testdata", "nolevels.txt")))
	un := checktest.FindingsWith(r, "KlogUnexplained")
	require.Len(t, un, 1)
	assert.Equal(t, "unexplained: [    4.000000] frobnicator 0000:00:1f.0: probe failed with error -5", un[0].Message)
}

func TestKlogCleanAndEmpty(t *testing.T) {
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join("testdata", "clean.txt")))
	assert.Equal(t, tests.StatusPassed, r.Status)
	require.Len(t, r.Findings, 1)
	assert.Equal(t, tests.KindPass, r.Findings[0].Kind)

	empty := filepath.Join(t.TempDir(), "empty.txt")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	r = checktest.Run(t, Check, checktest.LogMachine(empty))
	assert.Equal(t, tests.StatusSkipped, r.Status)
}

// The lab's fwts database is matched before fwcheck's own.
func TestKlogFwtsDatabase(t *testing.T) {
	var set tests.Settings
	require.NoError(t, set.Set(Check, "db", filepath.Join("testdata", "fwts-klog.json")))
	env := &tests.Env{Machine: checktest.LogMachine(filepath.Join("testdata", "levels.txt")), Settings: &set}
	r := tests.RunOne(env, Check)
	lab := checktest.FindingsWith(r, "LabRTCFixedEvent")
	require.Len(t, lab, 1)
	assert.Equal(t, tests.High, lab[0].Severity)
	assert.Contains(t, lab[0].Advice, "Lab advice")
	assert.Empty(t, checktest.FindingsWith(r, "ACPIFixedEventDisableFailed"))

	// A file that cannot be read is refused when the setting is made, so
	// the command line reports it before any check runs.
	err := set.Set(Check, "db", filepath.Join("testdata", "missing.json"))
	assert.ErrorContains(t, err, "missing.json")

	// The setting belongs to that run: another run matches fwcheck's own
	// database only.
	r = checktest.Run(t, Check, checktest.LogMachine(filepath.Join("testdata", "levels.txt")))
	assert.Empty(t, checktest.FindingsWith(r, "LabRTCFixedEvent"))
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
//	go test ./tests/klog -run KlogGolden -update
func TestKlogGolden(t *testing.T) {
	checks := []*tests.Check{Check, oops.Check}
	dir := filepath.Join("testdata", "golden")
	seen := map[string]bool{}
	for _, c := range klogGoldenCases(t) {
		require.False(t, seen[c.name], "two corpus logs map to the golden name %s", c.name)
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			rs := tests.Run(&tests.Env{Machine: checktest.LogMachine(c.path)}, checks)
			for _, r := range rs {
				require.Contains(t, []tests.Status{tests.StatusPassed, tests.StatusFailed}, r.Status, "%s: %s", r.ID, r.Reason)
			}
			checktest.Golden(t, dir, c.name, tests.Render(rs))
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
	checktest.NoStaleGolden(t, filepath.Join("testdata", "golden"), names)
}

// A line over klog.MaxLine is cut, said so, and the rest of the log is
// still checked by both log checks.
func TestOverlongLineLeavesTheRestChecked(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dmesg.txt")
	log := "[    0.100000] DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.3 04/01/2014\n" +
		"[    1.000000] ACPI: " + strings.Repeat("A", 2<<20) + "\n" +
		"[    3.082295] ACPI Error: Could not disable RealTimeClock events (20220331/evxfevnt-243)\n"
	require.NoError(t, os.WriteFile(p, []byte(log), 0o644))
	r := checktest.Run(t, Check, checktest.LogMachine(p))
	assert.Equal(t, tests.StatusFailed, r.Status)
	assert.Len(t, checktest.FindingsWith(r, "ACPIFixedEventDisableFailed"), 1, "the line after the long one is checked")
	require.Len(t, r.Unchecked, 1)
	assert.Contains(t, r.Unchecked[0].What, "[1.000000]")
	assert.Contains(t, r.Unchecked[0].What, "bytes past the first 1048576")

	r = checktest.Run(t, oops.Check, checktest.LogMachine(p))
	assert.Equal(t, tests.StatusIncomplete, r.Status, "not skipped, not passed")
	require.Len(t, r.Unchecked, 1)
}

func TestLoadDBValidatesEntries(t *testing.T) {
	es, err := LoadDB(filepath.Join("..", "..", "klog", "testdata", "fwts-klog.json"))
	require.NoError(t, err, "the fwts-format fixture is valid")
	require.NotEmpty(t, es)

	dir := t.TempDir()
	for name, c := range map[string]struct{ json, want string }{
		"label": {`{"klog_error_check": [{"compare_mode": "string", "log_level": "LOG_LEVEL_HIGH", "pattern": "ACPI: x", "advice": "Fix x.", "label": "Bad label\u001b]0;pwned\u0007"}]}`,
			`entry 1 (label "Bad label\x1b]0;pwned\a", pattern "ACPI: x"): label "Bad label\x1b]0;pwned\a" is not CamelCase`},
		"advice": {`{"klog_error_check": [{"compare_mode": "string", "pattern": "a", "advice": "ok", "label": "GoodOne"}, {"compare_mode": "string", "pattern": "ACPI: y", "advice": "  ", "label": "NoAdvice"}]}`,
			`entry 2 (label "NoAdvice", pattern "ACPI: y"): label "NoAdvice" has no advice`},
		"long": {`{"klog_error_check": [{"compare_mode": "string", "pattern": "z", "advice": "a", "label": "` + strings.Repeat("A", 65) + `"}]}`,
			"label is longer than 64 characters"},
	} {
		p := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(p, []byte(c.json), 0o644))
		_, err := LoadDB(p)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
		assert.NotContains(t, err.Error(), "\n", name)
		assert.NotContains(t, err.Error(), "\x1b", name)
	}
}

// The matcher's error words and namesErrors replace two case-insensitive
// regexes that ran on every unmatched line; on every corpus line they agree
// with them.
func TestReadsLikeErrorAgreesWithRegex(t *testing.T) {
	errorish := regexp.MustCompile(`(?i)\b(?:error|failed|failure|timed out|timeout|invalid|corrupt(?:ed)?|bogus|broken)\b`)
	notErr := regexp.MustCompile(`(?i)error (?:record|report|log|injection|handling|containment|collector|source)|errors collector|support is initialized|enabled with IRQ|module verification failed`)
	files := append(corpus.Glob(t, "klog/linuxhw/*.dmesg.txt"), corpus.Glob(t, "suspend-qemu/*.serial.txt")...)
	es, err := klog.DefaultDB()
	require.NoError(t, err)
	m, err := klog.NewMatcherWords(es, klog.Env{}, logscan.ErrorWords)
	require.NoError(t, err)
	plain, err := klog.NewMatcher(es, klog.Env{})
	require.NoError(t, err)
	readsLikeError := func(s string) bool { _, w := m.MatchWords(s); return w }
	lines, errs := 0, 0
	for _, p := range files {
		require.NoError(t, klog.LogFile(p).EachLine(func(r klog.Record) bool {
			lines++
			want := errorish.MatchString(r.Text)
			if want {
				errs++
			}
			assert.Equal(t, want, readsLikeError(r.Text), r.Text)
			// Folding case in the automaton changes no match.
			assert.Equal(t, plain.Match(r.Text), m.Match(r.Text), r.Text)
			assert.Equal(t, notErr.MatchString(r.Text), logscan.NamesErrors(r.Text), r.Text)
			return true
		}))
	}
	for _, s := range []string{"Error", "xerror", "error_x", "an error.", "TIMED OUT", "corrupted", "corrupter", "failed-x", "", "timed outx", "errors", "Error: x error"} {
		assert.Equal(t, errorish.MatchString(s), readsLikeError(s), s)
	}
	assert.Greater(t, errs, 100)
	t.Logf("%d lines, %d read like errors", lines, errs)
}

// BenchmarkKlogCheckCorpus runs the klog check over every corpus boot log
// concatenated (1.8 MB), streamed from a file, in one process.
func BenchmarkKlogCheckCorpus(b *testing.B) {
	var all []byte
	for _, p := range append(corpus.Glob(b, "klog/*.txt"), corpus.Glob(b, "klog/linuxhw/*.dmesg.txt")...) {
		data, err := os.ReadFile(p)
		require.NoError(b, err)
		all = append(all, data...)
	}
	f := filepath.Join(b.TempDir(), "all.txt")
	require.NoError(b, os.WriteFile(f, all, 0o600))
	b.SetBytes(int64(len(all)))
	for b.Loop() {
		tests.RunOne(&tests.Env{Machine: checktest.LogMachine(f)}, Check)
	}
}

// judgedLine is one row of testdata/judged.tsv: a finding on a real log and
// whether it is a firmware problem.
type judgedLine struct {
	log, label, text string
	firmware         bool
	why              string
}

func loadJudged(t *testing.T) map[string]*judgedLine {
	data, err := os.ReadFile(filepath.Join("testdata", "judged.tsv"))
	require.NoError(t, err)
	out := map[string]*judgedLine{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 5)
		require.Len(t, f, 5, "judged.tsv:%d", i+1)
		require.Contains(t, []string{"yes", "no"}, f[2], "judged.tsv:%d", i+1)
		j := &judgedLine{log: f[0], label: f[1], firmware: f[2] == "yes", why: f[3], text: f[4]}
		require.NotContains(t, out, judgedKey(j.log, j.label, j.text), "judged.tsv:%d: duplicate", i+1)
		out[judgedKey(j.log, j.label, j.text)] = j
	}
	return out
}

func judgedKey(log, label, text string) string { return log + "\x00" + label + "\x00" + text }

var (
	stampPrefix  = regexp.MustCompile(`^\[ *\d+\.\d+\] `)
	repeatSuffix = regexp.MustCompile(` \(repeated \d+ times(?:, last at [\d.]+)?\)$`)
	causePrefix  = regexp.MustCompile(`^not a firmware fault \([\w-]+\): `)
)

// findingText is the logged message of a finding, without the cause note,
// time stamp and repeat count.
func findingText(msg string) string {
	msg = causePrefix.ReplaceAllString(msg, "")
	return repeatSuffix.ReplaceAllString(stampPrefix.ReplaceAllString(msg, ""), "")
}

// Every advice-database finding on the real boot logs has been judged line
// by line (testdata/judged.tsv). Each firmware problem must stay a failure;
// what is not a firmware problem is information or explained, and at most
// 2% of the failures may be judged not to be firmware problems. A new
// finding, or a judged one that disappeared, fails the test: judge it and
// update the file.
func TestKlogJudgedCorpus(t *testing.T) {
	judged := loadJudged(t)
	root := corpus.Dir(t, "klog")
	logs := append(corpus.Glob(t, "klog/*.txt"), corpus.Glob(t, "klog/linuxhw/*.dmesg.txt")...)
	seen := map[string]bool{}
	failures, notFirmware := 0, 0
	for _, p := range logs {
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		r := checktest.Run(t, Check, checktest.LogMachine(p))
		for _, f := range r.Findings {
			if f.Label == "" || f.Label == klogUnexplained.Name || f.Kind == tests.KindPass {
				continue
			}
			k := judgedKey(rel, f.Label, findingText(f.Message))
			j := judged[k]
			if !assert.NotNil(t, j, "not judged yet: %s\t%s\t?\t\t%s", rel, f.Label, findingText(f.Message)) {
				continue
			}
			seen[k] = true
			if !f.Fails() {
				assert.False(t, j.firmware, "%s: a firmware problem is not a failure: %s", rel, f.Message)
				continue
			}
			failures++
			if !j.firmware {
				notFirmware++
				t.Logf("failure judged not a firmware problem (%s): %s", j.why, f.Message)
			}
		}
	}
	for k, j := range judged {
		assert.True(t, seen[k], "judged but no longer found: %s %s %s", j.log, j.label, j.text)
	}
	t.Logf("%d failures on %d logs, %d judged not firmware problems (%.1f%%)", failures, len(logs), notFirmware, 100*float64(notFirmware)/float64(failures))
	assert.Greater(t, failures, 150)
	assert.LessOrEqual(t, notFirmware*100, 2*failures, "more than 2%% of the failures are not firmware problems")
}

// A bare-metal log whose ring buffer lost the DMI line is not a virtual
// machine: the MTRR messages get the firmware entries, not the VM one; a
// CPU property is information, not a failure.
func TestKlogNoDMILineIsNotAVM(t *testing.T) {
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join("testdata", "mtrr-nodmi.txt")))
	assert.Equal(t, []string{"MTRRInconsistentVariable", "MTRRBIOSNotAllCPUs", "MTRRCorrected"}, checktest.FailLabels(r))
	assert.Empty(t, checktest.FindingsWith(r, "VMMTRRInconsistent"))
	tsc := checktest.FindingWith(r, "TSCHaltsInIdle")
	assert.Equal(t, tests.KindInfo, tsc.Kind)
	assert.Equal(t, "not a firmware fault (cpu): [    1.100000] tsc: Marking TSC unstable due to TSC halts in idle", tsc.Message)
	assert.Equal(t, tests.StatusFailed, r.Status)
}

// A log whose only known messages are information (a CPU property) has
// been read and holds no firmware failure: the check passes, it is not
// incomplete.
func TestKlogOnlyInformationPasses(t *testing.T) {
	log := filepath.Join(t.TempDir(), "info.txt")
	require.NoError(t, os.WriteFile(log, []byte("[    0.000000] DMI: Example Corp Board/Board, BIOS 1.0 01/01/2024\n"+
		"[    1.100000] tsc: Marking TSC unstable due to TSC halts in idle\n"), 0o600))
	r := checktest.Run(t, Check, checktest.LogMachine(log))
	assert.Equal(t, tests.StatusPassed, r.Status)
	assert.Equal(t, tests.KindInfo, checktest.FindingWith(r, "TSCHaltsInIdle").Kind)
}
