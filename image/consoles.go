package image

import (
	"bufio"
	"bytes"
	"strings"
)

// ParseConsoles returns the device names listed in /proc/consoles.
func ParseConsoles(procConsoles []byte) []string {
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(procConsoles))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && !strings.ContainsAny(f[0], "/.") {
			names = append(names, f[0])
		}
	}
	return names
}

// IsSerialConsole reports whether a console device name is a serial port
// (8250/16550 "ttyS", PL011 "ttyAMA", USB serial, hypervisor console).
func IsSerialConsole(name string) bool {
	for _, p := range []string{"ttyS", "ttyAMA", "ttyUSB", "ttyACM", "hvc"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
