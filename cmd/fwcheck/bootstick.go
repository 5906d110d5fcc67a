package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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
// document, the human report as text and as an HTML page, the whole kernel
// log, a snapshot of every
// input (which `fwcheck run --from` analyses on another machine), and a
// copy of the suspend/reboot journals the run kept at the partition's root.
// When the machine booted from the fwcheck stick (live.ESP), only the
// stick's own FWCHECK partition is written (image.PickResults). Every
// problem is shown on the console; none stops the boot. It returns the
// kernel log's records it read, nil when it wrote no kernel log.
func saveRun(live *image.Live, stamp time.Time, text, js, html []byte) (klogRecs []klog.Record) {
	dir, dev, ok, err := live.OpenResults("")
	switch {
	case err != nil:
		live.Logf("fwcheck: results not written: %v", err)
		return
	case !ok:
		live.Logf("fwcheck: no %s partition: the results are on the console only", image.ResultsLabel)
		return
	}
	defer func() {
		if err := live.CloseResults(); err != nil {
			live.Logf("fwcheck: %v", err)
		}
	}()
	folder := image.RunFolder(stamp.UTC().Format("20060102-150405"), func(name string) bool {
		_, err := os.Lstat(filepath.Join(dir, name))
		return err == nil
	})
	runDir := filepath.Join(dir, folder)
	if err := os.Mkdir(runDir, 0o755); err != nil {
		live.Logf("fwcheck: results not written: %v", err)
		return
	}
	files := []runFile{
		{image.RunResultsJSON, func() ([]byte, error) { return js, nil }},
		{image.RunReportText, func() ([]byte, error) { return text, nil }},
		{image.RunReportHTML, func() ([]byte, error) { return html, nil }},
		{image.RunKernelLog, func() ([]byte, error) {
			var err error
			klogRecs, err = klog.ReadLive("/dev/kmsg")
			return kernelLog(klogRecs, err)
		}},
		{image.RunSnapshot, snapshot},
	}
	// The journals stay at the root, where the next boot of an unfinished
	// run looks for them; the folder gets a copy.
	for _, j := range []string{s3Journal, rebootJournal} {
		if b, err := os.ReadFile(filepath.Join(dir, j)); err == nil {
			files = append(files, runFile{j, func() ([]byte, error) { return b, nil }})
		}
	}
	var written []string
	for _, f := range files {
		b, err := f.data()
		if err == nil {
			err = writeSynced(filepath.Join(runDir, f.name), b)
		}
		if err != nil {
			live.Logf("fwcheck: results partition %s: %s: %v", dev, f.name, err)
			continue
		}
		written = append(written, f.name)
	}
	live.Logf("fwcheck: results written to %s, folder %s: %s", dev, folder, strings.Join(written, " "))
	return klogRecs
}

// writeSynced writes a file and flushes it to the disk.
func writeSynced(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// kernelLog is the kernel log's records as read (err where they could not
// be), one record a line.
func kernelLog(recs []klog.Record, err error) ([]byte, error) {
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
