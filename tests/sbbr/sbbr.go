// Package sbbr is the `sbbr` profile: the ACPI rules of Arm's Server Base
// Boot Requirements (the SBBR recipe of Arm DEN 0044 BBR 2.1, §4.2 and
// Appendix E), the firmware half of a SystemReady certification. The
// profile adds the check sbbr, which lists the tables the recipe requires
// and those it recommends, each with its status, and reads the root
// pointer and the FADT as SBBR wants them (RSDP revision 2 giving an XSDT
// and no RSDT, HW_REDUCED_ACPI, ARM_BOOT_ARCH PSCI_COMPLIANT and the HVC
// conduit under a hypervisor) and the SMBIOS entry point (the 64-bit
// _SM3_ one of SMBIOS 3); and it raises the severities of the Arm
// checks' labels SBBR turns from advice into requirements (Profile).
//
// When the RSDP cannot be read (the arm64 live image: the kernel refuses
// /dev/mem reads of RAM, and UEFI puts the RSDP in RAM), the kernel log's
// RSDP line gives its revision and the root table line after it whether
// the kernel took the XSDT; RsdtAddress then stays not checked.
//
// On a machine that is not an Arm one (an x86 FADT, local APICs, an
// HPET) the check says plainly that the profile does not apply, and
// checks nothing.
//
// Every label is a warning: no machine of the shared corpus is an Arm
// one, so none is confirmed on a real occurrence yet (QEMU's virt tables
// are not a real machine).
//
// Labels and the corpus machines that have them:
//
//	SBBRTableMissing    none
//	SBBRRootPointer     none
//	SBBRNotHWReduced    none
//	SBBRPSCI            none
//	SBBRPSCIConduit     none
//	SBBRSMBIOS3         none
package sbbr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/smbios"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/gtdt"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

// spec is the recipe's reference.
const spec = "Arm DEN 0044 BBR 2.1 §4.2 (SBBR recipe), Appendix E"

var (
	labelMissing = tests.NewLabel("SBBRTableMissing", tests.High, spec+" Table E.1",
		"A table the SBBR recipe requires is absent, so an SBBR-compliant OS may not boot or may lose "+
			"the function the table describes (timers, interrupt controller, debug console, PCIe "+
			"configuration, topology). Publish it through the XSDT.")
	labelRoot = tests.NewLabel("SBBRRootPointer", tests.High, spec+"; ACPI 6.5 §5.2.5.3",
		"SBBR requires an RSDP of revision 2 or later that gives the XSDT, with RsdtAddress 0 (no RSDT): "+
			"64-bit Arm OSes read only the XSDT. Publish the XSDT alone.")
	labelHWReduced = tests.NewLabel("SBBRNotHWReduced", tests.High, spec+"; ACPI 6.5 §4.1",
		"SBBR platforms are hardware-reduced ACPI platforms: the FADT must set HW_REDUCED_ACPI, since "+
			"there are no fixed ACPI hardware registers (PM1, GPE blocks) on Arm. Set the flag and leave "+
			"the fixed-hardware fields zero.")
	labelPSCI = tests.NewLabel("SBBRPSCI", tests.High, spec+"; ACPI 6.5 §5.2.9 Table 5.11",
		"The FADT's ARM_BOOT_ARCH does not set PSCI_COMPLIANT. SBBR platforms start and stop CPUs "+
			"through PSCI; without the flag the OS looks for the parking protocol instead. Implement PSCI "+
			"and set the flag.")
	labelSMBIOS3 = tests.NewLabel("SBBRSMBIOS3", tests.High, spec+"; DMTF DSP0134 §5.2.2",
		"SBBR requires SMBIOS 3.0 or later with the 64-bit (_SM3_) entry point, the only one that can place the "+
			"table above 4 GiB and the one Arm OSes look for. Publish an SMBIOS 3 entry point through the "+
			"EFI configuration table (SMBIOS3_TABLE_GUID).")
	labelConduit = tests.NewLabel("SBBRPSCIConduit", tests.Medium, spec+"; ACPI 6.5 §5.2.9 Table 5.11",
		"The OS runs under a hypervisor, whose PSCI is reached with HVC, but ARM_BOOT_ARCH does not "+
			"set PSCI_USE_HVC, so the OS calls PSCI with SMC, which the hypervisor may not trap. Set "+
			"PSCI_USE_HVC in the tables the hypervisor gives its guests.")
)

