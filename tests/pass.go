package tests

import (
	"fmt"
	"slices"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
)

// Kind is what a finding says.
type Kind string

// Finding kinds.
const (
	KindPass    Kind = "pass"
	KindFail    Kind = "fail"
	KindWarning Kind = "warning"
	KindInfo    Kind = "info"
)

// Finding is one thing a check found.
type Finding struct {
	Kind     Kind     `json:"kind"`
	Label    string   `json:"label,omitempty"`
	Severity Severity `json:"severity,omitempty"`
	Message  string   `json:"message"`
	Advice   string   `json:"advice,omitempty"`
	Spec     string   `json:"spec,omitempty"`
}

// Pass is a check's view of one run: the machine to read and the place to
// report. A Pass is used by one check, from one goroutine.
type Pass struct {
	Check   *Check
	machine *input.Machine

	findings []Finding
	skipped  string
}

// declared panics unless the check declared input n: an undeclared input
// would be missing from snapshots and would not skip cleanly.
func (p *Pass) declared(n input.Name) {
	if !slices.Contains(p.Check.Inputs, n) {
		panic(fmt.Sprintf("check %s reads input %s without declaring it", p.Check.ID, n))
	}
}

// ACPI returns the machine's ACPI tables.
func (p *Pass) ACPI() *acpi.Tables { p.declared(input.ACPITables); return p.machine.ACPI() }

// KernelLog returns the kernel log.
func (p *Pass) KernelLog() []klog.Record {
	p.declared(input.KernelLog)
	return p.machine.KernelLog()
}

// DMI returns the machine's DMI identity.
func (p *Pass) DMI() *input.DMIInfo { p.declared(input.DMI); return p.machine.DMI() }

// MemoryMap returns the firmware memory map.
func (p *Pass) MemoryMap() []input.MemoryRange {
	p.declared(input.MemoryMap)
	return p.machine.MemoryMap()
}

// Fail reports a failure of kind l.
func (p *Pass) Fail(l *Label, format string, args ...any) { p.add(KindFail, l, format, args) }

// Warn reports a warning; l may be nil.
func (p *Pass) Warn(l *Label, format string, args ...any) { p.add(KindWarning, l, format, args) }

// Info reports something worth knowing that is not wrong; l may be nil.
func (p *Pass) Info(l *Label, format string, args ...any) { p.add(KindInfo, l, format, args) }

// Passed records that something was verified and is right.
func (p *Pass) Passed(format string, args ...any) { p.add(KindPass, nil, format, args) }

// Skip marks the check skipped with the reason; Run should return after it.
func (p *Pass) Skip(format string, args ...any) { p.skipped = fmt.Sprintf(format, args...) }

// Report records f as it is: for findings whose label and advice come from
// data, such as the kernel-log advice database.
func (p *Pass) Report(f Finding) {
	if f.Kind == KindFail && (f.Label == "" || f.Severity == None) {
		panic(fmt.Sprintf("check %s: failure without label or severity: %q", p.Check.ID, f.Message))
	}
	p.findings = append(p.findings, f)
}

func (p *Pass) add(k Kind, l *Label, format string, args []any) {
	if k == KindFail && l == nil {
		panic(fmt.Sprintf("check %s: failure without a label", p.Check.ID))
	}
	f := Finding{Kind: k, Message: fmt.Sprintf(format, args...)}
	if l != nil {
		f.Label, f.Severity, f.Advice, f.Spec = l.Name, l.Severity, l.Advice, l.Spec
		if k == KindInfo {
			f.Severity = None
		}
	}
	p.findings = append(p.findings, f)
}
