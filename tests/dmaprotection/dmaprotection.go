// Package dmaprotection checks, read-only, that the firmware lets the OS
// protect memory from devices: an IOMMU described to the OS (ACPI DMAR on
// Intel, IVRS on AMD) and driven by the kernel, the DMAR "DMA control
// opt-in" flag that tells the OS the firmware protected memory before boot,
// and the security level of Thunderbolt/USB4 domains, whose ports are
// external PCIe.
//
// Evidence: the ACPI tables, and the kernel's view (input dma-protection:
// /sys/class/iommu, the Thunderbolt domains' security and
// iommu_dma_protection files, the kernel command line). All of it is
// readable under kernel lockdown.
//
// Labels, their fwupd HSI attributes, and what confirms them:
//
//	NoIOMMUTable        neither DMAR nor IVRS: org.fwupd.hsi.IOMMU (HSI-2).
//	                    Seen on QEMU q35 without an IOMMU device, where the
//	                    VM explains it; on hardware the usual cause is VT-d
//	                    or AMD-Vi switched off in setup. No real hardware
//	                    occurrence in the project's data yet: a warning.
//	NoDMAOptIn          a Thunderbolt domain without pre-boot DMA
//	                    protection, and DMAR's DMA_CTRL_PLATFORM_OPT_IN
//	                    clear: org.fwupd.hsi.PrebootDma (HSI-3). A warning
//	                    until seen.
//	ThunderboltNoSecurity a Thunderbolt domain at security level "none": any
//	                    device plugged in gets PCIe access. A warning until
//	                    seen.
//
// Deliberately not judged: an IOMMU described but not driven by the kernel.
// That is the kernel's configuration (CONFIG_INTEL_IOMMU_DEFAULT_ON,
// intel_iommu=, amd_iommu=, iommu=), not the firmware's: it is reported as
// information with the parameter that explains it.
package dmaprotection

