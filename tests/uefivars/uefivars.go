// Package uefivars tests the firmware's UEFI variable services from the
// running OS, the non-authenticated part of what fwts' uefirtvariable
// does: it creates, reads back, overwrites, appends to and deletes
// variables of its own under a test vendor GUID (TestGUID), asks for
// attributes a firmware at runtime must refuse, probes the largest
// variable the store takes, follows QueryVariableInfo's space before and
// after, checks that GetNextVariableName lists each new name exactly once,
// and runs write/delete cycles to see whether the store loses space on
// each (the classic bug that fills a store for good and leaves some
// machines unable to boot).
//
// It reaches the variables through the machine's Control
// (input.Variables: efivarfs on Linux), so it is flagged WritesVariables:
// it runs only when named (fwcheck run uefi-variables), never on a
// snapshot. Every test variable is removed at the end, also when an
// assertion or the check itself failed, and the store's listing after the
// run is compared with the one before it.
//
// QueryVariableInfo reaches Linux's users as efivarfs' statfs only from
// kernel 6.5 (commit d86ff3333cb1; in the 6.1 series from 6.1.178,
// Debian's 6.1.180-1): on an older kernel the space accounting and the
// trend are reported not checked, with that reason, and no figure is made
// up. The kernel also rate-limits that statfs (5 calls in 500 jiffies,
// answering the rest from a cache), so the live store paces its calls and
// the cycles sample the space every 5th cycle.
//
// A store may count deleted variables' space until it is reclaimed. EDK
// II's variable services (OVMF, most PC firmware) append every write to
// the flash store as a new record and only mark the old one deleted;
// after ExitBootServices QueryVariableInfo counts the deleted records as
// used (before it, they are left out), and nothing is reclaimed at
// runtime: a write that no longer fits fails with EFI_OUT_OF_RESOURCES.
// The store is rewritten with its live variables alone only at boot
// time, at ReadyToBoot when less than the largest variable's room is
// left, or when a boot-time write does not fit. A loss of one variable
// record per write/delete cycle is therefore not taken for a leak: within
// one boot it cannot be told from one, so that part is reported not
// checked, with the figures and the remedy (the same run over several
// boots). A loss no record accounts for is the leak finding. OVMF's
// flash store after a run shows exactly that: every byte of remaining
// space the check saw go is one of its deleted records, and no other
// write happened (image/uefivars_e2e_test.go, with efi.ParseVarStore).
//
// Its findings are warnings: no machine in the corpus shows any of them
// yet (under OVMF every assertion holds, the space given back being the
// part one boot cannot check), so none fails a run until one is confirmed
// on real firmware.
package uefivars

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

// TestGUID is the vendor GUID of every variable the check writes; no other
// variable under it is expected to exist, and any found at the start is
// taken to be left by an interrupted earlier run and removed.
var TestGUID = efi.MustGUID("f3c1a2d4-6b7e-4c59-8e0a-1d2f3b4c5e6f")

// The test variables' names.
const (
	nameBasic    = "FwcheckBasic"
	nameVolatile = "FwcheckVolatile"
	nameBootOnly = "FwcheckBootOnly"
	nameSize     = "FwcheckSize"
	nameCycle    = "FwcheckCycle"
)

const (
	nvbsrt = efi.NonVolatile | efi.BootserviceAccess | efi.RuntimeAccess
	bsrt   = efi.BootserviceAccess | efi.RuntimeAccess
	nvbs   = efi.NonVolatile | efi.BootserviceAccess
)

const (
	specVars  = "UEFI 2.10 §8.2 (Variable Services)"
	specSet   = "UEFI 2.10 §8.2.3 (SetVariable)"
	specNext  = "UEFI 2.10 §8.2.2 (GetNextVariableName)"
	specQuery = "UEFI 2.10 §8.2.4 (QueryVariableInfo)"
)

