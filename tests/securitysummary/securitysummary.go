// Package securitysummary is the security-summary check: a read-only
// summary, in the manner of fwupd's Host Security ID (HSI), of what
// fwcheck's security checks found. fwupd groups its host security
// attributes ("org.fwupd.hsi.Spi.Ble", …) into levels: HSI-1 the
// attributes it counts as critical, HSI-2 important, HSI-3 theoretical,
// HSI-4 system protection; a machine has level N when every attribute of
// levels 1 to N holds. This check maps each fwupd attribute that one of
// fwcheck's security checks evaluates to that check and its labels, and
// says for each whether it was met, unmet (and whether the environment
// explains it), not evaluated (with the member check's reason and
// remedy) or not applicable on this machine.
//
// How it relates to fwupd (facts, not fwupd's code): the attribute IDs
// and their levels are fwupd's; the readings are fwcheck's own, which
// sometimes differ in source (fwupd reads the flash descriptor image for
// Spi.Descriptor; fwcheck the SPI controller's FRAP). fwupd weighs many
// attributes no security-category check reads (Secure Boot, the TPM, the
// rest of Boot Guard's (ACM, OTP fuses, policy), memory encryption, CET and SMAP, the kernel's lockdown and
// taint, suspend modes), so the level this check gives is the level of the
// attributes it lists, never fwupd's verdict: compare each attribute with
// `fwupdmgr security`, not the number alone. fwcheck's findings that have
// no fwupd attribute (SMRAM and TSEG locks, SMRR, FLOCKDN, the override
// strap) are outside the summary.
//
// The member checks (smm, cpu-locks, bios-write-protect, me,
// dma-protection, bootguard-txt) are evaluated again here on the same inputs, which the
// machine has already read once (values are cached per machine): nothing
// is read twice and nothing is written. Their findings stay counted in
// their own results; this check counts attributes. Its one label,
// HSIAttributeUnmet, is a warning per unmet attribute, standing for a
// finding already reported (and, when the environment explains that
// finding, explained the same way): it never fails a run, and has no
// hardware occurrence of its own to confirm. Every attribute falls in
// exactly one class, so met + unmet + not evaluated + not applicable is
// the number of attributes, per level and in all.
package securitysummary

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/biosprotect"
	"github.com/fwcheck/fwcheck/tests/bootguard"
	"github.com/fwcheck/fwcheck/tests/cpulocks"
	"github.com/fwcheck/fwcheck/tests/dmaprotection"
	"github.com/fwcheck/fwcheck/tests/me"
	"github.com/fwcheck/fwcheck/tests/smm"
)

var labelUnmet = tests.NewLabel("HSIAttributeUnmet", tests.Low, "fwupd Host Security ID attributes (HSI levels 1-4)",
	"A host security attribute of the HSI level named is not met; the finding behind it, in the check named, "+
		"says what to change. Until it is, the machine cannot reach that HSI level.")

// members are the checks the summary reads, in run order.
var members = []*tests.Check{smm.Check, cpulocks.Check, biosprotect.Check, me.Check, dmaprotection.Check, bootguard.Check}

// Check is the security-summary check.
var Check = &tests.Check{
	ID: "security-summary", Title: "fwupd-HSI-style summary of the security checks' findings",
	Category: tests.Security,
	Arch:     tests.X86,
	Optional: memberInputs(),
	Spec:     "fwupd Host Security ID specification (HSI levels and attributes)",
	Labels:   []*tests.Label{labelUnmet},
	Run:      run,
}

