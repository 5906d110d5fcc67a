package main

import (
	"regexp"
	"slices"
	"strings"
)

// Message is one kernel message format string found in a source file.
type Message struct {
	File   string
	Line   int
	Macro  string // pr_err, dev_warn, ACPI_ERROR…
	Format string // the format with the prefixes the macro adds
}

var callRE = regexp.MustCompile(`\b(pr_(?:emerg|alert|crit|err|warn|warning|notice|info)(?:_once|_ratelimited)?|dev_(?:emerg|alert|crit|err|warn|notice|info)(?:_once|_ratelimited)?|pci_(?:err|warn|info|notice)|acpi_handle_(?:err|warn|info|notice)|printk(?:_once|_ratelimited)?|ACPI_(?:ERROR|WARNING|WARNING_ONCE|BIOS_ERROR|BIOS_WARNING|EXCEPTION|BIOS_EXCEPTION))\s*\(`)

// callStarts are the literal starts of every name callRE matches: the
// source is searched for them (fast, SIMD string search) and callRE is
// tried only there, anchored, instead of over the whole file.
var callStarts = []string{"pr_", "dev_", "pci_", "acpi_handle_", "printk", "ACPI_"}

var callAt = regexp.MustCompile(`^` + callRE.String())

// findCalls returns, for each printing call in src, the submatch indexes
// callRE.FindAllStringSubmatchIndex would give, in source order.
func findCalls(src string) [][]int {
	var out [][]int
	for _, start := range callStarts {
		for i := 0; ; {
			j := strings.Index(src[i:], start)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(start)
			if at > 0 && isIdent(src[at-1]) {
				continue
			}
			m := callAt.FindStringSubmatchIndex(src[at:])
			if m == nil {
				continue
			}
			for k := range m {
				m[k] += at
			}
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

var prFmtRE = regexp.MustCompile(`#define\s+pr_fmt\(fmt\)\s+((?:"(?:[^"\\]|\\.)*"\s*|KBUILD_MODNAME\s*)+)fmt`)

// macros maps the string macros the kernel uses in formats to their text.
var macros = map[string]string{
	"FW_BUG": "[Firmware Bug]: ", "FW_WARN": "[Firmware Warn]: ", "FW_INFO": "[Firmware Info]: ",
	"HW_ERR": "[Hardware Error]: ", "PREFIX": "ACPI: ", "ACPI_PREFIX": "ACPI: ",
	"KERN_EMERG": "", "KERN_ALERT": "", "KERN_CRIT": "", "KERN_ERR": "", "KERN_WARNING": "",
	"KERN_NOTICE": "", "KERN_INFO": "", "KERN_DEBUG": "", "KERN_CONT": "", "KERN_SOH": "",
	"ACPI_PRINTF_UINT": "0x%8.8X%8.8X", "ACPI_FORMAT_UINT64": "", "KBUILD_MODNAME": "",
}

// ScanSource returns the messages printed by the calls in one C file.
func ScanSource(file, src string) []Message {
	// pr_fmt may be redefined; each call uses the definition before it.
	// KBUILD_MODNAME is taken to be the file's base name.
	mod := strings.TrimSuffix(file[strings.LastIndexByte(file, '/')+1:], ".c")
	type fmtDef struct {
		at     int
		prefix string
	}
	var defs []fmtDef
	for _, m := range prFmtRE.FindAllStringSubmatchIndex(src, -1) {
		arg := src[m[2]:m[3]]
		arg = strings.ReplaceAll(arg, "KBUILD_MODNAME", `"`+mod+`"`)
		defs = append(defs, fmtDef{m[0], joinStrings(arg)})
	}
	var out []Message
	line, lineAt := 1, 0
	for _, loc := range findCalls(src) {
		prefix := ""
		for _, d := range defs {
			if d.at < loc[0] {
				prefix = d.prefix
			}
		}
		macro := strings.Clone(src[loc[2]:loc[3]]) // not a slice that keeps the file alive
		args, ok := callArgs(src[loc[1]:])
		if !ok {
			continue
		}
		if strings.HasPrefix(macro, "ACPI_") {
			args = strings.TrimSpace(args)
			args = strings.TrimSuffix(strings.TrimPrefix(args, "("), ")")
		}
		format := joinStrings(args)
		if strings.TrimSpace(format) == "" || !strings.Contains(args, `"`) {
			continue
		}
		if strings.HasPrefix(macro, "pr_") {
			format = prefix + format
		}
		switch macro {
		case "ACPI_ERROR":
			format = "ACPI Error: " + format
		case "ACPI_EXCEPTION":
			// "ACPI Exception: " before ACPICA 20170629 (Linux 4.13).
			format = "ACPI Error: %s, " + format
		case "ACPI_WARNING", "ACPI_WARNING_ONCE":
			format = "ACPI Warning: " + format
		case "ACPI_BIOS_ERROR":
			format = "ACPI BIOS Error (bug): " + format
		case "ACPI_BIOS_EXCEPTION":
			format = "ACPI BIOS Error (bug): %s, " + format
		case "ACPI_BIOS_WARNING":
			format = "ACPI BIOS Warning (bug): " + format
		}
		format = strings.TrimRight(format, "\n")
		if strings.TrimSpace(format) == "" {
			continue
		}
		line += strings.Count(src[lineAt:loc[0]], "\n")
		lineAt = loc[0]
		out = append(out, Message{File: file, Line: line, Macro: macro, Format: format})
	}
	return out
}

// callArgs returns the text up to the parenthesis closing the call whose
// opening parenthesis precedes s.
func callArgs(s string) (string, bool) {
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s[:i], true
			}
		case ';':
			return "", false
		}
	}
	return "", false
}

var tokRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|\b([A-Z_][A-Z0-9_]*)\b|(,)`)

// joinStrings concatenates the string literal (and known string macro)
// tokens at the start of the argument list that carries the format: the
// first run of adjacent strings.
func joinStrings(args string) string {
	var b strings.Builder
	started := false
	for _, m := range tokRE.FindAllStringSubmatch(args, -1) {
		switch {
		case m[1] != "" || strings.HasPrefix(m[0], `"`):
			b.WriteString(unquoteC(m[1]))
			started = true
		case m[2] != "":
			if v, ok := macros[m[2]]; ok {
				b.WriteString(v)
				if v != "" {
					started = true
				}
			}
		case m[3] != "":
			if started {
				return b.String()
			}
		}
	}
	return b.String()
}

func unquoteC(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`, `\\`, `\`)
	return r.Replace(s)
}

var convRE = regexp.MustCompile(`%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|z|j|t|L)?(?:p[a-zA-Z]*|[diouxXcsSeEfgG]))`)

// Regex turns a printf format into an RE2 expression matching the messages
// it prints; lit reports that the format has no conversions, so it is a
// literal.
func Regex(format string) (re string, lit bool) {
	var b strings.Builder
	last := 0
	conv := false
	for _, loc := range convRE.FindAllStringIndex(format, -1) {
		b.WriteString(regexp.QuoteMeta(format[last:loc[0]]))
		b.WriteString(convPattern(format[loc[0]:loc[1]]))
		if format[loc[0]:loc[1]] != "%%" {
			conv = true
		}
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(format[last:]))
	if !conv {
		return strings.ReplaceAll(format, "%%", "%"), true
	}
	re = b.String()
	for strings.HasSuffix(re, ".*") {
		re = strings.TrimSuffix(re, ".*")
	}
	for strings.HasPrefix(re, ".*") {
		re = strings.TrimPrefix(re, ".*")
	}
	return re, false
}

func convPattern(c string) string {
	v := c[len(c)-1]
	if strings.Contains(c, "%p") {
		return ".*"
	}
	switch v {
	case '%':
		return "%"
	case 'd', 'i':
		return `-?\d+`
	case 'u':
		return `\d+`
	case 'x', 'X', 'o':
		return `(?:0x)?[0-9a-fA-F]+`
	case 'c':
		return "."
	}
	return ".*"
}

// Sample returns a message the format could print, with small values.
func Sample(format string) string {
	return convRE.ReplaceAllStringFunc(format, func(c string) string {
		if strings.Contains(c, "%p") {
			return "[mem 0x00001000-0x00001fff]"
		}
		switch c[len(c)-1] {
		case '%':
			return "%"
		case 'd', 'i', 'u':
			return "1"
		case 'x', 'X', 'o':
			return "1f"
		case 'c':
			return "c"
		}
		return "foo"
	})
}

// biosWording finds messages that name the BIOS or the platform firmware;
// blameWording those that also say something is wrong with it or must
// change. (Plain "firmware" is not enough: most such messages are about a
// device's firmware file.)
var (
	biosWording  = regexp.MustCompile(`(?i)\bbios\b|\b(?:platform|system) firmware\b|\bACPI firmware\b`)
	blameWording = regexp.MustCompile(`(?i)\b(?:bug|bugs|broken|buggy|bogus|crappy|bad|wrong|incorrect(?:ly)?|invalid|corrupt\w*|quirky|upgrade|update|fix|not (?:set|enabled|configured|assigned|initiali[sz]ed|present|reserved|support\w*)|disabled|misconfigured|missing|too old|uninitiali[sz]ed|didn't|doesn't|does not|did not|forgot|overlap\w*|conflict\w*|failed|unusable|ignor\w*|override\w*|overriding)\b`)
)

// Blames reports whether the message blames the platform firmware: it is
// tagged [Firmware Bug], [Firmware Warn] or [Firmware Info] (FW_BUG,
// FW_WARN, FW_INFO), it is printed by ACPICA's BIOS or exception macros
// (ACPI_BIOS_ERROR, ACPI_BIOS_WARNING, ACPI_BIOS_EXCEPTION,
// ACPI_EXCEPTION), or its words name the BIOS or the platform firmware
// and say something is wrong with it.
func Blames(m Message) bool {
	switch m.Macro {
	case "ACPI_BIOS_ERROR", "ACPI_BIOS_WARNING", "ACPI_BIOS_EXCEPTION", "ACPI_EXCEPTION":
		return true
	}
	if strings.Contains(m.Format, "[Firmware Bug]") || strings.Contains(m.Format, "[Firmware Warn]") ||
		strings.Contains(m.Format, "[Firmware Info]") {
		return true
	}
	if strings.HasPrefix(m.Macro, "ACPI_") {
		return false
	}
	return biosWording.MatchString(m.Format) && blameWording.MatchString(m.Format)
}
