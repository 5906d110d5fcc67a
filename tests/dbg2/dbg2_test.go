package dbg2

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// device builds a debug device information structure like the corpus'
// Intel ones: one SystemIO register at 0x3F8, namespace ".".
func device(portType, subtype uint16, mod func(b []byte)) []byte {
	b := make([]byte, 40)
	binary.LittleEndian.PutUint16(b[1:], 40)
	b[3] = 1
	binary.LittleEndian.PutUint16(b[4:], 2)
	binary.LittleEndian.PutUint16(b[6:], 38)
	binary.LittleEndian.PutUint16(b[12:], portType)
	binary.LittleEndian.PutUint16(b[14:], subtype)
	binary.LittleEndian.PutUint16(b[18:], 22)
	binary.LittleEndian.PutUint16(b[20:], 34)
	copy(b[22:], []byte{1, 8, 0, 1, 0xF8, 3})
	b[34] = 8
	b[38] = '.'
	if mod != nil {
		mod(b)
	}
	return b
}

func dbg2(rev byte, n uint32, devs ...[]byte) []byte {
	body := make([]byte, 8)
	binary.LittleEndian.PutUint32(body, 44)
	binary.LittleEndian.PutUint32(body[4:], n)
	for _, d := range devs {
		body = append(body, d...)
	}
	return checktest.SDT("DBG2", rev, body)
}

func TestDBG2(t *testing.T) {
	serial := device(0x8000, 0, nil)
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", dbg2(0, 1, serial), nil},
		{"two devices", dbg2(0, 2, serial, device(0x8002, 0, nil)), nil},
		{"unknown serial subtype is info", dbg2(0, 1, device(0x8000, 0x77, nil)), nil},
		{"revision 1", dbg2(1, 1, serial), []string{"DBG2Revision"}},
		{"count past the table", dbg2(0, 2, serial), []string{"DBG2DeviceList"}},
		{"offset outside", checktest.SDT("DBG2", 0, append([]byte{0xFF, 0, 0, 0, 1, 0, 0, 0}, serial...)), []string{"DBG2DeviceList"}},
		{"zero-length device", dbg2(0, 1, device(0x8000, 0, func(b []byte) { b[1] = 0 })), []string{"DBG2DeviceList"}},
		{"no devices", dbg2(0, 0), []string{"DBG2NoDevices"}},
		{"device revision", dbg2(0, 1, device(0x8000, 0, func(b []byte) { b[0] = 1 })), []string{"DBG2DeviceRevision"}},
		{"reserved", dbg2(0, 1, device(0x8000, 0, func(b []byte) { b[16] = 1 })), []string{"DBG2Reserved"}},
		{"namespace unterminated", dbg2(0, 1, device(0x8000, 0, func(b []byte) { b[39] = 'X' })), []string{"DBG2NamespaceString"}},
		{"namespace outside", dbg2(0, 1, device(0x8000, 0, func(b []byte) { b[6] = 39 })), []string{"DBG2NamespaceString"}},
		{"register array outside", dbg2(0, 1, device(0x8000, 0, func(b []byte) { b[3] = 2 })), []string{"DBG2Registers"}},
		{"serial without register", dbg2(0, 1, device(0x8000, 0, func(b []byte) { b[3] = 0 })), []string{"DBG2Registers"}},
		{"port type", dbg2(0, 1, device(0x9000, 0, nil)), []string{"DBG2PortType"}},
		{"register at 0", dbg2(0, 1, device(0x8000, 0, func(b []byte) { b[26], b[27] = 0, 0 })), []string{"DBG2RegisterAddress"}},
		{"truncated", checktest.SDT("DBG2", 0, []byte{44, 0}), []string{"DBG2Malformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tablecheck.Labels(checktest.RunTables(t, Check, c.raw)))
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.FADT(nil)).Status)
}

func dbgp(rev byte, mod func(b []byte)) []byte {
	b := []byte{0, 0, 0, 0, 1, 8, 0, 0, 0xF8, 3, 0, 0, 0, 0, 0, 0}
	if mod != nil {
		mod(b)
	}
	return checktest.SDT("DBGP", rev, b)
}

func TestDBGP(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", dbgp(1, nil), nil},
		{"16550 subset", dbgp(1, func(b []byte) { b[0] = 1 }), nil},
		{"MMIO", dbgp(1, func(b []byte) { b[4], b[8], b[10], b[11] = 0, 0, 0x03, 0xFE }), nil},
		{"revision 2", dbgp(2, nil), []string{"DBGPRevision"}},
		{"interface type", dbgp(1, func(b []byte) { b[0] = 3 }), []string{"DBGPInterfaceType"}},
		{"reserved garbage", dbgp(1, func(b []byte) { b[1], b[2], b[3] = 0xCC, 0xCC, 0xCC }), []string{"DBGPReserved"}},
		{"address 0", dbgp(1, func(b []byte) { b[8], b[9] = 0, 0 }), []string{"DBGPAddress"}},
		{"bad space", dbgp(1, func(b []byte) { b[4] = 0xFE }), []string{"DBGPAddress"}},
		{"short", checktest.SDT("DBGP", 1, make([]byte, 10)), []string{"DBGPLength"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tablecheck.Labels(checktest.RunTables(t, DBGP, c.raw)))
		})
	}
}
