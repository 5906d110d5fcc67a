package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/report"
)

// initMessage is the kernel's record of starting the initramfs's init.
const initMessage = "Run /init as init process"

// initStarted is when the kernel started /init, from its log records, or
// -1 when no record says.
func initStarted(recs []klog.Record) time.Duration {
	for _, r := range recs {
		if r.Time >= 0 && strings.Contains(r.Text, initMessage) {
			return r.Time
		}
	}
	return -1
}

// slowest names the n checks of doc that took longest, with their times:
// "cpufreq 0.12 s, klog 0.08 s".
func slowest(doc *report.Document, n int) string {
	rs := slices.Clone(doc.Results)
	slices.SortStableFunc(rs, func(a, b report.Result) int {
		switch {
		case a.DurationMS > b.DurationMS:
			return -1
		case a.DurationMS < b.DurationMS:
			return 1
		}
		return 0
	})
	var parts []string
	for _, r := range rs[:min(n, len(rs))] {
		parts = append(parts, fmt.Sprintf("%s %.2f s", r.ID, r.DurationMS/1000))
	}
	return strings.Join(parts, ", ")
}

// bootTimes is the line that divides the time to the verdicts between the
// kernel and fwcheck's steps; every argument is a time since kernel start,
// initAt -1 when unknown. execAt is when the kernel started fwcheck's
// process (-1 when unknown, 10 ms resolution): it splits /init to fwcheck
// into u-root's init up to its start of fwcheck and the busybox binary's
// start-up up to fwcheck's main (the Go runtime and every package's
// initialisation, which under TCG is translated afresh).
func bootTimes(initAt, execAt, started, setUp, running, verdicts time.Duration) string {
	var b strings.Builder
	b.WriteString("fwcheck: boot times:")
	if initAt >= 0 {
		fmt.Fprintf(&b, " kernel to /init %.2f s, /init to fwcheck %.2f s", initAt.Seconds(), (started - initAt).Seconds())
		if execAt >= initAt && execAt <= started {
			fmt.Fprintf(&b, " (u-root's init %.2f s, the binary's start %.2f s)", (execAt - initAt).Seconds(), (started - execAt).Seconds())
		}
		b.WriteString(",")
	} else {
		fmt.Fprintf(&b, " kernel to fwcheck %.2f s,", started.Seconds())
	}
	fmt.Fprintf(&b, " fwcheck's set-up %.2f s, the run's requests %.2f s, the checks %.2f s",
		(setUp - started).Seconds(), (running - setUp).Seconds(), (verdicts - running).Seconds())
	return b.String()
}
