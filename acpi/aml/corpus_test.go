package aml

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
)

// knownMalformed explains every Malformed problem the corpus yields: each is
// a genuine firmware error, not a parser limitation.
var knownMalformed = map[string]string{
	// SSDT3 declares External (\_SB.PCI0.I2C1.TPD0.ZDSM, MethodObj) with 0
	// arguments and calls it with none, but the DSDT's ZDSM takes 4. Parsed
	// against the loaded namespace (as ACPICA does when it runs the
	// method), the call swallows the next four terms and runs off the end
	// of its Else block. The Conflict problem at SSDT3+0xC3 names the
	// cause; iasl -d of SSDT3 alone trusts the External and does not see
	// it.
	"477A3C520BE9 SSDT3+0x19E2": "ZDSM called with 0 arguments, defined with 4",
}

type machine struct {
	id     string
	tables *acpi.Tables
	defs   []Table
	ns     *Namespace
	probs  []Problem
}

func loadMachines(tb testing.TB) []*machine {
	tb.Helper()
	files := corpus.Glob(tb, "acpi/linuxhw/full/*.acpidump.txt.gz")
	sort.Strings(files)
	var out []*machine
	for _, f := range files {
		ts, err := acpi.LoadDumpFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		m := &machine{id: strings.SplitN(filepath.Base(f), ".", 2)[0], tables: ts, defs: Definitions(ts)}
		m.ns, m.probs = Load(m.defs...)
		out = append(out, m)
	}
	return out
}

// TestCorpusLinuxhw loads the DSDT and SSDTs of every full dump: no
// Malformed or BadName problem beyond the explained ones, and the other
// findings (duplicates, unresolved names, External conflicts) match the
// reviewed list in testdata/corpus-problems.txt (regenerate with
// FWCHECK_UPDATE=1 and review the diff).
func TestCorpusLinuxhw(t *testing.T) {
	ms := loadMachines(t)
	var report strings.Builder
	kinds := map[Kind]int{}
	dsdts, ssdts := 0, 0
	for _, m := range ms {
		for _, d := range m.defs {
			switch d.Signature {
			case "DSDT":
				dsdts++
			case "SSDT":
				ssdts++
			}
		}
		for _, p := range m.probs {
			kinds[p.Kind]++
			key := m.id + " " + p.Table + fmt.Sprintf("+0x%X", p.Offset)
			switch p.Kind {
			case Malformed, BadName:
				if _, ok := knownMalformed[key]; !ok {
					t.Errorf("%s: %s", m.id, p)
				}
			case ExternalOnly:
				continue // numerous and mostly benign; counted only
			}
			fmt.Fprintf(&report, "%s %s\n", m.id, p)
		}
		if m.ns.Nodes() < 100 {
			t.Errorf("%s: only %d namespace nodes", m.id, m.ns.Nodes())
		}
	}
	t.Logf("%d machines, %d DSDTs, %d SSDTs; problems by kind: %v", len(ms), dsdts, ssdts, kinds)
	if dsdts != 36 || ssdts != 431 {
		t.Errorf("corpus has %d DSDTs and %d SSDTs, want 36 and 431", dsdts, ssdts)
	}
	golden(t, "testdata/corpus-problems.txt", report.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if os.Getenv("FWCHECK_UPDATE") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with FWCHECK_UPDATE=1 to create it)", err)
	}
	if string(want) != got {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		ws, gs := map[string]bool{}, map[string]bool{}
		for _, l := range wl {
			ws[l] = true
		}
		for _, l := range gl {
			gs[l] = true
		}
		n := 0
		for _, l := range gl {
			if !ws[l] && n < 20 {
				t.Errorf("new: %s", l)
				n++
			}
		}
		for _, l := range wl {
			if !gs[l] && n < 20 {
				t.Errorf("gone: %s", l)
				n++
			}
		}
		t.Errorf("%s differs (FWCHECK_UPDATE=1 rewrites it)", path)
	}
}

// knownQEMU explains the problems QEMU's own tables have, each
// confirmed by iasl -d ("Failure creating named object …
// AE_ALREADY_EXISTS").
var knownQEMU = map[string]string{
	"q35/DSDT.cxl DSDT+0x1D0B": "the CXL host bridge CLDE declares _UID twice",
	"q35/DSDT.cxl DSDT+0x1F57": "the CXL host bridge CL0C declares _UID twice",
}

