package deviceids

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// testdata/dsdt.asl (compiled with iasl -f: iasl itself rejects the bad
// IDs) has each case.
func TestDeviceIDs(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), b)
	got := checktest.Labelled(r)
	assert.Equal(t, []string{
		`DeviceHIDInvalid: \_SB.BAD1._HID is "ID9001"`,
		`DeviceCIDInvalid: \_SB.BAD2._CID holds "WITTTest"`,
		`DeviceHIDInvalid: \_SB.BAD3._HID is integer 0x80000000, not a compressed EISA ID`,
		`DeviceUIDType: \_SB.BAD4._UID is a Package`,
		`DeviceHIDInvalid: \_SB.VGEN._HID is "VMGENCTR" (Linux's drivers/virt/vmgenid.c matches this string)`,
		`DeviceCIDInvalid: \_SB.VGEN._CID holds "VM_Gen_Counter" (Linux's drivers/virt/vmgenid.c matches this string)`,
		`DeviceCIDInvalid: \_SB.VCLK._CID holds "VMCLOCK" (Linux's drivers/ptp/ptp_vmclock.c matches this string)`,
	}, got)
	// No hypervisor in evidence: the hypervisor's IDs fail like any other.
	for _, f := range r.Findings {
		if f.Kind == tests.KindFail {
			assert.Empty(t, f.Explained, f.Message)
		}
	}
}

// In a guest whose kernel log says a hypervisor was detected, the IDs the
// hypervisor publishes and Linux binds by string are explained, naming the
// evidence; the other invalid IDs still fail.
func TestHypervisorIDsInGuest(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	dir := t.TempDir()
	ts := &acpi.Tables{}
	ts.Add(&acpi.Table{Signature: "FACP", Raw: checktest.FADT(nil)})
	ts.Add(&acpi.Table{Signature: "DSDT", Raw: b})
	ts.Add(&acpi.Table{Signature: "OEMT", Raw: checktest.SDT("OEMT", 1, nil)})
	dump := filepath.Join(dir, "dump.txt")
	f, err := os.Create(dump)
	require.NoError(t, err)
	require.NoError(t, acpi.WriteDump(f, ts))
	require.NoError(t, f.Close())
	klog := filepath.Join(dir, "dmesg.txt")
	require.NoError(t, os.WriteFile(klog, []byte("[    0.000000] Hypervisor detected: KVM\n"), 0o644))
	m := input.New(input.Empty(), input.Options{Files: map[input.Decl]string{input.ACPITables: dump, input.KernelLog: klog}})
	r := checktest.Run(t, Check, m)
	explained, failed := 0, 0
	for _, f := range r.Findings {
		if f.Kind != tests.KindFail {
			continue
		}
		if f.Explained != "" {
			explained++
			assert.Regexp(t, `_SB\.(VGEN|VCLK)\.`, f.Message)
			assert.Contains(t, f.Explained, "virtual machine (Hypervisor detected: KVM)")
		} else {
			failed++
			assert.Regexp(t, `_SB\.BAD[1-3]\.`, f.Message)
		}
	}
	assert.Equal(t, 3, explained)
	assert.Equal(t, 3, failed)
	assert.Equal(t, tests.StatusFailed, r.Status, "the invalid IDs no driver knows still fail")
}
