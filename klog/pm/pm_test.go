package pm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/klog"
)

func readSuspendFixture(t testing.TB, name string) []klog.Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "suspend", name))
	require.NoError(t, err)
	return klog.ParseString(string(data))
}

func TestMarker(t *testing.T) {
	assert.Equal(t, "fwcheck: s3 cycle 3 begin", Marker(3, MarkerBegin))
	s := Marker(187, MarkerEnd, "slept=5.012s", "mode=deep")
	assert.Equal(t, "fwcheck: s3 cycle 187 end slept=5.012s mode=deep", s)
	n, edge, f, ok := ParseMarker("  " + s)
	require.True(t, ok)
	assert.Equal(t, 187, n)
	assert.Equal(t, MarkerEnd, edge)
	assert.Equal(t, map[string]string{"slept": "5.012s", "mode": "deep"}, f)
	for _, bad := range []string{"fwcheck: s3 cycle x begin", "fwcheck: s3 cycle 3", "fwcheck: s3 cycle 3 middle", "fwcheck: s3 cycle -1 end", "s3 cycle 3 begin"} {
		_, _, _, ok := ParseMarker(bad)
		assert.False(t, ok, bad)
	}
	// A marker read back from the kernel log through Parse.
	recs := klog.ParseString("12,345,6789,-;" + Marker(4, MarkerBegin) + "\n")
	require.Len(t, recs, 1)
	n, edge, _, ok = ParseMarker(recs[0].Text)
	assert.True(t, ok)
	assert.Equal(t, 4, n)
	assert.Equal(t, MarkerBegin, edge)
}

func TestSuspendsModern(t *testing.T) {
	recs := readSuspendFixture(t, "modern-6x.txt")
	l := Suspends(recs)
	require.Len(t, l.Cycles, 5)

	c := l.Cycles[0]
	assert.Equal(t, 1, c.Number)
	assert.Equal(t, "fwcheck", c.Marker)
	assert.Equal(t, "deep", c.Mode)
	assert.Equal(t, "S3", c.SleepState)
	assert.True(t, c.Entered)
	assert.True(t, c.Resumed)
	assert.False(t, c.Aborted())
	assert.Equal(t, 210*time.Millisecond, c.KernelResume)
	assert.Equal(t, "ACPI: PM: Low-level resume complete", c.ResumeStartAnchor)
	assert.Equal(t, "Restarting tasks ... done.", c.ResumeEndAnchor)
	assert.Equal(t, 50*time.Millisecond, c.SuspendDevices)
	assert.Equal(t, 160*time.Millisecond, c.ResumeDevices)
	slept, ok := c.Slept()
	assert.True(t, ok)
	assert.Equal(t, 5012*time.Millisecond, slept)
	assert.Equal(t, 100*time.Second, c.Begin)
	assert.Equal(t, 100*time.Second+400*time.Millisecond, c.Finish)
	assert.Equal(t, "fwcheck: s3 cycle 1 end slept=5.012s", recs[c.End-1].Text)
	assert.Equal(t, "fwcheck: s3 cycle 1 begin", recs[c.Start].Text)
	require.Len(t, c.Devices, 5)
	assert.Equal(t, DeviceTime{Device: "i915 0000:00:02.0", Callback: "pci_pm_suspend+0x0/0x170", Phase: PhaseSuspend,
		Duration: 20 * time.Millisecond, Time: 100*time.Second + 52*time.Millisecond}, c.Devices[0])
	slow := c.Slowest(5, PhaseResume)
	require.Len(t, slow, 3)
	assert.Equal(t, "xhci_hcd 0000:00:14.0", slow[0].Device)
	assert.Equal(t, 80*time.Millisecond, slow[0].Duration)
	assert.Equal(t, -110, slow[1].Return)
	assert.Len(t, c.Slowest(1, ""), 1)
	assert.Len(t, c.Slowest(-1, PhaseSuspend), 2)
	require.Len(t, c.Failures, 1)
	assert.Equal(t, DeviceFailure{Device: "i915 0000:00:02.0", Verb: "resume", Info: "async", Phase: PhaseResume, Errno: -110,
		Callback: "pci_pm_resume+0x0/0xe0", Text: "i915 0000:00:02.0: PM: failed to resume async: error -110",
		Time: 100*time.Second + 250002*time.Microsecond, Index: c.Failures[0].Index}, c.Failures[0])
	require.Len(t, c.Wakeups, 1)
	assert.Equal(t, "ACPI: PM: Waking up from system sleep state S3", c.Wakeups[0].Text)
	assert.Empty(t, c.Unreturned)

	c = l.Cycles[1]
	assert.Equal(t, 2, c.Number)
	assert.Equal(t, "s2idle", c.Mode)
	assert.True(t, c.Aborted())
	assert.False(t, c.Entered)
	assert.Equal(t, time.Duration(-1), c.KernelResume, "an aborted suspend has no resume")
	assert.Equal(t, []string{"usb 1-1"}, c.Unreturned)
	require.Len(t, c.Wakeups, 2)
	assert.Equal(t, "PM: last active wakeup source: 1-1", c.Wakeups[1].Text)
	require.Len(t, c.Aborts, 2)
	assert.Equal(t, "PM: Wakeup pending, aborting suspend", c.Aborts[0].Text)

	c = l.Cycles[2]
	assert.Equal(t, 3, c.Number, "unmarked cycles are numbered by position")
	assert.Equal(t, "", c.Marker)
	assert.Equal(t, "s2idle", c.Mode)
	assert.True(t, c.Entered)
	assert.Equal(t, 70*time.Millisecond, c.KernelResume)
	assert.Equal(t, "PM: resume from suspend-to-idle", c.ResumeStartAnchor)
	require.Len(t, c.Wakeups, 2)
	assert.Equal(t, "PM: Triggering wakeup from IRQ 9", c.Wakeups[0].Text)
	assert.Equal(t, "PM: suspend exit", recs[c.End-1].Text)

	c = l.Cycles[3]
	assert.True(t, c.Aborted())
	require.Len(t, c.Failures, 1)
	assert.Equal(t, "usb 2-1", c.Failures[0].Device)
	assert.Equal(t, PhaseSuspend, c.Failures[0].Phase)
	assert.Equal(t, -16, c.Failures[0].Errno)
	assert.Equal(t, "usb_dev_suspend+0x0/0x20", c.Failures[0].Callback)

	c = l.Cycles[4]
	assert.Equal(t, 5, c.Number)
	assert.True(t, c.Entered)
	assert.False(t, c.Resumed, "the machine hung")
	assert.Equal(t, []string{"sd 0:0:0:0"}, c.Unreturned)
	assert.True(t, strings.HasPrefix(recs[c.End].Text, "Linux version"), "the cycle ends at the next boot")

	require.NotNil(t, l.PMTrace)
	assert.Equal(t, "0:183:728", l.PMTrace.Magic)
	assert.Equal(t, []string{"drivers/base/power/main.c:1106"}, l.PMTrace.Files)
	assert.Equal(t, []string{"pci 0000:00:1f.3"}, l.PMTrace.Devices)
}

