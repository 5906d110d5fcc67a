package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

// Waiver accepts a known failure for a while: a failure of Label (in
// Check, when given, on machines whose DMI identity matches Machine, when
// given) is reported as waived with the Reason, and does not fail the run,
// until the end of the Expires day (UTC). An expired waiver waives nothing
// and is reported.
//
// The waivers file is JSON (docs/results.md, "Waivers"):
//
//	{"waivers": [{"label": "FADTResetCF9SingleWrite", "check": "fadt",
//	  "machine": {"sys_vendor": "ACME", "bios_version": "1.0*"},
//	  "reason": "fixed in BIOS 1.1 (ticket 42)", "expires": "2027-06-30"}]}
//
// JSON was chosen over TOML and YAML: the standard library reads it
// strictly, and the binary takes no parser dependency for one small file.
type Waiver struct {
	Label string `json:"label"`
	Check string `json:"check,omitempty"`
	// Machine maps DMI field names (sys_vendor, product_name,
	// board_vendor, board_name, bios_vendor, bios_version, bios_date) to
	// shell-style patterns (path.Match) the field must match.
	Machine map[string]string `json:"machine,omitempty"`
	Reason  string            `json:"reason"`
	Expires string            `json:"expires"`
}

// String describes w in one line.
func (w Waiver) String() string {
	s := w.Label
	if w.Check != "" {
		s = w.Check + "/" + s
	}
	if len(w.Machine) > 0 {
		var m []string
		for _, k := range sortedKeys(w.Machine) {
			m = append(m, k+"="+w.Machine[k])
		}
		s += " on " + strings.Join(m, ",")
	}
	return fmt.Sprintf("%s, expired %s (%s)", s, w.Expires, w.Reason)
}

var (
	labelRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`) })
	idRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]*$`) })
)

// dmiFields are the DMI fields a waiver may match, with their values.
func dmiFields(m input.Identity) map[string]string {
	if m.DMI == nil {
		return nil
	}
	i := m.DMI
	return map[string]string{
		"sys_vendor": i.SysVendor, "product_name": i.ProductName, "board_vendor": i.BoardVendor,
		"board_name": i.BoardName, "bios_vendor": i.BIOSVendor, "bios_version": i.BIOSVersion, "bios_date": i.BIOSDate,
	}
}

// maxWaivers bounds the waivers file (a list people write by hand).
const maxWaivers = 1 << 20

// ReadWaivers reads a waivers file, checking every entry: an error names
// the entry and what is wrong with it.
func ReadWaivers(r io.Reader) ([]Waiver, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxWaivers+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxWaivers {
		return nil, fmt.Errorf("waivers: over %d bytes", maxWaivers)
	}
	var f struct {
		Waivers []Waiver `json:"waivers"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("waivers: %w", err)
	}
	if f.Waivers == nil {
		return nil, errors.New(`waivers: no "waivers" list`)
	}
	known := dmiFields(input.Identity{DMI: &input.DMIInfo{}})
	for i, w := range f.Waivers {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("waivers: entry %d (%s): %s", i+1, w.Label, fmt.Sprintf(format, args...))
		}
		switch {
		case !labelRE().MatchString(w.Label):
			return nil, bad("label %q is not a CamelCase label", w.Label)
		case w.Check != "" && !idRE().MatchString(w.Check):
			return nil, bad("check %q is not a check ID", w.Check)
		case strings.TrimSpace(w.Reason) == "":
			return nil, bad("no reason")
		}
		if _, err := time.Parse(time.DateOnly, w.Expires); err != nil {
			return nil, bad("expires %q: want a date, YYYY-MM-DD", w.Expires)
		}
		for k, p := range w.Machine {
			if _, ok := known[k]; !ok {
				return nil, bad("machine field %q: want one of sys_vendor, product_name, board_vendor, board_name, bios_vendor, bios_version, bios_date", k)
			}
			if _, err := path.Match(p, ""); err != nil {
				return nil, bad("machine pattern %q: %v", p, err)
			}
		}
	}
	return f.Waivers, nil
}

// expired reports whether w no longer applies at now: it is good through
// its expiry day, UTC.
func (w Waiver) expired(now time.Time) bool {
	e, err := time.Parse(time.DateOnly, w.Expires)
	return err != nil || !now.UTC().Before(e.AddDate(0, 0, 1))
}

func (w Waiver) matches(checkID string, f Finding, dmi map[string]string) bool {
	if f.Label != w.Label || w.Check != "" && w.Check != checkID {
		return false
	}
	for k, p := range w.Machine {
		v, ok := dmi[k]
		if !ok {
			return false // the identity is unknown: no match
		}
		if m, _ := path.Match(p, v); !m {
			return false
		}
	}
	return true
}

// ApplyWaivers marks the failures ws cover as waived (as of now, the
// run's time), records the expired waivers, and recomputes the statuses
// and totals: a check whose every failure is waived is no longer failed.
func (d *Document) ApplyWaivers(ws []Waiver, now time.Time) {
	dmi := dmiFields(d.Machine)
	var live []Waiver
	for _, w := range ws {
		if w.expired(now) {
			d.ExpiredWaivers = append(d.ExpiredWaivers, w)
		} else {
			live = append(live, w)
		}
	}
	for ri := range d.Results {
		r := &d.Results[ri]
		changed := false
		waive := func(f Finding) string {
			if !f.Fails() {
				return ""
			}
			for _, w := range live {
				if w.matches(r.ID, f, dmi) {
					changed = true
					return fmt.Sprintf("%s (waiver until %s)", w.Reason, w.Expires)
				}
			}
			return ""
		}
		for fi := range r.Findings {
			if why := waive(r.Findings[fi]); why != "" {
				r.Findings[fi].Waived = why
			}
		}
		for oi := range r.Omitted {
			if why := waive(r.Omitted[oi].Finding()); why != "" {
				r.Omitted[oi].Waived = why
			}
		}
		if changed && r.Status == tests.StatusFailed && r.Worst() == tests.None {
			r.Status = statusWithoutFailures(r.Result)
		}
	}
	d.count()
}

// statusWithoutFailures is a failed result's status once no failure
// counts, by the framework's rules: what was not checked first, then
// warnings; a waived failure was evaluated.
func statusWithoutFailures(r tests.Result) tests.Status {
	if len(r.Unchecked) > 0 {
		return tests.StatusIncomplete
	}
	for _, f := range r.AllFindings() {
		if f.Kind == tests.KindWarning && f.Explained == "" {
			return tests.StatusWarning
		}
	}
	return tests.StatusPassed
}