var (
	labelWrite = tests.NewLabel("UEFIVariableWriteRefused", tests.High, specSet,
		"The firmware refused to create or replace a small non-volatile variable with boot-service and runtime "+
			"access from the running OS. Operating systems set boot entries, BootNext and their own settings this "+
			"way; the variable services must accept such writes after ExitBootServices while space remains.")
	labelReadBack = tests.NewLabel("UEFIVariableReadBackWrong", tests.High, specVars,
		"A variable read back after it was written (created, replaced or appended to) does not hold the "+
			"attributes or the data that were written. The store corrupts or truncates what it keeps; the "+
			"message gives what was written and what came back.")
	labelAppend = tests.NewLabel("UEFIVariableAppendRefused", tests.Medium, specSet,
		"SetVariable with EFI_VARIABLE_APPEND_WRITE was refused for an existing variable with the same "+
			"attributes. The specification requires appending to be supported; the OS relies on it to add "+
			"entries to signature databases and logs without rewriting them.")
	labelDelete = tests.NewLabel("UEFIVariableDeleteFailed", tests.High, specSet,
		"A test variable could not be deleted, or still reads or lists after it was deleted. A store that "+
			"cannot drop variables fills up; the OS cannot remove stale boot entries either.")
	labelBootOnly = tests.NewLabel("UEFIBootServiceVariableAccepted", tests.Medium, specSet,
		"The firmware accepted, after ExitBootServices, a variable with boot-service access only. At runtime "+
			"only variables with runtime access may be set; accepting others lets the OS create variables "+
			"that the boot-time code treats as its own.")
	labelVolatile = tests.NewLabel("UEFIVolatileVariableWritable", tests.Low, specSet,
		"The firmware let the OS create a volatile variable after ExitBootServices. The specification makes "+
			"volatile variables read-only at runtime (only non-volatile ones with runtime access can be set), "+
			"and OS tools that rely on the refusal behave differently here.")
	labelListing = tests.NewLabel("UEFIVariableListingWrong", tests.Medium, specNext,
		"GetNextVariableName, as the OS lists it, did not show a variable just created exactly once (it was "+
			"missing or repeated). OS tools that enumerate variables then miss or duplicate boot entries.")
	labelAccounting = tests.NewLabel("UEFIVariableSpaceNotAccounted", tests.Low, specQuery,
		"QueryVariableInfo's remaining storage did not go down when a non-volatile variable was written. The "+
			"figures the OS uses to avoid filling the store do not follow the store, so it cannot protect "+
			"a firmware that fails when the store is full.")
	labelReclaim = tests.NewLabel("UEFIVariableSpaceNotReclaimed", tests.Medium, specQuery,
		"After the test variables were deleted, QueryVariableInfo reports less remaining storage than before "+
			"they were created. Deleted variables' space should come back (at once, or by the firmware's "+
			"garbage collection); the message gives the figures. Repeat the run after a reboot: if the free space "+
			"keeps shrinking from boot to boot, the store is leaking.")
	labelLeak = tests.NewLabel("UEFIVariableSpaceLeak", tests.Critical, specQuery,
		"Each write and delete of the same small variable left the store with less remaining space, steadily "+
			"over the cycles. A firmware that loses space on every update fills its store for good over time; "+
			"some machines then no longer boot. Make deletion and replacement give the space back (garbage "+
			"collection that runs when the store runs low, including at runtime).")
	labelLeft = tests.NewLabel("UEFIVariableTestVariableLeft", tests.Medium, specVars,
		"After the check removed its test variables the store's listing is not what it was before the run: a "+
			"test variable remains, or another variable appeared or disappeared. The message names them.")
)

// Settings.
var (
	Cycles = tests.IntOpt("cycles", "write/delete cycles of one small variable for the space trend", 50, 1, 1000)
	// MaxSize bounds the size probe: the largest variable data it tries.
	MaxSize = tests.IntOpt("max-size", "largest variable data, in bytes, the size probe tries", 64<<10, 1<<10, 1<<20)
)

// Check is the uefi-variables check.
var Check = &tests.Check{
	ID: "uefi-variables",
	Title: "UEFI variable services at runtime: create, read back, replace, append, delete, attributes, size limit, " +
		"QueryVariableInfo and the space trend over write/delete cycles",
	Category: tests.UEFI,
	Flags:    tests.WritesVariables,
	Inputs:   []input.Decl{input.EFIVars},
	Spec:     specVars,
	Labels: []*tests.Label{labelWrite, labelReadBack, labelAppend, labelDelete, labelBootOnly, labelVolatile,
		labelListing, labelAccounting, labelReclaim, labelLeak, labelLeft},
	Settings: []tests.Setting{Cycles, MaxSize},
	Run:      run,
}

