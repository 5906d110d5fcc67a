// Package apicedge checks the trigger mode of the legacy ISA interrupts
// (IRQs 0–15) the kernel routes through an I/O APIC: edge-triggered, as
// ISA interrupts are, unless an Interrupt Source Override in the MADT says
// otherwise; the SCI (the FADT's SCI_INT) is level-triggered unless its
// override says otherwise. The trigger mode is the flow handler
// /proc/interrupts shows (edge; fasteoi or level for level-triggered
// lines on an I/O APIC).
//
// The kernel programs each legacy line from the MADT's overrides, or from
// a device's _CRS or a PCI interrupt link. A line whose mode disagrees with
// what the overrides give was set from one of those, and the firmware
// describes the same interrupt two ways: the check names the devices on
// it.
package apicedge

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const spec = "ACPI 6.5 §5.2.12.5 (Interrupt Source Override Structure), Table 5.26 (MPS INTI flags)"

var (
	labelLevel = tests.NewLabel("LegacyIRQLevelTriggered", tests.Medium, spec,
		"A legacy ISA interrupt runs level-triggered although the MADT has no Interrupt Source Override making "+
			"it level. ISA interrupts are edge-triggered; the mode came from a device's _CRS or a PCI interrupt link "+
			"routed to an ISA IRQ. Add an override (trigger mode level, with the polarity the device drives) for that "+
			"IRQ, or route the PCI interrupt to a GSI above 15.")
	labelEdge = tests.NewLabel("LegacyIRQEdgeTriggered", tests.Medium, spec,
		"An interrupt that the MADT's override (or, for the SCI, the ACPI default) declares level-triggered runs "+
			"edge-triggered. A level-triggered source on an edge-triggered line loses interrupts when two assert it "+
			"together, and a stuck line is never seen again. Make the override and the device's _CRS agree.")
	labelReserved = tests.NewLabel("MADTOverrideReservedTrigger", tests.Low, spec,
		"An Interrupt Source Override for a legacy IRQ has the reserved trigger-mode value 2 (bits 2-3 of its flags). "+
			"Use 0 (conforms to the bus), 1 (edge) or 3 (level).")
)

// Check is the apic-edge check.
var Check = &tests.Check{
	ID: "apic-edge", Aliases: []string{"apicedge"}, Title: "legacy IRQs 0-15 edge-triggered unless the MADT's overrides say otherwise",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.Interrupts},
	Optional: []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelLevel, labelEdge, labelReserved},
	Run:      run,
}

// Trigger mode values of the MPS INTI flags, bits 2-3.
const (
	triggerConforms = 0
	triggerEdge     = 1
	triggerReserved = 2
	triggerLevel    = 3
)

func run(p *tests.Pass) error {
	t := tests.Input(p, input.Interrupts)
	type line struct {
		irq     int
		level   bool
		flow    string
		devices string
	}
	var legacy []line
	var noFlow []string
	for _, l := range t.Lines {
		if l.IRQ > 15 || !strings.HasSuffix(l.Chip, "IO-APIC") {
			continue
		}
		lv, ok := l.Level()
		if !ok {
			noFlow = append(noFlow, fmt.Sprint(l.IRQ))
			continue
		}
		legacy = append(legacy, line{l.IRQ, lv, l.Flow, l.Devices})
	}
	if len(noFlow) > 0 {
		p.NotChecked("the trigger mode of IRQs "+strings.Join(noFlow, ", "), "/proc/interrupts shows no flow handler for them", "")
	}
	if len(legacy) == 0 && len(noFlow) == 0 {
		p.NotApplicable("no legacy IRQ (0-15) is routed through an I/O APIC in /proc/interrupts (the 8259 PIC handles them, or no ISA interrupt is in use)")
		return nil
	}
	ts, err := tests.Load(p, input.ACPITables)
	var madt *acpi.MADT
	if err == nil && ts != nil {
		if mt := ts.First(acpi.SigMADT); mt != nil {
			madt, err = acpi.ParseMADT(mt)
		} else {
			err = fmt.Errorf("no MADT")
		}
	} else if err == nil {
		err = fmt.Errorf("no ACPI tables")
	}
	if madt == nil {
		p.NotChecked("the legacy IRQs' trigger modes against the MADT's overrides", err.Error(), "run as root on the machine, or give the tables with --acpidump")
		return nil
	}
	sci := -1
	if f, err := ts.FADT(); err == nil {
		sci = int(f.SCIInt)
	}
	overrides := map[int]acpi.IntSrcOverride{}
	for _, o := range madt.Overrides {
		if o.Bus == 0 && o.Source < 16 {
			overrides[int(o.Source)] = o
		}
	}
	before := p.Failures()
	var edge, level []string
	for _, l := range legacy {
		wantLevel, why := false, "ISA interrupts are edge-triggered and no override says otherwise"
		if l.irq == sci {
			wantLevel, why = true, "it is the SCI, level-triggered unless its override says otherwise"
		}
		if o, ok := overrides[l.irq]; ok {
			switch (o.Flags >> 2) & 3 {
			case triggerEdge:
				wantLevel, why = false, fmt.Sprintf("its override (GSI %d, flags 0x%04x) makes it edge-triggered", o.GSI, o.Flags)
			case triggerLevel:
				wantLevel, why = true, fmt.Sprintf("its override (GSI %d, flags 0x%04x) makes it level-triggered", o.GSI, o.Flags)
			case triggerReserved:
				p.Fail(labelReserved, "override of IRQ %d (GSI %d): flags 0x%04x", l.irq, o.GSI, o.Flags)
				continue
			case triggerConforms:
				why += fmt.Sprintf(" (its override, GSI %d, conforms to the bus)", o.GSI)
			}
		}
		name := fmt.Sprintf("IRQ %d (%s)", l.irq, l.devices)
		switch {
		case l.level && !wantLevel:
			p.Fail(labelLevel, "%s is level-triggered (%s), but %s", name, l.flow, why)
		case !l.level && wantLevel:
			p.Fail(labelEdge, "%s is edge-triggered, but %s", name, why)
		case l.level:
			level = append(level, fmt.Sprint(l.irq))
		default:
			edge = append(edge, fmt.Sprint(l.irq))
		}
	}
	if p.Failures() == before && len(edge)+len(level) > 0 {
		msg := fmt.Sprintf("%d legacy IRQs on the I/O APIC as the MADT's %d overrides give them: edge %s", len(edge)+len(level), len(madt.Overrides), orNone(edge))
		if len(level) > 0 {
			msg += "; level " + strings.Join(level, ", ")
		}
		p.Passed("%s", msg)
	}
	return nil
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
