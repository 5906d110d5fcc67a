package main

import (
	"fmt"
	"io"
	"strings"
)

// progressWriter shows checks' progress on w: on a terminal one line that
// rewrites itself, elsewhere (a log file, a serial console) one plain line
// per step. Progress never goes into the results. done clears the
// terminal's line before the report is printed.
func progressWriter(w io.Writer) (show func(check, msg string), done func()) {
	tty := isTerminal(w)
	shown := false
	show = func(check, msg string) {
		line := sanitizeLine(check + ": " + msg)
		if tty {
			fmt.Fprintf(w, "\r\x1b[K%s", line)
			shown = true
			return
		}
		fmt.Fprintln(w, line)
	}
	done = func() {
		if shown {
			fmt.Fprint(w, "\r\x1b[K")
		}
	}
	return show, done
}

// sanitizeLine keeps control characters out of a progress line: device
// names in it come from the machine.
func sanitizeLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}
