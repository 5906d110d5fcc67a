package aml

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
)

func corpusMachine(t *testing.T, id string) (*Namespace, []Problem) {
	t.Helper()
	f := filepath.Join(corpus.Dir(t, "acpi", "linuxhw", "full"), id+".acpidump.txt.gz")
	ts, err := acpi.LoadDumpFile(f)
	require.NoError(t, err)
	return Load(Definitions(ts)...)
}

func problemsOf(probs []Problem, k Kind) []string {
	var out []string
	for _, p := range probs {
		if p.Kind == k {
			out = append(out, p.String())
		}
	}
	return out
}

// TestRunTimeTables: on real machines, the tables firmware loads at run
// time are found and loaded last, and what an absent one may define is
// RunTimeOnly, not Unresolved.
func TestRunTimeTables(t *testing.T) {
	// 11618970C18C: CpuPm loads Cpu0Ist, ApIst, Cpu0Cst, ApCst from its
	// SSDT package; the dump lacks Cpu0Cst, which defines \_PR.CPU0._CST
	// that ApCst's _CST methods return
	ns, probs := corpusMachine(t, "11618970C18C")
	loaded := map[string]string{}
	for _, ld := range ns.RunTimeLoads() {
		loaded[ld.Want] = ld.Loaded
	}
	assert.Equal(t, "", loaded["CPU0CST"])
	assert.NotEmpty(t, loaded["APCST"])
	assert.Equal(t, ns.Tables[len(ns.Tables)-1].Name, loaded["APIST"], "run-time tables load last")
	assert.Empty(t, problemsOf(probs, Unresolved))
	rt := problemsOf(probs, RunTimeOnly)
	require.Len(t, rt, 7)
	assert.Contains(t, rt[0], `\_PR.CPU0._CST not found`)
	assert.Contains(t, rt[0], "table CPU0CST")
	e := NewEvaluator(ns, Options{})
	_, err := e.EvaluatePath(`\_PR.CPU1._CST`)
	var ee *EvalError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, "CPU0CST", ee.RunTime)

	// 01ACEA39AAB2: the DSDT's _INI runs LoadTable ("PRAD", ...): the
	// PRAD definition block is part of the namespace
	ns, _ = corpusMachine(t, "01ACEA39AAB2")
	assert.NotNil(t, ns.Lookup(`\_SB_.PRAD._HID`))
}

// TestLoadOrderAndExternalSearch: load-time code using an object only a
// later table defines is LoadOrder (477A3C520BE9: If (RPIN == Zero) in
// SSDT5, RPIN from SSDT10), a region operand is not (deferred); a
// single-segment search goes past an External placeholder to a defined
// object further up (68279BE5FE48: \GPRW, not \_SB.PC00.PEG0.GPRW).
func TestLoadOrderAndExternalSearch(t *testing.T) {
	_, probs := corpusMachine(t, "477A3C520BE9")
	lo := problemsOf(probs, LoadOrder)
	require.NotEmpty(t, lo)
	for _, p := range lo {
		assert.Contains(t, p, `\RPIN`)
	}
	_, probs = corpusMachine(t, "336D5712545D")
	assert.Empty(t, problemsOf(probs, LoadOrder), "OperationRegion (…, XBAS + …) is evaluated after every table is loaded")

	ns, probs := corpusMachine(t, "68279BE5FE48")
	for _, p := range problemsOf(probs, ExternalOnly) {
		assert.NotContains(t, p, ".GPRW")
	}
	n := ns.Lookup(`\_SB_.PC00.PEG0`)
	require.NotNil(t, n)
	assert.Equal(t, `\GPRW`, ns.Resolve(n, "GPRW").Path())
	_, devices, ext := ns.Counts()
	assert.Greater(t, devices, 0)
	assert.Greater(t, ext, 0)
	var b strings.Builder
	require.NoError(t, ns.Dump(&b))
	head, tail, ok := strings.Cut(b.String(), "# External only")
	require.True(t, ok)
	assert.NotContains(t, head, "External only,")
	assert.Contains(t, tail, `\_SB.PC00.PEG0.GPRW  Method (2 args)  [External only`)
}

