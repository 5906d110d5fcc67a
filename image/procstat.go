package image

import (
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of /proc/<pid>/stat's times: Linux reports them in
// USER_HZ ticks, 100 a second on every architecture it supports, whatever
// the kernel's own HZ.
const userHZ = 100

// statStartTime reads the starttime field (the 22nd, ticks since boot) of
// a /proc/<pid>/stat line. The command name (the 2nd field) is in
// parentheses and may itself hold spaces and parentheses, so the fields
// are counted from the last ')'. It returns -1 for a line that does not
// hold a valid one. Written here because none of our libraries exports a
// parser for the file: u-root's is inside its ps command's main package.
func statStartTime(line string) time.Duration {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return -1
	}
	// Fields 3 to 21 come before starttime after the name.
	f := strings.Fields(line[i+1:])
	if len(f) < 20 {
		return -1
	}
	ticks, err := strconv.ParseUint(f[19], 10, 63)
	if err != nil || ticks > uint64(1<<62)/uint64(time.Second) {
		return -1
	}
	return time.Duration(ticks) * time.Second / userHZ
}
