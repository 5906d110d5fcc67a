package klog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Severity is how bad a matched message is for the firmware: "critical",
// "high", "medium" or "low".
type Severity string

// The severities an entry may have.
const (
	Critical Severity = "critical"
	High     Severity = "high"
	Medium   Severity = "medium"
	Low      Severity = "low"
)

// Valid reports whether s is one of the four severities.
func (s Severity) Valid() bool {
	return s == Critical || s == High || s == Medium || s == Low
}

// Entry is one kernel message in the advice database.
type Entry struct {
	// Label is the stable CamelCase identifier findings carry.
	Label string `json:"label"`
	// Literal, when set, matches any message text containing it.
	Literal string `json:"literal,omitempty"`
	// Regex, when set, is an RE2 expression searched for in the message
	// text (never the timestamp or priority). Exactly one of Literal and
	// Regex is set.
	Regex string `json:"regex,omitempty"`
	// Severity of the problem for the firmware.
	Severity Severity `json:"severity"`
	// Category groups entries: acpi, bios, efi, pci, iommu, hpet, mtrr…
	Category string `json:"category"`
	// Advice says what the message means for the firmware and what a
	// firmware engineer should change.
	Advice string `json:"advice"`
	// Scope, when set, limits the entry to some machines or kernels.
	Scope *Scope `json:"scope,omitempty"`
	// VMExplains marks a message that points at firmware on real
	// hardware but that a virtual machine explains by itself: timer
	// calibrations that miss their time because the host did not run the
	// virtual CPU. On a VM such a finding is explained, with the entry's
	// own advice. Where a VM needs advice of its own, a separate entry
	// scoped to VMs (05-virtual-machines.json) matches first instead.
	VMExplains bool `json:"vm_explains,omitempty"`
	// Cause, when set, says the message points at something other than
	// the firmware, so a match is information, not a firmware failure:
	// "cpu" (a property of the processor model), "silicon" (a processor or
	// chipset erratum the kernel works around), "driver" (the kernel's own
	// driver or an add-in device), "hardware" (what is fitted: memory
	// without ECC, a conventional PCI bus, a device's own EEPROM), "kernel"
	// (the kernel's own bookkeeping, or a consequence of a problem reported
	// by another message) or "by-design" (the firmware does what it
	// should).
	Cause string `json:"cause,omitempty"`
	// BootParams are kernel command-line parameters that make the kernel
	// print the message ("processor.max_cstate", "intremap=off"): when the
	// log's command line holds one, the user's choice explains the match.
	BootParams []string `json:"boot_params,omitempty"`
	// Source is the kernel source file that prints the message.
	Source string `json:"source,omitempty"`
	// Examples are message texts the entry must match, from real logs
	// where possible.
	Examples []string `json:"examples,omitempty"`

	// Older are RE2 patterns for the wordings older kernels used for the
	// same message (ACPICA before 2013 printed checksums without 0x,
	// "ACPI Exception:" where it now says "ACPI Error:"...): the entry
	// matches a text that its literal or regex or any of these matches.
	// A pattern that starts with ACPICA's "ACPI Error: " or "ACPI
	// Warning: " also matches the pre-2009 "ACPI Error (module-NNNN): "
	// form without being listed here.
	Older []string `json:"older,omitempty"`

	// posix marks fwts entries, whose regexes are POSIX ERE.
	posix bool
	// code is what the matcher needs, shared by the entry's copies: the
	// compiled regex (on first use for the generated database) and the
	// prefilter's keys. nil until Compile, or set by db_generated.go.
	code *entryCode
}

// entryCode is an entry's compiled form. The embedded database's come
// from db_generated.go with their prefilter keys and no regex: each regex
// is compiled the first time a text holds one of its entry's keys, so a log
// pays only for the entries it nearly matches.
type entryCode struct {
	once sync.Once
	re   *regexp.Regexp
	// branches replace re for a top-level alternation (see branch); for
	// the embedded database they come from db_generated.go, each
	// compiled on first use.
	branches []*branch
	// lit, when set, replaces re: the entry's regex is this one literal.
	lit string
	// musts are sets of literals one of each of which is in every text
	// re matches (see mustLiterals): tested before re runs.
	musts [][]string
	// keyed says keys and exact were computed ahead (db_generated.go);
	// keys nil then means the entry is tried on every text.
	keyed bool
	keys  []string
	// exact: finding the key proves the match (a whole literal).
	exact bool
}

