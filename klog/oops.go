package klog

import (
	"regexp"
	"strings"
	"sync"
	"time"
)

// OopsKind classifies a kernel crash report.
type OopsKind string

// The kinds of crash report FindOopses recognises.
const (
	KindOops      OopsKind = "oops"      // "Oops:", general protection fault
	KindBUG       OopsKind = "bug"       // "BUG: …", "kernel BUG at …"
	KindWarning   OopsKind = "warning"   // "WARNING: CPU: … at file:line"
	KindPanic     OopsKind = "panic"     // "Kernel panic - not syncing"
	KindLockup    OopsKind = "lockup"    // soft/hard lockups
	KindHungTask  OopsKind = "hung-task" // "INFO: task … blocked for more than"
	KindRCUStall  OopsKind = "rcu-stall" // RCU stall reports
	KindSanitizer OopsKind = "sanitizer" // UBSAN/KASAN reports
)

// Oops is one crash or warning report with the first lines of its trace.
type Oops struct {
	Kind OopsKind
	// Title is the report's headline ("WARNING: CPU: 0 PID: 96 at …").
	Title string
	// Time is the headline's time since boot, or -1.
	Time time.Duration
	// Lines are the records that follow the headline, up to MaxOopsLines.
	Lines []string
	// Firmware reports that the trace runs through ACPI, EFI or other
	// firmware-facing kernel code, so firmware may have triggered it.
	Firmware bool
}

// MaxOopsLines is how many trace lines an Oops keeps after its headline.
const MaxOopsLines = 16

// maxTraceLines bounds how far a trace is followed looking for its end.
const maxTraceLines = 200

var (
	oopsStart = sync.OnceValue(func() []oopsPattern {
		return []oopsPattern{
			{regexp.MustCompile(`^Kernel panic - not syncing`), KindPanic},
			{regexp.MustCompile(`(?:soft lockup - CPU#\d+ stuck|Watchdog detected hard LOCKUP)`), KindLockup},
			{regexp.MustCompile(`^(?:\S+: )?BUG: |^kernel BUG at `), KindBUG},
			{regexp.MustCompile(`^Oops: |^general protection fault`), KindOops},
			{regexp.MustCompile(`^WARNING: (?:CPU: \d+ PID: \d+ at |at )`), KindWarning},
			{regexp.MustCompile(`^INFO: task \S+ blocked for more than \d+ seconds`), KindHungTask},
			{regexp.MustCompile(`^(?:rcu: )?INFO: rcu_\w+ (?:self-)?detected stalls?`), KindRCUStall},
			{regexp.MustCompile(`^(?:UBSAN|BUG: KASAN): `), KindSanitizer},
		}
	})
	cutHere    = "------------[ cut here ]------------"
	endTrace   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^---\[ end (?:trace [0-9a-f]+|Kernel panic)`) })
	firmwareFn = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:acpi_|acpi\w*\b|efi_|efi\w*\b|__efi|virt_efi|apei|ghes_|pcc_|cppc_|dmar_|intel_iommu|amd_iommu|tpm_|tpm2_|_DSM|_OSC|thermal_zone|battery)`)
	})
)

// oopsPattern is a message that starts a report of its kind.
type oopsPattern struct {
	re   *regexp.Regexp
	kind OopsKind
}

// startKind returns the kind of report text starts, or "".
func startKind(text string) OopsKind {
	if !mayStartOops(text) {
		return ""
	}
	for _, s := range oopsStart() {
		if s.re.MatchString(text) {
			return s.kind
		}
	}
	return ""
}

// oopsPrefixes start every headline that oopsStart anchors at the start
// of the text; the others contain "BUG", "lockup" or "LOCKUP".
var oopsPrefixes = []string{"Kernel panic", "Oops: ", "general protection", "WARNING: ", "INFO: ", "rcu: INFO: ", "UBSAN"}

