package madt

import (
	"testing"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"

	"github.com/stretchr/testify/assert"
)

func TestMADT(t *testing.T) {
	io := checktest.IOAPIC(2, 0xFEC00000)
	iso := []byte{2, 10, 0, 0, 2, 0, 0, 0, 0, 0}
	nmi := []byte{4, 6, 0xFF, 0, 0, 1}
	cases := []struct {
		name    string
		rev     uint8
		entries [][]byte
		want    []string
	}{
		{"clean", 5, [][]byte{checktest.LAPIC(0, 0, 1), checktest.LAPIC(1, 2, 1), checktest.LAPIC(2, 4, 2), io, iso, nmi}, nil},
		{"duplicate APIC ID", 3, [][]byte{checktest.LAPIC(0, 0, 1), checktest.LAPIC(1, 0, 1)}, []string{"MADTDuplicateAPICID"}},
		{"disabled duplicates are fine", 3, [][]byte{checktest.LAPIC(0, 0, 1), checktest.LAPIC(1, 0xFF, 0), checktest.LAPIC(2, 0xFF, 0)}, nil},
		{"duplicate UID", 3, [][]byte{checktest.LAPIC(0, 0, 1), checktest.LAPIC(0, 2, 1)}, []string{"MADTDuplicateProcessorUID"}},
		{"enabled and online capable", 5, [][]byte{checktest.LAPIC(0, 0, 3)}, []string{"MADTLocalAPICFlags"}},
		{"online capable before revision 5", 4, [][]byte{checktest.LAPIC(0, 0, 2)}, []string{"MADTLocalAPICFlags"}},
		{"reserved flag", 5, [][]byte{checktest.LAPIC(0, 0, 5)}, []string{"MADTLocalAPICFlags"}},
		{"I/O APIC at 0", 3, [][]byte{checktest.LAPIC(0, 0, 1), checktest.IOAPIC(2, 0)}, []string{"MADTIOAPICAddress"}},
		{"two I/O APICs, one address", 3, [][]byte{checktest.LAPIC(0, 0, 1), io, checktest.IOAPIC(3, 0xFEC00000)}, []string{"MADTIOAPICAddress"}},
		{"two I/O APICs, one ID", 3, [][]byte{checktest.LAPIC(0, 0, 1), io, checktest.IOAPIC(2, 0xFEC01000)}, []string{"MADTDuplicateIOAPICID"}},
		{"override bus", 3, [][]byte{checktest.LAPIC(0, 0, 1), {2, 10, 1, 0, 2, 0, 0, 0, 0, 0}}, []string{"MADTOverrideBus"}},
		{"NMI LINT2", 3, [][]byte{checktest.LAPIC(0, 0, 1), {4, 6, 0xFF, 0, 0, 2}}, []string{"MADTLocalAPICNMILINT"}},
		{"short subtable", 3, [][]byte{checktest.LAPIC(0, 0, 1), {1, 6, 0, 0, 0, 0}}, []string{"MADTSubtableShort"}},
		{"long local APIC", 3, [][]byte{checktest.LAPIC(0, 0, 1), {0, 10, 1, 1, 1, 0, 0, 0, 0, 0}}, []string{"MADTSubtableLengthMismatch"}},
		{"reserved type", 3, [][]byte{checktest.LAPIC(0, 0, 1), {0x30, 4, 0, 0}}, []string{"MADTReservedType"}},
		{"OEM type is info", 3, [][]byte{checktest.LAPIC(0, 0, 1), {0x80, 4, 0, 0}}, nil},
		{"zero-length subtable", 3, [][]byte{checktest.LAPIC(0, 0, 1), {0, 0}}, []string{"MADTSubtableLength"}},
		{"x2APIC duplicate of a local APIC", 3, [][]byte{checktest.LAPIC(0, 7, 1), {9, 16, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0}}, []string{"MADTDuplicateAPICID"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, checktest.FADT(nil), checktest.MADT(c.rev, c.entries...))
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}
	r := checktest.RunTables(t, Check, checktest.FADT(nil), checktest.MADT(3, checktest.LAPIC(0, 0, 1), checktest.LAPIC(1, 1, 0)))
	f := checktest.FindingWith(r, "MADTProcessorsUnusable")
	if assert.NotNil(t, f) {
		assert.Equal(t, tests.KindInfo, f.Kind)
		assert.Contains(t, f.Message, "1 of 2 processor entries")
	}
	assert.Equal(t, []string{"MADTMissing"}, checktest.FailLabels(checktest.RunTables(t, Check, checktest.FADT(nil))))
	assert.Equal(t, []string{"MADTMalformed"}, checktest.FailLabels(checktest.RunTables(t, Check, checktest.SDT("APIC", 3, []byte{1, 2}))))
}
