// Package driver runs checks the one way every entry point does: the
// fwcheck command's run, klog, s3 and reboot subcommands and the live
// image's boot mode. It selects the checks, opens the machine (live, a
// snapshot, or inputs given as files) with the control of it when it is the
// live one, runs them, builds the results document, and judges it against
// waivers and a failure threshold. Flags, terminals and where the results
// are written stay with the commands.
package driver

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// Config is everything a driver decides about one run.
type Config struct {
	// Version is the fwcheck version the document names.
	Version string
	// Checks are the checks to select from; nil means every check
	// (tests/all).
	Checks    []*tests.Check
	Selection tests.Selection
	// Profile is the certification profile to apply (nil: none): its
	// checks join the selection and its overrides the run (tests.Profile).
	Profile *tests.Profile
	// From is a snapshot (directory or .tar.gz); empty means the live
	// machine at Root.
	From string
	Root string
	// Files are inputs given as files.
	Files input.Options
	// Settings are the check settings' values for this run.
	Settings tests.Settings
	// Lenient drops unknown check IDs into the document's errors instead
	// of failing the run (the live image must not lose a run to a typo).
	Lenient bool
	// Progress shows long-running checks' progress (tests.Env.Progress).
	Progress func(check, msg string)
	// BeforeReset runs just before a check resets the live machine: the
	// live image unmounts its results partition there.
	BeforeReset func()
	// Observer, when set, sees the run as it goes: the live image prints
	// a console line per check and per cycle (report/lines).
	Observer Observer
}

// Observer sees each check start and end, and each cycle of a cycling
// check end, as they happen.
type Observer interface {
	CheckStarted(id string)
	CheckEnded(r tests.Result)
	CycleEnded(check string, c tests.CycleRecord)
}

// Machine opens the source cfg names, and the control of the machine when
// it is the live one.
func (cfg *Config) Machine() (*input.Machine, input.Control, error) {
	switch {
	case cfg.From != "":
		s, err := input.Open(cfg.From)
		if err != nil {
			return nil, nil, err
		}
		return input.New(s, cfg.Files), nil, nil
	case len(cfg.Files.Files) > 0:
		// Inputs from files describe another machine: do not mix in this one's.
		return input.New(input.Empty(), cfg.Files), nil, nil
	}
	var ctl input.Control = input.LiveControl(cfg.Root)
	if cfg.BeforeReset != nil {
		ctl = resetHook{ctl, cfg.BeforeReset}
	}
	return input.New(input.Live(cfg.Root), cfg.Files), ctl, nil
}

// resetHook runs a function before the machine is reset.
type resetHook struct {
	input.Control
	before func()
}

func (h resetHook) Reboot(method string) error {
	h.before()
	return h.Control.Reboot(method)
}

// WakeAlarm and RunAt pass the wrapped Control's Adjuster on.
func (h resetHook) WakeAlarm(after, wait time.Duration) (input.AlarmTest, error) {
	return input.WakeAlarm(h.Control, after, wait)
}

func (h resetHook) RunAt(policy string, khz int64) (input.SpeedSample, error) {
	return input.RunAt(h.Control, policy, khz)
}

// Variables passes the wrapped Control's variable store on.
func (h resetHook) Variables() (input.VariableStore, error) { return input.Variables(h.Control) }

// Select returns the checks cfg selects, and, when it is lenient, the
// problems with the selection that did not stop it.
func (cfg *Config) Select() ([]*tests.Check, []string, error) {
	cs := cfg.Checks
	if cs == nil {
		cs = all.Checks()
	}
	if !cfg.Lenient {
		checks, err := cfg.Profile.Select(cs, cfg.Selection)
		return checks, nil, err
	}
	checks, errs := cfg.Profile.SelectLenient(cs, cfg.Selection)
	var reqErrs []string
	for _, e := range errs {
		reqErrs = append(reqErrs, e.Error())
	}
	return checks, reqErrs, nil
}

// Run selects and runs the checks and returns the results document.
func Run(cfg *Config) (*report.Document, error) {
	checks, reqErrs, err := cfg.Select()
	if err != nil {
		return nil, err
	}
	m, ctl, err := cfg.Machine()
	if err != nil {
		return nil, err
	}
	// Files the user named must load: a typo, a corrupt dump or a file
	// that is not what the flag expects is a one-line error, not a quiet
	// skip or a finding against the firmware.
	for d, p := range cfg.Files.Files {
		if err := m.Available(d); err != nil {
			var u *input.Unavailable
			if errors.As(err, &u) {
				err = errors.New(u.Reason)
			}
			if strings.Contains(err.Error(), p) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	start := time.Now()
	env := &tests.Env{Machine: m, Settings: &cfg.Settings, Control: ctl, Progress: cfg.Progress, Profile: cfg.Profile}
	o := cfg.Observer
	if o != nil {
		env.CycleEnded = o.CycleEnded
	}
	rs := make([]tests.Result, 0, len(checks))
	for _, c := range checks {
		if o != nil {
			o.CheckStarted(c.ID)
		}
		r := tests.RunOne(env, c)
		if o != nil {
			o.CheckEnded(r)
		}
		rs = append(rs, r)
	}
	id := m.Identify()
	for in, p := range cfg.Files.Files {
		if id.Files == nil {
			id.Files = map[string]string{}
		}
		id.Files[in.Name()] = p
	}
	d := report.New(cfg.Version, id, start, time.Now(), rs)
	d.Settings = cfg.Settings.Raw()
	if cfg.Profile != nil {
		d.Profile = cfg.Profile.Name
	}
	d.Errors = reqErrs
	return d, nil
}

// Outcome is what a judged run comes to, for an exit status.
type Outcome int

// Outcomes.
const (
	// Passed: no failure at or above the threshold, something checked.
	Passed Outcome = iota
	// Failing: a failure at or above the threshold, or an aborted check.
	Failing
	// NothingChecked: no check evaluated anything; CI must not read it
	// as success.
	NothingChecked
)

// Judge applies the waivers (as of the run's start), records the verdict
// against failOn, and returns the outcome.
func Judge(d *report.Document, ws []report.Waiver, failOn tests.Severity) Outcome {
	if len(ws) > 0 {
		d.ApplyWaivers(ws, d.Start)
	}
	d.Judge(failOn)
	switch {
	case d.Failing(failOn):
		return Failing
	case !d.Checked():
		return NothingChecked
	}
	return Passed
}

// CanonicalIDs rewrites the check IDs of a results document read from a
// file that are former IDs (aliases) of cs's checks to their current
// ones, so that a document written before a check was renamed compares
// (diff) and reports as one written after.
func CanonicalIDs(d *report.Document, cs []*tests.Check) {
	for i := range d.Results {
		d.Results[i].ID = tests.Canonical(cs, d.Results[i].ID)
	}
}

// CanonicalWaivers rewrites the checks waivers name that are former IDs
// (aliases) of cs's checks to their current ones.
func CanonicalWaivers(ws []report.Waiver, cs []*tests.Check) {
	for i := range ws {
		if ws[i].Check != "" {
			ws[i].Check = tests.Canonical(cs, ws[i].Check)
		}
	}
}
