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
