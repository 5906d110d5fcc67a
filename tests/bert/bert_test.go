package bert

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

func bert(rev byte, length uint32, region uint64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, length)
	return checktest.SDT("BERT", rev, binary.LittleEndian.AppendUint64(b, region))
}

func TestBERT(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", bert(1, 84, 0xBF7AA750), nil},
		{"revision 2", bert(2, 84, 0xBF7AA750), []string{"BERTRevision"}},
		{"null region", bert(1, 84, 0), []string{"BERTRegion"}},
		{"region too small", bert(1, 16, 0xBF7AA750), []string{"BERTRegion"}},
		{"short", checktest.SDT("BERT", 1, make([]byte, 4)), []string{"BERTMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tablecheck.Labels(checktest.RunTables(t, Check, c.raw)))
		})
	}
	mm := []memmap.Range{{Start: 0x100000, End: 0xBF000000 - 1, Type: "System RAM"}, {Start: 0xBF000000, End: 0xBFFFFFFF, Type: "Reserved"}}
	r := checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: bert(1, 84, 0xBF7AA750)}))
	assert.Equal(t, tests.StatusPassed, r.Status)
	r = checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: bert(1, 84, 0xBEFFFFF0)}))
	assert.Equal(t, []string{"BERTNotReserved"}, tablecheck.Labels(r))
}

// statusBlock builds a Generic Error Status Block with one memory error
// entry of 80 data bytes.
func statusBlock(count uint32, dataLen uint32) []byte {
	b := make([]byte, 20+64+80)
	binary.LittleEndian.PutUint32(b[0:], 1|count<<4)
	binary.LittleEndian.PutUint32(b[12:], dataLen)
	binary.LittleEndian.PutUint32(b[16:], 1)
	e := b[20:]
	copy(e, []byte{0x14, 0x11, 0xbc, 0xa5, 0x64, 0x6f, 0xde, 0x4e, 0xb8, 0x63, 0x3e, 0x83, 0xed, 0x7c, 0x83, 0xb1})
	binary.LittleEndian.PutUint32(e[16:], 1)
	binary.LittleEndian.PutUint16(e[20:], 0x201)
	binary.LittleEndian.PutUint32(e[24:], 80)
	copy(e[44:], "DIMM_A1")
	return b
}

func TestBERTRegionDecoded(t *testing.T) {
	run := func(region []byte) tests.Result {
		return checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
			acpi.SysfsDir + "/BERT": bert(1, uint32(len(region)), 0xBF7AA750),
			acpi.BERTDataPath:       region,
		}))
	}
	r := run(statusBlock(1, 144))
	assert.Nil(t, tablecheck.Labels(r))
	var msg string
	for _, f := range r.Findings {
		if f.Kind == tests.KindInfo {
			msg += f.Message + "\n"
		}
	}
	assert.Contains(t, msg, `the previous boot recorded an error: severity fatal, block status 0x00000011, 1 sections: platform memory (fatal, 80 bytes) FRU "DIMM_A1"`)

	assert.Equal(t, []string{"BERTStatusBlock"}, tablecheck.Labels(run(statusBlock(2, 144))), "the count disagrees")
	assert.Equal(t, []string{"BERTStatusBlock"}, tablecheck.Labels(run(statusBlock(1, 500))), "the data length runs past the region")
	assert.Equal(t, []string{"BERTStatusBlock"}, tablecheck.Labels(run(statusBlock(1, 100))), "the entry runs past the data length")

	r = run(make([]byte, 20))
	found := false
	for _, f := range r.Findings {
		found = found || f.Message == "BERT: no boot error is recorded"
	}
	assert.True(t, found, "%+v", r.Findings)
}
