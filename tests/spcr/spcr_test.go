package spcr

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// spcr builds a revision rev SPCR like the corpus' 16550 at 0x2F8, IRQ 3,
// 115200 baud (revision 4 adds the "." namespace string); mod changes the
// bytes after the header (offset 0 is the interface type, table offset 36).
func spcr(rev byte, mod func(b []byte)) []byte {
	n := 44
	if rev >= 4 {
		n = 54
	}
	b := make([]byte, n)
	copy(b[4:], []byte{1, 8, 0, 1, 0xF8, 2})
	b[16], b[17], b[22], b[24], b[25], b[26] = 1, 3, 7, 1, 2, 3
	binary.LittleEndian.PutUint16(b[28:], 0xFFFF)
	binary.LittleEndian.PutUint16(b[30:], 0xFFFF)
	if rev >= 4 {
		binary.LittleEndian.PutUint16(b[48:], 2)
		binary.LittleEndian.PutUint16(b[50:], 88)
		b[52] = '.'
	}
	if mod != nil {
		mod(b)
	}
	return checktest.SDT("SPCR", rev, b)
}

func TestSPCR(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", spcr(1, nil), nil},
		{"revision 2 PL011 GIC", spcr(2, func(b []byte) { b[0], b[4], b[16] = 3, 0, 8 }), nil},
		{"revision 4", spcr(4, nil), nil},
		{"revision 5", spcr(5, nil), []string{"SPCRRevision"}},
		{"revision 1 PL011", spcr(1, func(b []byte) { b[0] = 3 }), []string{"SPCRInterfaceType"}},
		{"null register", spcr(1, func(b []byte) { copy(b[4:16], make([]byte, 12)) }), []string{"SPCRAddress"}},
		{"8259 IRQ 20", spcr(1, func(b []byte) { b[17] = 20 }), []string{"SPCRInterrupt"}},
		{"reserved interrupt type", spcr(1, func(b []byte) { b[16] = 0x41 }), []string{"SPCRInterrupt"}},
		{"baud code 5", spcr(1, func(b []byte) { b[22] = 5 }), []string{"SPCRBaudRate"}},
		{"stop bits 0", spcr(1, func(b []byte) { b[24] = 0 }), []string{"SPCRLineSettings"}},
		{"terminal 7", spcr(1, func(b []byte) { b[26] = 7 }), []string{"SPCRTerminalType"}},
		{"language", spcr(1, func(b []byte) { b[27] = 1 }), []string{"SPCRReserved"}},
		{"PCI device 40", spcr(1, func(b []byte) { b[28], b[29], b[33] = 0x34, 0x12, 40 }), []string{"SPCRPCILocation"}},
		{"not PCI, bus 0xFF is fine", spcr(1, func(b []byte) { b[32], b[33], b[34] = 0xFF, 0xFF, 0xFF }), nil},
		{"revision 4 without namespace", spcr(4, func(b []byte) { copy(b[48:], make([]byte, 6)) }), []string{"SPCRNamespaceString"}},
		{"revision 4 short", checktest.SDT("SPCR", 4, spcr(1, nil)[36:]), []string{"SPCRMalformed"}},
		{"short", checktest.SDT("SPCR", 1, make([]byte, 20)), []string{"SPCRMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tablecheck.Labels(checktest.RunTables(t, Check, c.raw)))
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.FADT(nil)).Status)
}
