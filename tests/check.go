// Package tests is fwcheck's check framework: what a check is (Check, its
// Labels and Settings), what it sees while it runs (Pass), the statuses a
// check ends in, selection and the runner. The checks themselves live one
// package each below it (tests/fadt, tests/hpet, …), as the passes of
// golang.org/x/tools/go/analysis do, and tests/all lists them.
//
// A Check is a declarative value: it says what it is, what it reads and what
// it may report; drivers (the CLI, the live image's init, the suspend loop)
// decide what runs and how results are reported. A check reads the machine
// only through its Pass and reports only through it. Nothing here registers
// into globals: drivers hand the runner an explicit list of checks.
package tests

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/input"
)

// Category groups checks for selection and reporting.
type Category string

// The categories, in the order their checks run.
const (
	ACPI Category = "acpi"
	BIOS Category = "bios"
	CPU  Category = "cpu"
	// Security checks read (never write) the firmware's own protections:
	// SMM and flash locks, debug interfaces, DMA protection.
	Security Category = "security"
	UEFI     Category = "uefi"
	TPM      Category = "tpm"
	Log      Category = "log"
	Power    Category = "power"
)

// Categories lists every category in run order. Power runs last because
// its checks change the machine's state.
var Categories = []Category{ACPI, BIOS, CPU, Security, UEFI, TPM, Log, Power}

// Flags describe what running a check involves. Whether a check needs root
// is not a flag: it follows from its inputs (see Check.NeedsRoot).
type Flags uint

// Each flag grants one power of the machine's Control (see Pass.Control):
// a check gets only the actions its flags name.
const (
	// Unsafe: the check writes firmware state or reboots (Control.Reboot).
	Unsafe Flags = 1 << iota
	// PowerState: the check suspends or hibernates the machine
	// (Control.Suspend).
	PowerState
	// Adjusts: the check changes a setting of the running machine for a
	// moment and puts it back (input.Adjuster: the RTC wake alarm, a CPU
	// frequency policy's governor).
	Adjusts
	// WritesVariables: the check creates, changes and deletes UEFI
	// variables of its own (input.Variables: the firmware's variable
	// services through efivarfs). Like Unsafe it writes firmware state,
	// but it may not reset the machine.
	WritesVariables
)

// Acting are the flags of checks that change the machine: they run only
// when named, and only they get a Control.
const Acting = Unsafe | PowerState | Adjusts | WritesVariables

var flagNames = []string{"unsafe", "power-state", "adjusts", "writes-variables"}

// RunsOnlyWhenNamed reports whether checks with these flags run only when
// the user names them (they act on the machine).
func (f Flags) RunsOnlyWhenNamed() bool { return f&Acting != 0 }

