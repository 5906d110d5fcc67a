package oops

import (
	klogcheck "github.com/fwcheck/fwcheck/tests/klog"
	"os"
	"path/filepath"
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
