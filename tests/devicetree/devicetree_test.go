package devicetree

import (
	"bytes"
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/u-root/u-root/pkg/dt"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// qemuLog is what Linux 6.1 logs of PSCI on QEMU's virt board under TCG
// (the devicetree boot of image/arm64_e2e_test.go).
const qemuLog = `[    0.000000] Machine model: linux,dummy-virt
[    0.000000] psci: probing for conduit method from DT.
[    0.000000] psci: PSCIv1.1 detected in firmware.
[    0.000000] psci: Using standard PSCI v0.2 function IDs
[    0.000000] psci: Trusted OS migration not required
[    0.000000] psci: SMC Calling Convention v1.0
`

func fixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile("../../devicetree/testdata/" + name)
	require.NoError(t, err)
	return b
}

func machine(blob []byte, klog string) *input.Machine {
	fsys := fstest.MapFS{input.FDTFile: {Data: blob}}
	if klog != "" {
		fsys["fwcheck/"+input.KlogFile] = &fstest.MapFile{Data: []byte(klog)}
	}
	return input.New(checktest.Snapshot{FS: fsys}, input.Options{})
}

// edit parses blob with pkg/dt, lets f change the tree and writes it back.
func edit(t *testing.T, blob []byte, f func(root *dt.Node)) []byte {
	fdt, err := dt.ReadFDT(bytes.NewReader(blob))
	require.NoError(t, err)
	f(fdt.RootNode)
	var b bytes.Buffer
	_, err = fdt.Write(&b)
	require.NoError(t, err)
	return b.Bytes()
}

func TestQEMUVirt(t *testing.T) {
	for _, name := range []string{"qemu-virt-gicv3.dtb", "qemu-virt-gicv2-smp2.dtb"} {
		r := checktest.Run(t, Check, machine(fixture(t, name), qemuLog))
		assert.Equal(t, tests.StatusPassed, r.Status, "%s: %s", name, tests.Render([]tests.Result{r}))
		assert.Empty(t, checktest.WarnLabels(r), name)
		out := tests.Render([]tests.Result{r})
		assert.Contains(t, out, `/psci "arm,psci-1.0", "arm,psci-0.2", "arm,psci", conduit hvc`)
		assert.Contains(t, out, "the firmware reports PSCI v1.1")
		assert.Contains(t, out, "SMC Calling Convention v1.0")
		assert.Contains(t, out, "1 memory ranges")
	}
}

func TestNoKernelLog(t *testing.T) {
	r := checktest.Run(t, Check, machine(fixture(t, "qemu-virt-gicv3.dtb"), ""))
	assert.Equal(t, tests.StatusIncomplete, r.Status)
}

func TestFaults(t *testing.T) {
	good := fixture(t, "qemu-virt-gicv3.dtb")
	smp := fixture(t, "qemu-virt-gicv2-smp2.dtb")
	drop := func(name string) func(*dt.Node) {
		return func(root *dt.Node) {
			i, ok := root.FindFirstMatchingChildIndex(func(n *dt.Node) bool { return n.Name == name })
			require.True(t, ok, name)
			require.NoError(t, root.RemoveSubTreeAtIndex(i))
		}
	}
	psci := func(f func(*dt.Node)) func(*dt.Node) {
		return func(root *dt.Node) {
			n, ok := root.LookupChildByName("psci")
			require.True(t, ok)
			f(n)
		}
	}
	for name, tc := range map[string]struct {
		blob []byte
		want string
	}{
		"no chosen":          {edit(t, good, drop("chosen")), "DevicetreeNoChosen"},
		"no psci, psci cpus": {edit(t, smp, drop("psci")), "DevicetreePSCI"},
		"psci bad method": {edit(t, good, psci(func(n *dt.Node) {
			n.UpdateProperty("method", []byte("svc\x00"))
		})), "DevicetreePSCI"},
		"psci claims 2.0": {edit(t, good, psci(func(n *dt.Node) {
			n.UpdateProperty("compatible", []byte("arm,psci-2.0\x00arm,psci\x00"))
		})), "DevicetreePSCIVersion"},
		"bad stdout-path": {edit(t, good, func(root *dt.Node) {
			n, _ := root.LookupChildByName("chosen")
			n.UpdateProperty("stdout-path", []byte("/nonesuch@0\x00"))
		}), "DevicetreeStdoutPath"},
		"no memory, no UEFI": {edit(t, good, drop("memory@40000000")), "DevicetreeNoMemory"},
		"bad compatible": {edit(t, good, func(root *dt.Node) {
			root.UpdateProperty("compatible", []byte("linux,dummy-virt"))
		}), "DevicetreeCompatible"},
		"bad reg": {edit(t, good, func(root *dt.Node) {
			n, _ := root.LookupChildByName("memory@40000000")
			n.UpdateProperty("reg", []byte{0, 0, 0, 1, 0, 0})
		}), "DevicetreeMemoryReg"},
		"malformed": {append(append([]byte(nil), good[:8]...), append([]byte{0xff, 0xff, 0xff, 0xf0}, good[12:]...)...), "DevicetreeMalformed"},
	} {
		r := checktest.Run(t, Check, machine(tc.blob, qemuLog))
		assert.Contains(t, checktest.WarnLabels(r), tc.want, "%s: %s", name, tests.Render([]tests.Result{r}))
		assert.Equal(t, tests.StatusWarning, statusOrWarning(r), name)
	}
}

