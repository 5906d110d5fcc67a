package prw

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func TestPRW(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), b)
	got := checktest.Labelled(r)
	assert.Equal(t, []string{
		`PRWGPEOutOfRange: \_SB.HIGH._PRW: GPE 0x40, but the FADT's GPE0 block holds GPEs 0-0x3F`,
		`PRWMalformed: \_SB.BADP._PRW is Package (1) {0x1D}`,
	}, got)
	// FAKE's GPRW reads a region field: its _PRW is not checked
	require.Len(t, r.Unchecked, 1)
	assert.Equal(t, `\_SB.FAKE._PRW`, r.Unchecked[0].What)
	hw := checktest.FADT(func(b []byte) { b[114] |= byte(acpi.FADTFlagHWReduced >> 16) })
	r = checktest.RunTables(t, Check, hw, b)
	assert.Nil(t, checktest.FindingWith(r, "PRWGPEOutOfRange"), "a hardware-reduced platform has no GPE blocks")
}
