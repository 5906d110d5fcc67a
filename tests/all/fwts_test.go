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
	for _, id := range tableCheckIDs {
		assert.NotEmpty(t, FWTS(id), "table check %s has an fwts counterpart", id)
	}
}
