package all

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/acpistruct"
)

// Every mapped ID is a check (a renamed check must take its mapping along).
func TestFWTSMappingNamesChecks(t *testing.T) {
	cs := Checks()
	for id, fw := range fwtsTests {
		assert.NotNil(t, tests.Lookup(cs, id), "fwts mapping for unknown check %s", id)
		assert.NotEmpty(t, fw, id)
	}
	// Every name is an fwts test: a typo or a test fwts does not have
	// would send a user looking for what is not there.
	raw, err := os.ReadFile("testdata/fwts-tests.txt")
	require.NoError(t, err)
	known := map[string]bool{}
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			known[l] = true
		}
	}
	for id, fw := range fwtsTests {
		for _, n := range fw {
			assert.True(t, known[n], "check %s maps to %q, which is not an fwts test", id, n)
		}
	}
	assert.Empty(t, FWTS("reboot"), "fwts has no reboot test")
	// fwts has no test of AMD's CRAT and CDIT.
	noFWTS := map[string]bool{"crat": true, "cdit": true}
	for _, id := range tableCheckIDs {
		assert.Equal(t, !noFWTS[id], len(FWTS(id)) > 0, "table check %s has an fwts counterpart", id)
	}
}

// Every table the structure check reads has an fwts test of the same name
// (ASF! is fwts' asf), and the mapping names it: a table added to
// acpistruct takes its fwts test along.
func TestFWTSMappingCoversStructureTables(t *testing.T) {
	fw := FWTS("acpi-structure")
	for _, sig := range acpistruct.Signatures() {
		n := strings.ToLower(strings.TrimSuffix(sig, "!"))
		assert.Contains(t, fw, n, "acpi-structure reads %s; fwts' %s test is not in the mapping", sig, n)
	}
	assert.Len(t, fw, len(acpistruct.Signatures()), "the mapping names a table acpi-structure does not read")
}