func TestSuspendsPmGraphExcerpt(t *testing.T) {
	recs := readSuspendFixture(t, "pmgraph-mem-3.15.txt")
	l := Suspends(recs)
	require.Len(t, l.Cycles, 1)
	c := l.Cycles[0]
	assert.Equal(t, "mem", c.Mode)
	assert.Equal(t, "S3", c.SleepState)
	assert.Equal(t, 1, c.Start, "the pm-graph header line is no cycle's")
	assert.Equal(t, len(recs), c.End)
	// 552.778960 (Restarting tasks) - 552.479987 (Low-level resume complete)
	assert.Equal(t, 298973*time.Microsecond, c.KernelResume)
	assert.Equal(t, 866009*time.Microsecond, c.SuspendDevices)
	assert.Equal(t, 180949*time.Microsecond, c.ResumeDevices)
	assert.Equal(t, 15274*time.Microsecond, c.PhaseTimes["noirq resume"])
	assert.Equal(t, 16140*time.Microsecond, c.PhaseTimes["noirq suspend"])
	slow := c.Slowest(5, PhaseResume)
	var names []string
	for _, d := range slow {
		names = append(names, fmt.Sprintf("%s %v", d.Device, d.Duration))
	}
	assert.Equal(t, []string{"0000:00:1b.0 159.001ms", "0000:02:00.0 108.949ms", "usb3 54.072ms", "1-1.5 49.481ms", "0000:00:02.0 46.076ms"}, names)
	assert.Equal(t, "0:0:0:0", c.Slowest(1, PhaseSuspend)[0].Device)
	require.Len(t, c.Failures, 7)
	for _, f := range c.Failures {
		assert.Equal(t, "resume", f.Verb)
		assert.Equal(t, "async", f.Info)
		assert.Equal(t, "usb_dev_resume+0x0/0x20", f.Callback, f.Device)
	}
	assert.Equal(t, "1-1.5", c.Failures[6].Device)
	assert.Equal(t, -71, c.Failures[6].Errno)
	assert.False(t, c.Aborted())
	assert.Empty(t, c.Unreturned)
}