// Strings returns the flag names, in a fixed order.
func (f Flags) Strings() []string {
	out := []string{}
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Check is one firmware check.
type Check struct {
	// ID is stable; users select by it. The rule: lowercase words joined
	// by hyphens, each word an English word, an ACPI table signature or
	// the kernel's own name for the thing (cpufreq, e820, klog), and the
	// same words as the input it is about ("acpi-tables" reads the
	// acpi-tables input; "device-ids", "sleep-states").
	ID string
	// Aliases are the check's former IDs, accepted wherever an ID is
	// given (run and --skip, waivers, documents read for diff and report)
	// and taken to mean ID.
	Aliases []string
	// Title is one line saying what the check verifies.
	Title    string
	Category Category
	Flags    Flags
	// Arch, when set, lists the machine architectures the check applies
	// to, as GOARCH names them (X86 for the MSR, MTRR, e820, HPET, SMM and
	// chipset checks). On a machine of another architecture the check is
	// not applicable, with the reason, and Run is not called; when the
	// architecture cannot be told (see input.Machine.Arch) it runs.
	// Empty: every architecture.
	Arch []string
	// Inputs are the machine state the check reads; when one is
	// unavailable, the check is skipped with the reason and Run is not
	// called. Optional inputs are read when they can be had (Load) and
	// captured in snapshots, but do not make the check skip.
	Inputs   []input.Decl
	Optional []input.Decl
	// Spec is the specification the check enforces.
	Spec string
	// Labels are every label the check may report; reporting another is a
	// bug in the check and aborts it.
	Labels []*Label
	// DataLabels, for a check whose labels come from data (the kernel-log
	// advice database), returns them; a finding it reports may carry any
	// of them, or a label of a database the user supplied in a setting.
	DataLabels func() ([]*Label, error)
	// Settings are the check's own options; drivers expose each as
	// --ID.NAME and a run gives each its value (see Settings).
	Settings []Setting
	// Run does the work, reporting through the pass. An error return or a
	// panic records the check as aborted.
	Run func(*Pass) error
}

// X86 is the Arch of checks of x86-only hardware and firmware.
var X86 = []string{"amd64", "386"}

// archReason says why a check declaring arch does not apply on a machine
// of architecture got: "x86 only (this machine is arm64)".
func archReason(arch []string, got, from string) string {
	what := strings.Join(arch, ", ") + " only"
	if slices.Equal(arch, X86) {
		what = "x86 only"
	}
	r := fmt.Sprintf("%s (this machine is %s", what, got)
	if from != "" {
		r += ", from " + from
	}
	return r + ")"
}

// NeedsRoot reports whether reading the check's inputs on a live machine
// needs root: that is decided by the inputs alone.
func (c *Check) NeedsRoot() bool {
	return slices.ContainsFunc(c.Inputs, input.Decl.NeedsRoot)
}

// AllInputs returns the check's required and optional inputs.
func (c *Check) AllInputs() []input.Decl { return append(slices.Clone(c.Inputs), c.Optional...) }

// Label returns the check's own label with the given name, or nil.
func (c *Check) Label(name string) *Label {
	for _, l := range c.Labels {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// Severity ranks a failure's impact.
type Severity int

// Severities, most severe first. Zero is "none" (passes, infos).
const (
	Critical Severity = 4 - iota
	High
	Medium
	Low
	None
)

var sevNames = map[Severity]string{Critical: "critical", High: "high", Medium: "medium", Low: "low", None: ""}

func (s Severity) String() string { return sevNames[s] }

// ParseSeverity parses "critical", "high", "medium" or "low".
func ParseSeverity(s string) (Severity, error) {
	for k, v := range sevNames {
		if v != "" && v == strings.ToLower(s) {
			return k, nil
		}
	}
	return None, fmt.Errorf("unknown severity %q (want critical, high, medium or low)", s)
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = None
		return nil
	}
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Label is a stable name for one kind of failure, with its severity, the
// spec section it breaks and advice for the firmware engineer. Tools and
// waivers key on the name, so it never changes once released. A label
// belongs to the check that lists it in Check.Labels.
type Label struct {
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Spec     string   `json:"spec"`
	Advice   string   `json:"advice"`
}

// camelCase reports whether s matches ^[A-Z][A-Za-z0-9]+$ (a label
// name). It is written out, not a regexp: the regexp's matching of the
// 380 labels at package initialisation was half of `fwcheck version`'s
// instructions (issue 24).
func camelCase(s string) bool {
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// checkID reports whether s matches ^[a-z][a-z0-9]*(-[a-z0-9]+)*$ (a
// check ID: lowercase words joined by single hyphens), written out for
// the same reason.
func checkID(s string) bool {
	if len(s) < 1 || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '-' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// NewLabel declares a label. It checks nothing: every process declares
// the 575 labels of the fixed check list at package initialisation, and
// checking each there was 5% of `fwcheck version`'s instructions (issue
// 24). Validate checks every label of a check list, names, severities,
// advice and uniqueness across checks, and tests/all's tests run it on
// the fixed list; a label a check reports must be one it declares (the
// framework refuses others), so no label escapes that test.
func NewLabel(name string, sev Severity, spec, advice string) *Label {
	return &Label{Name: name, Severity: sev, Spec: spec, Advice: advice}
}

// Validate reports what makes l unusable in results: a name that is not
// CamelCase, no valid severity, no advice. Labels that come from data (an
// imported advice database) are checked with it when they are loaded.
func (l *Label) Validate() error { return l.validate() }

func (l *Label) validate() error {
	switch {
	case !camelCase(l.Name):
		return fmt.Errorf("label %q is not CamelCase", l.Name)
	case l.Severity < Low || l.Severity > Critical:
		return fmt.Errorf("label %q has no valid severity", l.Name)
	case strings.TrimSpace(l.Advice) == "":
		return fmt.Errorf("label %q has no advice", l.Name)
	}
	return nil
}

// Validate checks a list of checks as a driver will run them: IDs valid and
// unique, every check complete, label names unique across all checks.
func Validate(cs []*Check) error {
	inputs := map[string]input.Decl{}
	ids := map[string]bool{}
	owner := map[string]string{}
	var errs []error
	for _, c := range cs {
		switch {
		case !checkID(c.ID) || c.ID == "all":
			errs = append(errs, fmt.Errorf("check ID %q must be lowercase words joined by hyphens, and not \"all\"", c.ID))
		case ids[c.ID]:
			errs = append(errs, fmt.Errorf("duplicate check ID %q (an ID or an alias)", c.ID))
		case c.Title == "" || c.Run == nil:
			errs = append(errs, fmt.Errorf("check %q needs a Title and Run", c.ID))
		case !slices.Contains(Categories, c.Category):
			errs = append(errs, fmt.Errorf("check %q has unknown category %q", c.ID, c.Category))
		}
		ids[c.ID] = true
		for _, a := range c.Aliases {
			if a == "" || a == "all" || ids[a] {
				errs = append(errs, fmt.Errorf("check %q: alias %q is empty, \"all\", or another check's ID or alias", c.ID, a))
			}
			ids[a] = true
		}
		for _, l := range c.Labels {
			if err := l.validate(); err != nil {
				errs = append(errs, fmt.Errorf("check %q: %w", c.ID, err))
			}
			if o, dup := owner[l.Name]; dup && o != c.ID {
				errs = append(errs, fmt.Errorf("label %q declared by both %q and %q", l.Name, o, c.ID))
			}
			owner[l.Name] = c.ID
		}
		for _, in := range c.AllInputs() {
			errs = append(errs, inputNames(inputs, in)...)
		}
		names := map[string]bool{}
		for _, s := range c.Settings {
			if names[s.Name()] {
				errs = append(errs, fmt.Errorf("check %q: duplicate setting %q", c.ID, s.Name()))
			}
			names[s.Name()] = true
		}
	}
	return errors.Join(errs...)
}

// inputNames records d and the inputs it is derived from in seen by name,
// and returns an error for each name two different declarations share
// (one would shadow the other in snapshots and listings).
func inputNames(seen map[string]input.Decl, d input.Decl) []error {
	if o, ok := seen[d.Name()]; ok {
		if o != d {
			return []error{fmt.Errorf("two inputs are named %q", d.Name())}
		}
		return nil
	}
	seen[d.Name()] = d
	var errs []error
	for _, r := range d.Requires() {
		errs = append(errs, inputNames(seen, r)...)
	}
	return errs
}

// OwnedLabel is a label with the check that reports it.
type OwnedLabel struct {
	*Label
	Check string `json:"check"`
}

// Labels returns every label the checks may report, data labels included,
// sorted by name. A data source that cannot be read is an error.
func Labels(cs []*Check) ([]OwnedLabel, error) {
	var out []OwnedLabel
	for _, c := range cs {
		for _, l := range c.Labels {
			out = append(out, OwnedLabel{l, c.ID})
		}
		if c.DataLabels != nil {
			ls, err := c.DataLabels()
			if err != nil {
				return nil, fmt.Errorf("check %s: %w", c.ID, err)
			}
			for _, l := range ls {
				out = append(out, OwnedLabel{l, c.ID})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Lookup returns the check in cs with the given ID or alias, or nil.
func Lookup(cs []*Check, id string) *Check {
	for _, c := range cs {
		if c.ID == id || slices.Contains(c.Aliases, id) {
			return c
		}
	}
	return nil
}

// Canonical returns the ID of the check in cs that id names (its ID or a
// former one, an alias), or id itself when no check has it.
func Canonical(cs []*Check, id string) string {
	if c := Lookup(cs, id); c != nil {
		return c.ID
	}
	return id
}

// canonicalIDs maps ids through Canonical, leaving "all" alone.
func canonicalIDs(cs []*Check, ids []string) []string {
	if ids == nil {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = Canonical(cs, id)
	}
	return out
}

// Sorted returns cs in run order: by category (Categories order), then
// by ID.
func Sorted(cs []*Check) []*Check {
	out := slices.Clone(cs)
	sortChecks(out)
	return out
}

// sortChecks puts checks in run order: by category (Categories order), then
// by ID.
func sortChecks(cs []*Check) {
	sort.SliceStable(cs, func(i, j int) bool {
		ci, cj := slices.Index(Categories, cs[i].Category), slices.Index(Categories, cs[j].Category)
		if ci != cj {
			return ci < cj
		}
		return cs[i].ID < cs[j].ID
	})
}

// Selection says which checks to run.
type Selection struct {
	// IDs selects checks by ID. Empty or "all" means every check that is
	// safe to run unasked (none of the Acting flags): those run only when
	// named.
	IDs []string
	// Categories restricts to these categories.
	Categories []Category
	// Skip excludes these IDs.
	Skip []string
}

// UnknownCheckError is Select's error for an ID no check has. Suggest is
// the known ID nearest to it, when one is near (a typo).
type UnknownCheckError struct{ ID, Suggest string }

func (e *UnknownCheckError) Error() string {
	if e.Suggest != "" {
		return fmt.Sprintf("unknown check %q: did you mean %s? (see 'fwcheck list')", e.ID, e.Suggest)
	}
	return fmt.Sprintf("unknown check %q (see 'fwcheck list')", e.ID)
}

func unknownCheck(cs []*Check, id string) *UnknownCheckError {
	e := &UnknownCheckError{ID: id}
	best := 3 // at most two edits away, and less than half the name
	for _, c := range cs {
		if d := editDistance(strings.ToLower(id), c.ID); d < best && 2*d < len(c.ID) {
			best, e.Suggest = d, c.ID
		}
	}
	return e
}

// editDistance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours ("fatd"
// is one edit from "fadt"). Bytes: IDs are ASCII.
func editDistance(a, b string) int {
	if len(a) > 64 {
		return len(a) // no typo is that long
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Select returns the checks sel names, in run order, from cs. An unknown
// ID or category is an error.
func Select(cs []*Check, sel Selection) ([]*Check, error) {
	sel.IDs, sel.Skip = canonicalIDs(cs, sel.IDs), canonicalIDs(cs, sel.Skip)
	known := map[string]*Check{}
	for _, c := range cs {
		known[c.ID] = c
	}
	for _, id := range append(slices.Clone(sel.IDs), sel.Skip...) {
		if id != "all" && known[id] == nil {
			return nil, unknownCheck(cs, id)
		}
	}
	for _, cat := range sel.Categories {
		if !slices.Contains(Categories, cat) {
			return nil, fmt.Errorf("unknown category %q", cat)
		}
	}
	all := slices.Contains(sel.IDs, "all")
	var out []*Check
	for _, c := range cs {
		switch {
		case slices.Contains(sel.Skip, c.ID):
			continue
		case len(sel.Categories) > 0 && !slices.Contains(sel.Categories, c.Category):
			continue
		case slices.Contains(sel.IDs, c.ID):
		case (all || len(sel.IDs) == 0) && c.Flags&Acting == 0:
		default:
			continue
		}
		out = append(out, c)
	}
	sortChecks(out)
	return out, nil
}

// SelectLenient is Select for drivers that must not lose a run over one
// bad name (the live image): unknown IDs are dropped and returned as
// errors, and the rest is selected.
func SelectLenient(cs []*Check, sel Selection) ([]*Check, []error) {
	var errs []error
	keep := func(ids []string) []string {
		var out []string
		for _, id := range ids {
			if id != "all" && Lookup(cs, id) == nil {
				errs = append(errs, unknownCheck(cs, id))
				continue
			}
			out = append(out, id)
		}
		return out
	}
	named := len(sel.IDs) > 0
	sel.IDs, sel.Skip = keep(sel.IDs), keep(sel.Skip)
	var cats []Category
	for _, c := range sel.Categories {
		if slices.Contains(Categories, c) {
			cats = append(cats, c)
		} else {
			errs = append(errs, fmt.Errorf("unknown category %q", c))
		}
	}
	sel.Categories = cats
	if named && len(sel.IDs) == 0 {
		return nil, errs // every name was wrong: run nothing rather than everything
	}
	out, err := Select(cs, sel)
	if err != nil {
		errs = append(errs, err)
	}
	return out, errs
}
