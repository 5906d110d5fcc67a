package pcct

import (
	"encoding/binary"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// gas writes a GAS of space and address at b.
func gas(b []byte, space byte, addr uint64) {
	b[0], b[1], b[3] = space, 32, 3
	binary.LittleEndian.PutUint64(b[4:], addr)
}

// sub builds a subspace of type typ with its type's length, shared memory
// at 0x1000 of 0x100 bytes and a doorbell in System Memory (types 0-2),
// platform interrupt flags intFlags (types 1-4) and, when ack, an
// acknowledge register (types 2-4).
func sub(typ byte, intFlags byte, ack bool) []byte {
	n := acpi.PCCTSubspaceSize(uint32(typ))
	b := make([]byte, n)
	b[0], b[1] = typ, byte(n)
	switch typ {
	case 0, 1, 2:
		binary.LittleEndian.PutUint64(b[8:], 0x1000)
		binary.LittleEndian.PutUint64(b[16:], 0x100)
		gas(b[24:], 0, 0xFE000000)
		if typ > 0 {
			b[2], b[6] = 40, intFlags
		}
		if typ == 2 && ack {
			gas(b[62:], 0, 0xFE000010)
		}
	case 3, 4:
		b[2], b[6] = 40, intFlags
		binary.LittleEndian.PutUint64(b[8:], 0x1000)
		binary.LittleEndian.PutUint32(b[16:], 0x100)
		if ack {
			gas(b[60:], 0, 0xFE000010)
		}
	case 5:
		binary.LittleEndian.PutUint64(b[4:], 0x1000)
		binary.LittleEndian.PutUint64(b[12:], 0x100)
	}
	return b
}

func pcct(rev uint8, flags uint32, subs ...[]byte) []byte {
	body := make([]byte, 12)
	binary.LittleEndian.PutUint32(body, flags)
	for _, s := range subs {
		body = append(body, s...)
	}
	return checktest.SDT("PCCT", rev, body)
}

func TestPCCT(t *testing.T) {
	noDoorbell := sub(0, 0, false)
	copy(noDoorbell[24:36], make([]byte, 12))
	cfgDoorbell := sub(1, 2, false)
	gas(cfgDoorbell[24:], 2, 0x80000000) // PCI configuration space
	smallMem := sub(0, 0, false)
	binary.LittleEndian.PutUint64(smallMem[16:], 4)
	reserved := sub(0, 0, false)
	reserved[3] = 1
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"every type", pcct(2, 1, sub(0, 0, false), sub(1, 2, false), sub(2, 0, true), sub(3, 2, false), sub(4, 0, true), sub(5, 0, false)), nil},
		{"revision 3", pcct(3, 0, sub(0, 0, false)), []string{"PCCTRevision"}},
		{"reserved global flag", pcct(2, 3, sub(0, 0, false)), []string{"PCCTReserved"}},
		{"reserved subspace byte", pcct(2, 0, reserved), []string{"PCCTReserved"}},
		{"reserved interrupt flag", pcct(2, 0, sub(1, 6, false)), []string{"PCCTReserved"}},
		{"type 2 of 62 bytes", pcct(2, 0, func() []byte { b := sub(1, 0, false); b[0] = 2; return b }()), []string{"PCCTSubspaceSize"}},
		{"type 0 of 64 bytes", pcct(2, 0, func() []byte { b := append(sub(0, 0, false), 0, 0); b[1] = 64; return b }()), []string{"PCCTSubspaceSize"}},
		{"no doorbell", pcct(2, 0, noDoorbell), []string{"PCCTDoorbell"}},
		{"doorbell in configuration space", pcct(2, 0, cfgDoorbell), []string{"PCCTDoorbell"}},
		{"shared memory of 4 bytes", pcct(2, 0, smallMem), []string{"PCCTSharedMemory"}},
		{"level interrupt without ack", pcct(2, 1, sub(2, 0, false)), []string{"PCCTInterruptAck"}},
		{"edge interrupt without ack", pcct(2, 1, sub(2, 2, false)), nil},
		{"level without ack, no platform interrupt", pcct(2, 0, sub(3, 0, false)), nil},
		{"subspace past the end", pcct(2, 0, sub(0, 0, false)[:40]), []string{"PCCTSubspaceLength"}},
		{"reserved type is information", pcct(2, 0, []byte{7, 4, 0, 0}), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.HPET(nil)).Status)
}

// FuzzPCCT runs the check over a PCCT of the fuzzer's bytes after a
// valid header: it may not abort.
func FuzzPCCT(f *testing.F) {
	f.Add(pcct(2, 1, sub(0, 0, false), sub(2, 0, true), sub(3, 2, false), sub(5, 0, false))[36:])
	f.Fuzz(func(t *testing.T, body []byte) {
		raw := checktest.SDT("PCCT", 2, body)
		m := input.New(checktest.Snapshot{FS: fstest.MapFS{acpi.SysfsDir + "/PCCT": &fstest.MapFile{Data: raw}}}, input.Options{})
		if r := tests.RunOne(&tests.Env{Machine: m}, Check); r.Status == tests.StatusAborted {
			t.Fatal(r.Reason)
		}
	})
}
