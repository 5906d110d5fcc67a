package mcfg

import (
	"testing"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/memmap"
)

func TestMCFG(t *testing.T) {
	cases := []struct {
		name    string
		entries [][]byte
		want    []string
	}{
		{"clean", [][]byte{checktest.MCFGEntry(0xE0000000, 0, 0, 255)}, nil},
		{"two segments", [][]byte{checktest.MCFGEntry(0xE0000000, 0, 0, 127), checktest.MCFGEntry(0xF0000000, 1, 0, 63)}, nil},
		{"no entries", nil, []string{"MCFGNoEntries"}},
		{"null base", [][]byte{checktest.MCFGEntry(0, 0, 0, 255)}, []string{"MCFGNullBase"}},
		{"unaligned", [][]byte{checktest.MCFGEntry(0xE0001000, 0, 0, 255)}, []string{"MCFGBaseAlignment"}},
		{"bus range", [][]byte{checktest.MCFGEntry(0xE0000000, 0, 10, 5)}, []string{"MCFGBusRange"}},
		{"same buses twice", [][]byte{checktest.MCFGEntry(0xE0000000, 0, 0, 63), checktest.MCFGEntry(0xD0000000, 0, 32, 63)}, []string{"MCFGOverlap", "MCFGOverlap"}},
		{"windows overlap", [][]byte{checktest.MCFGEntry(0xE0000000, 0, 0, 255), checktest.MCFGEntry(0xE8000000, 1, 0, 63)}, []string{"MCFGOverlap", "MCFGOverlap"}},
		{"reserved field", [][]byte{append(checktest.MCFGEntry(0xE0000000, 0, 0, 255)[:12], 1, 0, 0, 0)}, []string{"MCFGReservedNonZero"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, checktest.FADT(nil), checktest.MCFG(c.entries...))
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}
	trailing := checktest.MCFG(checktest.MCFGEntry(0xE0000000, 0, 0, 255))
	trailing = checktest.SDT("MCFG", 1, append(trailing[36:], 0, 0, 0))
	assert.Equal(t, []string{"MCFGTableLength"}, checktest.FailLabels(checktest.RunTables(t, Check, trailing)))
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.FADT(nil)).Status, "no MCFG is legal")
}

// Overlaps are reported once per distinct region, with counts: an MCFG of
// 2,000 identical entries gave a finding per pair (2 million).
func TestMCFGOverlapsGrouped(t *testing.T) {
	var es [][]byte
	for range 2000 {
		es = append(es, checktest.MCFGEntry(0xB0000000, 0, 0, 255))
	}
	es = append(es, checktest.MCFGEntry(0xB8000000, 1, 0, 15)) // inside the first window
	es = append(es, checktest.MCFGEntry(0xC0000000, 0, 200, 255))
	es = append(es, checktest.MCFGEntry(0xD0000000, 2, 0, 15)) // clean
	r := checktest.RunTables(t, Check, checktest.FADT(nil), checktest.MCFG(es...))
	var msgs []string
	for _, f := range checktest.FindingsWith(r, "MCFGOverlap") {
		msgs = append(msgs, f.Message)
	}
	assert.Equal(t, []string{
		"entry 0 (segment 0, buses 0-255, base 0xb0000000): appears 2000 times (entries 0, 1, 2, 3, … 1999); " +
			"shares buses with 1 other entry of segment 0; its ECAM window 0xb0000000-0xbfffffff overlaps the window of 1 other entry",
		"entry 2000 (segment 1, buses 0-15, base 0xb8000000): its ECAM window 0xb8000000-0xb8ffffff overlaps the window of 2000 other entries",
		"entry 2001 (segment 0, buses 200-255, base 0xc0000000): shares buses with 2000 other entries of segment 0",
	}, msgs)
}

func TestMCFGReservedInMemoryMap(t *testing.T) {
	mcfg := checktest.Table{Raw: checktest.MCFG(checktest.MCFGEntry(0xE0000000, 0, 0, 63))}
	ram := memmap.Range{Start: 0, End: 0x9FFFF, Type: "System RAM"}
	cases := []struct {
		name string
		mm   []memmap.Range
		want []string
	}{
		{"reserved", []memmap.Range{ram, {Start: 0xE0000000, End: 0xEFFFFFFF, Type: "Reserved"}}, nil},
		{"partly reserved", []memmap.Range{ram, {Start: 0xE0000000, End: 0xE1FFFFFF, Type: "Reserved"}}, []string{"MCFGNotReserved"}},
		{"RAM", []memmap.Range{{Start: 0, End: 0xFFFFFFFF, Type: "System RAM"}}, []string{"MCFGNotReserved"}},
		{"absent from the map", []memmap.Range{ram}, []string{"MCFGNotReserved"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Reserved, checktest.Machine(t, c.mm, mcfg))
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}
	r := checktest.Run(t, Reserved, checktest.Machine(t, nil, mcfg))
	assert.Equal(t, tests.StatusSkipped, r.Status, "no memory map: skipped, not failed")
}
