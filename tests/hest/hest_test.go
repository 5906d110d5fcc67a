package hest

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// ghes builds a generic hardware error source like the corpus ones: polled
// every 600 ms, error status address register in System Memory.
func ghes(id uint16, mod func(b []byte)) []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint16(b[0:], 9)
	binary.LittleEndian.PutUint16(b[2:], id)
	binary.LittleEndian.PutUint16(b[4:], 0xFFFF)
	b[7] = 1
	binary.LittleEndian.PutUint32(b[8:], 1)
	binary.LittleEndian.PutUint32(b[12:], 1)
	binary.LittleEndian.PutUint32(b[16:], 0x9D)
	copy(b[20:], []byte{0, 64, 0, 4})
	binary.LittleEndian.PutUint64(b[24:], 0xBFF68800)
	b[32], b[33] = 0, 28
	binary.LittleEndian.PutUint32(b[36:], 600)
	binary.LittleEndian.PutUint32(b[60:], 0x9D)
	if mod != nil {
		mod(b)
	}
	return b
}

// aer builds a PCIe root port AER source for device 00:1c.0.
func aer(id uint16, flags byte) []byte {
	b := make([]byte, 48)
	binary.LittleEndian.PutUint16(b[0:], 6)
	binary.LittleEndian.PutUint16(b[2:], id)
	b[6], b[7] = flags, 1
	binary.LittleEndian.PutUint32(b[8:], 1)
	binary.LittleEndian.PutUint32(b[12:], 1)
	binary.LittleEndian.PutUint16(b[20:], 0x1C)
	return b
}

// mce builds an IA-32 machine check source with n banks.
func mce(id uint16, n int) []byte {
	b := make([]byte, 40)
	binary.LittleEndian.PutUint16(b[2:], id)
	b[7] = 1
	binary.LittleEndian.PutUint32(b[8:], 1)
	binary.LittleEndian.PutUint32(b[12:], 1)
	b[32] = byte(n)
	for i := range n {
		bank := make([]byte, 28)
		bank[0], bank[2] = byte(i), 1
		b = append(b, bank...)
	}
	return b
}

func hest(count uint32, sources ...[]byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, count)
	for _, s := range sources {
		body = append(body, s...)
	}
	return checktest.SDT("HEST", 1, body)
}

func TestHEST(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", hest(3, ghes(9, nil), aer(1, 1), mce(2, 2)), nil},
		{"v2 with read ack", hest(1, append(ghes(9, func(b []byte) { b[0] = 10 }), append([]byte{0, 64, 0, 4, 0, 0x89, 0xF6, 0xBF, 0, 0, 0, 0}, make([]byte, 16)...)...)), nil},
		{"v2 without read ack", hest(1, append(ghes(9, func(b []byte) { b[0] = 10 }), make([]byte, 28)...)), []string{"HESTReadAck"}},
		{"revision 3", checktest.SDT("HEST", 3, hest(1, ghes(9, nil))[36:]), []string{"HESTRevision"}},
		{"count", hest(2, ghes(9, nil)), []string{"HESTSourceCount"}},
		{"duplicate ID", hest(2, ghes(9, nil), ghes(9, nil)), []string{"HESTDuplicateSourceID"}},
		{"generic flags byte", hest(1, ghes(9, func(b []byte) { b[6] = 3 })), []string{"HESTReservedBits"}},
		{"AER GLOBAL allowed", hest(1, aer(1, 3)), nil},
		{"AER reserved flag", hest(1, aer(1, 8)), []string{"HESTReservedBits"}},
		{"AER device 32", hest(1, func() []byte { b := aer(1, 0); b[20] = 32; return b }()), []string{"HESTAERDevice"}},
		{"AER device ignored with GLOBAL", hest(1, func() []byte { b := aer(1, 2); b[20] = 32; return b }()), nil},
		{"no records", hest(1, ghes(9, func(b []byte) { b[8] = 0 })), []string{"HESTRecordCounts"}},
		{"disabled source is not checked further", hest(1, ghes(9, func(b []byte) { b[7], b[8] = 0, 0 })), nil},
		{"reserved notification type", hest(1, ghes(9, func(b []byte) { b[32] = 12 })), []string{"HESTNotification"}},
		{"notification length", hest(1, ghes(9, func(b []byte) { b[33] = 24 })), []string{"HESTNotification"}},
		{"reserved write-enable bits", hest(1, ghes(9, func(b []byte) { b[35] = 0x60 })), []string{"HESTReservedBits"}},
		{"poll interval 0", hest(1, ghes(9, func(b []byte) { b[36], b[37] = 0, 0 })), []string{"HESTPollInterval"}},
		{"NMI-notified with no interval", hest(1, ghes(9, func(b []byte) { b[32], b[36], b[37] = 4, 0, 0 })), nil},
		{"status address 0", hest(1, ghes(9, func(b []byte) { copy(b[24:32], make([]byte, 8)) })), []string{"HESTErrorStatusAddress"}},
		{"status address in PCI space", hest(1, ghes(9, func(b []byte) { b[20] = 2 })), []string{"HESTErrorStatusAddress"}},
		{"status block too short", hest(1, ghes(9, func(b []byte) { b[60] = 16 })), []string{"HESTErrorStatusLength"}},
		{"related to a source", hest(2, ghes(9, nil), ghes(10, func(b []byte) { b[4], b[5] = 9, 0 })), nil},
		{"related to nothing", hest(1, ghes(9, func(b []byte) { b[4], b[5] = 7, 0 })), []string{"HESTRelatedSource"}},
		{"bank format", hest(1, func() []byte { b := mce(2, 1); b[42] = 3; return b }()), []string{"HESTBank"}},
		{"banks run past the end", hest(1, mce(2, 2)[:80]), []string{"HESTSourceLength"}},
		{"reserved type stops the walk", hest(2, ghes(9, nil), []byte{3, 0, 0, 0, 0, 0, 0, 0}), nil},
		{"truncated", checktest.SDT("HEST", 1, nil), []string{"HESTMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	r := checktest.RunTables(t, Check, hest(1, ghes(9, nil)))
	assert.Equal(t, tests.StatusPassed, r.Status)
	r = checktest.RunTables(t, Check, hest(2, ghes(9, nil), []byte{3, 0, 0, 0}))
	assert.NotEqual(t, tests.StatusPassed, r.Status, "sources not read are not passed: %+v", r)
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.HPET(nil)).Status)
}
