package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o600) }

// After resume the q35/SeaBIOS guest cannot power off: init exits and the
// kernel warns in do_exit. The other guests shut down cleanly.
func TestOopsSuspendCorpus(t *testing.T) {
	dir := corpus.Dir(t, "suspend-qemu")
	r := runOnLog(t, "oops", filepath.Join(dir, "s3-rtc-q35-bios.serial.txt"))
	assert.Equal(t, []string{"KernelWarning"}, failLabels(r))
	f := findingWith(r, "KernelWarning")
	require.NotNil(t, f)
	assert.Equal(t, Medium, f.Severity)
	assert.Contains(t, f.Message, "[    3.449817] WARNING: CPU: 0 PID: 96 at kernel/exit.c:819 do_exit+0x8eb/0xb10")
	assert.Contains(t, f.Message, "\n    RIP: 0010:do_exit+0x8eb/0xb10")
	assert.Contains(t, f.Message, "Call Trace:")
	assert.NotContains(t, f.Message, "RAX:")
	assert.NotEmpty(t, f.Advice)

	for _, n := range []string{"s3-rtc-pc-bios", "s3-rtc-pc-ovmf", "s3-rtc-q35-ovmf"} {
		r := runOnLog(t, "oops", filepath.Join(dir, n+".serial.txt"))
		assert.Equal(t, StatusPassed, r.Status, n)
	}
}

func TestOopsPanicAfterFirmwareError(t *testing.T) {
	r := runOnLog(t, "oops", filepath.Join("testdata", "klog", "panic.txt"))
	assert.Equal(t, []string{"KernelPanic"}, failLabels(r))
	f := findingWith(r, "KernelPanic")
	require.NotNil(t, f)
	assert.Equal(t, Critical, f.Severity)
	assert.Contains(t, f.Message, "[   10.000000] Kernel panic - not syncing: Fatal exception in interrupt (the trace runs through firmware-facing kernel code)")
	assert.Contains(t, f.Message, "acpi_ev_gpe_dispatch")

	// The klog check explains the AML loop timeout that preceded it.
	k := runOnLog(t, "klog", filepath.Join("testdata", "klog", "panic.txt"))
	assert.Contains(t, failLabels(k), "AMLMethodLoopTimeout")
}

func TestOopsLinuxHWCorpusClean(t *testing.T) {
	for _, p := range corpus.Glob(t, "klog/linuxhw/*.dmesg.txt") {
		r := runOnLog(t, "oops", p)
		assert.Equal(t, StatusPassed, r.Status, p)
	}
}
