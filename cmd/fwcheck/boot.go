package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/report/lines"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// bootCommands defines the boot command(s): see commandTable.
func bootCommands(add func(*command)) {
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
	add(c)
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
	// Where the boot's time goes (issue 24): the kernel's own start, then
	// fwcheck's set-up, then the checks.
	started := image.Uptime()
	execAt := image.ProcessStarted()
	live, _ := image.Setup() // problems are already on the console
	setUp := image.Uptime()
	// A line per result on the serial console as the run goes, for lab
	// monitors (docs/console-lines.md): the start line now, a beat line
	// every HeartbeatInterval, the end line once the verdict is out.
	lw := lines.NewWriter(live.Serial())
	lw.Begin(bootID(), version)
	stopBeat := lw.Heartbeat(lines.HeartbeatInterval, image.Uptime)
	defer stopBeat()
	var reqErrs []string
	cmdline, err := os.ReadFile(cmdlineFile)
	if err != nil {
		reqErrs = append(reqErrs, err.Error())
	}
	cfg, cfgErrs := bootConfig(live, cmdline) // the stick's fwcheck.cfg, then the command line
	reqErrs = append(reqErrs, cfgErrs...)
	failOn := bootFailOn(cfg)
	live.ESP = cfg.ESP // results only on the boot stick's FWCHECK
	live.DiskWait = cfg.DiskWait
	if cfg.Post != "" {
		// Only now: a run that posts nothing loads no network driver.
		if msg, err := live.NetUp(image.NetWait); err != nil {
			reqErrs = append(reqErrs, err.Error())
		} else {
			live.Logf("fwcheck: %s", msg)
		}
	}
	// Runs that act on the machine keep their journal on the results
	// partition, mounted now and written as they go, so that a hang or a
	// reset loses nothing and the next boot goes on from it.
	var resultsDir string
	if cfg.S3 > 0 || cfg.Reboot > 0 {
		dir, dev, ok, err := live.OpenResults(journalsNeeded(cfg))
		switch {
		case err != nil:
			reqErrs = append(reqErrs, fmt.Sprintf("results partition %s: %v", dev, err))
		case ok:
			resultsDir = dir
			live.Logf("fwcheck: journals on the results partition %s", dev)
		}
	}
	run := bootRun(cfg, resultsDir)
	reqErrs = append(reqErrs, run.errs...)
	for _, n := range run.notes {
		live.Logf("fwcheck: %s", n)
	}
	sender := bootPost(live, cfg, resultsDir, run, &reqErrs)
	for _, e := range reqErrs {
		live.Logf("fwcheck: %s", e)
	}
	now := image.Uptime()
	live.Logf("fwcheck %s: running %s (%.2f s after kernel start; fwcheck started at %.2f s, its set-up took %.2f s)",
		version, describeRun(cfg), now.Seconds(), started.Seconds(), (setUp - started).Seconds())

	code := exitOK
	stamp := time.Now()
	progress := func(id, msg string) { live.Logf("fwcheck: %s: %s", id, msg) }
	// The reboot check goes first and alone: in every boot but the run's
	// last it resets the machine, and nothing else needs to run before.
	var doc *report.Document
	err = nil
	if run.reboot {
		rc := &runConfig{Selection: tests.Selection{IDs: []string{RebootCheckID}}, Root: "/", Settings: run.settings, Lenient: true,
			Progress: progress, Observer: lw, BeforeReset: func() {
				stopBeat()
				lw.Finish(lines.Reset, "")
				if err := live.CloseResults(); err != nil {
					live.Logf("fwcheck: %v", err)
				}
			}}
		if doc, err = execute(rc); err != nil {
			reqErrs = append(reqErrs, "reboot: "+err.Error())
			doc, err = nil, nil
		}
	}
	if run.rest {
		rc := &runConfig{Selection: tests.Selection{IDs: run.ids}, Root: "/", Settings: run.settings, Lenient: true, Progress: progress, Observer: lw}
		if pr, perr := all.Profile(cfg.Profile); perr != nil {
			reqErrs = append(reqErrs, perr.Error()) // run without it rather than not at all
			live.Logf("fwcheck: %v", perr)
		} else {
			rc.Profile = pr
		}
		rest, rerr := execute(rc)
		switch {
		case rerr != nil:
			err = rerr
		case doc == nil:
			doc = rest
		default:
			// The reboot run's result first, then the others'.
			var rs []tests.Result
			for _, r := range append(doc.Results, rest.Results...) {
				rs = append(rs, r.Result)
			}
			merged := report.New(version, rest.Machine, stamp, time.Now(), rs)
			merged.Settings, merged.Errors = rest.Settings, append(doc.Errors, rest.Errors...)
			doc = merged
		}
	}
	if doc == nil && err == nil {
		err = errors.New("no check ran")
	}
	verdicts := image.Uptime()
	stopBeat()
	if err != nil {
		live.Logf("fwcheck: %v", err)
		lw.Finish(lines.Done, "error")
		code = exitUsage
	} else {
		doc.Errors = append(reqErrs, doc.Errors...)
		doc.Judge(failOn)
		var text, js bytes.Buffer
		if err := report.WriteText(&text, doc, report.TextOptions{FailOn: failOn}); err != nil {
			live.Logf("fwcheck: report: %v", err)
		}
		if err := report.WriteJSON(&js, doc); err != nil {
			live.Logf("fwcheck: report: %v", err)
		}
		fmt.Fprintf(&text, "fwcheck: verdicts %.2f s after kernel start (the checks took %.2f s; slowest: %s)\n", verdicts.Seconds(), (verdicts - now).Seconds(), slowest(doc, 3))
		if err := live.Publish(text.Bytes(), js.Bytes()); err != nil {
			live.Logf("fwcheck: publishing results: %v", err)
		}
		var page bytes.Buffer
		if err := report.WriteHTML(&page, doc, failOn); err != nil {
			live.Logf("fwcheck: report: %v", err)
		}
		klogRecs := saveRun(live, stamp, text.Bytes(), js.Bytes(), page.Bytes()) // the run's folder on FWCHECK
		if sender != nil {
			live.Logf("fwcheck: %s", finishPost(sender, cfg.Post, js.Bytes(), resultsDir))
			sender = nil
		}
		if klogRecs == nil { // no results partition: read the log here
			klogRecs, _ = klog.ReadLive("/dev/kmsg")
		}
		live.Logf("%s", bootTimes(initStarted(klogRecs), execAt, started, setUp, now, verdicts))
		// The report scrolled past above the JSON: end on the verdict.
		v, _ := report.Verdict(doc, failOn)
		live.Logf("fwcheck: verdict: %s", v)
		lw.Finish(lines.Done, lines.Verdict(doc, failOn, cyclesAsked(cfg)))
		switch {
		case doc.Failing(failOn):
			code = exitFailing
		case !doc.Checked():
			code = exitNothing
		}
	}
	if sender != nil { // no results document: the journal records still go
		live.Logf("fwcheck: %s", finishPost(sender, cfg.Post, nil, resultsDir))
	}
	if err := live.DoAfter(cfg.After); err != nil {
		live.Logf("fwcheck: %v", err)
	}
	return code
}

