// Package armnamespace checks what an Arm machine's AML namespace must
// hold beside its tables (Arm DEN 0044 BBR 2.1 §4.2 and Appendix E, ACPI
// 6.5): every usable GIC CPU interface of the MADT has a processor device
// (_HID ACPI0007) under \_SB whose _UID is the GICC's ACPI processor UID,
// and no processor is declared with the deprecated Processor() operator;
// every DMA master the OS enumerates there (PCI host bridges, and the
// named components the IORT maps) has a _CCA, its own or an ancestor's
// (Linux on arm64 gives a device without one no DMA); every PCIe host
// bridge (PNP0A08) has an _OSC, through which the OS takes native
// control of PCIe features; and the console the SPCR names and the debug
// port the DBG2 names are devices of the matching Arm UART ID (ARMH0011
// for a PL011, ARMHB000 for an SBSA generic UART).
//
// It runs only on an Arm machine's tables (GIC structures in the MADT,
// an ARM_BOOT_ARCH, a GTDT); elsewhere it is not applicable.
//
// Left out on purpose: a UART device's _CRS base against the SPCR's
// address (many firmwares give the console through a different alias),
// and devices that are DMA masters without a table saying so (platform
// devices the IORT does not name).
//
// Every label is a warning: no machine of the shared corpus is an Arm one
// (tests/all TestTableLabelMachines), so none is confirmed on a real
// occurrence yet.
//
// Labels and the corpus machines that have them:
//
//	ArmProcessorDevice  none
//	ArmNoCCA            none
//	ArmPCIeNoOSC        none
//	ArmConsoleDevice    none
package armnamespace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "Arm DEN 0044 BBR 2.1 Appendix E; ACPI 6.5"

var (
	labelProcessor = tests.NewLabel("ArmProcessorDevice", tests.High, "ACPI 6.5 §8.4, §5.2.12.14; BBR 2.1 Appendix E",
		"A usable GICC has no processor device (_HID \"ACPI0007\") under \\_SB with its ACPI processor UID as "+
			"_UID, two devices claim one UID, or a processor is declared with the Processor() operator, which "+
			"ACPI 6.4 removed and Arm OSes do not read. The OS then has no namespace object for that CPU (for "+
			"_CPC, _LPI, _PSD). Declare one ACPI0007 device per processor under \\_SB, _UID equal to the GICC's UID.")
	labelCCA = tests.NewLabel("ArmNoCCA", tests.High, "ACPI 6.5 §6.2.17; BBR 2.1 Appendix E",
		"A DMA master (a PCI host bridge, or a named component of the IORT) has no _CCA, neither its own "+
			"nor an ancestor's. On Arm the OS must be told whether the device's DMA is cache-coherent; "+
			"Linux gives a device without _CCA no DMA at all. Add _CCA (1 when the interconnect keeps DMA "+
			"coherent) to the device or its parent.")
	labelOSC = tests.NewLabel("ArmPCIeNoOSC", tests.Medium, "PCI Firmware 3.3 §4.5; BBR 2.1 Appendix E",
		"A PCIe host bridge (PNP0A08) has no _OSC, so the OS cannot negotiate native control of PCIe "+
			"hot-plug, AER, PME and LTR and leaves them to a firmware that, on Arm, does not handle them. "+
			"Implement _OSC on every PCIe host bridge.")
	labelConsole = tests.NewLabel("ArmConsoleDevice", tests.Medium, "Microsoft SPCR and DBG2; Arm DEN 0044 BBR 2.1",
		"The SPCR or DBG2 names an Arm UART (PL011 or SBSA generic) but no device of the namespace has the "+
			"matching ID (ARMH0011 for a PL011, ARMHB000 for an SBSA UART), or the DBG2's namespace path "+
			"names no device. The OS's console and its UART driver then disagree about the port. Declare the "+
			"UART as a device with its Arm ID, at the path the DBG2 gives.")
)

var labels = []*tests.Label{labelProcessor, labelCCA, labelOSC, labelConsole}