// cycleData is the size of the variable the cycles write.
const cycleData = 64

// The reason and the remedy when the kernel reports no store space.
const (
	noSpaceReason = "the kernel reports no variable-store space: efivarfs' statfs gives a size of 0 (Linux passes " +
		"QueryVariableInfo on there from 6.5, and from 6.1.178 in the 6.1 series; later kernels also report 0 when the " +
		"firmware has no QueryVariableInfo at runtime)"
	noSpaceRemedy = "boot a kernel from 6.5 on (or 6.1.178 or later); `df /sys/firmware/efi/efivars` then shows the store's size"
)

// state is one run of the check.
type state struct {
	p      *tests.Pass
	vs     input.VariableStore
	before map[input.VariableName]bool
	infos  bool   // the kernel reports the store's space
	start  uint64 // the remaining space before the check wrote anything
}

func run(p *tests.Pass) error {
	if st := tests.Input(p, input.EFIVars); !st.UEFI {
		p.NotApplicable("the machine did not boot through UEFI: it has no UEFI variable services")
		return nil
	}
	vs, err := input.Variables(p.Control())
	if errors.Is(err, input.ErrNoControl) {
		p.Skip("no control of this machine: variable services can only be tested live, not on a snapshot")
		return nil
	}
	if err != nil {
		p.Skip("the variable store cannot be written: %v", err)
		return nil
	}
	s := &state{p: p, vs: vs}
	names, err := vs.Names()
	if err != nil {
		return fmt.Errorf("listing the variables: %w", err)
	}
	s.before = map[input.VariableName]bool{}
	var left []string
	for _, n := range names {
		if n.GUID == TestGUID {
			left = append(left, n.Name)
			continue
		}
		s.before[n] = true
	}
	p.Record("store_before", nameList(s.before))
	p.Info(nil, "variable store before the run: %d variables", len(s.before))
	for _, n := range left {
		if err := vs.Delete(n, TestGUID); err != nil {
			return fmt.Errorf("removing test variable %s left by an earlier run: %w", n, err)
		}
	}
	if len(left) > 0 {
		p.Info(nil, "removed %d test variables an interrupted earlier run left: %s", len(left), strings.Join(left, ", "))
	}
	defer s.cleanup()

	info0 := s.info()
	s.infos, s.start = info0.Reported, info0.Free
	if s.infos {
		p.Record("space_before", info0)
		p.Info(nil, "QueryVariableInfo (efivarfs statfs): store %d bytes, %d remaining, %d available to the OS", info0.Total, info0.Free, info0.Available)
	} else {
		p.NotChecked("QueryVariableInfo space accounting, space reclaimed after delete, and the space trend over write/delete cycles", noSpaceReason, noSpaceRemedy)
	}
	if !s.basic(info0) {
		return nil // nothing else can be written either
	}
	s.attributes()
	s.sizes()
	s.cycles()
	return nil
}

func (s *state) info() input.VariableInfo {
	i, err := s.vs.Info()
	if err != nil {
		s.p.NotChecked("QueryVariableInfo space accounting", "statfs on efivarfs failed: "+err.Error(), "")
		return input.VariableInfo{}
	}
	return i
}

// pattern is n bytes that differ with seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// readBack checks that name holds attrs and want.
func (s *state) readBack(what, name string, attrs efi.Attributes, want []byte) bool {
	a, got, err := s.vs.Get(name, TestGUID)
	switch {
	case err != nil:
		s.p.Warn(labelReadBack, "%s: reading %s back: %v", what, name, err)
	case a != attrs:
		s.p.Warn(labelReadBack, "%s: %s reads back with attributes %v (0x%x), written %v (0x%x)", what, name, a, uint32(a), attrs, uint32(attrs))
	case !bytes.Equal(got, want):
		s.p.Warn(labelReadBack, "%s: %s reads back %d bytes%s, written %d", what, name, len(got), firstDiff(got, want), len(want))
	default:
		return true
	}
	return false
}

func firstDiff(got, want []byte) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf(" (first difference at byte %d: 0x%02x, written 0x%02x)", i, got[i], want[i])
		}
	}
	return ""
}

