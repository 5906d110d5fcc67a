// Package tests is fwcheck's check framework and its checks, one file per
// check. A Check is a declarative value, like an analysis.Analyzer: it says
// what it is, what it needs and how to run; drivers (the CLI, the live
// image's init, the suspend loop) decide what runs and how results are
// reported. A check reads the machine only through its Pass and reports
// only through it.
package tests

import (
	"flag"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/input"
)

// Category groups checks for selection and reporting.
type Category string

// The categories, in the order their checks run.
const (
	ACPI  Category = "acpi"
	BIOS  Category = "bios"
	CPU   Category = "cpu"
	UEFI  Category = "uefi"
	TPM   Category = "tpm"
	Log   Category = "log"
	Power Category = "power"
)

// Categories lists every category in run order. Power runs last because
// its checks change the machine's state.
var Categories = []Category{ACPI, BIOS, CPU, UEFI, TPM, Log, Power}

// Flags describe what running a check involves.
type Flags uint

const (
	// NeedsRoot: the check reads privileged state on the live machine.
	NeedsRoot Flags = 1 << iota
	// Unsafe: the check writes firmware state or reboots.
	Unsafe
	// PowerState: the check suspends or hibernates the machine.
	PowerState
	// Interactive: the check needs a person at the machine.
	Interactive
)

var flagNames = []string{"needs-root", "unsafe", "power-state", "interactive"}

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
	// ID is stable and lowercase ("fadt", "checksum"); users select by it.
	ID string
	// Title is one line saying what the check verifies.
	Title    string
	Category Category
	Flags    Flags
	// Inputs are the machine state the check reads; when one is
	// unavailable, the check is skipped with the reason and Run is not called.
	Inputs []input.Name
	// Spec is the specification section the check enforces.
	Spec string
	// Settings are the check's own options, as analysis.Analyzer.Flags:
	// drivers expose each as --ID.NAME (the klog check's "db" is
	// --klog.db). Most checks have none.
	Settings flag.FlagSet
	// Run does the work, reporting through the pass. An error return or a
	// panic records the check as aborted.
	Run func(*Pass) error
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
// waivers key on the name, so it never changes once released.
type Label struct {
	Name     string
	Severity Severity
	Spec     string
	Advice   string
}

var (
	labels   = map[string]*Label{}
	labelRE  = regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`)
	idRE     = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	registry []*Check
)

// NewLabel declares a label. It panics on a malformed or duplicate name,
// an invalid severity or empty advice: such a program is wrong.
func NewLabel(name string, sev Severity, spec, advice string) *Label {
	if !labelRE.MatchString(name) {
		panic(fmt.Sprintf("tests: label %q is not CamelCase", name))
	}
	if _, dup := labels[name]; dup {
		panic(fmt.Sprintf("tests: duplicate label %q", name))
	}
	if sev < Low || sev > Critical {
		panic(fmt.Sprintf("tests: label %q has no valid severity", name))
	}
	if strings.TrimSpace(advice) == "" {
		panic(fmt.Sprintf("tests: label %q has no advice", name))
	}
	l := &Label{Name: name, Severity: sev, Spec: spec, Advice: advice}
	labels[name] = l
	return l
}

// Labels returns every declared label, sorted by name.
func Labels() []*Label {
	out := make([]*Label, 0, len(labels))
	for _, l := range labels {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Register adds c to the set of checks. It panics on an invalid check or a
// duplicate ID; call it from init.
func Register(c *Check) {
	switch {
	case !idRE.MatchString(c.ID):
		panic(fmt.Sprintf("tests: check ID %q must be lowercase", c.ID))
	case c.Title == "" || c.Run == nil:
		panic(fmt.Sprintf("tests: check %q needs a Title and Run", c.ID))
	case !slices.Contains(Categories, c.Category):
		panic(fmt.Sprintf("tests: check %q has unknown category %q", c.ID, c.Category))
	case Lookup(c.ID) != nil:
		panic(fmt.Sprintf("tests: duplicate check ID %q", c.ID))
	}
	for _, n := range c.Inputs {
		if input.Inputs[n] == nil {
			panic(fmt.Sprintf("tests: check %q declares unknown input %q", c.ID, n))
		}
	}
	registry = append(registry, c)
	sortChecks(registry)
}

// All returns every registered check in run order.
func All() []*Check { return slices.Clone(registry) }

// Lookup returns the check with the given ID, or nil.
func Lookup(id string) *Check {
	for _, c := range registry {
		if c.ID == id {
			return c
		}
	}
	return nil
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
	// safe to run unasked (no Unsafe, PowerState or Interactive flag):
	// those run only when named.
	IDs []string
	// Categories restricts to these categories.
	Categories []Category
	// Skip excludes these IDs.
	Skip []string
}

// Select returns the checks sel names, in run order, from cs. An unknown
// ID or category is an error.
func Select(cs []*Check, sel Selection) ([]*Check, error) {
	known := map[string]*Check{}
	for _, c := range cs {
		known[c.ID] = c
	}
	for _, id := range append(slices.Clone(sel.IDs), sel.Skip...) {
		if id != "all" && known[id] == nil {
			return nil, fmt.Errorf("unknown check %q (see 'fwcheck list')", id)
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
		case (all || len(sel.IDs) == 0) && c.Flags&(Unsafe|PowerState|Interactive) == 0:
		default:
			continue
		}
		out = append(out, c)
	}
	sortChecks(out)
	return out, nil
}
