package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
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
// boot: every problem is shown on the console and the after-action still
// runs, so a user always ends at a shell (or a powered-off machine).
func bootMain(cmdlineFile string) int {
	if image.Version != "" {
		version = image.Version
	}
	live, _ := image.Setup() // problems are already on the console
	cmdline, err := os.ReadFile(cmdlineFile)
	if err != nil {
		live.Logf("fwcheck: %v", err)
	}
	cfg, err := image.ParseCmdline(string(cmdline))
	if err != nil {
		live.Logf("fwcheck: kernel command line: %v", err)
	}
	sel := tests.Selection{IDs: cfg.Run}
	if cfg.S3 > 0 {
		ids, err := withS3(cfg.Run, cfg.S3)
		if err != nil {
			live.Logf("fwcheck: fwcheck.s3=%d: %v", cfg.S3, err)
		} else {
			sel.IDs = ids
		}
	}
	live.Logf("fwcheck %s: running %s (%.2f s after kernel start)", version, describeRun(cfg), image.Uptime().Seconds())

	code := exitOK
	stamp := time.Now()
	doc, err := execute(runConfig{Selection: sel, Root: "/"})
	verdicts := image.Uptime()
	if err != nil {
		live.Logf("fwcheck: %v", err)
		code = exitUsage
	} else {
		var text, js bytes.Buffer
		if err := report.WriteText(&text, doc, report.TextOptions{FailOn: defaultFailOn}); err != nil {
			live.Logf("fwcheck: report: %v", err)
		}
		if err := report.WriteJSON(&js, doc); err != nil {
			live.Logf("fwcheck: report: %v", err)
		}
		fmt.Fprintf(&text, "fwcheck: verdicts %.2f s after kernel start\n", verdicts.Seconds())
		if err := live.Publish(text.Bytes(), js.Bytes()); err != nil {
			live.Logf("fwcheck: publishing results: %v", err)
		}
		dev, files, found, err := live.SaveResults(stamp, text.Bytes(), js.Bytes())
		switch {
		case err != nil:
			live.Logf("fwcheck: results partition %s: %v", dev, err)
		case found:
			live.Logf("fwcheck: results written to %s: %v", dev, files)
		}
		// The report scrolled past above the JSON: end on the verdict.
		v, _ := report.Verdict(doc, defaultFailOn)
		live.Logf("fwcheck: verdict: %s", v)
		if doc.Failing(defaultFailOn) {
			code = exitFailing
		}
	}
	if err := live.DoAfter(cfg.After); err != nil {
		live.Logf("fwcheck: %v", err)
	}
	return code
}

// S3CheckID is the suspend/resume check fwcheck.s3=N asks for.
const S3CheckID = "s3"

// withS3 adds the suspend/resume check to a selection (nil: the safe
// checks), since power-state checks only run when named, and sets its
// "cycles" setting.
func withS3(run []string, cycles int) ([]string, error) {
	c := tests.Lookup(S3CheckID)
	if c == nil {
		return nil, fmt.Errorf("this fwcheck has no %q check", S3CheckID)
	}
	if err := c.Settings.Set("cycles", strconv.Itoa(cycles)); err != nil {
		return nil, fmt.Errorf("check %s: %w", S3CheckID, err)
	}
	if run == nil {
		safe, err := tests.Select(tests.All(), tests.Selection{})
		if err != nil {
			return nil, err
		}
		for _, c := range safe {
			run = append(run, c.ID)
		}
	}
	if !slices.Contains(run, S3CheckID) {
		run = append(slices.Clone(run), S3CheckID)
	}
	return run, nil
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
