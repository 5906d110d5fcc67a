package tests

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
)

func mcfgEntry(base uint64, seg uint16, start, end byte) []byte {
	e := make([]byte, 16)
	binary.LittleEndian.PutUint64(e, base)
	binary.LittleEndian.PutUint16(e[8:], seg)
	e[10], e[11] = start, end
	return e
}

func synthMCFG(entries ...[]byte) []byte {
	body := make([]byte, 8)
	for _, e := range entries {
		body = append(body, e...)
	}
	return sdtRaw("MCFG", 1, body)
}

func TestMCFG(t *testing.T) {
	cases := []struct {
		name    string
		entries [][]byte
		want    []string
	}{
		{"clean", [][]byte{mcfgEntry(0xE0000000, 0, 0, 255)}, nil},
		{"two segments", [][]byte{mcfgEntry(0xE0000000, 0, 0, 127), mcfgEntry(0xF0000000, 1, 0, 63)}, nil},
		{"no entries", nil, []string{"MCFGNoEntries"}},
		{"null base", [][]byte{mcfgEntry(0, 0, 0, 255)}, []string{"MCFGNullBase"}},
		{"unaligned", [][]byte{mcfgEntry(0xE0001000, 0, 0, 255)}, []string{"MCFGBaseAlignment"}},
		{"bus range", [][]byte{mcfgEntry(0xE0000000, 0, 10, 5)}, []string{"MCFGBusRange"}},
		{"same buses twice", [][]byte{mcfgEntry(0xE0000000, 0, 0, 63), mcfgEntry(0xD0000000, 0, 32, 63)}, []string{"MCFGOverlap"}},
		{"windows overlap", [][]byte{mcfgEntry(0xE0000000, 0, 0, 255), mcfgEntry(0xE8000000, 1, 0, 63)}, []string{"MCFGOverlap"}},
		{"reserved field", [][]byte{append(mcfgEntry(0xE0000000, 0, 0, 255)[:12], 1, 0, 0, 0)}, []string{"MCFGReservedNonZero"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCheck(t, "mcfg", synthFADT(nil), synthMCFG(c.entries...))
			assert.Equal(t, c.want, failLabels(r), "%+v", r.Findings)
		})
	}
	trailing := synthMCFG(mcfgEntry(0xE0000000, 0, 0, 255))
	trailing = sdtRaw("MCFG", 1, append(trailing[36:], 0, 0, 0))
	assert.Equal(t, []string{"MCFGTableLength"}, failLabels(runCheck(t, "mcfg", trailing)))
	assert.Equal(t, StatusPassed, runCheck(t, "mcfg", synthFADT(nil)).Status)
}

func TestMCFGReservedInMemoryMap(t *testing.T) {
	mcfg := synthTable{raw: synthMCFG(mcfgEntry(0xE0000000, 0, 0, 63))}
	ram := input.MemoryRange{Start: 0, End: 0x9FFFF, Type: "System RAM"}
	cases := []struct {
		name string
		mm   []input.MemoryRange
		want []string
	}{
		{"reserved", []input.MemoryRange{ram, {Start: 0xE0000000, End: 0xEFFFFFFF, Type: "Reserved"}}, nil},
		{"partly reserved", []input.MemoryRange{ram, {Start: 0xE0000000, End: 0xE1FFFFFF, Type: "Reserved"}}, []string{"MCFGNotReserved"}},
		{"RAM", []input.MemoryRange{{Start: 0, End: 0xFFFFFFFF, Type: "System RAM"}}, []string{"MCFGNotReserved"}},
		{"absent from the map", []input.MemoryRange{ram}, []string{"MCFGNotReserved"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCheckOn(t, "mcfg-reserved", synthMachine(t, c.mm, mcfg))
			assert.Equal(t, c.want, failLabels(r), "%+v", r.Findings)
		})
	}
	r := runCheckOn(t, "mcfg-reserved", synthMachine(t, nil, mcfg))
	assert.Equal(t, StatusSkipped, r.Status, "no memory map: skipped, not failed")
}
