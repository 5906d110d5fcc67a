package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
)

// recordPrefix is how a recorder's failure starts ("record fwcheck/acpi/RSDP: ").
var recordPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^record \S+: `) })

// snapshotSummary says what a snapshot could not capture. What this
// machine simply lacks (no EFI, no TPM: the path does not exist) is one
// line naming the inputs, with every path under verbose; what exists but
// could not be read (a device, a permission) is listed path by path, since
// each says what to change. A path several inputs share is said once.
func snapshotSummary(w io.Writer, missing []input.NotCaptured, verbose bool) {
	var absent []string
	absentSeen := map[string]bool{}
	pathSeen := map[string]bool{}
	var absentPaths, unreadable []string
	for _, m := range missing {
		if pathSeen[m.Path+"\x00"+m.Reason] {
			continue
		}
		pathSeen[m.Path+"\x00"+m.Reason] = true
		if !m.Absent {
			// The root tables share one cause: say it once per input.
			why := recordPrefix().ReplaceAllString(m.Reason, "")
			if !pathSeen[m.Input+"\x00"+why] {
				pathSeen[m.Input+"\x00"+why] = true
				unreadable = append(unreadable, m.Input+": "+why)
			}
			continue
		}
		absentPaths = append(absentPaths, "/"+m.Path+" ("+m.Input+")")
		if !absentSeen[m.Input] {
			absentSeen[m.Input] = true
			absent = append(absent, m.Input)
		}
	}
	for _, u := range unreadable {
		fmt.Fprintf(w, "fwcheck snapshot: not captured: %s\n", report.Sanitize(u, false))
	}
	if len(absent) == 0 {
		return
	}
	noun := "inputs"
	if len(absent) == 1 {
		noun = "input"
	}
	more := " (--verbose lists the paths)"
	if verbose {
		more = ""
	}
	fmt.Fprintf(w, "fwcheck snapshot: %d %s absent on this machine: %s%s\n", len(absent), noun,
		report.Sanitize(strings.Join(absent, ", "), false), more)
	if verbose {
		for _, p := range absentPaths {
			fmt.Fprintf(w, "fwcheck snapshot:   no %s\n", report.Sanitize(p, false))
		}
	}
}
