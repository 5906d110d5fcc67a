package resources

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func TestResources(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	mm := []memmap.Range{
		{Start: 0, End: 0x9FFFF, Type: "System RAM"},
		{Start: 0x100000, End: 0x7FFFFFFF, Type: "System RAM"},
		{Start: 0xFED00000, End: 0xFEDFFFFF, Type: "Reserved"},
	}
	r := checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: checktest.FADT(nil)}, checktest.Table{Raw: b}))
	got := checktest.Labelled(r)
	assert.Equal(t, []string{
		`ResourceTemplateMalformed: \_SB.BAD0._CRS: resource template +0x0: large descriptor 0x86 of 9 bytes runs past the end of the 4-byte template`,
		`ResourceInRAM: \_SB.MEM0: memory 0x100000-0x10FFFF overlaps RAM 0x100000-0x7FFFFFFF`,
	}, got)
	// without a memory map, the RAM comparison is not checked
	r = checktest.RunTables(t, Check, checktest.FADT(nil), b)
	assert.Equal(t, tests.StatusIncomplete, r.Status)
}
