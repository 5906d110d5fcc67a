package aml

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
)

// deviceObjects are the objects TestAgainstAcpiexec compares on every
// device.
var deviceObjects = []string{"_HID", "_UID", "_STA", "_CRS"}

// acpiexecSample are the machines the comparison runs on by default (of
// different vendors and ages); FWCHECK_ACPIEXEC_ALL=1 runs all 36.
var acpiexecSample = map[string]bool{"01ACEA39AAB2": true, "211A1085E85B": true, "3FE302D11C0A": true,
	"CE92DF29C87C": true}

// TestAgainstAcpiexec evaluates _HID, _UID, _STA and _CRS of every device
// of the corpus machines with this package and with ACPICA's acpiexec
// (from acpica-tools; the test skips without it), and requires the same
// value wherever this package gives one without reading an OperationRegion
// field (acpiexec answers those from its own simulated memory) and without
// asking _OSI (the two answer different sets of Windows versions). acpiexec
// runs with -di, so that, like this evaluator, it runs no _INI first.
func TestAgainstAcpiexec(t *testing.T) { againstAcpiexec(t, deviceObjects) }

// againstAcpiexec compares objects (the names evaluated on every device)
// on the corpus machines and QEMU's DSDTs.
func againstAcpiexec(t *testing.T, objects []string) {
	bin, err := exec.LookPath("acpiexec")
	if err != nil {
		t.Skip("acpiexec not installed (Debian: acpica-tools; make deps-image installs it)")
	}
	all := os.Getenv("FWCHECK_ACPIEXEC_ALL") == "1"
	var total acpiexecCounts
	for _, m := range loadMachines(t) {
		if !all && !acpiexecSample[m.id] {
			continue
		}
		var raws [][]byte
		for _, tb := range append(m.tables.Get(acpi.SigDSDT), m.tables.Get(acpi.SigSSDT)...) {
			raws = append(raws, tb.Data())
		}
		total.add(compareAcpiexec(t, bin, m.id, m.ns, raws, objects))
	}
	// QEMU's own DSDTs (with their SSDT variant), pc and q35 by default
	dir := corpus.Dir(t, "acpi", "qemu")
	dsdts, _ := filepath.Glob(filepath.Join(dir, "*", "DSDT*"))
	for _, f := range dsdts {
		variant := strings.TrimPrefix(filepath.Base(f), "DSDT")
		if !all && variant != "" {
			continue
		}
		files := []string{f}
		if st, err := os.Stat(filepath.Join(filepath.Dir(f), "SSDT"+variant)); err == nil && !st.IsDir() {
			files = append(files, filepath.Join(filepath.Dir(f), "SSDT"+variant))
		}
		var tabs []Table
		var raws [][]byte
		for _, p := range files {
			tabs = append(tabs, readRaw(t, p))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			raws = append(raws, b)
		}
		ns, _ := Load(tabs...)
		total.add(compareAcpiexec(t, bin, "qemu/"+rel(dir, f), ns, raws, objects))
	}
	t.Logf("%d values compared, %d agree with acpiexec, %d differ as explained; %d not compared (they read OperationRegion fields, ask _OSI, or are not evaluable statically)",
		total.compared, total.agree, len(total.explained), total.skipped)
	for _, e := range total.explained {
		t.Log("explained: " + e)
	}
	if total.compared == 0 {
		t.Fatal("nothing compared")
	}
}

type acpiexecCounts struct {
	compared, agree, skipped int
	explained                []string // differences acpiexecKnown explains
}

func (c *acpiexecCounts) add(d acpiexecCounts) {
	c.compared, c.agree, c.skipped = c.compared+d.compared, c.agree+d.agree, c.skipped+d.skipped
	c.explained = append(c.explained, d.explained...)
}

