package tests

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// synthMADT builds a MADT of the given revision around its structures.
func synthMADT(rev uint8, entries ...[]byte) []byte {
	body := []byte{0, 0, 0xE0, 0xFE, 1, 0, 0, 0}
	for _, e := range entries {
		body = append(body, e...)
	}
	return sdtRaw("APIC", rev, body)
}

func lapic(uid, id byte, flags byte) []byte { return []byte{0, 8, uid, id, flags, 0, 0, 0} }
func ioapic(id byte, addr uint32) []byte {
	return []byte{1, 12, id, 0, byte(addr), byte(addr >> 8), byte(addr >> 16), byte(addr >> 24), 0, 0, 0, 0}
}

func TestMADT(t *testing.T) {
	io := ioapic(2, 0xFEC00000)
	iso := []byte{2, 10, 0, 0, 2, 0, 0, 0, 0, 0}
	nmi := []byte{4, 6, 0xFF, 0, 0, 1}
	cases := []struct {
		name    string
		rev     uint8
		entries [][]byte
		want    []string
	}{
		{"clean", 5, [][]byte{lapic(0, 0, 1), lapic(1, 2, 1), lapic(2, 4, 2), io, iso, nmi}, nil},
		{"duplicate APIC ID", 3, [][]byte{lapic(0, 0, 1), lapic(1, 0, 1)}, []string{"MADTDuplicateAPICID"}},
		{"disabled duplicates are fine", 3, [][]byte{lapic(0, 0, 1), lapic(1, 0xFF, 0), lapic(2, 0xFF, 0)}, nil},
		{"duplicate UID", 3, [][]byte{lapic(0, 0, 1), lapic(0, 2, 1)}, []string{"MADTDuplicateProcessorUID"}},
		{"enabled and online capable", 5, [][]byte{lapic(0, 0, 3)}, []string{"MADTLocalAPICFlags"}},
		{"online capable before revision 5", 4, [][]byte{lapic(0, 0, 2)}, []string{"MADTLocalAPICFlags"}},
		{"reserved flag", 5, [][]byte{lapic(0, 0, 5)}, []string{"MADTLocalAPICFlags"}},
		{"I/O APIC at 0", 3, [][]byte{lapic(0, 0, 1), ioapic(2, 0)}, []string{"MADTIOAPICAddress"}},
		{"two I/O APICs, one address", 3, [][]byte{lapic(0, 0, 1), io, ioapic(3, 0xFEC00000)}, []string{"MADTIOAPICAddress"}},
		{"two I/O APICs, one ID", 3, [][]byte{lapic(0, 0, 1), io, ioapic(2, 0xFEC01000)}, []string{"MADTDuplicateIOAPICID"}},
		{"override bus", 3, [][]byte{lapic(0, 0, 1), {2, 10, 1, 0, 2, 0, 0, 0, 0, 0}}, []string{"MADTOverrideBus"}},
		{"NMI LINT2", 3, [][]byte{lapic(0, 0, 1), {4, 6, 0xFF, 0, 0, 2}}, []string{"MADTLocalAPICNMILINT"}},
		{"short subtable", 3, [][]byte{lapic(0, 0, 1), {1, 6, 0, 0, 0, 0}}, []string{"MADTSubtableShort"}},
		{"long local APIC", 3, [][]byte{lapic(0, 0, 1), {0, 10, 1, 1, 1, 0, 0, 0, 0, 0}}, []string{"MADTSubtableLengthMismatch"}},
		{"reserved type", 3, [][]byte{lapic(0, 0, 1), {0x30, 4, 0, 0}}, []string{"MADTReservedType"}},
		{"OEM type is info", 3, [][]byte{lapic(0, 0, 1), {0x80, 4, 0, 0}}, nil},
		{"zero-length subtable", 3, [][]byte{lapic(0, 0, 1), {0, 0}}, []string{"MADTSubtableLength"}},
		{"x2APIC duplicate of a local APIC", 3, [][]byte{lapic(0, 7, 1), {9, 16, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0}}, []string{"MADTDuplicateAPICID"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCheck(t, "madt", synthFADT(nil), synthMADT(c.rev, c.entries...))
			assert.Equal(t, c.want, failLabels(r), "%+v", r.Findings)
		})
	}
	r := runCheck(t, "madt", synthFADT(nil), synthMADT(3, lapic(0, 0, 1), lapic(1, 1, 0)))
	f := findingWith(r, "MADTProcessorsUnusable")
	if assert.NotNil(t, f) {
		assert.Equal(t, KindInfo, f.Kind)
		assert.Contains(t, f.Message, "1 of 2 processor entries")
	}
	assert.Equal(t, []string{"MADTMissing"}, failLabels(runCheck(t, "madt", synthFADT(nil))))
	assert.Equal(t, []string{"MADTMalformed"}, failLabels(runCheck(t, "madt", sdtRaw("APIC", 3, []byte{1, 2}))))
}
