package tablecheck

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/memmap"
)

func TestCoverage(t *testing.T) {
	mm := []memmap.Range{{Start: 0, End: 0x9FFFF, Type: "System RAM"}, {Start: 0xA0000, End: 0xFFFFF, Type: "Reserved"},
		{Start: 0x100000, End: 0x1FFFFF, Type: "ACPI Non-volatile Storage"}}
	ok, _ := Reserved(mm, 0xF0000, 0x10FFFF)
	assert.True(t, ok, "reserved and ACPI NVS together cover it")
	ok, what := Reserved(mm, 0x9F000, 0xA0FFF)
	assert.False(t, ok)
	assert.Equal(t, "0x0-0x9ffff System RAM, 0xa0000-0xfffff Reserved", what)
	ok, what = Mapped(mm, 0x200000, 0x200FFF)
	assert.False(t, ok)
	assert.Equal(t, "no memory map entry", what)
	ok, _ = Mapped(mm, 0x9F000, 0xA0FFF)
	assert.True(t, ok)
	ok, _ = Reserved(mm, 5, 4)
	assert.False(t, ok, "an empty range is never covered")
	assert.Equal(t, "2 4 5", IDList(map[uint8]bool{5: true, 2: true, 4: true}))
	assert.Equal(t, "none", IDList(nil))
	assert.Equal(t, "zero", Nonzero(0))
	assert.Equal(t, "nonzero (0xcc)", Nonzero(0xCC))
}