// The QEMU q35 guest on SeaBIOS: its first suspend sleeps ~5 s, the next
// two return at once. Its console shows no kernel PM lines, so the
// harness's lines delimit the cycles and carry the time asleep.
func TestSuspendsQ35BiosExcerpt(t *testing.T) {
	recs := readSuspendFixture(t, "qemu-q35-bios.txt")
	l := Suspends(recs)
	require.Len(t, l.Cycles, 3)
	want := []time.Duration{4960 * time.Millisecond, 0, 0}
	for i, c := range l.Cycles {
		assert.Equal(t, i+1, c.Number)
		assert.Equal(t, "s3loop", c.Marker)
		assert.True(t, c.Resumed)
		slept, ok := c.Slept()
		require.True(t, ok)
		assert.Equal(t, want[i], slept, "cycle %d", c.Number)
		assert.Equal(t, time.Duration(-1), c.KernelResume)
		assert.Contains(t, recs[c.Start+1].Text, "Could not disable RealTimeClock events")
	}
}

func TestSuspendsEdgeCases(t *testing.T) {
	assert.Empty(t, Suspends(nil).Cycles)
	// Runtime PM and boot-time callback lines outside any cycle are not a
	// cycle; neither is "Restarting tasks" alone.
	l := Suspends(klog.ParseString(`[1.0] calling  acpi_init+0x0/0x4d @ 1
[1.1] initcall acpi_init+0x0/0x4d returned 0 after 1234 usecs
[2.0] pci 0000:00:02.0: PM: calling pci_pm_runtime_resume+0x0/0x90 @ 5, parent: pci0000:00
[2.1] pci 0000:00:02.0: PM: pci_pm_runtime_resume+0x0/0x90 returned 0 after 10 usecs
[3.0] Restarting tasks ... done.
`))
	assert.Empty(t, l.Cycles)

	// A log that starts mid-cycle: the resume side proves a cycle.
	l = Suspends(klog.ParseString("[5.0] PM: resume of devices complete after 12.500 msecs\n[5.1] Restarting tasks ... done.\n[5.2] PM: suspend exit\n"))
	require.Len(t, l.Cycles, 1)
	assert.Equal(t, 12500*time.Microsecond, l.Cycles[0].ResumeDevices)
	assert.Equal(t, time.Duration(-1), l.Cycles[0].KernelResume, "no resume-start anchor")
	assert.Equal(t, 5100*time.Millisecond, l.Cycles[0].ResumeEnd, "Restarting tasks is preferred to the device resume end")

	// An end marker whose begin was lost still makes a cycle.
	l = Suspends(klog.ParseString(Marker(7, MarkerEnd, "slept=1s") + "\n"))
	require.Len(t, l.Cycles, 1)
	assert.Equal(t, 7, l.Cycles[0].Number)

	// Two suspend entries in a row without an exit: two cycles.
	l = Suspends(klog.ParseString("[1.0] PM: suspend entry (deep)\n[2.0] PM: suspend entry (s2idle)\n"))
	assert.Len(t, l.Cycles, 2)

	// Old wordings of a device suspend failure and of a freezer failure.
	l = Suspends(klog.ParseString(`[10.0] PM: Syncing filesystems ... done.
[10.1] Freezing of tasks failed after 20.003 seconds (1 tasks refusing to freeze, wq_busy=0):
[10.2] Restarting tasks ... done.
[20.0] PM: Syncing filesystems ... done.
[20.1] PM: Device 0000:00:1d.0 failed to suspend async: error -16
[20.2] PM: Some devices failed to suspend
[20.3] Restarting tasks ... done.
`))
	require.Len(t, l.Cycles, 2)
	assert.True(t, l.Cycles[0].Aborted())
	require.Len(t, l.Cycles[1].Failures, 1)
	assert.Equal(t, "0000:00:1d.0", l.Cycles[1].Failures[0].Device)
	assert.Len(t, l.Cycles[1].Aborts, 2)

	_, ok := (&Cycle{Fields: map[string]string{"slept": "x"}}).Slept()
	assert.False(t, ok)
	_, ok = (&Cycle{}).Slept()
	assert.False(t, ok)
}