// regexp returns the entry's compiled regex (nil for a plain literal
// entry or one never compiled), compiling it on first use.
func (e *Entry) regexp() *regexp.Regexp {
	c := e.code
	if c == nil {
		return nil
	}
	c.once.Do(func() {
		if c.branches != nil || c.lit != "" {
			return // generated ahead: nothing to compile as a whole
		}
		full := e.fullRegex()
		if full == "" {
			return
		}
		if c.re == nil {
			// The generated database's patterns were compiled when it
			// was generated (TestGeneratedDB), so this cannot fail.
			c.re, _ = e.compileRegex(full)
		}
	})
	return c.re
}

// mustLiterals returns, for a regex that is a concatenation, the required
// literals of its parts (see required): each set has a member in every
// text the regex matches, so a text that lacks one is no match and the
// regex need not run.
//
// Why (issue 24): the prefilter's key is one literal of an entry; the six
// "Aborting method … (AE_xxx)" entries share theirs, so each such line
// ran all six regexes, and regexp's backtracker costs about 20,000
// instructions on a boot-log line. Their AE_ codes decide at once.
func (e *Entry) mustLiterals(full string) [][]string {
	flags := syntax.Perl
	if e.posix {
		flags = syntax.POSIX
	}
	re, err := syntax.Parse(full, flags)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	var musts [][]string
	for _, sub := range re.Sub {
		set := required(sub)
		if set == nil || minLen(set) < minLiteral || len(set) > 8 || !ascii(set) {
			continue
		}
		musts = append(musts, set)
		if len(musts) == 4 {
			break
		}
	}
	return musts
}

