// Package gtdt checks the Generic Timer Description Table (ACPI 6.5
// §5.2.25), the Arm generic timers' interrupts and frames: the per-CPU
// timers are private peripheral interrupts (GIC INTIDs 16-31, Arm IHI
// 0069 §2.2.1), their flags use only the defined bits, each GT block has
// at most eight frames with unique numbers and interrupts that are shared
// peripheral interrupts, and each SBSA generic watchdog (Arm DEN 0029
// §A.4) has both frames and an interrupt.
//
// Left out on purpose: the secure EL1 timer and the EL2 timers may be 0
// (ACPI 6.5 Table 5.121 lets a platform that does not give them to the
// OS leave them out), and a timer's mode (level or edge; the architected
// timers are level-sensitive, but the table only describes them).
//
// Every label is a warning: no machine of the shared corpus is an Arm one
// (tests/all TestTableLabelMachines), so none is confirmed on a real
// occurrence yet.
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	GTDTMalformed       none
//	GTDTRevision        none
//	GTDTTimerNotPPI     none
//	GTDTTimerFlags      none
//	GTDTBlockFrames     none
//	GTDTFrameInterrupt  none
//	GTDTWatchdog        none
//	GTDTNoWatchdog      none
package gtdt

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.25"

var (
	labelMalformed = tests.NewLabel("GTDTMalformed", tests.High, "ACPI 6.5 §5.2.25 Table 5.121",
		"The GTDT is shorter than its fixed part, or its platform timer list breaks off (an offset "+
			"outside the table, a structure running past the end). The OS then loses the timers after the "+
			"fault. Publish the whole table with correct offsets and lengths.")
	labelRevision = tests.NewLabel("GTDTRevision", tests.Low, "ACPI 6.5 §5.2.25 Table 5.121",
		"The GTDT revision is not one the specification defines (2 since ACPI 5.1, 3 since ACPI 6.5). "+
			"Set the revision of the layout the table has.")
	labelNotPPI = tests.NewLabel("GTDTTimerNotPPI", tests.High, "ACPI 6.5 §5.2.25 Table 5.121; Arm IHI 0069 §2.2.1",
		"A per-processor generic timer's GSIV is not a private peripheral interrupt (INTID 16-31). The "+
			"architected timers interrupt each core through its own PPI; with another number the kernel "+
			"requests the wrong interrupt and its tick never arrives. Give the PPI the core wires the timer to "+
			"(commonly 30 for the non-secure EL1 timer, 27 for the virtual timer).")
	labelFlags = tests.NewLabel("GTDTTimerFlags", tests.Medium, "ACPI 6.5 §5.2.25 Tables 5.122, 5.127, 5.129",
		"A timer's flags set bits the specification reserves. Clear them; only mode, polarity and "+
			"always-on (per-CPU timers), secure and always-on (GT frames) or mode, polarity and secure "+
			"(watchdogs) are defined.")
	labelBlockFrames = tests.NewLabel("GTDTBlockFrames", tests.Medium, "ACPI 6.5 §5.2.25.1 Tables 5.125, 5.126",
		"A GT block describes more than eight frames, frames that do not fit in its length, or two "+
			"frames with the same frame number (0-7), or has no block address. The OS cannot map the "+
			"memory-mapped timers then. Describe each implemented CNTBaseN frame once.")
	labelFrameIRQ = tests.NewLabel("GTDTFrameInterrupt", tests.Medium, "ACPI 6.5 §5.2.25.1 Table 5.126",
		"A GT block frame's timer interrupt is a private or software-generated interrupt (below 32): "+
			"memory-mapped timers are shared peripherals and signal through SPIs. Give the SPI the frame is "+
			"wired to, or 0 when the frame has no such timer.")
	labelWatchdog = tests.NewLabel("GTDTWatchdog", tests.Medium, "ACPI 6.5 §5.2.25.2 Table 5.128; Arm DEN 0029 §A.4",
		"An SBSA generic watchdog has no refresh or control frame address, the two frames share an "+
			"address, or its interrupt is not an SPI. The OS watchdog driver cannot arm or pet it then. "+
			"Give both 4 KiB frames and the watchdog's WS0 interrupt.")
	labelNoWatchdog = tests.NewLabel("GTDTNoWatchdog", tests.Low, "Arm DEN 0029 (SBSA) §A.4; Arm DEN 0044 (BBR) §4.2",
		"The GTDT describes no SBSA generic watchdog. Server platforms must have one (SBSA Level 3 and "+
			"later), and SBBR asks firmware to describe it in the GTDT so the OS can use it. Add the "+
			"watchdog structure, or ignore this on a platform without one.")
)

var labels = []*tests.Label{labelMalformed, labelRevision, labelNotPPI, labelFlags, labelBlockFrames, labelFrameIRQ, labelWatchdog, labelNoWatchdog}

// Labels are the check's labels (the sbbr profile raises some).
var (
	LabelNoWatchdog = labelNoWatchdog
	LabelNotPPI     = labelNotPPI
)

// Check is the gtdt check.
var Check = &tests.Check{
	ID:       "gtdt",
	Title:    "GTDT generic timer interrupts, GT blocks and SBSA watchdogs",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   labels,
	Run:      run,
}