// Check is the arm-namespace check.
var Check = &tests.Check{
	ID:       "arm-namespace",
	Title:    "Arm namespace: ACPI0007 processors for the GICCs, _CCA on DMA masters, _OSC on PCIe, console devices",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   labels,
	Run:      run,
}

// Arm UART interface types (the DBG2 serial subtypes) and their IDs.
var uartIDs = map[uint16]string{0x03: "ARMH0011", 0x0D: "ARMHB000", 0x0E: "ARMHB000"}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	// The namespace first: the run shares it, and tests/all tells the AML
	// checks from the table checks by whether they load it.
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	if tablecheck.Arm(ts) == "" {
		p.NotApplicable("not an Arm machine's tables (no GIC structures, ARM_BOOT_ARCH or GTDT)")
		return nil
	}
	e := l.NewEvaluator()
	defer l.ReportBudget(p, e)
	warn := func(lb *tests.Label, format string, args ...any) { p.Warn(lb, format, args...) }
	devs := amlcheck.Devices(l.NS)
	ids := map[*aml.Node][]string{}
	for _, n := range devs {
		ids[n] = amlcheck.IDs(e, n)
	}
	checkProcessors(p, e, ts, l, devs, ids, warn)
	checkDMA(p, e, ts, l, devs, ids, warn)
	checkConsole(p, ts, l, devs, ids, warn)
	return nil
}

func has(ids []string, id string) bool {
	for _, x := range ids {
		if strings.EqualFold(x, id) {
			return true
		}
	}
	return false
}

func checkProcessors(p *tests.Pass, e *aml.Evaluator, ts *acpi.Tables, l *amlcheck.Loaded, devs []*aml.Node, ids map[*aml.Node][]string, warn func(*tests.Label, string, ...any)) {
	m, _ := ts.MADT()
	if m == nil {
		p.NotChecked("processor devices against the MADT's GICCs", "there is no readable MADT", "")
		return
	}
	var old []string
	l.NS.Walk(func(n *aml.Node) bool {
		if n.InMethod || n.External {
			return false
		}
		if n.Type == aml.TypeProcessor {
			old = append(old, amlcheck.Path(n))
		}
		return true
	})
	for _, o := range old {
		warn(labelProcessor, "%s is declared with Processor(), not as an ACPI0007 device", o)
	}
	byUID := map[uint64][]string{}
	unknown := 0
	for _, n := range devs {
		if !has(ids[n], "ACPI0007") {
			continue
		}
		path := amlcheck.Path(n)
		if !strings.HasPrefix(path, `\_SB.`) {
			warn(labelProcessor, "processor device %s is not under \\_SB", path)
		}
		r := amlcheck.Eval(e, n, "_UID")
		if r == nil || r.Err != nil || r.V == nil || r.V.Type != aml.TypeInteger {
			unknown++
			continue
		}
		byUID[r.V.Int] = append(byUID[r.V.Int], path)
	}
	usable := 0
	for _, g := range m.GICCs {
		if g.Flags&(acpi.GICCEnabled|acpi.GICCOnlineCapable) == 0 {
			continue
		}
		usable++
		switch paths := byUID[uint64(g.ProcessorUID)]; {
		case len(paths) == 0 && unknown == 0:
			warn(labelProcessor, "GICC UID %d (MPIDR 0x%x) has no ACPI0007 device with that _UID", g.ProcessorUID, g.MPIDR)
		case len(paths) > 1:
			warn(labelProcessor, "GICC UID %d is the _UID of %d processor devices: %s", g.ProcessorUID, len(paths), strings.Join(paths, " "))
		}
	}
	if unknown > 0 {
		p.NotChecked(fmt.Sprintf("%d processor devices' _UID", unknown), "the _UID is not a static integer", "")
	}
	n := 0
	for _, ps := range byUID {
		n += len(ps)
	}
	p.Info(nil, "%d usable GICCs, %d ACPI0007 processor devices", usable, n)
}

