package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// TestLiveRunWithoutRoot builds fwcheck and runs it on this machine as the
// unprivileged user nobody: the run completes, and checks whose inputs need
// root skip saying so instead of failing.
func TestLiveRunWithoutRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a process as another user")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir, err := os.MkdirTemp("", "fwcheck-nonroot-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755)) // nobody must reach the binary
	bin := filepath.Join(dir, "fwcheck")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	cmd := exec.Command(bin, "run", "--json", "-", "--color", "never")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
		require.NotEqual(t, exitUsage, code, "%s", stderr.String())
	} else {
		require.NoError(t, err)
	}
	d := reporttest.Check(t, stdout.Bytes())
	// Where nobody can read neither the tables nor the kernel log
	// (kernel.dmesg_restrict=1), nothing is checked, and the run says so
	// with its own exit status instead of passing.
	if !d.Checked() {
		assert.Equal(t, exitNothing, code)
		assert.Contains(t, stderr.String(), "verdict: NOTHING CHECKED")
	}
	// With kernel.dmesg_restrict=1 nobody cannot read the kernel log, and
	// the log checks say so. (Some checks read what anyone may: the CPU
	// flags in /proc/cpuinfo, whether /sys/firmware/efi exists.)
	if b, err := os.ReadFile("/proc/sys/kernel/dmesg_restrict"); err == nil && strings.TrimSpace(string(b)) == "1" {
		for _, r := range d.Results {
			if r.ID == "klog" || r.ID == "oops" {
				assert.Equal(t, tests.StatusSkipped, r.Status, "%s as nobody with dmesg_restrict=1", r.ID)
			}
		}
	}
	require.NotEmpty(t, d.Results)
	for _, r := range d.Results {
		assert.NotEqual(t, tests.StatusAborted, r.Status, "%s: %s", r.ID, r.Reason)
	}
	if _, err := os.Stat("/sys/firmware/acpi/tables"); err == nil {
		// The checks that need the tables are skipped; ACPI-category checks
		// that read what anyone may (/proc/interrupts, sysfs thermal and
		// power-supply classes) judge that instead.
		needsTables := map[string]bool{}
		for _, c := range all.Checks() {
			needsTables[c.ID] = slices.ContainsFunc(c.Inputs, func(d input.Decl) bool { return d == input.ACPITables })
		}
		for _, r := range d.Results {
			if r.Category == tests.ACPI && needsTables[r.ID] {
				assert.Equal(t, tests.StatusSkipped, r.Status, r.ID)
				assert.Contains(t, r.Reason, "needs root: run fwcheck as root", "%s", r.ID)
			}
		}
	}
}