func memberInputs() []input.Decl {
	var out []input.Decl
	for _, c := range members {
		for _, d := range c.AllInputs() {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// Attribute is one fwupd attribute and how fwcheck's findings decide it.
type Attribute struct {
	ID    string // the fwupd attribute, "org.fwupd.hsi.Spi.Ble"
	Level int    // 1-4
	Check string // the member check that evaluates it
	// Unmet labels: a finding with one of them means the attribute is not met.
	Unmet []string
	// Parts are prefixes of the member's not-checked parts that leave the
	// attribute not evaluated.
	Parts []string
	// Evidence are substrings of the member's finding messages showing the
	// attribute was evaluated; Against those showing it unmet without a
	// label of its own (what the member reports as information).
	Evidence, Against []string
	// NA are substrings of the member's messages saying the attribute
	// does not apply here (the chipset has no such register).
	NA []string
}

// Attributes are the fwupd attributes the summary decides, by level.
// HSI-4 has none: fwupd's system-protection attributes (memory
// encryption, SMAP) are not read by the security checks.
var Attributes = []Attribute{
	{ID: "org.fwupd.hsi.Spi.Bioswe", Level: 1, Check: "bios-write-protect", Unmet: []string{"BIOSWriteEnabled"}, Parts: []string{"BIOS_CNTL"}, Evidence: []string{"BIOS_CNTL("}},
	{ID: "org.fwupd.hsi.Spi.Ble", Level: 1, Check: "bios-write-protect", Unmet: []string{"BIOSLockDisabled"}, Parts: []string{"BIOS_CNTL"}, Evidence: []string{"BIOS_CNTL("}},
	{ID: "org.fwupd.hsi.Spi.SmmBwp", Level: 1, Check: "bios-write-protect", Unmet: []string{"SMMBWPDisabled"}, Parts: []string{"BIOS_CNTL"}, Evidence: []string{"SMM_BWP set"}, NA: []string{"has no SMM_BWP"}},
	{ID: "org.fwupd.hsi.Spi.Descriptor", Level: 1, Check: "bios-write-protect", Unmet: []string{"FlashRegionWritable", "FlashDescriptorInvalid"},
		Parts: []string{"SPI flash locks", "BIOS master region access"}, Evidence: []string{"FRAP="}, NA: []string{"has no SPI controller"}},
	{ID: "org.fwupd.hsi.Mei.ManufacturingMode", Level: 1, Check: "me", Unmet: []string{"MEManufacturingMode"}, Parts: []string{"ME status"}, Evidence: []string{"HFSTS1="}},
	{ID: "org.fwupd.hsi.Mei.OverrideStrap", Level: 1, Check: "me", Unmet: []string{"MEOverrideStrap"}, Parts: []string{"ME status", "ME operation mode"}, Evidence: []string{"HFSTS1="}},
	{ID: "org.fwupd.hsi.PlatformDebugEnabled", Level: 1, Check: "cpu-locks", Unmet: []string{"DebugInterfaceEnabled"}, Parts: []string{"debug interface"},
		Evidence: []string{"silicon debug interface disabled and locked", "IA32_DEBUG_INTERFACE.LOCK clear"}, NA: []string{"has no IA32_DEBUG_INTERFACE"}},
	{ID: "org.fwupd.hsi.Amd.SmmLocked", Level: 1, Check: "smm", Unmet: []string{"AMDSMMNotLocked"}, Parts: []string{"HWCR.SmmLock", "SMRR and SmmLock"}, Evidence: []string{"HWCR.SmmLock set"}},
	{ID: "org.fwupd.hsi.PlatformDebugLocked", Level: 2, Check: "cpu-locks", Unmet: []string{"DebugInterfaceUnlocked"}, Parts: []string{"debug interface"},
		Evidence: []string{"silicon debug interface disabled and locked", "IA32_DEBUG_INTERFACE.ENABLE set"}, NA: []string{"has no IA32_DEBUG_INTERFACE"}},
	{ID: "org.fwupd.hsi.IntelBootguard.Verified", Level: 2, Check: "bootguard-txt", Unmet: []string{"BootGuardNotVerifying"}, Parts: []string{"Boot Guard status"},
		Evidence: []string{"verified boot on"}, NA: []string{"not Boot Guard capable", "has no Boot Guard"}},
	{ID: "org.fwupd.hsi.IOMMU", Level: 2, Check: "dma-protection", Unmet: []string{"NoIOMMUTable"}, Parts: []string{"IOMMU described"}, Evidence: []string{"the firmware describes its IOMMU"}},
	{ID: "org.fwupd.hsi.PrebootDma", Level: 3, Check: "dma-protection", Unmet: []string{"NoDMAOptIn"}, Parts: []string{"IOMMU described"},
		Evidence: []string{"DMA control opt-in true", "pre-boot DMA protection on"}, Against: []string{"DMA control opt-in false"}, NA: []string{"no Thunderbolt"}},
}

// Class is what the summary found of one attribute.
type Class string

// The classes.
const (
	Met           Class = "met"
	Unmet         Class = "unmet"
	NotEvaluated  Class = "not evaluated"
	NotApplicable Class = "not applicable"
)

// Verdict is one attribute's class, with the words behind it.
type Verdict struct {
	Attribute
	Class Class
	// Why says what decided it: the finding, the reason not evaluated.
	Why string
	// Explained, on an unmet attribute, is what in the environment
	// explains every finding behind it; Remedy, on one not evaluated, the
	// member's remedy.
	Explained, Remedy string
}

// Decide classes every attribute from the member checks' results.
func Decide(results []tests.Result) []Verdict {
	by := map[string]*tests.Result{}
	for i := range results {
		by[results[i].ID] = &results[i]
	}
	out := make([]Verdict, 0, len(Attributes))
	for _, a := range Attributes {
		out = append(out, decide(a, by[a.Check]))
	}
	return out
}

func decide(a Attribute, r *tests.Result) Verdict {
	v := Verdict{Attribute: a}
	switch {
	case r == nil:
		v.Class, v.Why = NotEvaluated, a.Check+" did not run"
		return v
	case r.Status == tests.StatusNotApplicable:
		v.Class, v.Why = NotApplicable, a.Check+": "+r.Reason
		return v
	case r.Status == tests.StatusSkipped || r.Status == tests.StatusAborted:
		v.Class, v.Why = NotEvaluated, fmt.Sprintf("%s %s: %s", a.Check, r.Status, r.Reason)
		return v
	}
	var unmet []tests.Finding
	for _, f := range r.AllFindings() {
		if (f.Kind == tests.KindFail || f.Kind == tests.KindWarning) && slices.Contains(a.Unmet, f.Label) {
			unmet = append(unmet, f)
		}
	}
	if len(unmet) > 0 {
		v.Class = Unmet
		v.Why = fmt.Sprintf("%s: %s", a.Check, unmet[0].Label)
		if unmet[0].Message != "" {
			v.Why += " (" + unmet[0].Message + ")"
		}
		v.Explained = unmet[0].Explained
		for _, f := range unmet {
			if f.Explained == "" {
				v.Explained = ""
			}
		}
		return v
	}
	for _, u := range r.Unchecked {
		for _, part := range a.Parts {
			if strings.HasPrefix(u.What, part) {
				v.Class, v.Why, v.Remedy = NotEvaluated, fmt.Sprintf("%s could not check %s: %s", a.Check, u.What, u.Reason), u.Remedy
				return v
			}
		}
	}
	for _, f := range r.Findings {
		for _, e := range a.Against {
			if strings.Contains(f.Message, e) {
				v.Class, v.Why = Unmet, fmt.Sprintf("%s: %s", a.Check, f.Message)
				return v
			}
		}
	}
	for _, f := range r.Findings {
		if f.Explained != "" {
			// A finding the environment explains is about what the
			// environment lacks (a VM's chipset model reads 0): no
			// evidence the attribute holds.
			continue
		}
		for _, e := range a.Evidence {
			if strings.Contains(f.Message, e) {
				v.Class, v.Why = Met, fmt.Sprintf("%s: %s", a.Check, f.Message)
				return v
			}
		}
	}
	v.Class = NotApplicable
	for _, f := range r.Findings {
		for _, e := range a.NA {
			if strings.Contains(f.Message, e) {
				v.Why = a.Check + ": " + f.Message
				return v
			}
		}
	}
	for _, f := range r.Findings {
		for _, e := range a.Evidence {
			if f.Explained != "" && strings.Contains(f.Message, e) {
				v.Why = fmt.Sprintf("%s: %s: %s", a.Check, f.Message, f.Explained)
				return v
			}
		}
	}
	v.Why = a.Check + " found nothing this attribute applies to on this machine"
	return v
}

// Tally counts one level's attributes by class.
type Tally struct {
	Level                                   int
	Met, Unmet, Explained, NotEvaluated, NA int
}

// Total is the number of attributes counted: every one in one class
// (Explained is a part of Unmet).
func (t Tally) Total() int { return t.Met + t.Unmet + t.NotEvaluated + t.NA }

// Tallies counts the verdicts per level 1-4.
func Tallies(vs []Verdict) []Tally {
	out := make([]Tally, 4)
	for i := range out {
		out[i].Level = i + 1
	}
	for _, v := range vs {
		t := &out[v.Level-1]
		switch v.Class {
		case Met:
			t.Met++
		case Unmet:
			t.Unmet++
			if v.Explained != "" {
				t.Explained++
			}
		case NotEvaluated:
			t.NotEvaluated++
		case NotApplicable:
			t.NA++
		}
	}
	return out
}

// Level returns the HSI level the listed attributes reach (0-4) and
// whether it is settled: a level is reached when every attribute of it
// and below is met or not applicable; an attribute not evaluated at the
// first level not reached leaves the answer open (settled false: the
// level may be higher).
func Level(ts []Tally) (int, bool) {
	for _, t := range ts {
		if t.Unmet > 0 {
			return t.Level - 1, true
		}
		if t.NotEvaluated > 0 {
			return t.Level - 1, false
		}
	}
	return 4, true
}

func run(p *tests.Pass) error {
	env := &tests.Env{Machine: p.Machine()}
	results := tests.Run(env, members)
	// When no security check read anything (a snapshot without the
	// registers, an unprivileged run), there is nothing to summarise.
	read := false
	var why []string
	for _, r := range results {
		switch r.Status {
		case tests.StatusSkipped, tests.StatusNotApplicable:
			why = append(why, r.ID+": "+r.Reason)
		default:
			read = true
		}
	}
	if !read {
		p.Skip("no security check could read its registers (%s)", strings.Join(why, "; "))
		return nil
	}
	vs := Decide(results)
	for _, v := range vs {
		head := fmt.Sprintf("%s (HSI-%d)", v.ID, v.Level)
		switch v.Class {
		case Met:
			p.Info(nil, "%s: met: %s", head, v.Why)
		case Unmet:
			if v.Explained != "" {
				p.Explained(labelUnmet, v.Explained, "%s: unmet: %s", head, v.Why)
			} else {
				p.Warn(labelUnmet, "%s: unmet: %s", head, v.Why)
			}
		case NotEvaluated:
			p.NotChecked(head, v.Why, v.Remedy)
		case NotApplicable:
			p.Info(nil, "%s: not applicable: %s", head, v.Why)
		}
	}
	ts := Tallies(vs)
	var parts []string
	total := 0
	for _, t := range ts {
		total += t.Total()
		if t.Total() == 0 {
			parts = append(parts, fmt.Sprintf("HSI-%d: no attribute fwcheck reads", t.Level))
			continue
		}
		parts = append(parts, fmt.Sprintf("HSI-%d: %d = %d met + %d unmet (%d explained) + %d not evaluated + %d not applicable",
			t.Level, t.Total(), t.Met, t.Unmet, t.Explained, t.NotEvaluated, t.NA))
	}
	lvl, settled := Level(ts)
	verdict := fmt.Sprintf("HSI:%d", lvl)
	if !settled {
		verdict = fmt.Sprintf("at least HSI:%d (attributes of HSI-%d not evaluated)", lvl, lvl+1)
	}
	p.Info(nil, "%d fwupd attributes that fwcheck's security checks decide: %s. Level these attributes reach: %s; fwupd weighs further attributes (Secure Boot, TPM, the rest of Boot Guard, memory encryption, kernel state), so compare attribute by attribute with fwupdmgr security",
		total, strings.Join(parts, "; "), verdict)
	return nil
}
