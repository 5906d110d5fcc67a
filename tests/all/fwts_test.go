package all

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
)

// Every mapped ID is a check (a renamed check must take its mapping along).
func TestFWTSMappingNamesChecks(t *testing.T) {
	cs := Checks()
	for id, fw := range fwtsTests {
		assert.NotNil(t, tests.Lookup(cs, id), "fwts mapping for unknown check %s", id)
		assert.NotEmpty(t, fw, id)
	}
	// fwts has no test of AMD's CRAT and CDIT.
	noFWTS := map[string]bool{"crat": true, "cdit": true}
	for _, id := range tableCheckIDs {
		assert.Equal(t, !noFWTS[id], len(FWTS(id)) > 0, "table check %s has an fwts counterpart", id)
	}
}
