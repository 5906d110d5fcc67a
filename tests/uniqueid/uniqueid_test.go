package uniqueid

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// testdata/dsdt.asl (compiled with iasl into dsdt.aml) has each case.
func TestUniqueID(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), b)
	assert.Len(t, checktest.FindingsWith(r, "DuplicateUID"), 2)
	assert.Equal(t, tests.StatusWarning, r.Status)
	var msgs []string
	for _, f := range r.Findings {
		msgs = append(msgs, f.Message)
	}
	assert.Contains(t, msgs, `\_SB.A1 and \_SB.A2: both PNP0C0F with _UID "1"`)
	assert.Contains(t, msgs, `\_SB.B1 and \_SB.B2: both ACPI0003 with _UID "1"`)
	assert.Contains(t, msgs, `\_SB.D1 and \_SB.D2: both PNP0A06 with _UID "6", but whether both are present or their _UID depends on hardware state; with OperationRegion reads emulated as zeros, \_SB.D1 is present and \_SB.D2 is absent`)
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.FADT(nil)).Status, "no DSDT")
}