// listed counts name's entries in the store's listing.
func (s *state) listed(name string) (int, error) {
	ns, err := s.vs.Names()
	n := 0
	for _, v := range ns {
		if v.GUID == TestGUID && v.Name == name {
			n++
		}
	}
	return n, err
}

// basic creates, reads back, lists, replaces, appends to and deletes a
// non-volatile variable with boot-service and runtime access, following
// the store's space. It reports whether the store takes writes at all.
func (s *state) basic(info0 input.VariableInfo) bool {
	p := s.p
	d1 := pattern(32, 1)
	if err := s.vs.Set(nameBasic, TestGUID, nvbsrt, d1); err != nil {
		p.Warn(labelWrite, "creating %s (%v, %d bytes): %v", nameBasic, nvbsrt, len(d1), err)
		return false
	}
	if s.readBack("created", nameBasic, nvbsrt, d1) {
		p.Passed("created %s (%v, %d bytes) and read it back unchanged", nameBasic, nvbsrt, len(d1))
	}
	switch n, err := s.listed(nameBasic); {
	case err != nil:
		return s.fail(fmt.Errorf("listing the variables: %w", err))
	case n != 1:
		p.Warn(labelListing, "the variable listing shows %s-%s %d times after it was created, expected once", nameBasic, TestGUID, n)
	default:
		p.Passed("the variable listing (GetNextVariableName) shows the new %s exactly once", nameBasic)
	}
	if s.infos {
		i := s.info()
		if i.Reported && i.Free+uint64(len(d1)) <= info0.Free {
			p.Passed("QueryVariableInfo: remaining storage went from %d to %d bytes with the %d-byte variable", info0.Free, i.Free, len(d1))
		} else if i.Reported {
			p.Warn(labelAccounting, "QueryVariableInfo: remaining storage %d bytes before creating a %d-byte variable, %d after", info0.Free, len(d1), i.Free)
		}
	}
	d2 := pattern(48, 2)
	if err := s.vs.Set(nameBasic, TestGUID, nvbsrt, d2); err != nil {
		p.Warn(labelWrite, "replacing %s's %d bytes with %d: %v", nameBasic, len(d1), len(d2), err)
	} else if s.readBack("replaced", nameBasic, nvbsrt, d2) {
		p.Passed("replaced %s's data (%d bytes with %d) and read it back", nameBasic, len(d1), len(d2))
	}
	d3 := pattern(16, 3)
	if err := s.vs.Append(nameBasic, TestGUID, nvbsrt, d3); err != nil {
		p.Warn(labelAppend, "appending %d bytes to %s (%v): %v", len(d3), nameBasic, nvbsrt, err)
	} else if s.readBack("appended to", nameBasic, nvbsrt, append(bytes.Clone(d2), d3...)) {
		p.Passed("appended %d bytes to %s (EFI_VARIABLE_APPEND_WRITE): it reads back as %d bytes, the old data then the new", len(d3), nameBasic, len(d2)+len(d3))
	}
	if s.delete(nameBasic) {
		p.Passed("deleted %s: it no longer reads or lists", nameBasic)
	}
	if s.infos {
		i := s.info()
		// What a store that reclaims later still counts: the three
		// copies written (32, 48 and 64 bytes of data).
		lo, hi := recordBounds(nameBasic, 32+48+64, 3)
		switch loss := info0.Free - min(info0.Free, i.Free); {
		case !i.Reported:
		case loss == 0:
			p.Passed("QueryVariableInfo: remaining storage back to %d bytes after the delete (%d before the variable was created)", i.Free, info0.Free)
		case loss >= lo && loss <= hi:
			p.Info(nil, "QueryVariableInfo: %d bytes remaining after the delete, %d before: the %d bytes of the three copies written are still counted", i.Free, info0.Free, loss)
			p.NotChecked("space given back after a delete",
				fmt.Sprintf("the firmware still counts the deleted copies at runtime (%d bytes for the three written), as EDK II's variable services do: they keep deleted records in the store, count them after ExitBootServices and reclaim the store only at boot time", loss),
				remedyDeferred)
		default:
			p.Warn(labelReclaim, "QueryVariableInfo: remaining storage %d bytes after creating, replacing, appending to and deleting %s, %d before: %d bytes not given back (the copies written would account for %d to %d)",
				i.Free, nameBasic, info0.Free, loss, lo, hi)
		}
	}
	return true
}