// loadTwice is how Load ordered the tables before its probe: a complete
// load in the given order, and a second in the run-time order when that
// differs.
func loadTwice(tables ...Table) (*Namespace, []Problem) {
	ns, probs := load(tables, false)
	if len(tables) > 1 {
		if order := runTimeOrder(tables, ns.loads); order != nil {
			return load(order, false)
		}
	}
	return ns, probs
}

// TestLoadProbeCorpus: on every corpus dump (36 full, 120 core) the
// probing Load builds the same namespace (every object, method-local
// ones included), problems, run-time loads and table order as two
// complete loads did.
func TestLoadProbeCorpus(t *testing.T) {
	files := corpus.Glob(t, "acpi/linuxhw/full/*.acpidump.txt.gz")
	files = append(files, corpus.Glob(t, "acpi/linuxhw/core/*.acpidump.txt")...)
	reordered := 0
	for _, f := range files {
		ts, err := acpi.LoadDumpFile(f)
		require.NoError(t, err)
		defs := Definitions(ts)
		want, wantProbs := loadTwice(defs...)
		got, gotProbs := Load(defs...)
		var w, g strings.Builder
		require.NoError(t, want.DumpAll(&w))
		require.NoError(t, got.DumpAll(&g))
		name := filepath.Base(f)
		assert.Equal(t, w.String(), g.String(), name)
		assert.Equal(t, wantProbs, gotProbs, name)
		assert.Equal(t, want.loads, got.loads, name)
		var wo, gotOrder []string
		for i := range want.Tables {
			wo = append(wo, want.Tables[i].Name)
			gotOrder = append(gotOrder, got.Tables[i].Name)
		}
		assert.Equal(t, wo, gotOrder, name)
		if runTimeOrder(defs, want.loads) != nil || !assert.ObjectsAreEqual(wo, tableNames(defs)) {
			reordered++
		}
	}
	// the corpus has machines whose run-time tables are reordered: the
	// test covers the probe's main path
	assert.Greater(t, reordered, 0)
	t.Logf("%d dumps, %d with tables loaded at run time moved last", len(files), reordered)
}

func tableNames(ts []Table) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestMayLoad(t *testing.T) {
	assert.False(t, mayLoad(nil))
	assert.False(t, mayLoad([]byte{0x5B}))
	assert.False(t, mayLoad([]byte{0x5B, 0x80, 0x20, 0x1F}))
	assert.True(t, mayLoad([]byte{0x10, 0x5B, 0x20}))
	assert.True(t, mayLoad([]byte{0x5B, 0x5B, 0x1F}))
}

// TestMayLoadTablesCorpus: a method whose MayLoadTables is false holds no
// Load or LoadTable term in its body or the bodies nested in it, on every
// corpus machine (findLoads and the methods check skip such bodies), and
// the machines with run-time loads have methods where it is true.
func TestMayLoadTablesCorpus(t *testing.T) {
	ms := loadMachines(t)
	skipped, walked := 0, 0
	for _, m := range ms {
		m.ns.Walk(func(n *Node) bool {
			if n.Method == nil || len(n.Method.Body) == 0 {
				return true
			}
			if n.Method.MayLoadTables() {
				walked++
				return true
			}
			skipped++
			WalkTerms(n.Method.Body, func(x *Term) bool {
				if x.Op == OpLoad || x.Op == OpLoadTable {
					t.Errorf("%s: %s holds %s at %s+0x%X but MayLoadTables is false", m.id, n.Path(), x.Op, n.Table, x.Offset)
				}
				return true
			})
			return true
		})
		if len(m.ns.RunTimeLoads()) > 0 && !m.ns.HasLoadTerms() {
			t.Errorf("%s: run-time loads without Load terms", m.id)
		}
	}
	t.Logf("%d method bodies skipped, %d walked", skipped, walked)
	assert.Positive(t, walked)
	assert.Greater(t, skipped, 100*walked)
}