// compareAcpiexec evaluates the objects of every device of ns here and
// with acpiexec over the raw tables (in load order), and reports each
// value that differs, unless acpiexecKnown explains it.
func compareAcpiexec(t *testing.T, bin, id string, ns *Namespace, raws [][]byte, objects []string) (c acpiexecCounts) {
	dir := t.TempDir()
	var files []string
	for i, b := range raws {
		f := filepath.Join(dir, fmt.Sprintf("t%02d.dat", i))
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	m := struct {
		id string
		ns *Namespace
	}{id, ns}
	compared, agree, skipped := 0, 0, 0
	askedOSI := false
	e := NewEvaluator(m.ns, Options{OnOSI: func(string, bool) { askedOSI = true }})
	// acpiexec runs every _REG when it installs its region handlers
	e.RunREG()
	// integers are 32 bits wide when the DSDT's revision is below 2
	width := 8
	if len(m.ns.Tables) > 0 && m.ns.Tables[0].Revision < 2 {
		width = 4
	}
	ours := map[string]string{}
	var paths []string
	m.ns.Walk(func(n *Node) bool {
		if n.InMethod || n.Conditional {
			// acpiexec creates conditional objects only when the
			// load-time code finds what they need
			return false
		}
		if n.External {
			// the OS has no External-only object, nor anything a Scope of
			// one declares (ACPICA drops the body)
			return false
		}
		if n.Type != TypeDevice {
			return true
		}
		if !strings.HasPrefix(n.Table, "DSDT") && !strings.HasPrefix(n.Table, "SSDT") {
			// a definition block the firmware's code brings in with
			// LoadTable (PRAD): acpiexec is given the DSDT and SSDTs
			// and does not run the _INI that loads it
			return false
		}
		for _, name := range objects {
			c := n.Child(name)
			if c == nil || c.External || c.Conditional {
				continue
			}
			askedOSI = false
			v, err := e.Evaluate(c)
			if err != nil || v == nil || e.FieldReads() > 0 || askedOSI {
				skipped++
				continue
			}
			ours[c.Path()] = canonical(acpicaRepair(name, v, width))
			paths = append(paths, c.Path())
		}
		return true
	})
	theirs := map[string]string{}
	broke := map[string]bool{}
	pending := paths
	for len(pending) > 0 {
		// commands go to the interactive prompt on standard input (a
		// -b batch line is limited to 1023 characters)
		var cmds strings.Builder
		for _, p := range pending {
			cmds.WriteString("evaluate " + p + "\n")
		}
		cmds.WriteString("quit\n")
		cmd := exec.Command(bin, append([]string{"-di"}, files...)...)
		cmd.Stdin = strings.NewReader(cmds.String())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: acpiexec: %v\n%s", m.id, err, out)
		}
		for k, v := range parseAcpiexec(string(out)) {
			theirs[k] = v
		}
		// acpiexec's debugger stops at a BreakPoint opcode and runs
		// nothing more: start again after the method that has one
		next := len(pending)
		for i, p := range pending {
			if _, ok := theirs[p]; !ok {
				next = i
				break
			}
		}
		if k := strings.Index(string(out), "Executed AML BreakPoint"); k >= 0 {
			// the evaluation that stopped is not compared (it
			// printed whatever the aborted method left)
			ev := strings.LastIndex(string(out[:k]), "Evaluating ")
			stopped := strings.TrimSpace(strings.SplitN(string(out[ev+len("Evaluating "):]), "\n", 2)[0])
			for i, p := range pending {
				if p == stopped {
					broke[p] = true
					next = i + 1
				}
			}
		} else if next < len(pending) {
			break
		}
		pending = pending[next:]
	}
	sort.Strings(paths)
	for _, p := range paths {
		if broke[p] {
			skipped++
			continue
		}
		compared++
		got, ok := theirs[p]
		why := ""
		if ok && got != ours[p] {
			why = acpiexecKnown(m.id, p, ours[p], got)
		}
		switch {
		case !ok:
			t.Errorf("%s %s: acpiexec printed no result", m.id, p)
		case why != "":
			c.explained = append(c.explained, m.id+" "+p+": "+why)
		case got != ours[p]:
			t.Errorf("%s %s:\n  ours:     %s\n  acpiexec: %s", m.id, p, ours[p], got)
		default:
			agree++
		}
	}
	c.compared, c.agree, c.skipped = compared, agree, skipped
	return c
}