func run(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(labels, nil)
	for _, t := range tablecheck.Tables(p, acpi.SigGTDT, "no GTDT table (an Arm machine's table; it describes the generic timers)") {
		r := tablecheck.New(p, t, unconfirmed)
		g, err := acpi.ParseGTDT(t)
		if g == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		if err != nil {
			r.Fail(labelMalformed, "%v", err)
		}
		r.NotRead(g.NotRead)
		r.Revision(labelRevision, t, 2, 3)
		timers := []struct {
			name     string
			t        acpi.Timer
			optional bool
		}{
			{"secure EL1 timer", g.SecureEL1, true}, {"non-secure EL1 timer", g.NonSecureEL1, false},
			{"virtual EL1 timer", g.VirtualEL1, false}, {"EL2 timer", g.EL2, true},
		}
		if g.HasVirtualEL2 {
			timers = append(timers, struct {
				name     string
				t        acpi.Timer
				optional bool
			}{"virtual EL2 timer", g.VirtualEL2, true})
		}
		for _, tm := range timers {
			switch {
			case tm.t.GSIV == 0 && tm.optional:
				r.Info("%s not given (GSIV 0)", tm.name)
			case tm.t.GSIV < 16 || tm.t.GSIV > 31:
				r.Fail(labelNotPPI, "%s GSIV %d is not a PPI (16-31)", tm.name, tm.t.GSIV)
			}
			if bad := tm.t.Flags &^ (acpi.TimerEdge | acpi.TimerActiveLo | acpi.TimerAlwaysOn); bad != 0 {
				r.Fail(labelFlags, "%s flags 0x%x set reserved bits 0x%x", tm.name, tm.t.Flags, bad)
			}
		}
		for _, o := range g.Others {
			r.Info("platform timer structure type %d at offset %d (length %d) is not one fwcheck reads", o.Type, o.Offset, o.Length)
		}
		for _, b := range g.Blocks {
			checkBlock(r, b)
		}
		for _, w := range g.Watchdogs {
			checkWatchdog(r, w)
		}
		if len(g.Watchdogs) == 0 {
			r.Fail(labelNoWatchdog, "no SBSA generic watchdog among its %d platform timers", g.TimerCount)
		}
		if got := uint32(len(g.Blocks) + len(g.Watchdogs) + len(g.Others)); got != g.TimerCount && err == nil && g.NotRead == 0 {
			r.Fail(labelMalformed, "platform timer count %d, but %d structures follow the offset", g.TimerCount, got)
		}
		r.Done("revision %d, timers: secure EL1 %d, non-secure EL1 %d, virtual %d, EL2 %d; %d GT blocks, %d watchdogs",
			t.Header.Revision, g.SecureEL1.GSIV, g.NonSecureEL1.GSIV, g.VirtualEL1.GSIV, g.EL2.GSIV, len(g.Blocks), len(g.Watchdogs))
	}
	return nil
}

func checkBlock(r *tablecheck.T, b acpi.GTBlock) {
	where := fmt.Sprintf("GT block at offset %d", b.Offset)
	switch {
	case b.Address == 0:
		r.Fail(labelBlockFrames, "%s has block address 0", where)
	case b.TimerCount > 8:
		r.Fail(labelBlockFrames, "%s claims %d frames, at most 8 exist", where, b.TimerCount)
	case b.FramesShort:
		r.Fail(labelBlockFrames, "%s claims %d frames at offset %d, which do not fit in it", where, b.TimerCount, b.TimerOffset)
	}
	seen := map[uint8]bool{}
	for _, f := range b.Frames {
		if f.Number > 7 || seen[f.Number] {
			r.Fail(labelBlockFrames, "%s: frame number %d is out of range or repeated", where, f.Number)
		}
		seen[f.Number] = true
		for _, tm := range []struct {
			name string
			t    acpi.Timer
		}{{"physical", f.Physical}, {"virtual", f.Virtual}} {
			if tm.t.GSIV != 0 && tm.t.GSIV < 32 {
				r.Fail(labelFrameIRQ, "%s frame %d %s timer GSIV %d is below 32", where, f.Number, tm.name, tm.t.GSIV)
			}
			if bad := tm.t.Flags &^ (acpi.TimerEdge | acpi.TimerActiveLo); bad != 0 {
				r.Fail(labelFlags, "%s frame %d %s timer flags 0x%x set reserved bits 0x%x", where, f.Number, tm.name, tm.t.Flags, bad)
			}
		}
		if bad := f.CommonFlags &^ (acpi.GTFrameSecure | acpi.GTFrameAlwaysOn); bad != 0 {
			r.Fail(labelFlags, "%s frame %d common flags 0x%x set reserved bits 0x%x", where, f.Number, f.CommonFlags, bad)
		}
	}
}

func checkWatchdog(r *tablecheck.T, w acpi.SBSAWatchdog) {
	where := fmt.Sprintf("watchdog at offset %d", w.Offset)
	switch {
	case w.RefreshBase == 0 || w.Control == 0:
		r.Fail(labelWatchdog, "%s: refresh frame 0x%x, control frame 0x%x", where, w.RefreshBase, w.Control)
	case w.RefreshBase == w.Control:
		r.Fail(labelWatchdog, "%s: refresh and control frames both at 0x%x", where, w.RefreshBase)
	}
	if w.Timer.GSIV < 32 {
		r.Fail(labelWatchdog, "%s: interrupt GSIV %d is not an SPI", where, w.Timer.GSIV)
	}
	if bad := w.Timer.Flags &^ (acpi.TimerEdge | acpi.TimerActiveLo | acpi.WatchdogSecure); bad != 0 {
		r.Fail(labelFlags, "%s flags 0x%x set reserved bits 0x%x", where, w.Timer.Flags, bad)
	}
	if w.Timer.Flags&acpi.WatchdogSecure == 0 {
		r.Info("%s: non-secure, interrupt %d, refresh 0x%x, control 0x%x", where, w.Timer.GSIV, w.RefreshBase, w.Control)
	}
}
