package input

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/smbios"
)

// What `fwcheck snapshot --redact` removes, for a snapshot to be shared
// with a vendor:
//
//   - DMI files that identify one machine rather than a model: serial
//     numbers, the system UUID and asset tags (sys/class/dmi/id/*_serial,
//     product_uuid, *_asset_tag) are left out;
//   - in the raw SMBIOS tables (sys/firmware/dmi/tables/DMI) the serial
//     number and asset tag strings of the system, baseboard, chassis,
//     processors, memory devices, batteries and power supplies are
//     overwritten with 'X' (same length, so the structure stays valid) and
//     the system UUID zeroed;
//   - in text files (the kernel log, network addresses) MAC addresses,
//     UUIDs and "serial number: …" values are replaced.
//
// Firmware GUIDs in the kernel log are UUIDs too and are replaced with the
// rest; a log advice entry matching one then no longer matches.
//
// The SMBIOS table is walked with package smbios's Walk, the walk the
// smbios check uses, and redacted in place: it must stay byte for byte
// what the firmware wrote, apart from the overwritten strings, for the
// checks that read it afterwards. It is tested on the real tables of
// u-root's dmidecode test data.

var dmiPrivate = map[string]bool{
	"product_serial": true, "product_uuid": true, "board_serial": true, "chassis_serial": true,
	"board_asset_tag": true, "chassis_asset_tag": true,
}

const smbiosFile = "sys/firmware/dmi/tables/DMI"

var (
	macRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}\b`) })
	uuidRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b`)
	})
	serialRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(\bserial[ _]?(?:number|no\.?|num|#)\s*[:=]?\s*)([^\s,;]+)`)
	})
)

// redactFiles redacts the captured files in place and says what it did.
func redactFiles(files map[string][]byte) (notes []string) {
	for p, b := range files {
		switch {
		case path.Dir(p) == dmiDir && dmiPrivate[path.Base(p)]:
			delete(files, p)
			notes = append(notes, p+": left out (--redact)")
		case p == smbiosFile:
			if n := RedactSMBIOS(b); n > 0 {
				notes = append(notes, fmt.Sprintf("%s: %d serial numbers, asset tags and UUIDs overwritten (--redact)", p, n))
			}
		case isText(b):
			if r, n := RedactText(b); n > 0 {
				files[p] = r
				notes = append(notes, fmt.Sprintf("%s: %d serial numbers, UUIDs and MAC addresses replaced (--redact)", p, n))
			}
		}
	}
	sort.Strings(notes)
	return notes
}

// isText reports whether b looks like text (no NUL in its first 4 KiB):
// binary tables are not run through the text patterns.
func isText(b []byte) bool {
	if len(b) > 4096 {
		b = b[:4096]
	}
	return !strings.ContainsRune(string(b), 0)
}

// RedactText replaces MAC addresses, UUIDs and serial-number values in
// text and returns the result and how many it replaced.
func RedactText(b []byte) ([]byte, int) {
	n := 0
	s := macRE().ReplaceAllStringFunc(string(b), func(string) string { n++; return "XX:XX:XX:XX:XX:XX" })
	s = uuidRE().ReplaceAllStringFunc(s, func(string) string { n++; return "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX" })
	s = serialRE().ReplaceAllStringFunc(s, func(m string) string {
		n++
		sub := serialRE().FindStringSubmatch(m)
		return sub[1] + "REDACTED"
	})
	return []byte(s), n
}

// smbiosPrivate lists, per SMBIOS structure type, the offsets of string
// fields that identify one unit (SMBIOS 3.7, DSP0134 §7): serial numbers
// and asset tags.
var smbiosPrivate = map[byte][]int{
	1:  {0x07},       // System: Serial Number (the UUID is at 0x08)
	2:  {0x07, 0x08}, // Baseboard: Serial Number, Asset Tag
	3:  {0x07, 0x08}, // Chassis: Serial Number, Asset Tag Number
	4:  {0x20, 0x21}, // Processor: Serial Number, Asset Tag
	17: {0x18, 0x19}, // Memory Device: Serial Number, Asset Tag
	22: {0x07},       // Portable Battery: Serial Number
	39: {0x08, 0x09}, // System Power Supply: Serial Number, Asset Tag Number
}

// RedactSMBIOS overwrites, in a raw SMBIOS structure table (as
// /sys/firmware/dmi/tables/DMI holds it), the serial-number and asset-tag
// strings with 'X' and zeroes the system UUID, keeping every length, and
// returns how many fields it changed. It walks the table with smbios.Walk,
// so it stops where the smbios check says the table breaks: at the
// end-of-table structure or at the first structure that does not fit.
func RedactSMBIOS(b []byte) int {
	n := 0
	t := smbios.Walk(b)
	for i := range t.Structures {
		s := &t.Structures[i]
		for _, fo := range smbiosPrivate[s.Type] {
			if fo >= int(s.Length) {
				continue
			}
			if str := s.StringBytes(s.Data[fo]); len(str) > 0 {
				for j := range str {
					str[j] = 'X'
				}
				n++
			}
		}
		if s.Type == 1 && s.Length >= 0x19 {
			clear(s.Data[0x08:0x18])
			n++
		}
	}
	return n
}
