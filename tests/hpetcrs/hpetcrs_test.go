package hpetcrs

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// testdata/dsdt.asl stores HPTB (0xFED00000) into the HPET device's
// Memory32Fixed at run time, as firmware does.
func TestHPETCRS(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), checktest.HPET(nil), b)
	assert.Equal(t, tests.StatusPassed, r.Status)
	// the table moved elsewhere
	moved := checktest.HPET(func(b []byte) { b[10] = 0xC0 })
	r = checktest.RunTables(t, Check, checktest.FADT(nil), moved, b)
	require.NotNil(t, checktest.FindingWith(r, "HPETCRSMismatch"))
	assert.Equal(t, tests.StatusWarning, r.Status, "a warning until seen on a real machine")
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.FADT(nil), b).Status, "no HPET table")
}