func checkDMA(p *tests.Pass, e *aml.Evaluator, ts *acpi.Tables, l *amlcheck.Loaded, devs []*aml.Node, ids map[*aml.Node][]string, warn func(*tests.Label, string, ...any)) {
	masters := map[*aml.Node]string{}
	for _, n := range devs {
		switch {
		case has(ids[n], "PNP0A08"):
			masters[n] = "PCIe host bridge"
			if amlcheck.Eval(e, n, "_OSC") == nil {
				warn(labelOSC, "%s has no _OSC", amlcheck.Path(n))
			}
		case has(ids[n], "PNP0A03"):
			masters[n] = "PCI host bridge"
		}
	}
	if io, _ := acpi.ParseIORT(ts.First(acpi.SigIORT)); io != nil {
		for _, nd := range io.Nodes {
			if nd.Type != acpi.IORTNamedComp || nd.Name == "" {
				continue
			}
			if n := l.NS.Lookup(nd.Name); n != nil {
				masters[n] = "IORT named component"
			} else {
				p.Info(nil, "the IORT names %s, which is not in the namespace", nd.Name)
			}
		}
	}
	var paths []string
	byPath := map[string]*aml.Node{}
	for n := range masters {
		paths = append(paths, amlcheck.Path(n))
		byPath[amlcheck.Path(n)] = n
	}
	sort.Strings(paths)
	ok := 0
	for _, path := range paths {
		n := byPath[path]
		found := false
		for m := n; m != nil && !found; m = m.Parent {
			found = m.Child("_CCA") != nil
		}
		if !found {
			warn(labelCCA, "%s (%s) has no _CCA, nor has any of its ancestors", path, masters[n])
			continue
		}
		ok++
	}
	if len(paths) > 0 {
		p.Info(nil, "%d DMA masters, %d with a _CCA", len(paths), ok)
	}
}

func checkConsole(p *tests.Pass, ts *acpi.Tables, l *amlcheck.Loaded, devs []*aml.Node, ids map[*aml.Node][]string, warn func(*tests.Label, string, ...any)) {
	withID := func(id string) bool {
		for _, n := range devs {
			if has(ids[n], id) {
				return true
			}
		}
		return false
	}
	if s, err := acpi.ParseSPCR(ts.First(acpi.SigSPCR)); err == nil {
		if id, arm := uartIDs[uint16(s.InterfaceType)]; arm {
			if !withID(id) {
				warn(labelConsole, "SPCR console is a %s, but no device has _HID or _CID %s", acpi.SerialSubtypeName(uint16(s.InterfaceType)), id)
			} else {
				p.Passed("SPCR console (%s): a device with ID %s is declared", acpi.SerialSubtypeName(uint16(s.InterfaceType)), id)
			}
		}
	}
	d, _ := acpi.ParseDBG2(ts.First(acpi.SigDBG2))
	if d == nil {
		return
	}
	for i, dev := range d.Devices {
		id, arm := uartIDs[dev.PortSubtype]
		if dev.PortType != acpi.DBG2Serial || !arm {
			continue
		}
		where := fmt.Sprintf("DBG2 device %d (%s)", i+1, acpi.SerialSubtypeName(dev.PortSubtype))
		if dev.Namespace == "" || dev.Namespace == "." {
			if !withID(id) {
				warn(labelConsole, "%s: no namespace path, and no device has ID %s", where, id)
			}
			continue
		}
		n := l.NS.Lookup(dev.Namespace)
		if n == nil && !strings.HasPrefix(dev.Namespace, `\`) {
			// DBG2 asks for a full path; QEMU gives "COM0" for \_SB.COM0.
			if n = l.NS.Lookup(`\_SB.` + dev.Namespace); n != nil {
				p.Info(nil, "%s: namespace path %q is relative; taken as %s", where, dev.Namespace, amlcheck.Path(n))
			}
		}
		switch {
		case n == nil:
			warn(labelConsole, "%s: namespace path %s names no object", where, dev.Namespace)
		case !has(ids[n], id):
			warn(labelConsole, "%s: %s has IDs %v, not %s", where, dev.Namespace, ids[n], id)
		default:
			p.Passed("%s is %s, a device with ID %s", where, amlcheck.Path(n), id)
		}
	}
}
