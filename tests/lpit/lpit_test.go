package lpit

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// state builds a native C-state structure like the corpus ones: MWAIT
// hint 0x60 entry trigger, PKG C10 residency MSR 0x632 as the counter.
func state(id uint16, flags uint32, mod func(b []byte)) []byte {
	b := make([]byte, 56)
	binary.LittleEndian.PutUint32(b[4:], 56)
	binary.LittleEndian.PutUint16(b[8:], id)
	binary.LittleEndian.PutUint32(b[12:], flags)
	copy(b[16:], []byte{0x7F, 1, 2, 0, 0x60})
	binary.LittleEndian.PutUint32(b[28:], 30000)
	binary.LittleEndian.PutUint32(b[32:], 3000)
	copy(b[36:], []byte{0x7F, 0x40, 0, 0, 0x32, 6})
	if mod != nil {
		mod(b)
	}
	return b
}

func lpit(rev byte, states ...[]byte) []byte {
	var body []byte
	for _, s := range states {
		body = append(body, s...)
	}
	return checktest.SDT("LPIT", rev, body)
}

func TestLPIT(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", lpit(1, state(0, 0, nil), state(1, 0, nil)), nil},
		{"disabled state without trigger", lpit(1, state(0, 1, func(b []byte) { copy(b[16:28], make([]byte, 12)) })), nil},
		{"no counter, flagged", lpit(1, state(0, 2, func(b []byte) { copy(b[36:48], make([]byte, 12)) })), nil},
		{"memory-mapped counter", lpit(1, state(0, 0, func(b []byte) { b[36] = 0 })), nil},
		{"revision 0", lpit(0, state(0, 0, nil)), []string{"LPITRevision"}},
		{"duplicate ID", lpit(1, state(3, 0, nil), state(3, 0, nil)), []string{"LPITDuplicateID"}},
		{"reserved flag", lpit(1, state(0, 4, nil)), []string{"LPITReservedBits"}},
		{"counter in I/O space", lpit(1, state(0, 0, func(b []byte) { b[36] = 1 })), []string{"LPITResidencyCounter"}},
		{"counter zero", lpit(1, state(0, 0, func(b []byte) { copy(b[36:48], make([]byte, 12)) })), []string{"LPITResidencyCounter"}},
		{"no entry trigger", lpit(1, state(0, 0, func(b []byte) { copy(b[16:28], make([]byte, 12)) })), []string{"LPITEntryTrigger"}},
		{"short structure", lpit(1, state(0, 0, nil)[:40]), []string{"LPITStructureLength"}},
		{"declared short", lpit(1, state(0, 0, func(b []byte) { b[4] = 40 })[:40]), []string{"LPITStructureSize"}},
		{"zero length", lpit(1, state(0, 0, nil), make([]byte, 8)), []string{"LPITStructureLength"}},
		{"reserved type is info", lpit(1, state(0, 0, nil), []byte{1, 0, 0, 0, 8, 0, 0, 0}), nil},
		{"empty", lpit(1), []string{"LPITNoStates"}},
		{"truncated", checktest.SDT("LPIT", 1, nil)[:30], []string{"LPITMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tablecheck.Labels(checktest.RunTables(t, Check, c.raw)))
		})
	}
	r := checktest.RunTables(t, Check, lpit(1, state(0, 0, nil)))
	assert.Equal(t, tests.StatusPassed, r.Status)
	r = checktest.RunTables(t, Check, lpit(1))
	for _, f := range r.Findings {
		assert.NotEqual(t, tests.KindPass, f.Kind, "a table with a warning is not summarised as passed: %s", f.Message)
	}
}
