// Package tablecheck is what the checks of the optional ACPI description
// tables (FPDT, BGRT, WSMT, DMAR, LPIT, …) share: reporting a label that
// has not yet been seen on a real machine as a warning rather than a
// failure, the table's revision and walk-error findings, and ranges
// against the firmware memory map when the run has one.
package tablecheck

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
)

// T reports findings about one table.
type T struct {
	P *tests.Pass
	// Name prefixes every message ("DMAR", "SSDT2").
	Name string
	// Unconfirmed holds the labels no machine of the shared corpus has
	// yet: the project's rule is that such a label is reported as a
	// warning until a real occurrence confirms it against the
	// specification.
	Unconfirmed map[*tests.Label]bool

	before int
	warned bool
}

// New starts reporting on table t.
func New(p *tests.Pass, t *acpi.Table, unconfirmed map[*tests.Label]bool) *T {
	return &T{P: p, Name: t.Name(), Unconfirmed: unconfirmed, before: p.Failures()}
}

// Fail reports label l about the table: a failure, or a warning while l is
// unconfirmed.
func (t *T) Fail(l *tests.Label, format string, args ...any) {
	msg := t.Name + ": " + fmt.Sprintf(format, args...)
	if t.Unconfirmed[l] {
		t.warned = true
		t.P.Warn(l, "%s", msg)
		return
	}
	t.P.Fail(l, "%s", msg)
}

// Info reports something worth knowing about the table.
func (t *T) Info(format string, args ...any) {
	t.P.Info(nil, "%s: %s", t.Name, fmt.Sprintf(format, args...))
}

// Done reports the table's summary: as a pass when nothing about it
// failed or warned since New, as information otherwise.
func (t *T) Done(format string, args ...any) {
	msg := t.Name + ": " + fmt.Sprintf(format, args...)
	if t.P.Failures() == t.before && !t.warned {
		t.P.Passed("%s", msg)
	} else {
		t.P.Info(nil, "%s", msg)
	}
}

// Revision reports l when the table's revision is not one of want.
func (t *T) Revision(l *tests.Label, tab *acpi.Table, want ...uint8) {
	for _, w := range want {
		if tab.Header.Revision == w {
			return
		}
	}
	t.Fail(l, "revision %d, the specification defines %s", tab.Header.Revision, revList(want))
}

func revList(want []uint8) string {
	s := make([]string, len(want))
	for i, w := range want {
		s[i] = fmt.Sprint(w)
	}
	return strings.Join(s, " or ")
}

// Walk reports l when err is a walk of structures that stopped early, and
// says what was not read; it returns whether err was such an error.
func (t *T) Walk(l *tests.Label, err error) bool {
	var we *acpi.WalkError
	if !errors.As(err, &we) {
		return false
	}
	t.Fail(l, "%v: the %d bytes after it are not read", err, we.End-we.Offset)
	return true
}

// NotRead records the bytes left after acpi.MaxSubtables structures.
func (t *T) NotRead(n int) {
	if n > 0 {
		t.P.NotChecked(fmt.Sprintf("%s: the %d bytes after its first %d structures", t.Name, n, acpi.MaxSubtables),
			"more structures than fwcheck reads (real tables have a few hundred at most)", "")
	}
}

// MemoryMap returns the firmware memory map when the run has one (the
// check declares input.MemoryMap as optional); otherwise it records what
// is not checked and returns nil.
func MemoryMap(p *tests.Pass, what string) []memmap.Range {
	mm, err := tests.Load(p, input.MemoryMap)
	if err == nil && len(mm) > 0 {
		return mm
	}
	if err != nil {
		// The input's error says why and what would give it.
		p.NotChecked(what, err.Error(), "")
		return nil
	}
	p.NotChecked(what, "the firmware memory map is empty", "")
	return nil
}

// Reserved reports whether the firmware memory map marks every byte of
// [start, end] (inclusive) as reserved from the OS (reserved, ACPI NVS,
// ACPI reclaim is not); when not, it describes the entries that cover the
// range.
func Reserved(mm []memmap.Range, start, end uint64) (bool, string) {
	return covered(mm, start, end, isReserved)
}

// Mapped reports whether the memory map has entries, of any type, over
// every byte of [start, end].
func Mapped(mm []memmap.Range, start, end uint64) (bool, string) {
	return covered(mm, start, end, func(string) bool { return true })
}

func covered(mm []memmap.Range, start, end uint64, ok func(string) bool) (bool, string) {
	if end < start {
		return false, "an empty range"
	}
	var parts []string
	var n uint64
	for _, r := range mm {
		if r.End < start || r.Start > end {
			continue
		}
		parts = append(parts, fmt.Sprintf("0x%x-0x%x %s", r.Start, r.End, r.Type))
		if ok(r.Type) {
			n += min(r.End, end) - max(r.Start, start) + 1
		}
	}
	if n >= end-start+1 && end-start+1 != 0 {
		return true, ""
	}
	if len(parts) == 0 {
		return false, "no memory map entry"
	}
	return false, strings.Join(parts, ", ")
}

// isReserved reports whether a memory map type (the names Linux gives in
// /sys/firmware/memmap) keeps the OS from using the range.
func isReserved(t string) bool {
	switch strings.ToLower(t) {
	case "reserved", "acpi non-volatile storage", "unusable memory", "soft reserved", "persistent memory (legacy)":
		return true
	}
	return false
}

// Labels returns the labels of r's failures and warnings, in order: what a
// table check's tests compare, since a label is a warning until confirmed.
func Labels(r tests.Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Label != "" && (f.Kind == tests.KindFail || f.Kind == tests.KindWarning) {
			out = append(out, f.Label)
		}
	}
	return out
}

// IDList lists the IDs of a set in order ("2 4 5"), "none" for an empty
// set: the I/O APIC IDs or HPET numbers a reference was looked up in.
func IDList(ids map[uint8]bool) string {
	if len(ids) == 0 {
		return "none"
	}
	out := make([]int, 0, len(ids))
	for id := range ids {
		out = append(out, int(id))
	}
	sort.Ints(out)
	return strings.Trim(fmt.Sprint(out), "[]")
}

// Nonzero describes an OR of reserved bytes: "zero" or "nonzero (0x…)".
func Nonzero(v uint64) string {
	if v == 0 {
		return "zero"
	}
	return fmt.Sprintf("nonzero (0x%x)", v)
}

// Tables returns the pass's tables of signature sig; with none, it reports
// the check not applicable for the reason absent and returns nil, so a
// table check's run is one loop over what it returns.
func Tables(p *tests.Pass, sig, absent string) []*acpi.Table {
	tables := tests.Input(p, input.ACPITables).Get(sig)
	if len(tables) == 0 {
		p.NotApplicable("%s", absent)
	}
	return tables
}

// Unconfirmed is the set of labels of all that are not in confirmed: the
// labels no real machine has shown yet, reported as warnings.
func Unconfirmed(all, confirmed []*tests.Label) map[*tests.Label]bool {
	m := map[*tests.Label]bool{}
	for _, l := range all {
		m[l] = true
	}
	for _, l := range confirmed {
		delete(m, l)
	}
	return m
}
