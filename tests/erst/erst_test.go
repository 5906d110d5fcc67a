package erst

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// entry builds an instruction entry on a byte register in System I/O
// space (the SMI command port, as the corpus tables have).
func entry(action, instr byte, mod func(b []byte)) []byte {
	b := make([]byte, 32)
	b[0], b[1] = action, instr
	copy(b[4:], []byte{1, 8, 0, 1, 0xB2})
	binary.LittleEndian.PutUint64(b[24:], 0xFF)
	if mod != nil {
		mod(b)
	}
	return b
}

func build(sig string, headerSize, count uint32, entries ...[]byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, headerSize)
	body = binary.LittleEndian.AppendUint32(body, 0)
	body = binary.LittleEndian.AppendUint32(body, count)
	for _, e := range entries {
		body = append(body, e...)
	}
	return checktest.SDT(sig, 1, body)
}

func TestERSTAndEINJ(t *testing.T) {
	ok := [][]byte{entry(0, 3, nil), entry(5, 3, nil), entry(6, 1, nil)}
	cases := []struct {
		name  string
		check *tests.Check
		raw   []byte
		want  []string
	}{
		{"clean ERST", Check, build("ERST", 12, 3, ok...), nil},
		{"clean EINJ", EINJ, build("EINJ", 12, 3, ok...), nil},
		{"header size 48", Check, build("ERST", 48, 3, ok...), nil},
		{"header size 36", EINJ, build("EINJ", 36, 3, ok...), []string{"EINJHeaderSize"}},
		{"count", Check, build("ERST", 12, 4, ok...), []string{"ERSTEntryCount"}},
		{"trailing bytes", EINJ, build("EINJ", 12, 3, append(ok, []byte{0})...), []string{"EINJEntryCount"}},
		{"reserved ERST action", Check, build("ERST", 12, 1, entry(0x0C, 3, nil)), []string{"ERSTAction"}},
		{"EINJ trigger action", EINJ, build("EINJ", 12, 1, entry(0xFF, 3, nil)), nil},
		{"EINJ action 0x10", EINJ, build("EINJ", 12, 1, entry(0x10, 3, nil)), []string{"EINJAction"}},
		{"ERST-only instruction in EINJ", EINJ, build("EINJ", 12, 1, entry(0, 0x0C, nil)), []string{"EINJInstruction"}},
		{"ERST stall needs no register", Check, build("ERST", 12, 1, entry(0, 0x0C, func(b []byte) { copy(b[4:16], make([]byte, 12)) })), nil},
		{"NOOP needs no register", EINJ, build("EINJ", 12, 1, entry(0, 4, func(b []byte) { copy(b[4:16], make([]byte, 12)) })), nil},
		{"register at address 0", EINJ, build("EINJ", 12, 1, entry(4, 3, func(b []byte) { copy(b[8:16], make([]byte, 8)) })), []string{"EINJRegisterRegion"}},
		{"register in PCI space", Check, build("ERST", 12, 1, entry(0, 3, func(b []byte) { b[4] = 2 })), []string{"ERSTRegisterRegion"}},
		{"register wider than access", Check, build("ERST", 12, 1, entry(0, 3, func(b []byte) { b[5] = 16 })), []string{"ERSTRegisterRegion"}},
		{"32-bit register, access size 0", Check, build("ERST", 12, 1, entry(0, 0, func(b []byte) { copy(b[4:], []byte{0, 32, 0, 0, 0, 0x81, 0xF6, 0xBF}) })), nil},
		{"reserved flag bit", Check, build("ERST", 12, 1, entry(0, 3, func(b []byte) { b[2] = 2 })), []string{"ERSTReservedBits"}},
		{"preserve flag", Check, build("ERST", 12, 1, entry(0, 3, func(b []byte) { b[2] = 1 })), nil},
		{"no entries", EINJ, build("EINJ", 12, 0), []string{"EINJNoEntries"}},
		{"truncated", Check, checktest.SDT("ERST", 1, make([]byte, 8)), []string{"ERSTMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, c.check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	assert.Equal(t, tests.StatusPassed, checktest.RunTables(t, EINJ, build("EINJ", 12, 3, ok...)).Status)
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, EINJ, build("ERST", 12, 3, ok...)).Status)
}