import (
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

var (
	labelNoTable = tests.NewLabel("NoIOMMUTable", tests.Medium, "Intel VT-d spec §8.1 (DMAR); AMD IOMMU spec §5.2 (IVRS)",
		"The firmware describes no IOMMU (no DMAR or IVRS table), so the OS cannot keep devices from reading "+
			"and writing any memory. Enable VT-d or AMD-Vi by default in setup and publish the table.")
	labelOptIn = tests.NewLabel("NoDMAOptIn", tests.Medium, "Intel VT-d spec §8.1 (DMA_CTRL_PLATFORM_OPT_IN_FLAG); Microsoft Kernel DMA Protection",
		"External PCIe ports (Thunderbolt/USB4) are present but the firmware does not say it protected memory "+
			"before boot (DMAR's DMA control opt-in flag is clear), so a device plugged in before the OS starts "+
			"can read memory. Enable pre-boot DMA protection in the firmware and set the opt-in flag.")
	labelTBT = tests.NewLabel("ThunderboltNoSecurity", tests.Medium, "USB4/Thunderbolt security levels (Linux Documentation/admin-guide/thunderbolt.rst)",
		"A Thunderbolt domain runs at security level \"none\", so every device plugged in is given PCIe access "+
			"without approval. Ship with user authorization (\"user\") or secure connect, or rely on the IOMMU "+
			"with pre-boot DMA protection.")
)

// Check is the dma-protection check.
var Check = &tests.Check{
	ID: "dma-protection", Title: "an IOMMU described and driven, pre-boot DMA protection, Thunderbolt security",
	Category: tests.Security,
	Arch:     tests.X86,
	Optional: []input.Decl{input.ACPITables, input.DMAProtection, input.DMI, input.KernelLog, input.CPUInfo},
	Spec:     "Intel VT-d spec §8 (DMAR); AMD IOMMU spec §5 (IVRS)",
	Labels:   []*tests.Label{labelNoTable, labelOptIn, labelTBT},
	Run:      run,
}

// DMAR flags (VT-d §8.1).
const (
	dmarIntrRemap = 1 << 0
	dmarOptIn     = 1 << 2
)

// iommuParams are the command-line parameters that turn the kernel's
// IOMMU use off, or leave DMA untranslated.
var iommuParams = []string{"intel_iommu=off", "amd_iommu=off", "iommu=off", "iommu=pt", "intel_iommu=igfx_off"}

func run(p *tests.Pass) error {
	ts, tsErr := tests.Load(p, input.ACPITables)
	st, stErr := tests.Load(p, input.DMAProtection)
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	cpus, _ := tests.Load(p, input.CPUInfo)
	if ts == nil && st == nil {
		p.Skip("neither the ACPI tables nor the kernel's IOMMU state could be read: %v; %v", tsErr, stErr)
		return nil
	}
	why := vm.Evidence(dmi, recs, cpus)

	var dmar *acpi.DMAR
	described := ""
	if ts != nil {
		if t := ts.First("DMAR"); t != nil {
			described = "DMAR"
			dmar, _ = acpi.ParseDMAR(t)
		} else if ts.First("IVRS") != nil {
			described = "IVRS"
		}
		switch {
		case described != "":
			p.Passed("the firmware describes its IOMMU (%s)", described)
		case why != "":
			p.Explained(labelNoTable, why+": the VM has no virtual IOMMU (QEMU adds one with -device intel-iommu or amd-iommu)", "no DMAR or IVRS table")
		default:
			p.Warn(labelNoTable, "no DMAR or IVRS table")
		}
		if dmar != nil {
			p.Info(nil, "DMAR flags 0x%x: interrupt remapping %v, DMA control opt-in %v", dmar.Flags, dmar.Flags&dmarIntrRemap != 0, dmar.Flags&dmarOptIn != 0)
		}
	} else {
		p.NotChecked("IOMMU described", "ACPI tables not read: "+tsErr.Error(), "")
	}

	if st == nil {
		p.NotChecked("IOMMU driven by the kernel, Thunderbolt security", "the kernel's IOMMU state was not read: "+stErr.Error(), "")
		return nil
	}
	switch {
	case len(st.IOMMUs) > 0:
		p.Passed("the kernel drives %d IOMMU(s): %s", len(st.IOMMUs), strings.Join(st.IOMMUs, ", "))
	case described != "":
		param := ""
		for _, f := range strings.Fields(st.Cmdline) {
			for _, q := range iommuParams {
				if f == q {
					param = f
				}
			}
		}
		if param != "" {
			p.Info(nil, "%s describes an IOMMU, and the kernel does not use it: the command line says %s", described, param)
		} else {
			p.Info(nil, "%s describes an IOMMU, and the kernel does not drive it: its configuration leaves it off (CONFIG_INTEL_IOMMU_DEFAULT_ON, or intel_iommu=on / amd_iommu= to turn it on)", described)
		}
	}
	optIn := dmar != nil && dmar.Flags&dmarOptIn != 0
	for _, d := range st.Thunderbolt {
		switch d.Security {
		case "none":
			p.Warn(labelTBT, "Thunderbolt %s: security level none", d.Name)
		case "", "unreadable":
			p.NotChecked("Thunderbolt "+d.Name+" security level", "its security file could not be read", "")
		default:
			p.Passed("Thunderbolt %s: security level %s", d.Name, d.Security)
		}
		switch {
		case d.DMAProtection == "1":
			p.Passed("Thunderbolt %s: pre-boot DMA protection on (iommu_dma_protection=1)", d.Name)
		case optIn:
			p.Info(nil, "Thunderbolt %s: iommu_dma_protection=%s although DMAR opts in: the kernel is not translating DMA", d.Name, d.DMAProtection)
		default:
			p.Warn(labelOptIn, "Thunderbolt %s: iommu_dma_protection=%s and DMAR does not opt in to DMA control", d.Name, d.DMAProtection)
		}
	}
	if len(st.Thunderbolt) == 0 {
		p.Info(nil, "no Thunderbolt/USB4 domain: no external PCIe ports to protect")
	}
	return nil
}
