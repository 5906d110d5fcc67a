package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
)

// The live image's USB stick side: the stick's fwcheck.cfg (merged with the
// kernel command line) and the run's folder on the stick's FWCHECK
// partition. bootMain calls these; the partition handling itself is in
// package image (OpenResults, PickResults).

// bootConfig reads the live image's configuration: the fwcheck.cfg on the
// boot stick when the machine booted from one (fwcheck.esp on the command
// line), overridden by the kernel command line in cmdline. The problems
// with either are returned one per line, for the console and the results
// document; the configuration is always usable.
func bootConfig(live *image.Live, cmdline []byte) (image.Config, []string) {
	var errs []string
	pre, _ := image.ParseCmdline(string(cmdline)) // for fwcheck.esp
	file, err := live.StickConfig(pre.ESP)
	if err != nil {
		errs = append(errs, err.Error())
	}
	if file != nil {
		live.Logf("fwcheck: read %s from the boot stick (%d bytes)", image.StickConfigName, len(file))
	}
	cfg, fileErr, cmdErr := image.LoadConfig(file, string(cmdline))
	errs = append(errs, errorLines("", fileErr)...)
	return cfg, append(errs, errorLines("kernel command line: ", cmdErr)...)
}

// bootFailOn is the severity threshold the configuration asks for, or
// defaultFailOn.
func bootFailOn(cfg image.Config) tests.Severity {
	if s, err := tests.ParseSeverity(cfg.FailOn); err == nil && cfg.FailOn != "" {
		return s
	}
	return defaultFailOn
}

// runFile is one file of a run's folder on the results partition; data
// makes its contents when it is written.
type runFile struct {
	name string
	data func() ([]byte, error)
}

// saveRun writes the run's folder to the FWCHECK partition: the results
// document, the human report, the whole kernel log and a snapshot of every
// input (which `fwcheck run --from` analyses on another machine). When the
// machine booted from the fwcheck stick (cfg.ESP), only the stick's own
// FWCHECK partition is written (image.PickResults). Every problem is shown
// on the console; none stops the boot.
func saveRun(live *image.Live, cfg image.Config, stamp time.Time, text, js []byte) {
	res, err := live.OpenResults(cfg.ESP, stamp)
	switch {
	case errors.Is(err, image.ErrNoResultsPartition) && cfg.ESP == "":
		live.Logf("fwcheck: no %s partition: the results are on the console only", image.ResultsLabel)
		return
	case err != nil:
		live.Logf("fwcheck: results not written: %v", err)
		return
	}
	files := []runFile{
		{image.RunResultsJSON, func() ([]byte, error) { return js, nil }},
		{image.RunReportText, func() ([]byte, error) { return text, nil }},
		// The suspend/reboot journal (image.RunJournal) belongs here
		// once the cycles keep it: it is written during the run.
		{image.RunKernelLog, kernelLog},
		{image.RunSnapshot, snapshot},
	}
	var written []string
	for _, f := range files {
		b, err := f.data()
		if err == nil {
			err = res.WriteFile(f.name, b)
		}
		if err != nil {
			live.Logf("fwcheck: results partition %s: %s: %v", res.Dev, f.name, err)
			continue
		}
		written = append(written, f.name)
	}
	if err := res.Close(); err != nil {
		live.Logf("fwcheck: %v", err)
	}
	live.Logf("fwcheck: results written to %s, folder %s: %s", res.Dev, res.Folder, strings.Join(written, " "))
}

// kernelLog is the whole kernel log as it is now, one record a line.
func kernelLog() ([]byte, error) {
	recs, err := klog.ReadLive("/dev/kmsg")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = klog.Format(&b, recs)
	return b.Bytes(), err
}

// snapshot captures every input of every check from the live machine, as
// `fwcheck snapshot` does.
func snapshot() ([]byte, error) {
	var b bytes.Buffer
	notes, err := input.Capture(&b, input.Live("/"), snapshotInputs())
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	_ = notes // what could not be read is missing from the snapshot, as with fwcheck snapshot
	return b.Bytes(), nil
}

// RebootCheckID is the reboot-cycling check fwcheck.reboot=N (reboot = N in
// fwcheck.cfg) asks for.
const RebootCheckID = "reboot"

// planReboot adds the reboot check with cfg.Reboot cycles to the plan, or
// reports that this fwcheck has none.
func planReboot(cfg image.Config, checks []*tests.Check, p *bootPlan) {
	if cfg.Reboot == 0 {
		return
	}
	c := tests.Lookup(checks, RebootCheckID)
	if c == nil {
		p.errs = append(p.errs, fmt.Sprintf("fwcheck.reboot=%d: this fwcheck has no %q check yet; no reboot cycles run", cfg.Reboot, RebootCheckID))
		return
	}
	if p.ids == nil {
		p.ids = []string{"all"}
	}
	p.ids = append(p.ids, RebootCheckID)
	if err := p.settings.Set(c, "cycles", fmt.Sprint(cfg.Reboot)); err != nil {
		p.errs = append(p.errs, "fwcheck."+err.Error())
	}
}
