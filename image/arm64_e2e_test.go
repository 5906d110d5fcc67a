package image_test

// The arm64 live image on QEMU's virt board with AAVMF under TCG, booted
// twice: with the ACPI tables QEMU generates, and with its devicetree only
// (acpi=off). Both boots run every check the image has; none may abort,
// and each prints a verdict. The arm64 kernel and its modules come from
// Debian's linux-image-*-arm64, fetched by 'make deps-arm64' into
// out/arm64/root (FWCHECK_ARM64_KERNEL and FWCHECK_ARM64_MODULES point
// elsewhere); the tests skip when it, qemu-system-aarch64 or AAVMF is
// missing.
//
// On the ACPI boot, with the sbbr profile, every high or medium failure or
// warning must be explained by the environment (QEMU's SMBIOS lacking the
// Cache and Memory Array Mapped Address structures SBBR requires, AAVMF's
// empty variable store, soft lockups of vCPUs a loaded host leaves
// unscheduled under TCG) or be one of arm64QEMUDeviations, the deviations
// of QEMU's virt board from SBBR that are its own.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/mkimage"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// arm64ACPIAppend are the kernel arguments of the ACPI boot besides
// fwcheck.after=poweroff: one per element, so that a run option (a
// profile) is one more line.
var arm64ACPIAppend = []string{
	"acpi=force",
	"fwcheck.profile=sbbr",
}

// arm64DTAppend are those of the devicetree boot (QEMU gives no ACPI
// tables there: -machine virt,acpi=off). It adds one suspend/resume cycle
// without a journal: what the board offers (s2idle, and no RTC alarm to
// wake it: AAVMF keeps the PL031 for itself and rtc-efi has no alarm)
// must be said, not failed.
var arm64DTAppend = []string{
	"fwcheck.s3=1",
	"fwcheck.s3.journal=none",
}

// x86Only are checks the arm64 boots must find not applicable as x86 only.
var x86Only = []string{"mtrr", "msr-consistency", "cpu-features", "e820", "hpet", "hpet-crs", "legacy-bios",
	"smm", "cpu-locks", "bios-write-protect", "me", "apic-edge", "dma-protection"}

var (
	arm64Once   sync.Once
	arm64Kernel string
	arm64Image  string
	arm64Err    error
	arm64Dir    string
)

// arm64Files returns the arm64 kernel and its modules directory, from the
// environment or out/arm64/root.
func arm64Files(t *testing.T) (kernel, modules string) {
	kernel, modules = os.Getenv("FWCHECK_ARM64_KERNEL"), os.Getenv("FWCHECK_ARM64_MODULES")
	if kernel != "" && modules != "" {
		return kernel, modules
	}
	root, err := mkimage.FindSource(".")
	require.NoError(t, err)
	ks, _ := filepath.Glob(filepath.Join(root, "out", "arm64", "root", "boot", "vmlinuz-*"))
	ms, _ := filepath.Glob(filepath.Join(root, "out", "arm64", "root", "lib", "modules", "*"))
	if len(ks) == 0 || len(ms) == 0 {
		t.Skip("no arm64 kernel in out/arm64/root (run 'make deps-arm64')")
	}
	slices.Sort(ks)
	slices.Sort(ms)
	return ks[len(ks)-1], ms[len(ms)-1]
}

// arm64LiveImage builds the arm64 image once (FWCHECK_ARM64_IMAGE boots a
// prebuilt one).
func arm64LiveImage(t *testing.T, m qemu.Machine) (kernel, initramfs string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping QEMU boots of the live image")
	}
	if err := qemu.Available(m); err != nil {
		t.Skipf("cannot boot %s: %v", m.Name, err)
	}
	k, mods := arm64Files(t)
	arm64Once.Do(func() {
		arm64Kernel = k
		if p := os.Getenv("FWCHECK_ARM64_IMAGE"); p != "" {
			arm64Image = p
			return
		}
		if arm64Dir, arm64Err = os.MkdirTemp("", "fwcheck-e2e-arm64-"); arm64Err != nil {
			return
		}
		start := time.Now()
		var res *mkimage.Result
		res, arm64Err = mkimage.Build(mkimage.Options{
			Output: filepath.Join(arm64Dir, "fwcheck-arm64.cpio.gz"), Kernel: k, ModulesDir: mods,
			Arch: "arm64", Version: testVersion, Logf: t.Logf,
		})
		if arm64Err == nil {
			arm64Image = res.Output
			t.Logf("built the arm64 image in %v: %.2f MiB compressed, %d modules", time.Since(start).Round(time.Second), float64(res.Size)/(1<<20), len(res.Modules))
		}
	})
	require.NoError(t, arm64Err, "building the arm64 live image")
	return arm64Kernel, arm64Image
}

