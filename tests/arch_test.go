package tests_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// madt is an MADT with one interrupt controller structure of type typ
// (0: local APIC, 0xB: GIC CPU interface), of length n.
func madt(typ byte, n int) []byte {
	body := make([]byte, 8+n)
	body[8], body[9] = typ, byte(n)
	return checktest.SDT("APIC", 5, body)
}

func x86Only() *tests.Check {
	return &tests.Check{ID: "x86-thing", Title: "t", Category: tests.CPU, Arch: tests.X86,
		Run: func(p *tests.Pass) error { p.Passed("ran"); return nil }}
}

func TestArchGating(t *testing.T) {
	snap := func(files map[string]string) *input.Machine {
		fsys := fstest.MapFS{}
		for k, v := range files {
			fsys[k] = &fstest.MapFile{Data: []byte(v)}
		}
		return input.New(checktest.Snapshot{FS: fsys}, input.Options{})
	}
	for name, tc := range map[string]struct {
		m      *input.Machine
		status tests.Status
		reason string
	}{
		"recorded arm64":     {snap(map[string]string{"fwcheck/arch.txt": "arm64\n"}), tests.StatusNotApplicable, "x86 only (this machine is arm64, from the snapshot)"},
		"recorded amd64":     {snap(map[string]string{"fwcheck/arch.txt": "amd64\n"}), tests.StatusPassed, ""},
		"arm64 cpuinfo":      {snap(map[string]string{"proc/cpuinfo": "processor\t: 0\nBogoMIPS\t: 125.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n"}), tests.StatusNotApplicable, "x86 only (this machine is arm64, from the snapshot)"},
		"x86 cpuinfo":        {snap(map[string]string{"proc/cpuinfo": "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu lm\n"}), tests.StatusPassed, ""},
		"unknown: it runs":   {snap(nil), tests.StatusPassed, ""},
		"x86 tables given":   {checktest.Machine(t, nil, checktest.Table{Raw: madt(0, 8)}), tests.StatusPassed, ""},
		"arm64 tables given": {checktest.Machine(t, nil, checktest.Table{Raw: madt(0xB, 80)}), tests.StatusNotApplicable, "x86 only (this machine is arm64, from the ACPI tables given)"},
	} {
		r := checktest.Run(t, x86Only(), tc.m)
		assert.Equal(t, tc.status, r.Status, name)
		assert.Equal(t, tc.reason, r.Reason, name)
	}
}

// An x86 acpidump read on an arm64 host (a snapshot recording arm64 here)
// is checked as x86: the tables given describe the machine they came from.
func TestArchTablesGivenWin(t *testing.T) {
	ts := &acpi.Tables{}
	ts.Add(&acpi.Table{Signature: "APIC", Raw: madt(0, 8)})
	dump := filepath.Join(t.TempDir(), "x86.txt")
	f, err := os.Create(dump)
	require.NoError(t, err)
	require.NoError(t, acpi.WriteDump(f, ts))
	require.NoError(t, f.Close())
	src := checktest.Snapshot{FS: fstest.MapFS{"fwcheck/arch.txt": {Data: []byte("arm64\n")}}}
	m := input.New(src, input.Options{Files: map[input.Decl]string{input.ACPITables: dump}})
	r := checktest.Run(t, x86Only(), m)
	assert.Equal(t, tests.StatusPassed, r.Status, r.Reason)
}

// A devicetree machine has no ACPI tables legally: checks that need them
// are not applicable, with the reason, not skipped.
func TestDevicetreeMachineACPIAbsent(t *testing.T) {
	m := input.New(checktest.Snapshot{FS: fstest.MapFS{input.FDTFile: {Data: []byte{0xd0, 0x0d, 0xfe, 0xed}}}}, input.Options{})
	c := &tests.Check{ID: "needs-acpi", Title: "t", Category: tests.ACPI, Inputs: []input.Decl{input.ACPITables},
		Run: func(p *tests.Pass) error { p.Passed("ran"); return nil }}
	r := checktest.Run(t, c, m)
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
	assert.Contains(t, r.Reason, "devicetree (/sys/firmware/fdt)")
	// Without the devicetree, the same snapshot's missing tables skip.
	r = checktest.Run(t, c, input.New(checktest.Snapshot{FS: fstest.MapFS{}}, input.Options{}))
	assert.Equal(t, tests.StatusSkipped, r.Status)
}
