package pcie

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func render(r tests.Result) string { return tests.Render([]tests.Result{r}) }

func fixture(t *testing.T, name string, extra map[string][]byte) *input.Machine {
	b, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
	require.NoError(t, err)
	files := map[string][]byte{input.RecordedDir + "/" + input.PCIConfigFile: b}
	for k, v := range extra {
		files[k] = v
	}
	return checktest.FilesMachine(t, files)
}

func TestLaptop(t *testing.T) {
	r := checktest.Run(t, Check, fixture(t, "laptop", map[string][]byte{
		"sys/module/pcie_aspm/parameters/policy": []byte("[default] performance powersave powersupersave \n"),
		"sys/firmware/acpi/tables/FACP":          checktest.FADT(func(b []byte) { b[109] = 0x10 }),
	}))
	assert.Equal(t, tests.StatusPassed, r.Status, render(r))
	assert.Empty(t, checktest.Labelled(r))
	out := render(r)
	assert.Contains(t, out, "5 PCI Express functions: Max_Payload_Size and Max_Read_Request_Size defined, within each function's capability and never above the port's above it; 2 links, 2 with ASPM enabled")
	assert.Contains(t, out, "PCIe ASPM Controls set: the OS must not change ASPM, and keeps the firmware's settings (2 links with ASPM enabled)")
	assert.Contains(t, out, "the kernel's ASPM policy: [default] performance powersave powersupersave")
}

func TestBroken(t *testing.T) {
	r := checktest.Run(t, Check, fixture(t, "broken", nil))
	assert.Equal(t, []string{
		"PCIeMaxPayloadInvalid: 0000:00:02.0 (root complex integrated endpoint): Max_Payload_Size 128 B, Max_Read_Request_Size reserved encoding 6 (Device Control 0x6000)",
		"PCIeMaxPayloadAboveCapability: 0000:02:00.0 (endpoint): Max_Payload_Size 256 B, supported 128 B",
		"PCIeMaxPayloadMismatch: 0000:01:00.0 (endpoint) has Max_Payload_Size 256 B, above the 128 B of 0000:00:1c.0 (root port) above it",
		"PCIeASPMEnabledUnsupported: link 0000:00:1c.0 - 0000:01:00.0: 0000:01:00.0 (endpoint) has ASPM L0s L1 enabled, supports L1",
		"PCIeASPML1OneSided: link 0000:00:1c.4 - 0000:02:00.0: ASPM L1 enabled on 0000:00:1c.4 (root port) (L1), not on 0000:02:00.0 (endpoint) (disabled)",
	}, checktest.Labelled(r), render(r))
	for _, f := range r.Findings {
		if f.Label != "" {
			assert.Equal(t, tests.KindWarning, f.Kind, f.Label)
		}
	}
}

func TestAbsent(t *testing.T) {
	hdr := "0000:00:00.0 - 86803412" + "0000" + "0000" // vendor, device, command, status (no capability list)
	for _, c := range []struct {
		name, rec string
		status    tests.Status
		reason    string
	}{
		{"none", "", tests.StatusNotApplicable, "no PCI devices"},
		{"headers only", hdr + zeros(56) + "\n", tests.StatusSkipped, "run as root"},
		{"conventional", "0000:00:00.0 - 86803412" + zeros(252) + "\n", tests.StatusNotApplicable, "none of the 1 PCI functions has a PCI Express capability"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{input.RecordedDir + "/" + input.PCIConfigFile: []byte(c.rec)}))
			assert.Equal(t, c.status, r.Status, render(r))
			assert.Contains(t, r.Reason, c.reason)
		})
	}
}

func zeros(n int) string {
	b := make([]byte, 2*n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}
