package klog

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// ParseKmsg reads records in the /dev/kmsg format: one
// "PRIO,SEQ,USEC,FLAGS[,…];TEXT" line per record, optionally followed by
// dictionary lines that start with a space (which are dropped). A record
// whose flags are "+" continues the previous one and is joined to it, as
// kernels before 4.9 logged KERN_CONT fragments. Lines that are not kmsg
// records are skipped. Identical consecutive records are folded.
func ParseKmsg(r io.Reader) ([]Record, error) {
	var out []Record
	lr := newLineReader(r)
	var dropped int64
	for {
		line, cut, more := lr.next()
		if !more {
			break
		}
		if len(line) == 0 || line[0] == ' ' {
			continue
		}
		if len(out) >= MaxRecords {
			dropped++
			continue
		}
		s := string(bytes.TrimRight(line, "\r"))
		rec, ok := parseKmsgLine(s)
		if !ok {
			continue
		}
		rec.Truncated = cut
		if kmsgFlags(s) == "+" && len(out) > 0 {
			last := &out[len(out)-1]
			last.Text += rec.Text
			continue
		}
		out = appendFold(out, rec)
	}
	markDropped(out, dropped)
	if lr.err != nil {
		return out, fmt.Errorf("klog: kmsg: %w", lr.err)
	}
	return out, nil
}

// kmsgFlags returns the FLAGS field of a kmsg record line.
func kmsgFlags(s string) string {
	head, _, _ := strings.Cut(s, ";")
	f := strings.Split(head, ",")
	if len(f) < 4 {
		return ""
	}
	return f[3]
}