// TestCorpusQEMU loads the QEMU DSDTs, each with the SSDT of the same
// variant when there is one.
func TestCorpusQEMU(t *testing.T) {
	dir := corpus.Dir(t, "acpi", "qemu")
	dsdts, _ := filepath.Glob(filepath.Join(dir, "*", "DSDT*"))
	if len(dsdts) == 0 {
		corpus.Missing(t, "no QEMU DSDTs in %s", dir)
	}
	for _, f := range dsdts {
		tabs := []Table{readRaw(t, f)}
		variant := strings.TrimPrefix(filepath.Base(f), "DSDT")
		if ssdt, err := os.Stat(filepath.Join(filepath.Dir(f), "SSDT"+variant)); err == nil && !ssdt.IsDir() {
			tabs = append(tabs, readRaw(t, filepath.Join(filepath.Dir(f), "SSDT"+variant)))
		}
		ns, probs := Load(tabs...)
		for _, p := range probs {
			key := rel(dir, f) + " " + fmt.Sprintf("%s+0x%X", p.Table, p.Offset)
			if why, ok := knownQEMU[key]; ok {
				t.Logf("%s: %s (known: %s)", rel(dir, f), p, why)
				continue
			}
			t.Errorf("%s: %s", rel(dir, f), p)
		}
		if ns.Lookup(`\_SB.PCI0`) == nil && ns.Lookup(`\_SB`) == nil {
			t.Errorf("%s: no \\_SB", rel(dir, f))
		}
	}
	t.Logf("%d QEMU DSDTs", len(dsdts))
}

func rel(dir, f string) string { r, _ := filepath.Rel(dir, f); return r }

func readRaw(tb testing.TB, path string) Table {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	ts := &acpi.Tables{}
	sig := "SSDT"
	if len(b) >= 4 {
		sig = string(b[:4])
	}
	ts.Add(&acpi.Table{Signature: sig, Raw: b})
	return FromACPI(ts.List[0])
}

// declCounts counts the Device, Method, Name and OperationRegion
// declarations in a table's parse tree, as iasl's disassembly shows them.
func declCounts(code []*Term) map[string]int {
	c := map[string]int{}
	WalkTerms(code, func(t *Term) bool {
		switch t.Op {
		case OpDevice, OpMethod, OpRegion:
			c[t.Op.String()]++
		case OpName:
			if !switchTemp.MatchString(t.Name) {
				c["Name"]++
			}
		}
		return true
	})
	return c
}

// switchTemp matches the _T_n temporaries iasl's Switch uses; the
// disassembler folds them back into Switch, so they are not compared.
var switchTemp = regexp.MustCompile(`(^|\.)_T_[0-9A-Z]$`)

var blockComment = regexp.MustCompile(`/\*.*?\*/`)

// iaslDecl finds declarations in a line of iasl output. Not anchored at
// the start: where iasl has to guess an External method's argument
// count, it can print two declarations on one line.
var iaslDecl = regexp.MustCompile(`\b(Device|Method|Name|OperationRegion) \(([^,)]*)`)

// iaslCounts disassembles one table with iasl and counts the same
// declarations in its output.
func iaslCounts(tb testing.TB, iasl, dir string, t *acpi.Table) map[string]int {
	tb.Helper()
	name := strings.ToLower(t.Name())
	dat := filepath.Join(dir, name+".dat")
	if err := os.WriteFile(dat, t.Data(), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(iasl, "-d", name+".dat")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("iasl -d %s: %v\n%s", name, err, out)
	}
	dsl, err := os.ReadFile(filepath.Join(dir, name+".dsl"))
	if err != nil {
		tb.Fatal(err)
	}
	c := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(dsl))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = blockComment.ReplaceAllString(line, "")
		if strings.Contains(line, "External (") {
			continue
		}
		for _, m := range iaslDecl.FindAllStringSubmatch(line, -1) {
			if m[1] == "Name" && switchTemp.MatchString(strings.TrimSpace(m[2])) {
				continue
			}
			c[m[1]]++
		}
	}
	return c
}

// TestCountsAgainstIasl compares, table by table, the declarations this
// parser finds with those in iasl's disassembly, for a few machines of
// different vendors and ages (FWCHECK_IASL_ALL=1: every machine). It
// needs iasl (Debian's acpica-tools) and skips without it.
func TestCountsAgainstIasl(t *testing.T) {
	iasl, err := exec.LookPath("iasl")
	if err != nil {
		t.Skip("iasl not installed (apt-get install acpica-tools)")
	}
	if testing.Short() {
		t.Skip("short")
	}
	want := map[string]bool{"01ACEA39AAB2": true, "04DDF3A09383": true, "477A3C520BE9": true,
		"4B89F57A5AA6": true, "68279BE5FE48": true, "CE92DF29C87C": true}
	tables := 0
	for _, m := range loadMachines(t) {
		if !want[m.id] && os.Getenv("FWCHECK_IASL_ALL") == "" {
			continue
		}
		dir := t.TempDir()
		byName := map[string]*acpi.Table{}
		for _, at := range m.tables.List {
			byName[at.Name()] = at // DSDT, SSDTs and LoadTable's definition blocks (PRAD)
		}
		for _, tab := range m.ns.Tables {
			if tab.Signature != "DSDT" && tab.Signature != "SSDT" {
				continue // iasl -d does not disassemble a PRAD
			}
			got := declCounts(tab.Code)
			exp := iaslCounts(t, iasl, dir, byName[tab.Name])
			tables++
			for _, k := range []string{"Device", "Method", "Name", "OperationRegion"} {
				if got[k] != exp[k] {
					t.Errorf("%s %s: %d %s declarations, iasl shows %d", m.id, tab.Name, got[k], k, exp[k])
				}
			}
		}
	}
	t.Logf("%d tables compared with iasl", tables)
}