// remedyDeferred says how to tell a store reclaimed at boot from a leak.
const remedyDeferred = "repeat the run over several boots: EDK II reclaims the store at boot once less than its largest variable's room remains, " +
	"so the remaining storage at the start of a run comes back up after the runs have used most of it; storage that keeps shrinking by what the runs wrote " +
	"until writes are refused is a store that never reclaims; from the UEFI shell, before ExitBootServices, EDK II's QueryVariableInfo leaves deleted variables out"

// recordBounds are the least and the most space n variable records named
// name holding data bytes in all take in a store: the name (UCS-2, with
// its terminator) and the data, plus at most recordOverhead each.
func recordBounds(name string, data, n int) (lo, hi uint64) {
	lo = uint64(n*2*(len(name)+1) + data)
	return lo, lo + uint64(n*recordOverhead)
}

// recordOverhead is the most a store's record of one variable takes besides
// its name and data: EDK II's authenticated header is 60 bytes, aligned to
// 4; other stores keep less or a little more.
const recordOverhead = 256

// fail ends the check with err (the deferred clean-up still runs).
func (s *state) fail(err error) bool {
	s.p.NotChecked("the rest of the variable services", err.Error(), "")
	return false
}

// delete deletes name and checks that it is gone.
func (s *state) delete(name string) bool {
	if err := s.vs.Delete(name, TestGUID); err != nil {
		s.p.Warn(labelDelete, "deleting %s: %v", name, err)
		return false
	}
	if _, _, err := s.vs.Get(name, TestGUID); !errors.Is(err, fs.ErrNotExist) {
		s.p.Warn(labelDelete, "%s still reads after it was deleted (%v)", name, err)
		return false
	}
	if n, err := s.listed(name); err == nil && n != 0 {
		s.p.Warn(labelDelete, "%s is still listed %d times after it was deleted", name, n)
		return false
	}
	return true
}

// attributes asks for the variables a firmware must refuse at runtime:
// boot-service access only, and volatile.
func (s *state) attributes() {
	p := s.p
	d := pattern(16, 4)
	if err := s.vs.Set(nameBootOnly, TestGUID, nvbs, d); err != nil {
		p.Passed("a variable with boot-service access only (%v) is refused at runtime, as it must be: %v", nvbs, err)
	} else {
		p.Warn(labelBootOnly, "the firmware accepted %s with attributes %v (no runtime access) after ExitBootServices", nameBootOnly, nvbs)
		s.delete(nameBootOnly)
	}
	if err := s.vs.Set(nameVolatile, TestGUID, bsrt, d); err != nil {
		p.Passed("a volatile variable (%v) is refused at runtime, as volatile variables are read-only after ExitBootServices: %v", bsrt, err)
	} else {
		p.Warn(labelVolatile, "the firmware let the OS create %s with attributes %v (volatile) after ExitBootServices", nameVolatile, bsrt)
		s.readBack("volatile", nameVolatile, bsrt, d)
		s.delete(nameVolatile)
	}
}