var labels = []*tests.Label{labelMissing, labelRoot, labelHWReduced, labelPSCI, labelConduit, labelSMBIOS3}

// Status is what the recipe says of a table.
type Status string

// Statuses of a table in the recipe.
const (
	Required    Status = "required"
	Conditional Status = "conditional" // required when the platform has the function
	Recommended Status = "recommended"
)

// Table is one entry of the recipe's table list.
type Table struct {
	Sig    string
	Status Status
	// When says, for a conditional table, what makes it required.
	When string
	// What says what the table describes.
	What string
}

// Tables is the recipe's table list (BBR 2.1 Appendix E, Table E.1), in
// its order.
var Tables = []Table{
	{"FACP", Required, "", "fixed ACPI description"},
	{"DSDT", Required, "", "the AML namespace"},
	{"APIC", Required, "", "GIC interrupt controllers"},
	{"GTDT", Required, "", "generic timers and watchdogs"},
	{"DBG2", Required, "", "the debug port"},
	{"SPCR", Required, "", "the serial console"},
	{"MCFG", Conditional, "the platform has PCIe", "PCIe ECAM"},
	{"PPTT", Required, "", "processor topology and caches"},
	{"IORT", Conditional, "the platform has an SMMU or a GIC ITS", "IO remapping"},
	{"BERT", Recommended, "", "boot error records"},
	{"EINJ", Recommended, "", "error injection"},
	{"ERST", Recommended, "", "error record persistence"},
	{"HEST", Recommended, "", "hardware error sources"},
	{"SDEI", Recommended, "", "software delegated exceptions"},
	{"AEST", Recommended, "", "Arm error sources"},
	{"SLIT", Recommended, "", "NUMA distances"},
	{"SRAT", Recommended, "", "NUMA affinity"},
	{"HMAT", Recommended, "", "memory attributes"},
	{"PCCT", Recommended, "", "platform communication channels"},
	{"PDTT", Recommended, "", "platform debug triggers"},
	{"BGRT", Recommended, "", "the boot logo"},
	{"SPMI", Recommended, "", "the management controller (IPMI)"},
}

// Check is the sbbr check; it runs only under the sbbr profile.
var Check = &tests.Check{
	ID:       "sbbr",
	Title:    "SBBR required and recommended ACPI tables, root pointer, FADT flags and PSCI",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Optional: []input.Decl{input.DMI, input.CPUInfo, input.SMBIOS, input.KernelLog},
	Spec:     spec,
	Labels:   labels,
	Run:      run,
}

// Profile is the sbbr profile.
var Profile = &tests.Profile{
	Name:   "sbbr",
	Title:  "Arm Server Base Boot Requirements (SystemReady SR/ES firmware)",
	Spec:   spec,
	Checks: []*tests.Check{Check},
	Overrides: []tests.Override{
		{Label: gtdt.LabelNoWatchdog.Name, Severity: tests.Medium, Why: "SBSA servers have a generic watchdog and SBBR wants it described"},
		{Label: "DBG2Missing", Severity: tests.High, Why: "SBBR requires the DBG2 (Table E.1)"},
		{Label: "SPCRMissing", Severity: tests.High, Why: "SBBR requires the SPCR (Table E.1)"},
		{Label: "SMBIOSMissingSlots", Warn: true, Why: "SBBR's SMBIOS list (types 0, 1, 3, 4, 7, 16, 17, 19, 32) leaves System Slots out"},
	},
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	if x86 := tablecheck.X86(ts); x86 != "" {
		p.NotApplicable("the SBBR profile does not apply: these are an x86 machine's tables (%s); SBBR is for Arm servers", x86)
		return nil
	}
	if arm := tablecheck.Arm(ts); arm == "" {
		p.NotApplicable("the SBBR profile does not apply: nothing in the tables shows an Arm machine (no GIC structures, ARM_BOOT_ARCH or GTDT)")
		return nil
	}
	unconfirmed := tablecheck.Unconfirmed(labels, nil)
	warn := func(l *tests.Label, format string, args ...any) {
		if unconfirmed[l] {
			p.Warn(l, format, args...)
			return
		}
		p.Fail(l, format, args...)
	}
	checkRoot(p, ts, warn)
	checkFADT(p, ts, warn)
	checkSMBIOS(p, warn)
	var present, absent []string
	for _, t := range Tables {
		have := ts.First(t.Sig) != nil
		switch {
		case have:
			present = append(present, t.Sig)
		case t.Status == Required:
			warn(labelMissing, "%s (%s) is absent; SBBR requires it", t.Sig, t.What)
		case t.Status == Conditional:
			if need := conditionHolds(ts, t.Sig); need != "" {
				warn(labelMissing, "%s (%s) is absent; SBBR requires it when %s, and %s", t.Sig, t.What, t.When, need)
			} else {
				p.Info(nil, "%s (%s) is absent: SBBR requires it only when %s", t.Sig, t.What, t.When)
			}
		default:
			absent = append(absent, t.Sig)
		}
	}
	p.Passed("SBBR tables present: %s", strings.Join(present, " "))
	if len(absent) > 0 {
		p.Info(nil, "recommended tables absent (SBBR recommends them, does not require them): %s", strings.Join(absent, " "))
	}
	return nil
}