// TestSuspendsCorpus runs the extractor on the real captures.
func TestSuspendsCorpus(t *testing.T) {
	t.Run("qemu", func(t *testing.T) {
		for _, p := range corpus.Glob(t, "suspend-qemu/*.serial.txt") {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			recs := klog.ParseString(string(data))
			l := Suspends(recs)
			name := filepath.Base(p)
			require.Len(t, l.Cycles, 3, name)
			var slept []string
			for i, c := range l.Cycles {
				d, ok := c.Slept()
				require.True(t, ok, name)
				slept = append(slept, d.String())
				if strings.Contains(name, "q35-bios") && i > 0 {
					assert.Less(t, d, 500*time.Millisecond, "%s cycle %d: the mis-resume", name, c.Number)
				} else {
					assert.InDelta(t, 5.5, d.Seconds(), 1, "%s cycle %d", name, c.Number)
				}
			}
			t.Logf("%s: slept %s", name, strings.Join(slept, ", "))
		}
	})
	t.Run("pmgraph", func(t *testing.T) {
		want := map[string]struct {
			mode, state string
			resume      time.Duration
			failures    int
		}{
			"skynet_mem_dmesg.txt":     {"mem", "S3", 298973 * time.Microsecond, 7},
			"skynet_standby_dmesg.txt": {"standby", "S1", 298469 * time.Microsecond, 7},
			"skynet_freeze_dmesg.txt":  {"freeze", "", 179635 * time.Microsecond, 9},
			"skynet_disk_dmesg.txt":    {"disk", "S4", 3796179 * time.Microsecond, 0},
		}
		for _, p := range corpus.Glob(t, "suspend-pmgraph/devtest/*/*_dmesg.txt") {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			recs := klog.ParseString(string(data))
			l := Suspends(recs)
			name := filepath.Base(p)
			require.Len(t, l.Cycles, 1, name)
			c := l.Cycles[0]
			w := want[name]
			assert.Equal(t, w.mode, c.Mode, name)
			assert.Equal(t, w.state, c.SleepState, name)
			assert.Equal(t, w.resume, c.KernelResume, name)
			assert.Len(t, c.Failures, w.failures, name)
			assert.True(t, c.Entered && c.Resumed, name)
			assert.Empty(t, c.Unreturned, name)
			var slow []string
			for _, d := range c.Slowest(5, PhaseResume) {
				slow = append(slow, fmt.Sprintf("%s %v", d.Device, d.Duration))
			}
			t.Logf("%s: %s, kernel resume %v (%q → %q), devices %v/%v, %d callbacks, %d failures; slowest resume: %s",
				name, c.Mode, c.KernelResume, c.ResumeStartAnchor, c.ResumeEndAnchor, c.SuspendDevices, c.ResumeDevices,
				len(c.Devices), len(c.Failures), strings.Join(slow, ", "))
		}
	})
}

// FuzzSuspends: the extractor never panics and its cycles are ordered,
// disjoint slices of the records with sane durations.
func FuzzSuspends(f *testing.F) {
	for _, name := range []string{"modern-6x.txt", "pmgraph-mem-3.15.txt", "qemu-q35-bios.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "suspend", name))
		require.NoError(f, err)
		lines := strings.SplitAfter(string(data), "\n")
		for i := 0; i < len(lines); i += 9 {
			f.Add(strings.Join(lines[i:min(i+14, len(lines))], ""))
		}
	}
	f.Add("[1.0] PM: suspend entry (\n[0.5] PM: Device  failed to : error -\n[0.6] x: PM: failed to resume: error 1\n")
	f.Add("[1.0] dpm_run_callback(): returns\n[2.0] call + returned x after  usecs\n[3.0] a: b returned 1 after 2 usecs\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs := klog.ParseString(in)
		l := Suspends(recs)
		end := 0
		for _, c := range l.Cycles {
			require.GreaterOrEqual(t, c.Start, end)
			require.LessOrEqual(t, c.Start, c.End)
			require.LessOrEqual(t, c.End, len(recs))
			end = c.End
			require.GreaterOrEqual(t, c.KernelResume, time.Duration(-1))
			for _, fl := range c.Failures {
				require.True(t, fl.Index >= c.Start && fl.Index < c.End)
			}
			s := c.Slowest(-1, "")
			for i := 1; i < len(s); i++ {
				require.GreaterOrEqual(t, s[i-1].Duration, s[i].Duration)
			}
			for _, d := range c.Devices {
				require.GreaterOrEqual(t, d.Duration, time.Duration(0))
			}
			_, _ = c.Slept()
		}
	})
}

// BenchmarkSuspends extracts the cycles of every suspend capture in the
// corpus (records parsed beforehand) and reports the log bytes handled per
// second.
func BenchmarkSuspends(b *testing.B) {
	paths := corpus.Glob(b, "suspend-*/*.serial.txt")
	more, _ := filepath.Glob(filepath.Join(corpus.Root(), "suspend-pmgraph", "devtest", "*", "*_dmesg.txt"))
	var logs [][]klog.Record
	size, lines := 0, 0
	for _, p := range append(paths, more...) {
		data, err := os.ReadFile(p)
		require.NoError(b, err)
		size += len(data)
		recs := klog.ParseString(string(data))
		lines += len(recs)
		logs = append(logs, recs)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		for _, recs := range logs {
			if l := Suspends(recs); len(l.Cycles) == 0 {
				b.Fatal("no cycles")
			}
		}
	}
	b.ReportMetric(float64(b.N*lines)/b.Elapsed().Seconds(), "records/s")
}
