package dmaprotection

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// dmar is a DMAR table with the given flags and one DRHD with
// INCLUDE_PCI_ALL, as client machines ship it.
func dmar(flags byte) []byte {
	body := []byte{38, flags, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	drhd := []byte{0, 0, 16, 0, 1, 0, 0, 0, 0, 0, 0xd9, 0xfe, 0, 0, 0, 0}
	return checktest.SDT("DMAR", 1, append(body, drhd...))
}

func TestDMAProtection(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string][]byte
		warns  []string
		status tests.Status
		says   string
	}{
		{"protected laptop", map[string][]byte{
			"sys/firmware/acpi/tables/DMAR": dmar(0x05),
			"fwcheck/dma-protection.txt":    []byte("iommu dmar0\niommu dmar1\nthunderbolt domain0 security=user iommu_dma_protection=1\ncmdline quiet\n"),
		}, nil, tests.StatusPassed, "pre-boot DMA protection on"},
		{"no opt-in, security none", map[string][]byte{
			"sys/firmware/acpi/tables/DMAR": dmar(0x01),
			"fwcheck/dma-protection.txt":    []byte("iommu dmar0\nthunderbolt domain0 security=none iommu_dma_protection=0\n"),
		}, []string{"ThunderboltNoSecurity", "NoDMAOptIn"}, tests.StatusWarning, "DMAR does not opt in"},
		{"IOMMU off on the command line", map[string][]byte{
			"sys/firmware/acpi/tables/DMAR": dmar(0x01),
			"fwcheck/dma-protection.txt":    []byte("cmdline quiet intel_iommu=off\n"),
		}, nil, tests.StatusPassed, "the command line says intel_iommu=off"},
		{"no table on hardware", map[string][]byte{
			"sys/firmware/acpi/tables/APIC": checktest.SDT("APIC", 4, make([]byte, 8)),
			"fwcheck/dma-protection.txt":    []byte("cmdline quiet\n"),
		}, []string{"NoIOMMUTable"}, tests.StatusWarning, "no DMAR or IVRS table"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.FilesMachine(t, c.files))
			text := tests.Render([]tests.Result{r})
			var warns []string
			for _, f := range r.Findings {
				if f.Kind == tests.KindWarning {
					warns = append(warns, f.Label)
				}
			}
			assert.Equal(t, c.warns, warns, text)
			assert.Equal(t, c.status, r.Status, text)
			assert.Contains(t, text, c.says)
		})
	}
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
		"sys/firmware/acpi/tables/APIC": checktest.SDT("APIC", 4, make([]byte, 8)),
		"fwcheck/dma-protection.txt":    []byte("cmdline quiet\n"),
		"sys/class/dmi/id/sys_vendor":   []byte("QEMU\n"),
	}))
	f := checktest.FindingWith(r, "NoIOMMUTable")
	if assert.NotNil(t, f) {
		assert.Contains(t, f.Explained, "no virtual IOMMU")
	}
}
