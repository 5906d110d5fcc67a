package tests

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/acpi"
)

// synthHPET builds a clean HPET table; mod may change its body.
func synthHPET(mod func(b []byte)) []byte {
	body := make([]byte, acpi.HPETSize-acpi.HeaderSize)
	binary.LittleEndian.PutUint32(body, 0x8086A201)
	copy(body[4:], []byte{0, 64, 0, 0, 0, 0, 0xD0, 0xFE, 0, 0, 0, 0})
	binary.LittleEndian.PutUint16(body[53-acpi.HeaderSize:], 128)
	if mod != nil {
		mod(body)
	}
	return sdtRaw("HPET", 1, body)
}

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
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCheck(t, "hpet", synthFADT(nil), synthHPET(c.mod))
			assert.Equal(t, c.want, failLabels(r))
		})
	}
	short := sdtRaw("HPET", 1, make([]byte, 10))
	assert.Equal(t, []string{"HPETTableLength"}, failLabels(runCheck(t, "hpet", short)))
	r := runCheck(t, "hpet", synthFADT(nil))
	assert.Equal(t, StatusPassed, r.Status, "no HPET is not a failure")
}
