package klog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

func TestFindOopsesSamples(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "oops-samples.txt"))
	require.NoError(t, err)
	got := FindOopses(ParseString(string(data)))
	var kinds []OopsKind
	for _, o := range got {
		kinds = append(kinds, o.Kind)
	}
	assert.Equal(t, []OopsKind{KindBUG, KindWarning, KindLockup, KindHungTask, KindSanitizer, KindPanic}, kinds)

	bug := got[0]
	assert.Equal(t, "BUG: kernel NULL pointer dereference, address: 0000000000000008", bug.Title)
	assert.Equal(t, sec(12.345678), bug.Time)
	assert.Contains(t, bug.Lines, "Oops: 0000 [#1] PREEMPT SMP NOPTI", "the Oops line belongs to the BUG report")
	assert.Contains(t, bug.Lines, "RIP: 0010:acpi_ns_lookup+0x42/0x300")
	assert.NotContains(t, strings.Join(bug.Lines, "\n"), "RAX:", "register dumps are left out")
	assert.NotContains(t, strings.Join(bug.Lines, "\n"), "end trace")
	assert.True(t, bug.Firmware, "the trace runs through ACPICA")

	warn := got[1]
	assert.Contains(t, warn.Title, "drivers/pci/pci.c:1234")
	assert.False(t, warn.Firmware, "a module list naming acpi_cpufreq does not make it firmware")
	assert.True(t, got[2].Firmware, "the lockup is inside an EFI call")
	assert.Contains(t, got[5].Title, "Attempted to kill init")
}

func TestFindOopsesCorpus(t *testing.T) {
	// The q35/SeaBIOS guest cannot power off after resume: init exits and
	// the kernel warns in do_exit. The other guests are clean.
	dir := corpus.Dir(t, "suspend-qemu")
	for _, name := range []string{"s3-rtc-pc-bios", "s3-rtc-pc-ovmf", "s3-rtc-q35-ovmf", "s3-rtc-q35-bios"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".serial.txt"))
		require.NoError(t, err)
		got := FindOopses(ParseString(string(data)))
		if name != "s3-rtc-q35-bios" {
			assert.Empty(t, got, name)
			continue
		}
		require.Len(t, got, 1)
		assert.Equal(t, KindWarning, got[0].Kind)
		assert.Equal(t, "WARNING: CPU: 0 PID: 96 at kernel/exit.c:819 do_exit+0x8eb/0xb10", got[0].Title)
		assert.Contains(t, got[0].Lines, "RIP: 0010:do_exit+0x8eb/0xb10")
		assert.Contains(t, got[0].Lines, " __do_sys_reboot+0x1f3/0x230")
	}
	// No linuxhw boot log has a kernel crash report; userspace segfault
	// dumps ("Code:" lines) are not oopses.
	for _, p := range corpus.Glob(t, "klog/linuxhw/*.dmesg.txt") {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Empty(t, FindOopses(ParseString(string(data))), p)
	}
}

// TestSoftLockupEndsWithItsTrace: a soft lockup's report has no end
// marker; it ends at the first line after its call trace that is not a
// frame, so a later rtc-efi line does not make it a firmware report
// (arm64 virt under TCG, tests/oops/testdata/tcg-soft-lockup.txt).
func TestSoftLockupEndsWithItsTrace(t *testing.T) {
	log := `[   41.766485] watchdog: BUG: soft lockup - CPU#0 stuck for 38s! [kworker/u2:0:10]
[   41.767252] Modules linked in:
[   41.768501] Hardware name: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015
[   41.806942] pc : ___slab_alloc+0x5d4/0x780
[   41.873652] Call trace:
[   41.874199]  ___slab_alloc+0x5d4/0x780
[   41.947575]  ret_from_fork+0x10/0x20
[   42.161918] VFS: Disk quotas dquot_6.6.0
[   46.407338] rtc-efi rtc-efi.0: registered as rtc0
`
	got := FindOopses(ParseString(log))
	require.Len(t, got, 1)
	assert.Equal(t, KindLockup, got[0].Kind)
	assert.Contains(t, got[0].Lines, " ret_from_fork+0x10/0x20")
	assert.NotContains(t, strings.Join(got[0].Lines, "\n"), "VFS", "the report ends with its trace")
	assert.False(t, got[0].Firmware, "rtc-efi after the report is not in its trace")
}