// acpicaRepair applies the repairs ACPICA makes to a predefined object's
// value before acpiexec prints it (nsrepair.c, nsrepair2.c), so that
// values compare as the firmware's: the methods check reports the
// firmware's own as MethodReturnTypeRepaired (device-ids judges IDs).
func acpicaRepair(name string, v *Object, width int) *Object {
	if v == nil {
		return v
	}
	id := func(o *Object) *Object {
		if o != nil && o.Type == TypeString {
			// no leading '*', upper case
			return String(strings.ToUpper(strings.TrimPrefix(o.Str, "*")))
		}
		return o
	}
	switch name {
	case "_HID":
		return id(v)
	case "_CID":
		if v.Type == TypePackage {
			c := *v
			c.Pkg = make([]*Object, len(v.Pkg))
			for i, e := range v.Pkg {
				c.Pkg[i] = id(e)
			}
			return &c
		}
		return id(v)
	case "_PLD":
		switch v.Type {
		case TypeBuffer:
			// a bare Buffer is wrapped in a Package
			return &Object{Type: TypePackage, Pkg: []*Object{v}}
		case TypePackage:
			// Integer elements become Buffers of the integer width
			c := *v
			c.Pkg = make([]*Object, len(v.Pkg))
			for i, e := range v.Pkg {
				c.Pkg[i] = e
				if e != nil && e.Type == TypeInteger {
					b := make([]byte, 8)
					binary.LittleEndian.PutUint64(b, e.Int)
					c.Pkg[i] = Buffer(b[:width])
				}
			}
			return &c
		}
	case "_STR":
		if v.Type == TypeString {
			// a String becomes a UTF-16LE Buffer with its NUL
			var b []byte
			for _, r := range v.Str + "\x00" {
				b = append(b, byte(r), byte(r>>8))
			}
			return Buffer(b)
		}
	case "_BIF", "_BIX":
		// the string fields (model, serial, type, OEM information):
		// an Integer there becomes a String (0 the empty one)
		from := 9
		if name == "_BIX" {
			from = 16
		}
		if v.Type == TypePackage && len(v.Pkg) > from {
			c := *v
			c.Pkg = append([]*Object(nil), v.Pkg...)
			for i := from; i < len(c.Pkg); i++ {
				if e := c.Pkg[i]; e != nil && e.Type == TypeInteger && e.Int == 0 {
					c.Pkg[i] = String("")
				}
			}
			return &c
		}
	}
	return v
}

// acpiexecKnown says whose reading is right for a difference the
// comparison explains, "" for one it does not.
func acpiexecKnown(id, path, ours, theirs string) string {
	switch {
	case theirs == "failed AE_BUFFER_OVERFLOW":
		return "acpiexec's debugger cannot print the value (its display buffer); ours is the firmware's"
	case strings.HasSuffix(path, "._PCL") && strings.HasPrefix(ours, "Reference") && theirs == "failed AE_TYPE":
		return "both reject it: _PCL names a scope instead of returning a package (MethodReturnType); ACPICA says AE_TYPE"
	}
	if why, ok := acpiexecKnownValues[id+" "+path]; ok {
		return why
	}
	return ""
}

// acpiexecKnownValues are the differences read in the AML, with whose
// reading is right.
var acpiexecKnownValues = map[string]string{
	`3FE302D11C0A \_SB_.PCI0.GFX0.ISP0._ADR`: "acpiexec is right: load-time code it runs changes the value; this evaluator runs none",
	`3FE302D11C0A \_SB_.PCI0.GFX0.ISP0._DDN`: "acpiexec is right: load-time code it runs changes the value; this evaluator runs none",
	`3FE302D11C0A \_SB_.SDHB._HRV`:           "acpiexec is right: load-time code it runs changes the value; this evaluator runs none",
	`47908F284309 \_SB_.PCI0.GFX0.DD02._BQC`: "acpiexec is right: EC0._REG runs to its end there and sets BCLV = 0x50; " +
		"here _REG stops at TRAP's write to an OperationRegion field, so BCLV keeps its initial Zero",
	`68279BE5FE48 \_SB_.PC00.PEG1._DSD`: "neither: _DSD tests CondRefOf (PINI), a method SSDT9 declares inside a load-time If " +
		"whose condition reads memory; acpiexec's simulated memory makes it false, the namespace here keeps the object",
}