// statusOrWarning folds the statuses a faulty tree may end in (warning,
// or incomplete when the rest could not be read) into warning.
func statusOrWarning(r tests.Result) tests.Status {
	if r.Status == tests.StatusIncomplete && len(checktest.WarnLabels(r)) > 0 {
		return tests.StatusWarning
	}
	return r.Status
}

// Under UEFI the EFI stub removes the memory nodes and says so in /chosen.
func TestUEFIWithoutMemoryNodes(t *testing.T) {
	blob := edit(t, fixture(t, "qemu-virt-gicv3.dtb"), func(root *dt.Node) {
		i, _ := root.FindFirstMatchingChildIndex(func(n *dt.Node) bool { return n.Name == "memory@40000000" })
		require.NoError(t, root.RemoveSubTreeAtIndex(i))
		ch, _ := root.LookupChildByName("chosen")
		ch.Properties = append(ch.Properties, dt.PropertyU64("linux,uefi-mmap-start", 0x7c000000))
	})
	r := checktest.Run(t, Check, machine(blob, qemuLog))
	assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))
	assert.Contains(t, tests.Render([]tests.Result{r}), "booted through UEFI")
}

// The EFI stub's placeholder tree on an ACPI machine: /chosen only.
func TestPlaceholder(t *testing.T) {
	fdt := &dt.FDT{Header: dt.Header{Magic: dt.Magic, Version: 17, LastCompVersion: 16},
		RootNode: dt.NewNode("", dt.WithChildren(dt.NewNode("chosen", dt.WithProperty(dt.PropertyU64("linux,uefi-mmap-start", 0x1000)))))}
	var b bytes.Buffer
	_, err := fdt.Write(&b)
	require.NoError(t, err)
	r := checktest.Run(t, Check, machine(b.Bytes(), qemuLog))
	assert.Equal(t, tests.StatusNotApplicable, r.Status, tests.Render([]tests.Result{r}))
	assert.Contains(t, r.Reason, "placeholder")
}

// An ACPI machine without /sys/firmware/fdt: not applicable, not skipped.
func TestACPIMachine(t *testing.T) {
	m := input.New(checktest.Snapshot{FS: fstest.MapFS{"sys/firmware/acpi/tables/FACP": {Data: []byte("x")}}}, input.Options{})
	r := checktest.Run(t, Check, m)
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
	assert.Contains(t, r.Reason, "ACPI tables")
}

func FuzzCheck(f *testing.F) {
	f.Add(fixture(f, "qemu-virt-gicv3.dtb"))
	f.Add(fixture(f, "qemu-virt-gicv2-smp2.dtb"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := checktest.Run(t, Check, machine(b, qemuLog))
		if r.Status == tests.StatusAborted {
			t.Fatalf("aborted: %s", r.Reason)
		}
	})
}
