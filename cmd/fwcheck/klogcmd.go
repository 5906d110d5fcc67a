package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/fwcheck/fwcheck/input"
	klog "github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
	klogcheck "github.com/fwcheck/fwcheck/tests/klog"
)

// klogChecks are the checks `fwcheck klog` runs.
var klogChecks = []string{"klog", "oops"}

// klogCommands defines the klog command(s): see commandTable.
func klogCommands(add func(*command)) {
	c := &command{
		name:  "klog",
		args:  "[FILE|-] [--klog-db FILE] [--json FILE|-] | --follow",
		short: "read a kernel log (a file, - for standard input, or this machine's) for firmware trouble; --follow watches it live",
	}
	c.run = func(e *env, args []string) int {
		fs := newFlags(c)
		var out outputFlags
		out.register(fs)
		follow := fs.Bool("follow", false, "watch this machine's kernel log (/dev/kmsg) and print each firmware finding as it is logged, until interrupted")
		var cfg runConfig
		addCheckSettings(fs, &cfg.Settings, klogChecks...)
		pos, code, ok := parseFlags(e, c, fs, args)
		if !ok {
			return code
		}
		if err := out.validate(); err != nil {
			return fail(e, c, err)
		}
		cfg.Root, cfg.Selection = "/", tests.Selection{IDs: klogChecks}
		if *follow {
			if len(pos) > 0 {
				return fail(e, c, errors.New("--follow watches this machine's log; it takes no FILE"))
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return followKlog(ctx, e, c, input.New(input.Live(cfg.Root), input.Options{}))
		}
		switch len(pos) {
		case 0:
		case 1:
			if err := fileInputs(&cfg, e, "", pos[0]); err != nil {
				return fail(e, c, err)
			}
		default:
			return fail(e, c, errTooManyArgs)
		}
		// A one-shot read of a log keeps little alive (the findings, a
		// 64 KB chunk, the matcher), so collecting at 4x the live heap
		// rather than 2x costs a few MB and saves most collections
		// (issue 24): on the corpus's 1.8 MB of boot logs none instead of
		// two, 128.6 M -> 118.0 M instructions; on 35 MB 3 instead of 15,
		// peak RSS 21.7 -> 28.9 MB. --follow, which runs for as long as
		// the machine does, keeps the default, and so does a run with
		// GOGC set (as GOMEMLIMIT is left alone, see runMemory); the
		// setting before is back when the command returns (runMain runs
		// in the tests' own process).
		if os.Getenv("GOGC") == "" {
			defer debug.SetGCPercent(debug.SetGCPercent(300))
		}
		d, err := execute(&cfg)
		if err != nil {
			return fail(e, c, err)
		}
		return out.emit(e, c, d)
	}
	add(c)
}

// followKlog prints, as they are logged, the kernel messages of machine m
// the advice database knows, each distinct message once, until ctx ends or
// the log does (a regular file standing in for /dev/kmsg). The machine's
// identity comes from the log already there. It exits 1 when a failure was
// seen.
func followKlog(ctx context.Context, e *env, c *command, m *input.Machine) int {
	var env klog.Env
	if log, err := input.KernelLog.Get(m); err == nil {
		env, _ = log.Env()
	}
	w, err := klogcheck.NewWatcher(env, nil)
	if err != nil {
		return fail(e, c, err)
	}
	r, err := input.FollowKernelLog(m)
	if err != nil {
		return fail(e, c, err)
	}
	defer r.Close()
	recs := make(chan klog.Record)
	done := make(chan error, 1)
	go func() {
		done <- klog.FollowKmsg(r, func(rec klog.Record) bool {
			select {
			case recs <- rec:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	fmt.Fprintf(e.stderr, "fwcheck: following the kernel log (%s); interrupt to stop\n", m.Src)
	failures, findings := 0, 0
	for {
		select {
		case rec := <-recs:
			f, first, _ := w.Add(rec)
			if !first {
				continue
			}
			findings++
			if f.Fails() {
				failures++
			}
			printFollowed(e.stdout, f)
		case err := <-done:
			if err != nil {
				return fail(e, c, err)
			}
			return followSummary(e, findings, failures, w.Repeats())
		case <-ctx.Done():
			return followSummary(e, findings, failures, w.Repeats())
		}
	}
}

func printFollowed(out io.Writer, f tests.Finding) {
	kind := "FAIL"
	switch {
	case f.Kind == tests.KindInfo:
		kind = "INFO"
	case f.Explained != "":
		kind = "EXPLAINED (" + f.Explained + ")"
	}
	fmt.Fprintf(out, "%s %s [%s]: %s\n       advice: %s\n", kind, f.Label, f.Severity, f.Message, f.Advice)
}

func followSummary(e *env, findings, failures, repeats int) int {
	fmt.Fprintf(e.stderr, "fwcheck: %d firmware findings (%d failures), %d repeated messages not shown again\n", findings, failures, repeats)
	if failures > 0 {
		return exitFailing
	}
	return exitOK
}