// canonical renders a value in the form parseAcpiexec gives acpiexec's.
func canonical(o *Object) string {
	if o == nil {
		return "Uninitialized"
	}
	switch o.Type {
	case TypeInteger:
		return fmt.Sprintf("Integer %X", o.Int)
	case TypeString:
		return fmt.Sprintf("String %q", o.Str)
	case TypeBuffer:
		return fmt.Sprintf("Buffer [% X]", o.Buf)
	case TypePackage:
		var els []string
		for _, e := range o.Pkg {
			els = append(els, canonical(e))
		}
		return "Package {" + strings.Join(els, ", ") + "}"
	case TypeReference:
		if o.Ref != nil {
			return "Reference " + o.Ref.Name
		}
	}
	return "Other " + o.Type.String()
}

// parseAcpiexec reads the results of acpiexec's evaluate commands: the
// value of each path, in canonical's form, or "failed AE_…".
func parseAcpiexec(out string) map[string]string {
	res := map[string]string{}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		const pre = "Evaluation of "
		if !strings.HasPrefix(l, pre) {
			continue
		}
		rest := l[len(pre):]
		sp := strings.IndexByte(rest, ' ')
		if sp < 0 {
			continue
		}
		path := rest[:sp]
		if k := strings.Index(rest, "failed with status "); k >= 0 {
			res[path] = "failed " + rest[k+len("failed with status "):]
			continue
		}
		if !strings.Contains(rest, "returned object") {
			continue
		}
		i++
		v, next := parseObject(lines, i)
		res[path] = v
		i = next - 1
	}
	return res
}

// parseObject parses the object printed at lines[i] and returns it with
// the index of the line after it.
func parseObject(lines []string, i int) (string, int) {
	if i >= len(lines) {
		return "Missing", i
	}
	l := strings.TrimSpace(lines[i])
	switch {
	case strings.HasPrefix(l, "[Integer] = "):
		var v uint64
		fmt.Sscanf(strings.TrimPrefix(l, "[Integer] = "), "%X", &v)
		return fmt.Sprintf("Integer %X", v), i + 1
	case strings.HasPrefix(l, "[String] "):
		q := strings.Index(l, `"`)
		s := ""
		if q >= 0 && strings.HasSuffix(l, `"`) && len(l) > q+1 {
			s = l[q+1 : len(l)-1]
		}
		return fmt.Sprintf("String %q", s), i + 1
	case strings.HasPrefix(l, "[Buffer] "):
		var bytes []string
		j := i + 1
		// a buffer of up to 16 bytes is dumped on the same line
		if k := strings.Index(l, "= "); k >= 0 && strings.Contains(l[k:], ": ") {
			first := strings.TrimSpace(l[k+2:])
			if c := strings.Index(first, "//"); c >= 0 {
				first = first[:c]
			}
			if c := strings.Index(first, ": "); c >= 0 {
				bytes = append(bytes, strings.Fields(first[c+2:])...)
			}
		}
		for ; j < len(lines); j++ {
			d := strings.TrimSpace(lines[j])
			c := strings.Index(d, ": ")
			if c != 4 {
				break
			}
			hexPart := d[c+2:]
			if k := strings.Index(hexPart, "//"); k >= 0 {
				hexPart = hexPart[:k]
			}
			bytes = append(bytes, strings.Fields(hexPart)...)
		}
		return "Buffer [" + strings.Join(bytes, " ") + "]", j
	case strings.HasPrefix(l, "[Package] Contains "):
		var n int
		fmt.Sscanf(strings.TrimPrefix(l, "[Package] Contains "), "%d", &n)
		var els []string
		j := i + 1
		for k := 0; k < n; k++ {
			var e string
			e, j = parseObject(lines, j)
			els = append(els, e)
		}
		return "Package {" + strings.Join(els, ", ") + "}", j
	case strings.HasPrefix(l, "[Object Reference] = "):
		f := strings.Fields(l)
		for k := 0; k+1 < len(f); k++ {
			if f[k] == "Name" {
				return "Reference " + f[k+1], i + 1
			}
		}
	}
	return "Other " + l, i + 1
}