// conditionHolds says what shows a conditional table is needed, "" when
// nothing does.
func conditionHolds(ts *acpi.Tables, sig string) string {
	switch sig {
	case "MCFG":
		// Without MCFG the tables cannot show PCIe, except through the
		// IORT's root complex nodes.
		if io, _ := acpi.ParseIORT(ts.First(acpi.SigIORT)); io != nil {
			for _, n := range io.Nodes {
				if n.Type == acpi.IORTRootComplex {
					return "the IORT describes a PCIe root complex"
				}
			}
		}
	case "IORT":
		if m, _ := ts.MADT(); m != nil && len(m.GICITSs) > 0 {
			return fmt.Sprintf("the MADT has %d GIC ITS structures", len(m.GICITSs))
		}
	}
	return ""
}

func checkRoot(p *tests.Pass, ts *acpi.Tables, warn func(*tests.Label, string, ...any)) {
	r, err := ts.RSDP()
	if err != nil {
		reason, remedy := ts.RootAbsence(acpi.SigRSDP)
		if reason == "" {
			reason = err.Error()
		}
		if rootFromLog(p, warn, reason, remedy) {
			return
		}
		p.NotChecked("RSDP revision and XSDT-only root", reason, remedy)
		return
	}
	switch {
	case r.Revision < 2:
		warn(labelRoot, "RSDP revision %d: no XSDT address field", r.Revision)
	case r.XSDTAddress == 0:
		warn(labelRoot, "RSDP revision %d gives XsdtAddress 0", r.Revision)
	case r.RSDTAddress != 0:
		warn(labelRoot, "RSDP gives an RSDT at 0x%x as well as the XSDT at 0x%x; SBBR wants RsdtAddress 0", r.RSDTAddress, r.XSDTAddress)
	default:
		p.Passed("RSDP revision %d gives the XSDT at 0x%x and no RSDT", r.Revision, r.XSDTAddress)
	}
}

