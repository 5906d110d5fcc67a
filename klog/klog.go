// Package klog reads the kernel log (live from /dev/kmsg or syslog(2), or
// from dmesg, dmesg -r, kmsg-style and journalctl -k text) into records, and
// matches records against an advice database. It knows nothing of checks or
// reports.
package klog

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Level is a syslog priority level (0 emerg … 7 debug); -1 when unknown.
type Level int

// Record is one kernel log message.
type Record struct {
	Level    Level
	Facility int
	// Time is the time since boot, or -1 when the source had none.
	Time time.Duration
	// Seq is the kmsg sequence number, or -1.
	Seq int64
	// Text is the message text without timestamp or priority prefix.
	Text string
	// Count is how many identical consecutive records this one stands for.
	Count int
}

var dmesgLine = regexp.MustCompile(`^(?:<(\d+)>)?\s*(?:\[\s*(\d+)\.(\d+)\]\s?)?(.*)$`)

// Parse reads plain dmesg text, with or without [timestamps] and "<N>"
// priority prefixes.
func Parse(r io.Reader) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		m := dmesgLine.FindStringSubmatch(strings.TrimRight(sc.Text(), "\r"))
		rec := Record{Level: -1, Time: -1, Seq: -1, Text: m[4], Count: 1}
		if m[1] != "" {
			p, _ := strconv.Atoi(m[1])
			rec.Level, rec.Facility = Level(p&7), p>>3
		}
		if m[2] != "" {
			s, _ := strconv.ParseInt(m[2], 10, 64)
			frac := m[3]
			for len(frac) < 6 {
				frac += "0"
			}
			us, _ := strconv.ParseInt(frac[:6], 10, 64)
			rec.Time = time.Duration(s)*time.Second + time.Duration(us)*time.Microsecond
		}
		if rec.Text == "" {
			continue
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}
