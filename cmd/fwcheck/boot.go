package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

func init() {
	c := &command{
		name:   "boot",
		short:  "live image mode (u-root uinit): run the checks the kernel command line names, publish the results, then shell, poweroff or reboot",
		hidden: true,
	}
	c.run = func(e *env, args []string) int {
		fs := newFlags(c)
		cmdlineFile := fs.String("cmdline", "/proc/cmdline", "read the fwcheck.* options from `FILE`")
		if _, code, ok := parseFlags(e, c, fs, args); !ok {
			return code
		}
		return bootMain(*cmdlineFile)
	}
	addCommand(c)
}

// bootMain is fwcheck as the live image's uinit. Nothing here may stop the
// boot or lose the run: a bad option or an unknown check is reported in the
// results and the valid part runs; every problem is shown on the console
// and the after-action still runs, so a user always ends at a shell (or a
// powered-off machine).
func bootMain(cmdlineFile string) int {
	if image.Version != "" {
		version = image.Version
	}
	live, _ := image.Setup() // problems are already on the console
	var reqErrs []string
	cmdline, err := os.ReadFile(cmdlineFile)
	if err != nil {
		reqErrs = append(reqErrs, err.Error())
	}
	cfg, cfgErrs := bootConfig(live, cmdline) // the stick's fwcheck.cfg, then the command line
	reqErrs = append(reqErrs, cfgErrs...)
	failOn := bootFailOn(cfg)
	run := bootRun(cfg)
	reqErrs = append(reqErrs, run.errs...)
	for _, e := range reqErrs {
		live.Logf("fwcheck: %s", e)
	}
	live.Logf("fwcheck %s: running %s (%.2f s after kernel start)", version, describeRun(cfg), image.Uptime().Seconds())

	code := exitOK
	stamp := time.Now()
	rc := &runConfig{Selection: tests.Selection{IDs: run.ids}, Root: "/", Settings: run.settings, Lenient: true}
	doc, err := execute(rc)
	verdicts := image.Uptime()
	if err != nil {
		live.Logf("fwcheck: %v", err)
		code = exitUsage
	} else {
		doc.Errors = append(reqErrs, doc.Errors...)
		var text, js bytes.Buffer
		if err := report.WriteText(&text, doc, report.TextOptions{FailOn: failOn}); err != nil {
			live.Logf("fwcheck: report: %v", err)
		}
		if err := report.WriteJSON(&js, doc); err != nil {
			live.Logf("fwcheck: report: %v", err)
		}
		fmt.Fprintf(&text, "fwcheck: verdicts %.2f s after kernel start\n", verdicts.Seconds())
		if err := live.Publish(text.Bytes(), js.Bytes()); err != nil {
			live.Logf("fwcheck: publishing results: %v", err)
		}
		saveRun(live, cfg, stamp, text.Bytes(), js.Bytes()) // the run's folder on FWCHECK
		// The report scrolled past above the JSON: end on the verdict.
		v, _ := report.Verdict(doc, failOn)
		live.Logf("fwcheck: verdict: %s", v)
		switch {
		case doc.Failing(failOn):
			code = exitFailing
		case !doc.Checked():
			code = exitNothing
		}
	}
	if err := live.DoAfter(cfg.After); err != nil {
		live.Logf("fwcheck: %v", err)
	}
	return code
}

// errorLines splits a joined error into one line per error, prefixed.
func errorLines(prefix string, err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		out = append(out, prefix+l)
	}
	return out
}

// S3CheckID is the suspend/resume check fwcheck.s3=N asks for.
const S3CheckID = "s3"

// bootPlan is what the live image runs: the check IDs (nil: every safe
// check), the settings' values, and the problems with the request.
type bootPlan struct {
	ids      []string
	settings tests.Settings
	errs     []string
}

// bootRun turns the command line's request into a plan. fwcheck.s3=N adds
// the suspend/resume check (power-state checks run only when named) with N
// cycles; fwcheck.ID.NAME=V sets a check's setting. A setting for an
// unknown check or with a bad value is an error in the plan, and the rest
// runs.
func bootRun(cfg image.Config) bootPlan {
	var p bootPlan
	checks := all.Checks()
	p.ids = cfg.Run
	sets := cfg.Settings
	if cfg.S3 > 0 {
		sets = append([]image.Setting{{Check: S3CheckID, Name: "cycles", Value: strconv.Itoa(cfg.S3)}}, sets...)
		if tests.Lookup(checks, S3CheckID) == nil {
			p.errs = append(p.errs, fmt.Sprintf("fwcheck.s3=%d: this fwcheck has no %q check", cfg.S3, S3CheckID))
		} else {
			if p.ids == nil {
				p.ids = []string{"all"}
			}
			p.ids = append(p.ids, S3CheckID)
		}
	}
	for _, s := range sets {
		c := tests.Lookup(checks, s.Check)
		if c == nil {
			if s.Check != S3CheckID || cfg.S3 == 0 {
				p.errs = append(p.errs, fmt.Sprintf("fwcheck.%s.%s: %v", s.Check, s.Name, &tests.UnknownCheckError{ID: s.Check}))
			}
			continue
		}
		if err := p.settings.Set(c, s.Name, s.Value); err != nil {
			p.errs = append(p.errs, "fwcheck."+err.Error())
		}
	}
	planReboot(cfg, checks, &p) // fwcheck.reboot=N (bootstick.go)
	return p
}

func describeRun(cfg image.Config) string {
	s := "all safe checks"
	if cfg.Run != nil {
		s = fmt.Sprintf("checks %v", cfg.Run)
	}
	if cfg.S3 > 0 {
		s += fmt.Sprintf(", %d S3 cycles", cfg.S3)
	}
	return s + ", then " + string(cfg.After)
}
