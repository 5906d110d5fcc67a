package amlparse

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func TestAMLParse(t *testing.T) {
	dsdt, err := os.ReadFile("../hpetcrs/testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), dsdt)
	assert.Equal(t, tests.StatusPassed, r.Status, "%v", r.Findings)

	// the same definitions again in an SSDT
	r = checktest.RunTables(t, Check, checktest.FADT(nil), dsdt, checktest.SDT("SSDT", 2, dsdt[36:]))
	assert.Equal(t, []string{"AMLDuplicate", "AMLDuplicate"}, checktest.FailLabels(r), "HPTB and \\_SB.HPET")

	// the phase 1 fixtures: a reference to nothing and a duplicate
	fx, err := os.ReadFile("../../acpi/aml/testdata/dsdt.aml")
	require.NoError(t, err)
	fs, err := os.ReadFile("../../acpi/aml/testdata/ssdt.aml")
	require.NoError(t, err)
	r = checktest.RunTables(t, Check, checktest.FADT(nil), fx, fs)
	assert.Equal(t, []string{"AMLUnresolved", "AMLDuplicate"}, checktest.FailLabels(r))

	// a method whose body holds a reference to nothing and an unknown
	// opcode: Method (M1) { Store (0x01, XXXX) ; 0xFE }
	body := []byte{0x14, 0x0D, 'M', '1', '_', '_', 0x00, 0x70, 0x01, 'X', 'X', 'X', 'X', 0xFE, 0x00}
	r = checktest.RunTables(t, Check, checktest.FADT(nil), checktest.SDT("DSDT", 2, body))
	assert.Equal(t, []string{"AMLUnresolved", "AMLMalformed"}, checktest.FailLabels(r))
}

// TestEndlessLoop: a _STA that loops forever on its own values is
// reported; one that polls a region field is not (the fake zero the
// evaluator reads decides nothing).
func TestEndlessLoop(t *testing.T) {
	dsdt, err := os.ReadFile("testdata/loop.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), dsdt)
	fs := checktest.FindingsWith(r, "AMLEndlessLoop")
	require.Len(t, fs, 1)
	assert.Contains(t, fs[0].Message, `\_SB.LOOP._STA: method \_SB.LOOP._STA exceeded the evaluation budget`)
	assert.Contains(t, fs[0].Message, `more than 100000 steps (a loop that does not end?)`)
	// both loops are listed as not checked, the first named
	require.Len(t, r.Unchecked, 1)
	assert.Equal(t, "2 AML evaluations", r.Unchecked[0].What)
	assert.Contains(t, r.Unchecked[0].Reason, "exceeded the evaluation budget")
	var infos []string
	for _, f := range r.Findings {
		if f.Kind == tests.KindInfo {
			infos = append(infos, f.Message)
		}
	}
	assert.Contains(t, strings.Join(infos, "\n"), "AML evaluation budget: 100000 steps, 16 MiB allocated and 2s an evaluation; the run's: ")
}
