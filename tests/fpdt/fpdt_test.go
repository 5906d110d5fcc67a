package fpdt

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

func ptr(typ uint16, n, rev byte, addr uint64) []byte {
	b := make([]byte, max(int(n), 4))
	binary.LittleEndian.PutUint16(b, typ)
	b[2], b[3] = n, rev
	if len(b) >= 16 {
		binary.LittleEndian.PutUint64(b[8:], addr)
	}
	return b
}

func fpdt(rev byte, recs ...[]byte) []byte {
	var body []byte
	for _, r := range recs {
		body = append(body, r...)
	}
	return checktest.SDT("FPDT", rev, body)
}

// labels returns the labels of failures and warnings.
func labels(r tests.Result) []string { return tablecheck.Labels(r) }

func TestFPDT(t *testing.T) {
	boot, s3 := ptr(0, 16, 1, 0x8F9C9730), ptr(1, 16, 1, 0x8F9C9750)
	reserved := ptr(0, 16, 1, 0x1000)
	reserved[4] = 1
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", fpdt(1, s3, boot), nil},
		{"boot pointer only", fpdt(1, boot), nil},
		{"revision 2", fpdt(2, boot), []string{"FPDTRevision"}},
		{"zero-length record", fpdt(1, boot, []byte{5, 0, 0, 1}), []string{"FPDTRecordLength"}},
		{"record past the end", fpdt(1, boot, []byte{5, 0, 40, 1}), []string{"FPDTRecordLength"}},
		{"short pointer", fpdt(1, ptr(0, 12, 1, 0)), []string{"FPDTPointerRecordLength", "FPDTNoBootPointer"}},
		{"long pointer", fpdt(1, ptr(0, 20, 1, 0x1000)), []string{"FPDTPointerRecordLength"}},
		{"pointer revision", fpdt(1, ptr(0, 16, 2, 0x1000)), []string{"FPDTPointerRevision"}},
		{"reserved bytes", fpdt(1, reserved), []string{"FPDTPointerReserved"}},
		{"null pointer", fpdt(1, ptr(0, 16, 1, 0)), []string{"FPDTNullPointer"}},
		{"two boot pointers", fpdt(1, boot, boot), []string{"FPDTDuplicatePointer"}},
		{"no boot pointer", fpdt(1, s3), []string{"FPDTNoBootPointer"}},
		{"vendor record is info", fpdt(1, boot, ptr(0x3000, 8, 1, 0)), nil},
		{"truncated", checktest.SDT("FPDT", 1, nil)[:20], []string{"FPDTMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, labels(checktest.RunTables(t, Check, c.raw)))
		})
	}
	r := checktest.RunTables(t, Check, checktest.FADT(nil))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
}

func TestFPDTAgainstMemoryMap(t *testing.T) {
	raw := fpdt(1, ptr(1, 16, 1, 0x8F9C9750), ptr(0, 16, 1, 0x8F9C9730))
	mm := []memmap.Range{{Start: 0, End: 0x8F000000, Type: "System RAM"}, {Start: 0x8F000000, End: 0x8FFFFFFF, Type: "Reserved"}}
	r := checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: raw}))
	assert.Nil(t, labels(r))
	assert.Equal(t, tests.StatusPassed, r.Status, "every pointer was checked against the map")

	mm[1].Type = "System RAM"
	r = checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: raw}))
	assert.Equal(t, []string{"FPDTNotReserved", "FPDTNotReserved"}, labels(r))

	r = checktest.RunTables(t, Check, raw)
	assert.Equal(t, tests.StatusIncomplete, r.Status, "without a memory map the pointers' memory is not checked, and the verdict says so")
}