// sizes probes the largest variable the store takes, within MaxSize and,
// where the space is known, a quarter of what is available for any one
// write and half of it over the whole probe (the store must never be
// brought near full).
func (s *state) sizes() {
	p := s.p
	limit := MaxSize.Get(p)
	var budget uint64 = 4 * uint64(limit)
	if s.infos {
		i := s.info()
		budget = i.Available / 2
		if q := int(i.Available / 4); q < limit {
			limit = q
		}
	}
	if limit < 1024 {
		p.NotChecked("the largest variable the store takes", fmt.Sprintf("only %d bytes could be tried without bringing the store near full", limit), "")
		return
	}
	var spent uint64
	var lastErr error // the last refusal
	try := func(n int) bool {
		d := pattern(n, byte(n))
		if err := s.vs.Set(nameSize, TestGUID, nvbsrt, d); err != nil {
			lastErr = err
			return false
		}
		spent += uint64(n)
		return s.readBack(fmt.Sprintf("%d-byte", n), nameSize, nvbsrt, d)
	}
	lo, hi := 0, limit+1 // lo is taken, hi is not
	if try(1024) {
		lo = 1024
	} else {
		p.Warn(labelWrite, "a 1024-byte variable (%v) was refused: %v", nvbsrt, lastErr)
		s.deleteIfThere(nameSize)
		return
	}
	var hiErr error // why hi was refused
	if try(limit) {
		lo = limit
	} else {
		hi, hiErr = limit, lastErr
		for hi-lo > probeStep {
			mid := lo + (hi-lo)/2
			if spent+uint64(mid) > budget {
				break
			}
			if try(mid) {
				lo = mid
			} else {
				hi, hiErr = mid, lastErr
			}
		}
	}
	s.deleteIfThere(nameSize)
	p.Record("largest_variable", lo)
	switch {
	case lo == limit:
		p.Passed("variables of %d to %d bytes are written and read back whole (the probe's bound; the store may take more)", 1024, lo)
	case hi-lo <= probeStep:
		p.Passed("variables up to %d bytes are written and read back whole; %d bytes are refused (%v): the store's largest variable is in between", lo, hi, hiErr)
	default:
		p.Passed("variables up to %d bytes are written and read back whole; %d bytes are refused (%v): the store's largest variable is in between "+
			"(the probe stopped there, having written %d bytes, to stay within half the available space)", lo, hi, hiErr, spent)
	}
}

// probeStep is how closely the size probe brackets the largest variable.
const probeStep = 512

func (s *state) deleteIfThere(name string) {
	if _, _, err := s.vs.Get(name, TestGUID); err == nil {
		s.delete(name)
	}
}

// sampleEvery is how many cycles pass between two samples of the
// remaining space (each sample waits out the kernel's statfs rate limit).
const sampleEvery = 5

// cycles writes and deletes one small variable Cycles times and follows
// the remaining space.
func (s *state) cycles() {
	p := s.p
	n := Cycles.Get(p)
	var samples []Sample
	sample := func(c int) {
		if s.infos {
			if i := s.info(); i.Reported {
				samples = append(samples, Sample{c, i.Free})
			}
		}
	}
	sample(0)
	d := pattern(cycleData, 5)
	for c := 1; c <= n; c++ {
		p.Progress("write/delete cycle %d/%d", c, n)
		if err := s.vs.Set(nameCycle, TestGUID, nvbsrt, d); err != nil {
			p.Warn(labelWrite, "cycle %d of %d: creating %s (%d bytes): %v", c, n, nameCycle, len(d), err)
			sample(c - 1)
			s.trend(samples)
			return
		}
		if err := s.vs.Delete(nameCycle, TestGUID); err != nil {
			p.Warn(labelDelete, "cycle %d of %d: deleting %s: %v", c, n, nameCycle, err)
			sample(c)
			s.trend(samples)
			return
		}
		if c%sampleEvery == 0 || c == n {
			sample(c)
		}
	}
	p.Passed("%d write/delete cycles of a %d-byte variable completed", n, cycleData)
	s.trend(samples)
}

// Sample is the remaining space after a number of cycles.
type Sample struct {
	Cycle int    `json:"cycle"`
	Free  uint64 `json:"free"`
}

// trend judges the remaining space sampled over the cycles.
func (s *state) trend(samples []Sample) {
	if !s.infos || len(samples) < 2 {
		return
	}
	p := s.p
	p.Record("space_trend", samples)
	lo, hi := recordBounds(nameCycle, cycleData, 1)
	t := Trend(samples)
	first, last := samples[0], samples[len(samples)-1]
	cycles := last.Cycle - first.Cycle
	span := fmt.Sprintf("%d bytes remaining before, %d after %d cycles (lowest %d)", first.Free, last.Free, cycles, t.Lowest)
	switch {
	case t.Loss <= hi:
		how := ""
		if t.Reclaimed {
			how = "; the firmware's garbage collection gave space back during the run"
		}
		p.Passed("space trend over %d write/delete cycles is flat: %s%s", cycles, span, how)
	case t.Steady && t.PerCycle >= lo && t.PerCycle <= hi:
		p.Info(nil, "over %d write/delete cycles the remaining space went down by %d bytes a cycle, one %d-byte variable's record: %s", cycles, t.PerCycle, cycleData, span)
		p.NotChecked("that write/delete cycles lose no space for good",
			fmt.Sprintf("the firmware still counts every deleted copy at runtime (%d bytes a cycle, one record each), as EDK II's variable services do: they keep deleted records in the store, count them after ExitBootServices and reclaim the store only at boot time. "+
				"Within one boot that cannot be told from a store that never reclaims", t.PerCycle),
			fmt.Sprintf("%s (%d bytes remained at the start of this run)", remedyDeferred, s.start))
	case t.Steady:
		p.Warn(labelLeak, "the store lost %d bytes over %d write/delete cycles of a %d-byte variable, %d a cycle, which one copy of it (%d to %d bytes) does not account for: %s; at this rate the %d bytes left last about %d more cycles",
			t.Loss, cycles, cycleData, t.PerCycle, lo, hi, span, last.Free, last.Free/max(1, t.PerCycle))
	default:
		p.Warn(labelReclaim, "over %d write/delete cycles the remaining space went from %d to %d bytes (lowest %d): %d bytes not given back",
			cycles, first.Free, last.Free, t.Lowest, t.Loss)
	}
}

