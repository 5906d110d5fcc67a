package hpet

import (
	"testing"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/acpi"
)

func TestHPET(t *testing.T) {
	cases := []struct {
		name string
		mod  func(b []byte)
		want []string
	}{
		{"clean", nil, nil},
		{"null base", func(b []byte) { copy(b[8:12], []byte{0, 0, 0, 0}) }, []string{"HPETNullBase"}},
		{"upper bits", func(b []byte) { b[12] = 1 }, []string{"HPETBaseAbove4G"}},
		{"I/O space", func(b []byte) { b[4] = 1 }, []string{"HPETAddressSpace"}},
		{"two comparators", func(b []byte) { b[1] = 0xA1 }, []string{"HPETComparatorCount"}},
		{"page protection", func(b []byte) { b[55-acpi.HeaderSize] = 3 }, []string{"HPETPageProtection"}},
		{"OEM attribute bits are fine", func(b []byte) { b[55-acpi.HeaderSize] = 0x51 }, nil},
		{"tick 0", func(b []byte) { b[53-acpi.HeaderSize] = 0 }, []string{"HPETMinClockTick"}},
		{"vendor 0x0000", func(b []byte) { b[2], b[3] = 0, 0 }, []string{"HPETVendorID"}},
		{"vendor 0xFFFF", func(b []byte) { b[2], b[3] = 0xFF, 0xFF }, []string{"HPETVendorID"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, checktest.FADT(nil), checktest.HPET(c.mod))
			assert.Equal(t, c.want, checktest.FailLabels(r))
		})
	}
	short := checktest.SDT("HPET", 1, make([]byte, 10))
	assert.Equal(t, []string{"HPETTableLength"}, checktest.FailLabels(checktest.RunTables(t, Check, short)))
	r := checktest.RunTables(t, Check, checktest.FADT(nil))
	assert.Equal(t, tests.StatusNotApplicable, r.Status, "no HPET is legal: not a failure, and not a pass")
}
