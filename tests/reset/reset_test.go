package reset

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// machine is a live-looking root with the given files and the FADT.
func machine(t *testing.T, fadt []byte, files map[string]string) *input.Machine {
	dir := t.TempDir()
	for p, c := range files {
		p = filepath.Join(dir, "root", p)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(c), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "root", "proc"), 0o755))
	ts := &acpi.Tables{}
	ts.Add(&acpi.Table{Signature: acpi.SigFADT, Raw: fadt})
	ts.Add(&acpi.Table{Signature: "OEMT", Raw: checktest.SDT("OEMT", 1, nil)})
	dump := filepath.Join(dir, "dump.txt")
	f, err := os.Create(dump)
	require.NoError(t, err)
	require.NoError(t, acpi.WriteDump(f, ts))
	require.NoError(t, f.Close())
	src, err := input.Open(filepath.Join(dir, "root"))
	require.NoError(t, err)
	return input.New(src, input.Options{Files: map[input.Decl]string{input.ACPITables: dump}})
}

func noResetReg(b []byte) {
	binary.LittleEndian.PutUint32(b[112:], binary.LittleEndian.Uint32(b[112:])&^acpi.FADTFlagResetRegSup)
	for i := 116; i < 129; i++ {
		b[i] = 0
	}
}

func TestResetPaths(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fadt   []byte
		files  map[string]string
		status tests.Status
		label  string
	}{
		{"acpi with register", checktest.FADT(nil), map[string]string{"sys/kernel/reboot/type": "acpi\n"}, tests.StatusPassed, ""},
		{"acpi without register", checktest.FADT(noResetReg), map[string]string{"sys/kernel/reboot/type": "acpi\n"}, tests.StatusWarning, "ResetACPIRegisterUnavailable"},
		{"efi on a BIOS boot", checktest.FADT(nil), map[string]string{"sys/kernel/reboot/type": "efi\n"}, tests.StatusFailed, "ResetMethodUnavailable"},
		{"efi on a UEFI boot", checktest.FADT(nil), map[string]string{"sys/kernel/reboot/type": "efi\n", "sys/firmware/efi/fw_platform_size": "64\n"}, tests.StatusPassed, ""},
		{"old kernel, reboot=k", checktest.FADT(nil), map[string]string{"proc/cmdline": "quiet reboot=k\n"}, tests.StatusPassed, ""},
		{"old kernel, no parameter", checktest.FADT(nil), map[string]string{"proc/cmdline": "quiet\n"}, tests.StatusIncomplete, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := checktest.Run(t, Check, machine(t, tc.fadt, tc.files))
			assert.Equal(t, tc.status, r.Status, "%s", tests.Render([]tests.Result{r}))
			if tc.label != "" {
				assert.NotNil(t, checktest.FindingWith(r, tc.label))
			}
		})
	}
}

// QEMU's pc machine with SeaBIOS has a revision 1 FADT, without RESET_REG:
// the real occurrence of ResetACPIRegisterUnavailable.
func TestQEMUPCHasNoACPIReset(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(corpus.Dir(t, "acpi", "qemu", "pc"), "FACP"))
	if err != nil {
		t.Skipf("no QEMU pc FADT: %v", err)
	}
	r := checktest.Run(t, Check, machine(t, raw, map[string]string{"sys/kernel/reboot/type": "acpi\n"}))
	f := checktest.FindingWith(r, "ResetACPIRegisterUnavailable")
	require.NotNil(t, f, "%s", tests.Render([]tests.Result{r}))
	assert.Contains(t, f.Message, "has no RESET_REG field")
}

// arm64 has one reset path: EFI ResetSystem under UEFI, PSCI after it.
func TestArm64(t *testing.T) {
	for _, efi := range []bool{true, false} {
		dir := t.TempDir()
		files := map[string]string{"fwcheck/arch.txt": "arm64\n", "proc/cmdline": "console=ttyAMA0\n"}
		if efi {
			files["sys/firmware/efi/fw_platform_size"] = "64\n"
		}
		for p, c := range files {
			p = filepath.Join(dir, p)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(c), 0o644))
		}
		src, err := input.Open(dir)
		require.NoError(t, err)
		r := checktest.Run(t, Check, input.New(src, input.Options{}))
		out := tests.Render([]tests.Result{r})
		if efi {
			assert.Equal(t, tests.StatusPassed, r.Status, out)
			assert.Contains(t, out, "EFI ResetSystem, then PSCI SYSTEM_RESET")
		} else {
			assert.Equal(t, tests.StatusIncomplete, r.Status, out)
			assert.Contains(t, out, "PSCI SYSTEM_RESET")
		}
		assert.NotContains(t, out, "5.11")
	}
}
