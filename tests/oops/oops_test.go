package oops

import (
	klogcheck "github.com/fwcheck/fwcheck/tests/klog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o600) }

// After resume the q35/SeaBIOS guest cannot power off: init exits and the
// kernel warns in do_exit. The other guests shut down cleanly.
func TestOopsSuspendCorpus(t *testing.T) {
	dir := corpus.Dir(t, "suspend-qemu")
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join(dir, "s3-rtc-q35-bios.serial.txt")))
	assert.Equal(t, []string{"KernelWarning"}, checktest.FailLabels(r))
	f := checktest.FindingWith(r, "KernelWarning")
	require.NotNil(t, f)
	assert.Equal(t, tests.Medium, f.Severity)
	assert.Contains(t, f.Message, "[    3.449817] WARNING: CPU: 0 PID: 96 at kernel/exit.c:819 do_exit+0x8eb/0xb10")
	assert.Contains(t, f.Message, "\n    RIP: 0010:do_exit+0x8eb/0xb10")
	assert.Contains(t, f.Message, "Call Trace:")
	assert.NotContains(t, f.Message, "RAX:")
	assert.NotEmpty(t, f.Advice)

	for _, n := range []string{"s3-rtc-pc-bios", "s3-rtc-pc-ovmf", "s3-rtc-q35-ovmf"} {
		r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join(dir, n+".serial.txt")))
		assert.Equal(t, tests.StatusPassed, r.Status, n)
	}
}

func TestOopsPanicAfterFirmwareError(t *testing.T) {
	r := checktest.Run(t, Check, checktest.LogMachine(filepath.Join("testdata", "panic.txt")))
	assert.Equal(t, []string{"KernelPanic"}, checktest.FailLabels(r))
	f := checktest.FindingWith(r, "KernelPanic")
	require.NotNil(t, f)
	assert.Equal(t, tests.Critical, f.Severity)
	assert.Contains(t, f.Message, "[   10.000000] Kernel panic - not syncing: Fatal exception in interrupt (the trace runs through firmware-facing kernel code)")
	assert.Contains(t, f.Message, "acpi_ev_gpe_dispatch")

	// The klog check explains the AML loop timeout that preceded it.
	k := checktest.Run(t, klogcheck.Check, checktest.LogMachine(filepath.Join("testdata", "panic.txt")))
	assert.Contains(t, checktest.FailLabels(k), "AMLMethodLoopTimeout")
}

func TestOopsLinuxHWCorpusClean(t *testing.T) {
	for _, p := range corpus.Glob(t, "klog/linuxhw/*.dmesg.txt") {
		r := checktest.Run(t, Check, checktest.LogMachine(p))
		assert.Equal(t, tests.StatusPassed, r.Status, p)
	}
}

// The arm64 live image on QEMU virt under TCG, with QEMU stopped for 40 s
// (SIGSTOP, then SIGCONT) once the kernel had its CPUs up: what a loaded
// host does to an emulated guest. The guest's clock ran on, and its
// watchdog reported "soft lockup - CPU#0 stuck for 38s!": explained by the
// emulation. The same log on real hardware, or under KVM, fails.
func TestOopsTCGSoftLockup(t *testing.T) {
	path := filepath.Join("testdata", "tcg-soft-lockup.txt")
	r := checktest.Run(t, Check, checktest.LogMachine(path))
	assert.Empty(t, failing(r), "%+v", r.Findings)
	assert.Equal(t, []string{"KernelLockup"}, checktest.FailLabels(r), "explained, still listed")
	f := checktest.FindingWith(r, "KernelLockup")
	require.NotNil(t, f)
	assert.Contains(t, f.Message, "[   41.766485] watchdog: BUG: soft lockup - CPU#0 stuck for 38s! [kworker/u2:0:10]")
	assert.Equal(t, tests.High, f.Severity)
	assert.True(t, strings.HasPrefix(f.Explained, "QEMU without KVM (kernel log: DMI: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015; "), f.Explained)
	assert.Contains(t, f.Explained, "a busy host leaves unscheduled for seconds")
	assert.Contains(t, f.Explained, "on real hardware, or under KVM, this report is a failure")

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	for name, repl := range map[string]string{
		"real hardware": "DMI: Ampere Computing Mt. Jade, BIOS 2.09 01/01/2024",
		"KVM":           "DMI: QEMU KVM Virtual Machine, BIOS 0.0.0 02/06/2015",
	} {
		log := strings.ReplaceAll(string(raw), "DMI: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015", repl)
		p := filepath.Join(t.TempDir(), "klog.txt")
		require.NoError(t, writeFile(p, log))
		r := checktest.Run(t, Check, checktest.LogMachine(p))
		assert.Equal(t, []string{"KernelLockup"}, failing(r), name)
	}
}

// Under emulation only soft lockups and RCU stalls are explained: a hard
// lockup (and with it every lockup of the log) and a hung task still fail.
func TestOopsTCGOtherReports(t *testing.T) {
	dmi := "[    0.395630] DMI: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015\n"
	for name, c := range map[string]struct {
		log  string
		want []string
	}{
		"rcu stall": {"[   30.1] rcu: INFO: rcu_sched self-detected stall on CPU\n[   30.1] rcu: \t0-....: (5249 ticks this GP)\n", nil},
		"hard lockup": {"[   30.1] watchdog: BUG: soft lockup - CPU#0 stuck for 23s! [swapper/0:1]\n" +
			"[   40.1] Watchdog detected hard LOCKUP on cpu 1\n", []string{"KernelLockup", "KernelLockup"}},
		"hung task": {"[  250.1] INFO: task kworker/0:1:12 blocked for more than 120 seconds.\n", []string{"KernelHungTask"}},
	} {
		p := filepath.Join(t.TempDir(), "klog.txt")
		require.NoError(t, writeFile(p, dmi+c.log))
		r := checktest.Run(t, Check, checktest.LogMachine(p))
		assert.Equal(t, c.want, failing(r), "%s: %+v", name, r.Findings)
		if c.want == nil {
			f := checktest.FindingWith(r, "KernelRCUStall")
			require.NotNil(t, f, name)
			assert.Contains(t, f.Explained, "QEMU without KVM", name)
		}
	}
}

// failing lists the labels of r's failures the environment does not
// explain.
func failing(r tests.Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Fails() {
			out = append(out, f.Label)
		}
	}
	return out
}