// mayStartOops reports whether text can be a report headline: a cheap test
// before the headline regexes. Every record of a log passes through it:
// the headline words are found by their rarest letter in kernel logs, with
// IndexByte, rather than by three substring searches (issue 24: 11 M of
// the 1.8 MB boot logs' instructions before, as much as parsing the
// stamps). In the corpus's boot logs 'G' occurs 1,600 times, 'K' 2,000
// and 'k' 6,200, against 3,900 for 'U' and 24,000 for 'u', the letters
// first used: wordAround 4.6 M -> 3.3 M instructions, 1.7 M fewer in all
// with the IndexByte scans (callgrind, `fwcheck klog` on the 1.8 MB).
func mayStartOops(text string) bool {
	if text == "" {
		return false
	}
	switch text[0] {
	case 'K', 'O', 'g', 'W', 'I', 'r', 'U':
		for _, p := range oopsPrefixes {
			if strings.HasPrefix(text, p) {
				return true
			}
		}
	}
	return wordAround(text, 'G', "BUG", 2) || wordAround(text, 'K', "LOCKUP", 3) || wordAround(text, 'k', "lockup", 3)
}

// wordAround reports whether text holds word, whose byte at offset at is c.
func wordAround(text string, c byte, word string, at int) bool {
	for off := 0; ; {
		i := strings.IndexByte(text[off:], c)
		if i < 0 {
			return false
		}
		j := off + i - at
		if j >= 0 && strings.HasPrefix(text[j:], word) {
			return true
		}
		off += i + 1
	}
}

// FindOopses returns the crash and warning reports in recs, in log order.
// A report starts at its headline (or the "cut here" marker before it) and
// ends at its "---[ end trace" marker, the next report, or after a bounded
// number of lines. An "Oops:" line directly inside a BUG report belongs to
// that report.
func FindOopses(recs []Record) []Oops {
	var out []Oops
	var s OopsScanner
	for _, r := range recs {
		if o := s.Add(r); o != nil {
			out = append(out, *o)
		}
	}
	if o := s.Flush(); o != nil {
		out = append(out, *o)
	}
	return out
}

// OopsScanner finds reports as FindOopses does, one record at a time, so
// that a log of any size is read in bounded memory. The zero value is
// ready to use.
type OopsScanner struct {
	cur    *Oops
	traced int
	// frames is set inside the report's call trace, whose frame lines
	// the kernel indents: the first line after it that is not indented
	// ends a report that has no end marker (a soft lockup's, an RCU
	// stall's), instead of the next 200 lines of the boot joining it.
	frames bool
}

// Add reads the next record and returns the report it completes, if any.
func (s *OopsScanner) Add(r Record) *Oops {
	text := strings.TrimRight(r.Text, " ")
	if text == cutHere {
		return s.Flush()
	}
	if k := startKind(text); k != "" {
		// "Oops:" right after "BUG: unable to handle …" is the same report.
		if s.cur != nil && s.cur.Kind == KindBUG && k == KindOops && s.traced < 8 {
			s.cur.add(text)
			s.traced++
			return nil // (add clones the lines it keeps)
		}
		done := s.Flush()
		// Clone: a record's text may be a substring of a whole chunk of
		// the log (see lineReader).
		s.cur = &Oops{Kind: k, Title: strings.Clone(text), Time: r.Time}
		s.cur.Firmware = firmwareFn().MatchString(text)
		s.traced, s.frames = 0, false
		return done
	}
	if s.cur == nil {
		return nil
	}
	if strings.HasPrefix(text, "---[ end ") && endTrace().MatchString(text) {
		return s.Flush()
	}
	if t := strings.TrimSpace(text); strings.EqualFold(t, "Call trace:") {
		s.frames = true
	} else if s.frames && t != "" && text[0] != ' ' && text[0] != '\t' {
		return s.Flush()
	}
	s.traced++
	if s.traced > maxTraceLines {
		return s.Flush()
	}
	s.cur.add(text)
	return nil
}

// Flush returns the report in progress, if any, ending it.
func (s *OopsScanner) Flush() *Oops {
	o := s.cur
	s.cur, s.frames = nil, false
	return o
}

// registerDump matches the register and code lines of a trace, which say
// little to a firmware engineer; RIP/EIP lines are kept.
var registerDump = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:Code|RSP|RAX|RBX|RCX|RDX|RSI|RDI|RBP|R\d+|FS|CS|CR2|EAX|EBX|ECX|EDX|ESI|EDI|EBP|ESP|DS|ES|GS|Stack|PKRU|DR\d|lr|pc|sp|x\d+)\s*:`)
})

func (o *Oops) add(line string) {
	if len(o.Lines) < MaxOopsLines && !registerDump().MatchString(strings.TrimSpace(line)) {
		o.Lines = append(o.Lines, strings.Clone(line))
	}
	if !o.Firmware && firmwareFn().MatchString(line) && !strings.HasPrefix(line, "Modules linked in:") {
		o.Firmware = true
	}
}