func arm64Boot(t *testing.T, m qemu.Machine, args []string) bootResult {
	kernel, initramfs := arm64LiveImage(t, m)
	cfg := qemu.Config{Machine: m, Kernel: kernel, Initramfs: initramfs,
		Append: strings.Join(append([]string{"fwcheck.after=poweroff"}, args...), " ")}
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	defer cancel()
	start := time.Now()
	console, err := qemu.Run(ctx, cfg)
	wall := time.Since(start)
	require.NoError(t, err, "boot %s; console:\n%s", m.Name, tail(console))
	js, err := image.ExtractResults(console)
	require.NoError(t, err, "console:\n%s", tail(console))
	r := bootResult{console: string(console), json: js, wall: wall}
	r.doc = reporttest.Check(t, js)
	if mt := verdictRE.FindStringSubmatch(r.console); mt != nil {
		r.verdicts, _ = strconv.ParseFloat(mt[1], 64)
	}
	t.Logf("%s (TCG): verdicts %.2f s after kernel start; QEMU start to poweroff %v", m.Name, r.verdicts, wall.Round(100*time.Millisecond))
	// Every check ran to an end, and the verdict is on the console.
	byID := map[string]report.Result{}
	for _, res := range r.doc.Results {
		byID[res.ID] = res
		assert.NotEqual(t, tests.StatusAborted, res.Status, "%s aborted: %s", res.ID, res.Reason)
	}
	for _, c := range all.Checks() {
		if c.Flags.RunsOnlyWhenNamed() {
			continue
		}
		_, ok := byID[c.ID]
		assert.True(t, ok, "%s has no result", c.ID)
	}
	assert.Contains(t, r.console, "fwcheck: verdict: ")
	for _, id := range x86Only {
		res, ok := byID[id]
		if assert.True(t, ok, id) {
			assert.Equal(t, tests.StatusNotApplicable, res.Status, "%s: %s", id, res.Reason)
			assert.True(t, strings.HasPrefix(res.Reason, "x86 only (this machine is arm64"), "%s: %s", id, res.Reason)
		}
	}
	return r
}

// arm64QEMUDeviations are the findings on QEMU's virt board (QEMU 7.2,
// Debian's AAVMF) that are real deviations of its firmware tables from
// SBBR, not explained by its being a VM, with the kind each must keep:
//   - GTDTNoWatchdog (a warning, medium under sbbr): the virt board models
//     no SBSA generic watchdog, so its GTDT describes none (QEMU's
//     sbsa-ref board has one). SBSA servers must have it.
var arm64QEMUDeviations = map[string]tests.Kind{
	"GTDTNoWatchdog": tests.KindWarning,
}

// findingOf returns the finding of res with label l whose message
// contains msg, or nil.
func findingOf(res report.Result, l, msg string) *tests.Finding {
	for i, f := range res.Findings {
		if f.Label == l && strings.Contains(f.Message, msg) {
			return &res.Findings[i]
		}
	}
	return nil
}

func resultOf(r bootResult, id string) report.Result {
	for _, res := range r.doc.Results {
		if res.ID == id {
			return res
		}
	}
	return report.Result{}
}

