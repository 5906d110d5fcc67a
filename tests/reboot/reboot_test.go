package reboot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// fakeMachine is a machine that boots, as the check sees it: a directory
// with /proc/stat's btime, /sys/kernel/reboot and the kernel log, which the
// test rewrites for every boot; its Control records the reset requests.
type fakeMachine struct {
	t       *testing.T
	dir     string
	journal string
	resets  []string // the methods of the resets requested
	refuse  error    // what Reboot returns; nil: the reset is under way
}

const bootLog = "[    0.000000] Linux version 6.1.0-test\n[    0.000000] DMI: LENOVO 20XW/20XW, BIOS N32ET75W 01/01/2024\n"

// A line the advice database knows (AMLUnresolvedSymbol).
const unresolved = "[    1.000000] ACPI BIOS Error (bug): Could not resolve symbol [\\_SB.PCI0.GFX0], AE_NOT_FOUND (20220331/dswload2-162)\n"

func newFake(t *testing.T) *fakeMachine {
	m := &fakeMachine{t: t, dir: t.TempDir()}
	m.journal = filepath.Join(t.TempDir(), "reboot.jsonl")
	m.write("sys/kernel/reboot/type", "acpi\n")
	m.write("proc/cmdline", "console=ttyS0 quiet\n")
	m.boot(time.Now().Add(-time.Minute), bootLog)
	return m
}

func (m *fakeMachine) write(p, s string) {
	p = filepath.Join(m.dir, p)
	require.NoError(m.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(m.t, os.WriteFile(p, []byte(s), 0o644))
}

// boot makes the machine one that started at `at` with the given log.
func (m *fakeMachine) boot(at time.Time, log string) {
	m.write("proc/stat", fmt.Sprintf("cpu  1 2 3 4\nbtime %d\nprocesses 100\n", at.Unix()))
	m.write("fwcheck/klog.txt", log)
}

func (m *fakeMachine) Mark(string) error { return nil }
func (m *fakeMachine) Suspend(input.SuspendRequest) (input.SuspendResult, error) {
	return input.SuspendResult{}, errors.New("not in this test")
}
func (m *fakeMachine) Reboot(method string) error {
	m.resets = append(m.resets, method)
	return m.refuse
}

func (m *fakeMachine) run(t *testing.T, settings ...string) tests.Result {
	t.Helper()
	src, err := input.Open(m.dir)
	require.NoError(t, err)
	var set tests.Settings
	require.NoError(t, set.Set(Check, "journal", m.journal))
	for i := 0; i+1 < len(settings); i += 2 {
		require.NoError(t, set.Set(Check, settings[i], settings[i+1]))
	}
	r := tests.RunOne(&tests.Env{Machine: input.New(src, input.Options{}), Settings: &set, Control: m}, Check)
	require.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
	return r
}

// lastRequest is the time of the journal's last request.
func (m *fakeMachine) lastRequest() time.Time {
	st, err := readState(func(p string) (io.ReadCloser, error) { return os.Open(p) }, m.journal)
	require.NoError(m.t, err)
	require.NotZero(m.t, st.pending, "a reboot is pending")
	return st.pendingAt
}

func infos(r tests.Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		if f.Kind == tests.KindInfo {
			b.WriteString(f.Message + "\n")
		}
	}
	return b.String()
}

func TestThreeRebootsComeBack(t *testing.T) {
	m := newFake(t)
	r := m.run(t, "cycles", "3", "method", "acpi")
	assert.Equal(t, tests.StatusIncomplete, r.Status, "the first boot only starts the run")
	assert.Equal(t, []string{"acpi"}, m.resets)
	for n := 1; n <= 3; n++ {
		m.boot(m.lastRequest().Add(3*time.Second), bootLog)
		r = m.run(t) // later boots take the run's parameters from the journal
		assert.Len(t, m.resets, min(n+1, 3))
	}
	assert.Equal(t, tests.StatusPassed, r.Status, "%s", tests.Render([]tests.Result{r}))
	assert.Contains(t, infos(r), "3 reboots with method acpi: 3 completed, 0 hung, 0 failed")
	assert.Contains(t, infos(r), "reboot 2 completed (method acpi): request to kernel start ")
	cycles, ok := r.Data["cycles"].([]Outcome)
	require.True(t, ok)
	require.Len(t, cycles, 3)
	for _, c := range cycles {
		// The kernel's boot time has whole seconds: 3 s after the request
		// reads as 2 to 3 s.
		assert.InDelta(t, 2500, c.RequestToKernelMS, 500, "reboot %d", c.Cycle)
	}

	// The run is done: the next boot starts a new one.
	m.boot(time.Now(), bootLog)
	r = m.run(t, "cycles", "1")
	assert.Equal(t, tests.StatusIncomplete, r.Status)
	assert.Len(t, m.resets, 4)
}

func TestHungRebootIsFoundOnTheNextBoot(t *testing.T) {
	m := newFake(t)
	m.run(t, "cycles", "3", "hang-after", "2m")
	m.boot(m.lastRequest().Add(2*time.Second), bootLog)
	m.run(t, "hang-after", "2m")
	// Reboot 2 never came back: the lab power-cycled it ten minutes later.
	m.boot(m.lastRequest().Add(10*time.Minute), bootLog)
	m.run(t, "hang-after", "2m")
	m.boot(m.lastRequest().Add(2*time.Second), bootLog)
	r := m.run(t, "hang-after", "2m")
	assert.Equal(t, tests.StatusFailed, r.Status)
	f := checktest.FindingWith(r, "RebootHung")
	require.NotNil(t, f)
	assert.Regexp(t, `^reboot 2 \(method default\): the next kernel started (9m59s|10m0s) after the request \(limit 2m0s\): the machine was power-cycled$`, f.Message)
	assert.Equal(t, tests.Critical, f.Severity)
	assert.Contains(t, infos(r), "3 reboots with method default: 2 completed, 1 hung, 0 failed")
	assert.Contains(t, infos(r), "first failing reboot: 2")
}

