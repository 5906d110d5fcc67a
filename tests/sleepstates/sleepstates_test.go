package sleepstates

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func TestSleepStates(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), b)
	got := checktest.Labelled(r)
	assert.Equal(t, []string{`SleepStatePackage: \_S4 is "six"`, `SleepTypeRange: \_S5: SLP_TYPa and SLP_TYPb 0x9`}, got)
	noPM1 := checktest.FADT(func(b []byte) {
		copy(b[64:68], []byte{0, 0, 0, 0})
		copy(b[172:184], make([]byte, 12))
	})
	r = checktest.RunTables(t, Check, noPM1, b)
	assert.NotNil(t, checktest.FindingWith(r, "SleepNoControlRegister"))
	hw := checktest.FADT(func(b []byte) { b[114] |= byte(acpi.FADTFlagHWReduced >> 16) })
	r = checktest.RunTables(t, Check, hw, b)
	assert.NotNil(t, checktest.FindingWith(r, "SleepNoControlRegister"), "hardware-reduced without a sleep control register")
}