// ascii reports whether every string of set is ASCII: regexp reads an
// invalid UTF-8 byte as U+FFFD, which Contains would not find.
func ascii(set []string) bool {
	for _, s := range set {
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

// analyse returns what replaces an entry's whole regex full: its
// branches, when it is a top-level alternation, or the one literal it is
// (see branch, plainLiteral). compile compiles the branches now.
func (e *Entry) analyse(full string, compile bool) (bs []*branch, lit string, err error) {
	if bs, ok := e.splitBranches(full, compile); ok {
		return bs, "", nil
	}
	flags := syntax.Perl
	if e.posix {
		flags = syntax.POSIX
	}
	re, err := syntax.Parse(full, flags)
	if err != nil {
		return nil, "", err
	}
	if l, ok := plainLiteral(re.Simplify()); ok && l != "" {
		return nil, l, nil
	}
	return nil, "", nil
}

func (e *Entry) compileRegex(full string) (*regexp.Regexp, error) { return compileRE(full, e.posix) }

// compileRE compiles an RE2 or (posix) POSIX ERE pattern.
func compileRE(pat string, posix bool) (*regexp.Regexp, error) {
	if posix {
		return regexp.CompilePOSIX(pat)
	}
	return regexp.Compile(pat)
}

// fullRegex returns the one regex the entry's patterns amount to, or ""
// for a plain literal entry.
func (e *Entry) fullRegex() string {
	main := e.Regex
	if main == "" {
		main = regexp.QuoteMeta(e.Literal)
	}
	older := e.Older
	if !e.posix {
		// ACPICA before 2009 put the module and line in the prefix:
		// "ACPI Error (evregion-0427): …".
		for _, p := range acpicaPrefixes {
			if rest, ok := strings.CutPrefix(main, p[0]); ok {
				older = append(slices.Clip(older), p[1]+rest)
				break
			}
		}
	}
	if len(older) == 0 {
		return e.Regex
	}
	parts := []string{"(?:" + main + ")"}
	for _, o := range older {
		parts = append(parts, "(?:"+o+")")
	}
	return strings.Join(parts, "|")
}

// acpicaPrefixes pairs the message prefixes of today's ACPICA, as entries
// write them, with the pre-2009 form that named the module and line.
var acpicaPrefixes = [][2]string{
	{"ACPI Error: ", `ACPI Error \(\w+-\d+\): `},
	{"ACPI Warning: ", `ACPI Warning \(\w+-\d+\): `},
	{`ACPI (?:BIOS )?Error(?: \(bug\))?: `, `ACPI Error \(\w+-\d+\): `},
	{`ACPI (?:BIOS )?Warning(?: \(bug\))?: `, `ACPI Warning \(\w+-\d+\): `},
}

// Pattern returns the entry's literal or regex, whichever is set.
func (e *Entry) Pattern() string {
	if e.Regex != "" {
		return e.Regex
	}
	return e.Literal
}

// Matches reports whether the entry matches message text, without any
// prefilter. Compile must have succeeded first for regex entries.
func (e *Entry) Matches(text string) bool {
	if c := e.code; c != nil {
		if c.lit != "" {
			return strings.Contains(text, c.lit)
		}
		if c.branches != nil {
			for _, b := range c.branches {
				if b.mayMatch(text) && b.matches(text) {
					return true
				}
			}
			return false
		}
	}
	if re := e.regexp(); re != nil {
		for _, set := range e.code.musts {
			if !containsAny(text, set) {
				return false
			}
		}
		return re.MatchString(text)
	}
	return e.Literal != "" && strings.Contains(text, e.Literal)
}

// containsAny reports whether text contains one of set.
func containsAny(text string, set []string) bool {
	for _, l := range set {
		if strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// Compile checks the entry and compiles its regex.
func (e *Entry) Compile() error {
	if (e.Literal == "") == (e.Regex == "") {
		return fmt.Errorf("klog: entry %q: exactly one of literal and regex must be set", e.Label)
	}
	for _, o := range e.Older {
		if o == "" {
			return fmt.Errorf("klog: entry %q: empty older pattern", e.Label)
		}
	}
	c := &entryCode{}
	if full := e.fullRegex(); full != "" {
		re, err := e.compileRegex(full)
		if err != nil {
			return fmt.Errorf("klog: entry %q: %w", e.Label, err)
		}
		bs, lit, err := e.analyse(full, true)
		if err != nil {
			return fmt.Errorf("klog: entry %q: %w", e.Label, err)
		}
		c.branches, c.lit = bs, lit
		if bs == nil && lit == "" {
			c.re, c.musts = re, e.mustLiterals(full)
		}
	}
	c.once.Do(func() {}) // compiled already
	e.code = c
	return nil
}

// causes are the values Entry.Cause may take.
var causes = map[string]bool{"cpu": true, "silicon": true, "driver": true, "hardware": true, "kernel": true, "by-design": true}

// Scope limits an entry to some machines or kernel versions. Empty fields
// do not limit.
type Scope struct {
	// Vendor and Product are RE2 expressions matched, case-insensitively,
	// against the DMI system vendor and product name.
	Vendor  string `json:"vendor,omitempty"`
	Product string `json:"product,omitempty"`
	// KernelMin and KernelMax bound the kernel version ("5.4", "6.1.12"),
	// inclusive.
	KernelMin string `json:"kernel_min,omitempty"`
	KernelMax string `json:"kernel_max,omitempty"`
	// VM limits the entry to virtual machines, on positive evidence only
	// (Env.VM): an unknown machine is not a virtual one. A match is then
	// explained by the environment, not a firmware fault.
	VM bool `json:"vm,omitempty"`
}

// Env describes the machine and kernel a log comes from, for scopes. Empty
// fields are unknown, and an unknown value never excludes an entry.
type Env struct {
	Vendor, Product, Kernel string
	// CmdLine is the kernel command line, or empty when unknown.
	CmdLine string
	// VM is the evidence that the machine is virtual ("DMI: QEMU Standard
	// PC …", "Hypervisor detected: KVM"), or empty when there is none.
	VM string
}

// Explanation says what in env explains a match of e, or "" when the
// match is the firmware's to answer for.
func (e *Entry) Explanation(env Env) string {
	if (e.VMExplains || e.Scope != nil && e.Scope.VM) && env.VM != "" {
		return "virtual machine (" + env.VM + ")"
	}
	if p := e.bootParam(env.CmdLine); p != "" {
		return "kernel command line: " + p
	}
	return ""
}

// bootParam returns the parameter of cmdline that is one of e.BootParams
// ("name" matches "name" and "name=value"; "name=value" only itself).
func (e *Entry) bootParam(cmdline string) string {
	if len(e.BootParams) == 0 {
		return ""
	}
	for _, tok := range strings.Fields(cmdline) {
		for _, p := range e.BootParams {
			if tok == p || !strings.Contains(p, "=") && strings.HasPrefix(tok, p+"=") {
				return tok
			}
		}
	}
	return ""
}

// Applies reports whether the scope includes env.
func (s *Scope) Applies(env Env) bool {
	if s == nil {
		return true
	}
	if s.VM && env.VM == "" {
		return false
	}
	if !reMatch(s.Vendor, env.Vendor) || !reMatch(s.Product, env.Product) {
		return false
	}
	if env.Kernel != "" {
		// A bound compares only as many components as it has: a maximum
		// of "6.1" includes 6.1.12.
		k := kernelVersion(env.Kernel)
		if lo := kernelVersion(s.KernelMin); s.KernelMin != "" && compareVersion(k[:min(len(k), len(lo))], lo) < 0 {
			return false
		}
		if hi := kernelVersion(s.KernelMax); s.KernelMax != "" && compareVersion(k[:min(len(k), len(hi))], hi) > 0 {
			return false
		}
	}
	return true
}

func reMatch(expr, s string) bool {
	if expr == "" || s == "" {
		return true
	}
	re, ok := scopeREs.Load(expr)
	if !ok {
		c, err := regexp.Compile("(?i)" + expr)
		if err != nil {
			c = nil
		}
		re, _ = scopeREs.LoadOrStore(expr, c)
	}
	c := re.(*regexp.Regexp)
	return c != nil && c.MatchString(s)
}

// scopeREs caches the compiled scope expressions: every matcher built
// tests every scoped entry.
var scopeREs sync.Map

// kernelVersion parses the leading "6.1.12" of a kernel release string.
func kernelVersion(s string) []int {
	var v []int
	for _, part := range strings.SplitN(s, ".", 3) {
		end := 0
		for end < len(part) && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(part[:end])
		if err != nil {
			break
		}
		v = append(v, n)
		if end < len(part) {
			break
		}
	}
	return v
}

func compareVersion(a, b []int) int {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// KernelRelease returns the kernel release from a "Linux version X" record,
// or "".
func KernelRelease(recs []Record) string {
	for _, r := range recs {
		if rest, ok := strings.CutPrefix(r.Text, "Linux version "); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

//go:generate go test -count=1 -run ^TestGeneratedDB$ . -args -regenerate
//go:generate go test -count=1 -run ^TestGeneratedAC$ . -args -regenerate

// DefaultDB returns our own advice database, db/*.json in file name order,
// as db_generated.go holds it. The caller may not modify the entries.
func DefaultDB() ([]Entry, error) {
	return generatedDB, nil
}

func loadFS(fsys fs.FS, dir string) ([]Entry, error) {
	names, err := fs.Glob(fsys, dir+"/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var all []Entry
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		es, err := LoadDB(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(n), err)
		}
		all = append(all, es...)
	}
	return all, nil
}

// LoadDB reads entries in our own format: a JSON array of Entry objects.
// Each entry is checked and compiled.
func LoadDB(r io.Reader) ([]Entry, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var es []Entry
	if err := dec.Decode(&es); err != nil {
		return nil, fmt.Errorf("klog: db: %w", err)
	}
	for i := range es {
		if err := es[i].Compile(); err != nil {
			return nil, err
		}
		if c := es[i].Cause; c != "" && !causes[c] {
			return nil, fmt.Errorf("klog: entry %q: invalid cause %q", es[i].Label, c)
		}
		if !es[i].Severity.Valid() {
			return nil, fmt.Errorf("klog: entry %q: invalid severity %q", es[i].Label, es[i].Severity)
		}
	}
	return es, nil
}

// fwtsEntry is one object of an fwts klog.json file.
type fwtsEntry struct {
	CompareMode string `json:"compare_mode"`
	LogLevel    string `json:"log_level"`
	Pattern     string `json:"pattern"`
	Advice      string `json:"advice"`
	Label       string `json:"label"`
}

// LoadFwts reads a klog.json file in the format fwts uses: an object whose
// members are arrays of {compare_mode, log_level, pattern, advice, label}
// objects (or a bare array of them). compare_mode "string" is a substring
// match and "regex" a POSIX extended regular expression; log_level
// LOG_LEVEL_CRITICAL/HIGH/MEDIUM/LOW/INFO maps to our severities (INFO to
// low). Trailing commas, which those files contain, are accepted. Entries are
// returned in file order (members in name order).
func LoadFwts(r io.Reader) ([]Entry, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("klog: fwts db: %w", err)
	}
	data = stripTrailingCommas(data)
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("klog: fwts db: %w", err)
	}
	var lists [][]fwtsEntry
	var arr []fwtsEntry
	if err := json.Unmarshal(raw, &arr); err == nil {
		lists = append(lists, arr)
	} else {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("klog: fwts db: want an object of arrays: %w", err)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			var l []fwtsEntry
			if err := json.Unmarshal(obj[k], &l); err != nil {
				return nil, fmt.Errorf("klog: fwts db: %s: %w", k, err)
			}
			lists = append(lists, l)
		}
	}
	var out []Entry
	for _, l := range lists {
		for i, f := range l {
			if f.Pattern == "" {
				continue
			}
			e := Entry{
				Label:    f.Label,
				Severity: fwtsSeverity(f.LogLevel),
				Category: "fwts",
				Advice:   f.Advice,
				posix:    true,
			}
			if e.Label == "" {
				e.Label = fmt.Sprintf("FwtsKlog%d", len(out)+1)
			}
			switch strings.ToLower(f.CompareMode) {
			case "regex":
				e.Regex = f.Pattern
			case "string", "":
				e.Literal = f.Pattern
			default:
				return nil, fmt.Errorf("klog: fwts db: entry %d (%s): unknown compare_mode %q", i, f.Label, f.CompareMode)
			}
			if err := e.Compile(); err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// LoadFwtsFile is LoadFwts over a file.
func LoadFwtsFile(name string) ([]Entry, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("klog: %w", err)
	}
	defer f.Close()
	es, err := LoadFwts(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return es, nil
}

func fwtsSeverity(level string) Severity {
	switch strings.TrimPrefix(strings.ToUpper(level), "LOG_LEVEL_") {
	case "CRITICAL":
		return Critical
	case "HIGH":
		return High
	case "MEDIUM":
		return Medium
	default:
		return Low
	}
}

// stripTrailingCommas removes commas that directly precede (ignoring white
// space) a closing ] or }, outside strings.
func stripTrailingCommas(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		}
		if c == ',' {
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == ']' || b[j] == '}') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// EnvFromLog describes the machine from its own log: the kernel release
// from "Linux version", and the "DMI:" line (vendor, product and BIOS in
// one string) as both Vendor and Product, so that scope expressions match
// anywhere in it. A guest's "Hypervisor detected: NAME" line is appended to
// both, so that virtual machines without DMI data (Firecracker, for one)
// still match the virtual-machine scopes. A log that says it has no DMI data
// describes a known machine without it, not an unknown one.
func EnvFromLog(recs []Record) Env {
	env := Env{Kernel: KernelRelease(recs)}
	var dmi, hv string
	for _, r := range recs {
		if c, ok := cmdLine(r.Text); ok && env.CmdLine == "" {
			env.CmdLine = c
		}
		if rest, ok := strings.CutPrefix(r.Text, "DMI: "); ok && dmi == "" {
			dmi = rest
		}
		if r.Text == noDMI && dmi == "" {
			dmi = noDMI
		}
		if strings.HasPrefix(r.Text, "Hypervisor detected: ") && hv == "" {
			hv = r.Text
		}
		if dmi != "" && hv != "" && env.CmdLine != "" {
			break
		}
	}
	id := strings.TrimSpace(dmi + " " + hv)
	env.Vendor, env.Product = id, id
	switch {
	case hv != "":
		env.VM = hv
	case dmi != noDMI && virtualDMI().MatchString(dmi):
		env.VM = "DMI: " + dmi
	}
	return env
}

// cmdLine returns the command line from the kernel's "Command line: " (x86)
// or "Kernel command line: " record.
func cmdLine(text string) (string, bool) {
	if c, ok := strings.CutPrefix(text, "Command line: "); ok {
		return c, true
	}
	return strings.CutPrefix(text, "Kernel command line: ")
}

// virtualDMI matches the DMI identities of virtual machines: the system
// vendors and products that hypervisors report.
var virtualDMI = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:QEMU|KVM|VMware|VirtualBox|innotek|Xen|Bochs|Parallels|Microsoft Corporation Virtual|Google Compute Engine|Amazon EC2|Firecracker|BHYVE|Cloud Hypervisor)\b`)
})

// noDMI is what the kernel logs when it finds no SMBIOS entry point.
const noDMI = "DMI not present or invalid."