func TestIntermittentLogFindingIsReported(t *testing.T) {
	m := newFake(t)
	m.run(t, "cycles", "2")
	m.boot(m.lastRequest().Add(2*time.Second), bootLog+unresolved)
	m.run(t)
	m.boot(m.lastRequest().Add(2*time.Second), bootLog)
	r := m.run(t)
	f := checktest.FindingWith(r, "RebootIntermittentLogFinding")
	require.NotNil(t, f, "%s", tests.Render([]tests.Result{r}))
	assert.Equal(t, "AMLUnresolvedSymbol appeared in 1 of 2 boots: after reboots 1", f.Message)

	// In every boot it is the klog check's business, not an intermittent fault.
	m = newFake(t)
	m.run(t, "cycles", "2")
	for n := 0; n < 2; n++ {
		m.boot(m.lastRequest().Add(2*time.Second), bootLog+unresolved)
		r = m.run(t)
	}
	assert.Nil(t, checktest.FindingWith(r, "RebootIntermittentLogFinding"))
	assert.Contains(t, infos(r), "AMLUnresolvedSymbol appeared in every boot")
	assert.Equal(t, tests.StatusPassed, r.Status)
}

func TestRefusedResetAndOldKernel(t *testing.T) {
	m := newFake(t)
	m.refuse = errors.New("selecting reboot method \"efi\": invalid argument")
	r := m.run(t, "cycles", "5", "method", "efi")
	assert.Equal(t, tests.StatusFailed, r.Status)
	require.NotNil(t, checktest.FindingWith(r, "RebootRefused"))
	assert.Equal(t, "reboot 1: selecting reboot method \"efi\": invalid argument", checktest.FindingWith(r, "RebootRefused").Message)
	require.Len(t, r.Unchecked, 1)
	assert.Equal(t, "reboots 2–5", r.Unchecked[0].What)

	// Before Linux 5.11 there is no /sys/kernel/reboot: no method to select.
	m = newFake(t)
	require.NoError(t, os.RemoveAll(filepath.Join(m.dir, "sys/kernel/reboot")))
	r = m.run(t, "cycles", "2", "method", "acpi")
	assert.Empty(t, m.resets, "nothing was reset")
	assert.Contains(t, checktest.FindingWith(r, "RebootRefused").Message, "only --reboot.method default can be used")
}

func TestWithoutJournalOrControl(t *testing.T) {
	m := newFake(t)
	src, err := input.Open(m.dir)
	require.NoError(t, err)
	r := tests.RunOne(&tests.Env{Machine: input.New(src, input.Options{}), Settings: &tests.Settings{}, Control: m}, Check)
	assert.Equal(t, tests.StatusSkipped, r.Status)
	assert.Contains(t, r.Reason, "needs a journal")
	assert.Empty(t, m.resets)

	var set tests.Settings
	require.NoError(t, set.Set(Check, "journal", m.journal))
	r = tests.RunOne(&tests.Env{Machine: input.New(src, input.Options{}), Settings: &set}, Check)
	assert.Equal(t, tests.StatusSkipped, r.Status, r.Reason)
	assert.Contains(t, r.Reason, "no live machine")
}

func TestDamagedJournal(t *testing.T) {
	m := newFake(t)
	m.run(t, "cycles", "2")
	f, err := os.OpenFile(m.journal, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	f.WriteString(`{"event":"outc`) // the reset cut this write
	f.Close()
	m.boot(m.lastRequest().Add(2*time.Second), bootLog)
	r := m.run(t)
	assert.Contains(t, r.Findings[0].Message, "1 damaged lines skipped")
	m.boot(m.lastRequest().Add(2*time.Second), bootLog)
	r = m.run(t)
	assert.Contains(t, infos(r), "2 reboots with method default: 2 completed")
}

// On arm64 the methods are the kernel's one path (default, efi) and psci;
// the x86 methods are refused, and no method is written to sysfs.
func TestArm64Methods(t *testing.T) {
	arm := func(efi bool) *fakeMachine {
		m := newFake(t)
		require.NoError(t, os.RemoveAll(filepath.Join(m.dir, "sys/kernel/reboot")))
		m.write("fwcheck/arch.txt", "arm64\n")
		if efi {
			m.write("sys/firmware/efi/fw_platform_size", "64\n")
		}
		return m
	}
	m := arm(true)
	r := m.run(t, "cycles", "1", "method", "kbd")
	assert.Empty(t, m.resets)
	assert.Contains(t, checktest.FindingWith(r, "RebootRefused").Message, "x86 only")

	m = arm(true)
	m.run(t, "cycles", "1", "method", "psci")
	assert.Empty(t, m.resets, "psci alone cannot be chosen under UEFI")

	for _, c := range []struct {
		efi    bool
		method string
	}{{true, "default"}, {true, "efi"}, {false, "psci"}, {false, "default"}} {
		m = arm(c.efi)
		m.run(t, "cycles", "1", "method", c.method)
		assert.Equal(t, []string{""}, m.resets, "%+v: the kernel's own path, nothing selected", c)
	}
}
