// Package oops finds kernel crash reports in the kernel log: oopses, BUG
// reports, warnings with backtraces, lockups, hung tasks, RCU stalls,
// sanitizer reports and panics.
//
// Soft lockups and RCU stalls in a QEMU guest whose CPUs QEMU emulates
// (TCG, as CI boots the live images) are explained, not failed: a vCPU is
// a host thread that a loaded host leaves unscheduled for seconds while
// the guest's clock runs on, so the guest's watchdogs see a CPU that made
// no progress (reproduced by stopping QEMU for 40 s: "soft lockup - CPU#0
// stuck for 38s!", testdata/tcg-soft-lockup.txt). The evidence is
// tests/internal/vm's Emulated. A guest that a hypervisor runs (KVM), and
// real hardware, keep the failure, as do hard lockups, hung tasks and
// every other report.
package oops

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/logscan"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

// oopsSpec is where the kernel documents its crash reports.
const oopsSpec = "Linux Documentation/admin-guide/bug-hunting.rst"

const oopsAdviceTail = " When the trace runs through ACPI, EFI or other firmware-facing code, or follows a firmware error in the log, " +
	"fix that firmware problem first; otherwise report the trace to the kernel or driver maintainers."

var oopsLabels = map[klog.OopsKind]*tests.Label{
	klog.KindPanic: tests.NewLabel("KernelPanic", tests.Critical, oopsSpec,
		"The kernel stopped with a panic. Find the cause in the lines before the panic (an oops, a failed mount, a machine check or an init exit)."+oopsAdviceTail),
	klog.KindOops: tests.NewLabel("KernelOops", tests.High, oopsSpec,
		"The kernel took an oops: an invalid memory access or fault inside kernel code, which kills the task and may leave the system unstable."+oopsAdviceTail),
	klog.KindBUG: tests.NewLabel("KernelBUG", tests.High, oopsSpec,
		"The kernel hit a BUG report: an internal consistency check failed or it dereferenced a bad pointer."+oopsAdviceTail),
	klog.KindWarning: tests.NewLabel("KernelWarning", tests.Medium, oopsSpec,
		"The kernel printed a WARNING with a backtrace: code reached a state its authors consider wrong but recoverable (for example a power-off that returned)."+oopsAdviceTail),
	klog.KindLockup: tests.NewLabel("KernelLockup", tests.High, oopsSpec,
		"A CPU stopped scheduling (soft lockup) or stopped taking interrupts (hard lockup). Long SMIs, firmware spinning in runtime services or AML loops cause this."+oopsAdviceTail),
	klog.KindHungTask: tests.NewLabel("KernelHungTask", tests.Medium, oopsSpec,
		"A task waited in the kernel for minutes, often on a device or firmware call (EC, TPM, EFI variables) that never completes."+oopsAdviceTail),
	klog.KindRCUStall: tests.NewLabel("KernelRCUStall", tests.Medium, oopsSpec,
		"A CPU did not pass through an RCU quiescent state for a long time, which points at long SMIs, interrupt storms or a stuck CPU."+oopsAdviceTail),
	klog.KindSanitizer: tests.NewLabel("KernelSanitizer", tests.Medium, oopsSpec,
		"A kernel sanitizer (UBSAN/KASAN) caught undefined behaviour or a bad memory access, often while parsing malformed firmware data such as ACPI tables."+oopsAdviceTail),
}

// lazyMessage formats an oops's message when the finding is listed (the
// framework counts, without formatting, findings past tests.MaxPerLabel).
type lazyMessage struct{ o klog.Oops }

func (m lazyMessage) String() string { return oopsMessage(m.o) }

// oopsShownLines is how many trace lines a finding quotes.
const oopsShownLines = 8

// Check is the oops check.
var Check = &tests.Check{
	ID:       "oops",
	Title:    "Kernel oopses, BUG reports, warnings, lockups and panics",
	Category: tests.Log,
	Inputs:   []input.Decl{input.KernelLog},
	Optional: []input.Decl{input.DMI},
	Spec:     "Linux kernel crash reports",
	Labels:   oopsLabelList(),
	Run:      runOops,
}

// oopsLabelList lists oopsLabels in a fixed order.
func oopsLabelList() []*tests.Label {
	var out []*tests.Label
	for _, l := range oopsLabels {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// runOops reports the crash reports of the run's one reading of the log
// (logscan.Scan, shared with the klog check).
func runOops(p *tests.Pass) error {
	s := tests.Input(p, logscan.Scan)
	if s.Err != nil {
		return s.Err
	}
	o := s.Oops
	stalls := stallsOnly(o)
	emulated := ""
	if len(stalls) > 0 {
		dmi, _ := tests.Load(p, input.DMI)
		emulated = vm.Emulated(dmi, s.Env)
	}
	report := func(k klog.OopsKind, x lazyMessage) {
		if stalls[k] && emulated != "" {
			p.Explained(oopsLabels[k], emulated+stallWhy, "%s", x)
			return
		}
		p.Fail(oopsLabels[k], "%s", x) // formatted only when listed
	}
	for _, x := range o.Found {
		report(x.Kind, lazyMessage{x})
	}
	for _, c := range o.Omitted {
		// Over the label's cap: counted, never formatted.
		for range c.N {
			report(c.Kind, lazyMessage{})
		}
	}
	if o.Records == 0 {
		p.Skip("the kernel log is empty")
		return nil
	}
	if o.Total() == 0 {
		p.Passed("no oops, BUG, WARNING, lockup or panic in %d kernel log records", o.Records)
	}
	o.Limits.Report(p)
	return nil
}

// stallWhy follows the evidence of emulation in an explained stall.
const stallWhy = ": QEMU runs each vCPU as a host thread, which a busy host leaves unscheduled for seconds while the " +
	"guest's clock goes on, so the guest's watchdog sees a CPU that made no progress; on real hardware, or under KVM, " +
	"this report is a failure"

// stallsOnly returns the kinds of o that an emulated CPU's starvation
// explains and o has: RCU stalls, and lockups when every listed one is a
// soft lockup (a lockup over the cap, not listed, is taken to be of the
// listed ones' sort; a hard lockup among them keeps them all failures).
func stallsOnly(o *logscan.Oopses) map[klog.OopsKind]bool {
	out := map[klog.OopsKind]bool{}
	soft := true
	for _, x := range o.Found {
		switch x.Kind {
		case klog.KindRCUStall:
			out[x.Kind] = true
		case klog.KindLockup:
			if strings.Contains(x.Title, "soft lockup") {
				out[x.Kind] = true
			} else {
				soft = false
			}
		}
	}
	if !soft {
		delete(out, klog.KindLockup)
	}
	return out
}

func oopsMessage(o klog.Oops) string {
	var b strings.Builder
	if o.Time >= 0 {
		fmt.Fprintf(&b, "[%12s] ", klog.Record{Time: o.Time}.Stamp())
	}
	b.WriteString(o.Title)
	if o.Firmware {
		b.WriteString(" (the trace runs through firmware-facing kernel code)")
	}
	for i, l := range o.Lines {
		if i == oopsShownLines {
			fmt.Fprintf(&b, "\n    … %d more lines", len(o.Lines)-i)
			break
		}
		b.WriteString("\n    ")
		b.WriteString(l)
	}
	return b.String()
}