// TrendResult summarises remaining-space samples.
type TrendResult struct {
	// Loss is how much less remains at the end than at the start (0 when
	// at least as much remains), PerCycle that over the cycles.
	Loss, PerCycle uint64
	// Lowest is the lowest sample.
	Lowest uint64
	// Steady: the space went down between most samples and never came
	// back to where it started.
	Steady bool
	// Reclaimed: the space came back up between two samples.
	Reclaimed bool
}

// Trend summarises samples of the remaining space, in cycle order.
func Trend(samples []Sample) TrendResult {
	if len(samples) == 0 {
		return TrendResult{}
	}
	first := samples[0]
	t := TrendResult{Lowest: first.Free}
	drops := 0
	for i := 1; i < len(samples); i++ {
		t.Lowest = min(t.Lowest, samples[i].Free)
		if samples[i].Free < samples[i-1].Free {
			drops++
		}
		if samples[i].Free > samples[i-1].Free {
			t.Reclaimed = true
		}
	}
	last := samples[len(samples)-1]
	if last.Free < first.Free {
		t.Loss = first.Free - last.Free
	}
	if c := last.Cycle - first.Cycle; c > 0 {
		t.PerCycle = t.Loss / uint64(c)
	}
	t.Steady = t.Loss > 0 && !t.Reclaimed && drops*2 >= len(samples)-1
	return t
}

// cleanup removes every test variable and compares the listing with the
// one before the run.
func (s *state) cleanup() {
	p := s.p
	for _, name := range []string{nameBasic, nameVolatile, nameBootOnly, nameSize, nameCycle} {
		if _, _, err := s.vs.Get(name, TestGUID); err == nil {
			if err := s.vs.Delete(name, TestGUID); err != nil {
				p.Warn(labelDelete, "clean-up: deleting %s: %v", name, err)
			}
		}
	}
	names, err := s.vs.Names()
	if err != nil {
		p.NotChecked("that no test variable is left", "listing the variables after the run: "+err.Error(), "")
		return
	}
	after := map[input.VariableName]bool{}
	for _, n := range names {
		if n.GUID == TestGUID {
			if err := s.vs.Delete(n.Name, TestGUID); err != nil {
				p.Warn(labelDelete, "clean-up: deleting %s: %v", n.Name, err)
			}
		}
		after[n] = true
	}
	if again, err := s.vs.Names(); err == nil {
		after = map[input.VariableName]bool{}
		for _, n := range again {
			after[n] = true
		}
	}
	p.Record("store_after", nameList(after))
	var extra, gone []string
	for n := range after {
		if !s.before[n] {
			extra = append(extra, n.String())
		}
	}
	for n := range s.before {
		if !after[n] {
			gone = append(gone, n.String())
		}
	}
	sort.Strings(extra)
	sort.Strings(gone)
	if len(extra)+len(gone) > 0 {
		p.Warn(labelLeft, "the store's listing after the run differs from the one before: %d more (%s), %d missing (%s)",
			len(extra), strings.Join(extra, ", "), len(gone), strings.Join(gone, ", "))
		return
	}
	p.Passed("no test variable is left: the store lists the same %d variables as before the run", len(after))
}

func nameList(m map[input.VariableName]bool) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n.String())
	}
	sort.Strings(out)
	return out
}