// logRSDP matches the kernel's line for the RSDP it found ("ACPI: RSDP
// 0x000000007BCA0018 000024 (v02 BOCHS )"): its address and revision.
var logRSDP = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^ACPI: RSDP 0x([0-9A-Fa-f]{1,16}) [0-9A-Fa-f]{1,8} \(v(\d{1,3}) `)
})

// rootFromLog judges the root pointer from the kernel log when the RSDP
// itself cannot be read (an arm64 kernel refuses /dev/mem reads of RAM,
// where UEFI puts the tables): the kernel logs the RSDP's revision, and
// then the root table it uses, the XSDT when the RSDP (revision 2 or
// later) gives one. Whether RsdtAddress is 0 the log does not say; that
// part stays not checked. It returns false when the log has no RSDP line.
func rootFromLog(p *tests.Pass, warn func(*tests.Label, string, ...any), reason, remedy string) bool {
	recs, err := tests.KernelRecords(p)
	if err != nil {
		return false
	}
	var rev, addr, root string
	for _, r := range recs {
		if m := logRSDP().FindStringSubmatch(r.Text); m != nil && rev == "" {
			addr, rev = m[1], m[2]
			continue
		}
		if rev != "" && root == "" {
			for _, sig := range []string{"XSDT", "RSDT"} {
				if strings.HasPrefix(r.Text, "ACPI: "+sig+" 0x") {
					root = sig
				}
			}
		}
	}
	if rev == "" {
		return false
	}
	n, _ := strconv.Atoi(rev)
	switch {
	case n < 2:
		warn(labelRoot, "kernel log: RSDP at 0x%s, revision %d: no XSDT address field", addr, n)
	case root == "XSDT":
		p.Passed("kernel log: RSDP at 0x%s, revision %d, and the kernel uses the XSDT it gives", addr, n)
	case root == "RSDT":
		warn(labelRoot, "kernel log: RSDP at 0x%s, revision %d, but the kernel uses an RSDT (XsdtAddress 0?)", addr, n)
	default:
		p.NotChecked("RSDP revision and XSDT-only root", fmt.Sprintf("kernel log: RSDP at 0x%s, revision %d, and no root table line after it; the RSDP: %s", addr, n, reason), remedy)
		return true
	}
	if n >= 2 {
		p.NotChecked("RSDP RsdtAddress 0 (no RSDT)", "the kernel log does not show RsdtAddress; the RSDP: "+reason, remedy)
	}
	return true
}

// checkSMBIOS holds the SMBIOS entry point to the 64-bit form; the
// structures SBBR requires are the smbios check's (SBBR's list is
// DSP0134's without System Slots, which the profile makes a warning).
func checkSMBIOS(p *tests.Pass, warn func(*tests.Label, string, ...any)) {
	raw, err := tests.Load(p, input.SMBIOS)
	if err != nil {
		p.NotChecked("the SMBIOS 3 entry point", err.Error(), "")
		return
	}
	e, err := smbios.ParseEntry(raw.EntryPoint)
	switch {
	case err != nil:
		return // the smbios check reports a broken entry point
	case e.Bits != 64:
		warn(labelSMBIOS3, "SMBIOS %d.%d with a %d-bit entry point (_SM_), not the 64-bit _SM3_ one", e.Major, e.Minor, e.Bits)
	case e.Major < 3:
		warn(labelSMBIOS3, "a 64-bit entry point giving SMBIOS %d.%d", e.Major, e.Minor)
	default:
		p.Passed("SMBIOS %d.%d through the 64-bit (_SM3_) entry point", e.Major, e.Minor)
	}
}

// ARM_BOOT_ARCH flags (ACPI 6.5 Table 5.11).
const (
	psciCompliant = 1 << 0
	psciUseHVC    = 1 << 1
)

func checkFADT(p *tests.Pass, ts *acpi.Tables, warn func(*tests.Label, string, ...any)) {
	f, err := ts.FADT()
	if err != nil {
		return // the table list reports a missing FADT, and the fadt check a broken one
	}
	if !f.HWReduced() {
		warn(labelHWReduced, "FADT flags 0x%x: HW_REDUCED_ACPI clear", f.Flags)
	}
	if f.ARMBootArch&psciCompliant == 0 {
		warn(labelPSCI, "ARM_BOOT_ARCH 0x%x: PSCI_COMPLIANT clear", f.ARMBootArch)
	}
	conduit := "SMC"
	if f.ARMBootArch&psciUseHVC != 0 {
		conduit = "HVC"
	}
	guest := hypervisor(p)
	switch {
	case guest != "" && conduit == "SMC":
		warn(labelConduit, "%s, but ARM_BOOT_ARCH 0x%x asks for the SMC conduit", guest, f.ARMBootArch)
	case guest == "" && conduit == "HVC":
		p.Info(nil, "ARM_BOOT_ARCH 0x%x: PSCI through HVC, as firmware gives a guest; no input of this run shows a hypervisor", f.ARMBootArch)
	default:
		p.Passed("FADT: hardware-reduced %t, ARM_BOOT_ARCH 0x%x (PSCI through %s)", f.HWReduced(), f.ARMBootArch, conduit)
	}
}

// hypervisor says what shows the machine is a virtual one, "" when
// nothing does.
func hypervisor(p *tests.Pass) string {
	dmi, _ := tests.Load(p, input.DMI)
	var cpus []cpuinfo.CPU
	cpus, _ = tests.Load(p, input.CPUInfo)
	return vm.Evidence(dmi, []klog.Record(nil), cpus)
}
