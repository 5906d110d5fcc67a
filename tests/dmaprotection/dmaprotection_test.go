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
	cases := []checktest.Case{
		{Name: "protected laptop", Files: map[string][]byte{
			"sys/firmware/acpi/tables/DMAR": dmar(0x05),
			"fwcheck/dma-protection.txt":    []byte("iommu dmar0\niommu dmar1\nthunderbolt domain0 security=user iommu_dma_protection=1\ncmdline quiet\n"),
		}, Warns: nil, Status: tests.StatusPassed, Says: "pre-boot DMA protection on"},
		{Name: "no opt-in, security none", Files: map[string][]byte{
			"sys/firmware/acpi/tables/DMAR": dmar(0x01),
			"fwcheck/dma-protection.txt":    []byte("iommu dmar0\nthunderbolt domain0 security=none iommu_dma_protection=0\n"),
		}, Warns: []string{"ThunderboltNoSecurity", "NoDMAOptIn"}, Status: tests.StatusWarning, Says: "DMAR does not opt in"},
		{Name: "IOMMU off on the command line", Files: map[string][]byte{
			"sys/firmware/acpi/tables/DMAR": dmar(0x01),
			"fwcheck/dma-protection.txt":    []byte("cmdline quiet intel_iommu=off\n"),
		}, Warns: nil, Status: tests.StatusPassed, Says: "the command line says intel_iommu=off"},
		{Name: "no table on hardware", Files: map[string][]byte{
			"sys/firmware/acpi/tables/APIC": checktest.SDT("APIC", 4, make([]byte, 8)),
			"fwcheck/dma-protection.txt":    []byte("cmdline quiet\n"),
		}, Warns: []string{"NoIOMMUTable"}, Status: tests.StatusWarning, Says: "no DMAR or IVRS table"},
	}
	checktest.RunCases(t, Check, cases)
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