// bootID is the first 8 characters of the kernel's boot ID, which tell
// one boot's lines from the next one's; "-" when it cannot be read.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil || len(b) < 8 {
		return "-"
	}
	return string(b[:8])
}

// cyclesAsked lists the cycling checks the command line asked for: a run
// in which they cycled no time is no pass.
func cyclesAsked(cfg image.Config) []string {
	var ids []string
	if cfg.S3 > 0 {
		ids = append(ids, S3CheckID)
	}
	if cfg.Reboot > 0 {
		ids = append(ids, RebootCheckID)
	}
	return ids
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

// The checks the live image's own options ask for: fwcheck.s3=N and
// fwcheck.reboot=N.
const (
	S3CheckID     = "s3"
	RebootCheckID = "reboot"
)

// The journals' names on the results partition.
const (
	s3Journal     = "fwcheck-s3.jsonl"
	rebootJournal = "fwcheck-reboot.jsonl"
)

// bootPlan is what the live image runs: whether a reboot run goes first,
// then the check IDs (nil: every safe check), the settings' values, and
// the problems with the request.
type bootPlan struct {
	ids      []string
	rest     bool // run ids (after the reboot run, when there is one)
	reboot   bool
	settings tests.Settings
	errs     []string
	notes    []string // for the console: how the plan met the request
}

// bootRun turns the command line's request into a plan. fwcheck.s3=N adds
// the suspend/resume check (power-state checks run only when named) with N
// cycles; fwcheck.reboot=N plans a reboot run of N resets; fwcheck.ID.NAME=V
// sets a check's setting. resultsDir, when not empty, is the mounted
// results partition: the runs' journals go there unless a journal setting
// says otherwise. A reboot run without a journal on persistent storage
// would start afresh on every boot and never end: it is refused. A setting
// for an unknown check or with a bad value is an error in the plan, and
// the rest runs.
func bootRun(cfg image.Config, resultsDir string) bootPlan {
	var p bootPlan
	checks := all.Checks()
	p.ids = cfg.Run
	var sets []image.Setting
	power := map[string]int{S3CheckID: cfg.S3, RebootCheckID: cfg.Reboot}
	for _, id := range []string{S3CheckID, RebootCheckID} {
		n := power[id]
		if n == 0 {
			continue
		}
		if tests.Lookup(checks, id) == nil {
			p.errs = append(p.errs, fmt.Sprintf("fwcheck.%s=%d: this fwcheck has no %q check", id, n, id))
			power[id] = 0
			continue
		}
		sets = append(sets, image.Setting{Check: id, Name: "cycles", Value: strconv.Itoa(n)})
		if !slices.ContainsFunc(cfg.Settings, func(s image.Setting) bool { return s.Check == id && s.Name == "journal" }) {
			name := map[string]string{S3CheckID: s3Journal, RebootCheckID: rebootJournal}[id]
			switch {
			case resultsDir != "":
				sets = append(sets, image.Setting{Check: id, Name: "journal", Value: filepath.Join(resultsDir, name)})
			case id == S3CheckID && cfg.Post != "":
				// A netbooted machine with no disk: the journal is kept
				// in memory and each record goes to the server as it is
				// written, which holds the record of a cycle that hangs.
				sets = append(sets, image.Setting{Check: id, Name: "journal", Value: filepath.Join(memJournalDir, name)})
				p.notes = append(p.notes, fmt.Sprintf("fwcheck.s3=%d: no %s disk; the journal is kept in memory and each record posted to %s", n, image.ResultsLabel, cfg.Post))
			case id == S3CheckID:
				// No journal, no cycling: a cycle that hangs would
				// leave no record. The check says so as its result.
				p.errs = append(p.errs, fmt.Sprintf("fwcheck.s3=%d: no %s disk for the journal that records a cycle that hangs; not suspending (%s)", n, image.ResultsLabel, s3NoJournalRemedy))
				sets = append(sets, image.Setting{Check: id, Name: "require-journal", Value: "true"})
			case id == RebootCheckID:
				p.errs = append(p.errs, fmt.Sprintf("fwcheck.reboot=%d: no %s partition to keep the journal that carries the run across resets; not rebooting", n, image.ResultsLabel))
				power[id] = 0
				sets = sets[:len(sets)-1]
				continue
			}
		}
		if id == RebootCheckID {
			p.reboot = true
			continue
		}
		if p.ids == nil {
			p.ids = []string{"all"}
		}
		p.ids = append(p.ids, id)
	}
	p.rest = true
	if p.reboot && p.ids != nil {
		// The reboot check runs on its own; the rest as asked.
		p.ids = slices.DeleteFunc(slices.Clone(p.ids), func(id string) bool { return id == RebootCheckID })
		p.rest = len(p.ids) > 0
	}
	for _, s := range append(sets, cfg.Settings...) {
		c := tests.Lookup(checks, s.Check)
		if c == nil {
			// fwcheck.s3=N already said the check is missing.
			if requested := (s.Check == S3CheckID && cfg.S3 > 0) || (s.Check == RebootCheckID && cfg.Reboot > 0); !requested {
				p.errs = append(p.errs, fmt.Sprintf("fwcheck.%s.%s: %v", s.Check, s.Name, &tests.UnknownCheckError{ID: s.Check}))
			}
			continue
		}
		if err := p.settings.Set(c, s.Name, s.Value); err != nil {
			p.errs = append(p.errs, "fwcheck."+err.Error())
		}
	}
	return p
}

// s3NoJournalRemedy is what lets a live image's S3 run go ahead.
const s3NoJournalRemedy = "attach a FAT file system labelled " + image.ResultsLabel + " on any disk, whole or as a partition (mkfs.vfat -n " + image.ResultsLabel + "), or add fwcheck.s3.journal=none to cycle with the results on the console only"

// journalsNeeded names the journals the run keeps on the results disk,
// for the console ("the s3 journal"); empty when it keeps none there.
func journalsNeeded(cfg image.Config) string {
	var js []string
	for _, c := range []struct {
		id string
		n  int
	}{{S3CheckID, cfg.S3}, {RebootCheckID, cfg.Reboot}} {
		if c.n > 0 && !slices.ContainsFunc(cfg.Settings, func(s image.Setting) bool { return s.Check == c.id && s.Name == "journal" }) {
			js = append(js, c.id)
		}
	}
	switch len(js) {
	case 0:
		return ""
	case 1:
		return "the " + js[0] + " journal"
	}
	return "the " + strings.Join(js, " and ") + " journals"
}

func describeRun(cfg image.Config) string {
	s := "all safe checks"
	if cfg.Run != nil {
		s = fmt.Sprintf("checks %v", cfg.Run)
	}
	if cfg.S3 > 0 {
		s += fmt.Sprintf(", %d S3 cycles", cfg.S3)
	}
	if cfg.Reboot > 0 {
		s += fmt.Sprintf(", %d reboots", cfg.Reboot)
	}
	return s + ", then " + string(cfg.After)
}