// TestArm64ACPI: virt with QEMU's ACPI tables.
func TestArm64ACPI(t *testing.T) {
	t.Parallel()
	r := arm64Boot(t, qemu.AAVMF, arm64ACPIAppend)
	assert.Contains(t, r.console, "psci: probing for conduit method from ACPI")
	// The ACPI checks ran on QEMU's tables.
	for _, id := range []string{"checksum", "acpi-tables", "fadt", "spcr", "mcfg"} {
		res := resultOf(r, id)
		assert.True(t, res.Status.Checked(), "%s: %s %s", id, res.Status, res.Reason)
	}
	// Every failure and warning of the boot, for the record, with what
	// explains it. No high or medium one is left unexplained but the
	// deviations of QEMU's virt board from SBBR that arm64QEMUDeviations
	// lists.
	var unexplained []string
	for _, res := range r.doc.Results {
		for _, f := range res.Findings {
			if f.Kind != tests.KindFail && f.Kind != tests.KindWarning {
				continue
			}
			if f.Explained != "" {
				t.Logf("%s %s %s [%s]: %s (explained: %s)", res.ID, f.Kind, f.Label, f.Severity, f.Message, f.Explained)
				continue
			}
			t.Logf("%s %s %s [%s]: %s", res.ID, f.Kind, f.Label, f.Severity, f.Message)
			if f.Severity >= tests.Medium && f.Waived == "" && arm64QEMUDeviations[f.Label] != f.Kind {
				unexplained = append(unexplained, res.ID+" "+f.Label+": "+f.Message)
			}
		}
	}
	assert.Empty(t, unexplained, "unexplained high or medium findings on QEMU virt")
	for _, res := range r.doc.Results {
		for _, u := range res.Unchecked {
			t.Logf("%s not checked: %s: %s", res.ID, u.What, u.Reason)
		}
	}
	// /dev/mem cannot read the RSDP on arm64; the kernel log gives its
	// revision and the XSDT the kernel took.
	sbbr := resultOf(r, "sbbr")
	assert.NotNil(t, findingOf(sbbr, "", "kernel log: RSDP at 0x"), "%+v", sbbr.Findings)
	// The memory devices are held to /proc/iomem's RAM: arm64 kernels
	// have no /sys/firmware/memmap.
	assert.NotNil(t, findingOf(resultOf(r, "smbios"), "", "agree with /proc/iomem's"), "%+v", resultOf(r, "smbios").Findings)
	// What the virtual machine explains: QEMU's SMBIOS has no Cache (7)
	// or Memory Array Mapped Address (19) structure, both of which SBBR
	// requires; AAVMF's variable store starts with no platform key.
	for _, want := range []struct{ check, label, msg string }{
		{"smbios", "SMBIOSMissingStructure", "no type 7 (Cache Information) structure"},
		{"smbios", "SMBIOSMissingStructure", "no type 19 (Memory Array Mapped Address) structure"},
		{"secure-boot", "SecureBootSetupMode", "SetupMode is 1"},
	} {
		f := findingOf(resultOf(r, want.check), want.label, want.msg)
		if assert.NotNil(t, f, "%s %s %q", want.check, want.label, want.msg) {
			assert.True(t, strings.HasPrefix(f.Explained, "virtual machine (DMI: QEMU QEMU Virtual Machine"), "%s: %s", want.label, f.Explained)
		}
	}
	// The SBBR profile ran on QEMU's tables and the document says so.
	assert.Equal(t, "sbbr", r.doc.Profile)
	sb := resultOf(r, "sbbr")
	assert.True(t, sb.Status.Checked(), "sbbr: %s %s", sb.Status, sb.Reason)
	// The devicetree the kernel got is the EFI stub's placeholder.
	dt := resultOf(r, "devicetree")
	assert.Equal(t, tests.StatusNotApplicable, dt.Status, "%+v", dt)
	assert.Contains(t, dt.Reason, "ACPI")
}

// TestArm64Devicetree: virt without ACPI; the kernel has QEMU's devicetree.
func TestArm64Devicetree(t *testing.T) {
	t.Parallel()
	r := arm64Boot(t, qemu.AAVMFDT, arm64DTAppend)
	assert.Contains(t, r.console, "psci: probing for conduit method from DT")
	// Every check needing the ACPI tables is not applicable, saying why.
	for _, c := range all.Checks() {
		if !slices.Contains(c.Inputs, input.Decl(input.ACPITables)) {
			continue
		}
		res := resultOf(r, c.ID)
		if slices.Contains(c.Arch, "amd64") {
			continue // x86 only, asserted above
		}
		assert.Equal(t, tests.StatusNotApplicable, res.Status, "%s: %s", c.ID, res.Reason)
		assert.Contains(t, res.Reason, "devicetree", c.ID)
	}
	s3 := resultOf(r, "s3")
	assert.NotEqual(t, tests.StatusFailed, s3.Status, "%+v", s3)
	if assert.Len(t, s3.Unchecked, 1, "%+v", s3) {
		assert.Contains(t, s3.Unchecked[0].Reason, "the platform offers s2idle only")
		assert.Contains(t, s3.Unchecked[0].Reason, "no RTC wake alarm")
	}
	dt := resultOf(r, "devicetree")
	assert.Equal(t, tests.StatusPassed, dt.Status, "%+v", dt)
	assert.True(t, mentions(dt, "the firmware reports PSCI v1."), "%+v", dt.Findings)
	// QEMU's memory node survives the EFI stub, which adds the UEFI
	// memory map's properties to /chosen.
	assert.True(t, mentions(dt, "1 memory ranges, 1024 MiB"), "%+v", dt.Findings)
	assert.True(t, mentions(dt, "linux,uefi-mmap-start"), "%+v", dt.Findings)
}
