package tests

import (
	"fmt"

	"github.com/fwcheck/fwcheck/klog"
)

// NotCheckedTruncated reports, for a check reading the kernel log, the
// ends of lines the reader cut at klog.MaxLine and the lines it did not
// read past klog.MaxRecords: the rest of the log was checked, those were
// not.
func NotCheckedTruncated(p *Pass, recs []klog.Record) {
	if d := klog.DroppedLines(recs); d > 0 {
		p.NotChecked(fmt.Sprintf("the last %d lines of the kernel log", d),
			fmt.Sprintf("the log holds more than %d records, more than a kernel's log buffer does; the first %d were checked", klog.MaxRecords, klog.MaxRecords),
			"check a shorter log (one boot: dmesg, or journalctl -k -b)")
	}
	n, first := klog.TruncatedLines(recs)
	if n == 0 {
		return
	}
	at := "record " + fmt.Sprint(first.Seq)
	if s := first.Stamp(); s != "" {
		at = "[" + s + "]"
	} else if first.Seq < 0 {
		at = fmt.Sprintf("%.40q…", first.Text)
	}
	what := fmt.Sprintf("the end of the kernel-log line at %s (%d bytes past the first %d)", at, first.Truncated, klog.MaxLine)
	if n > 1 {
		what = fmt.Sprintf("the ends of %d kernel-log lines longer than %d bytes, the first at %s (%d bytes cut)", n, klog.MaxLine, at, first.Truncated)
	}
	p.NotChecked(what, fmt.Sprintf("a line longer than %d MiB is cut there; the kernel never writes one, so the log was altered or corrupted", klog.MaxLine>>20),
		"read those lines in the log itself")
}
