package osi

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests/checktest"
)

func TestOSI(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), b)
	assert.Equal(t, []string{"OSILinux"}, checktest.FailLabels(r), "the If guards code; the bare query does not")
	require.Len(t, r.Findings, 2)
	assert.Equal(t, `_OSI strings queried: "Windows 2009" ×1 (Linux: yes), "Linux" ×2 (Linux: no)`, r.Findings[1].Message)
}
