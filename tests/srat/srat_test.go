package srat

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

func lapic(domain, id byte) []byte {
	return []byte{0, 16, domain, id, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
}

func x2apic(domain, id uint32) []byte {
	b := make([]byte, 24)
	b[0], b[1] = 2, 24
	binary.LittleEndian.PutUint32(b[4:], domain)
	binary.LittleEndian.PutUint32(b[8:], id)
	b[12] = 1
	return b
}

func memory(domain uint32, base, size uint64, flags uint32) []byte {
	b := make([]byte, 40)
	b[0], b[1] = 1, 40
	binary.LittleEndian.PutUint32(b[2:], domain)
	binary.LittleEndian.PutUint64(b[8:], base)
	binary.LittleEndian.PutUint64(b[16:], size)
	binary.LittleEndian.PutUint32(b[28:], flags)
	return b
}

func srat(rev byte, structs ...[]byte) []byte {
	body := append([]byte{1, 0, 0, 0}, make([]byte, 8)...)
	for _, s := range structs {
		body = append(body, s...)
	}
	return checktest.SDT("SRAT", rev, body)
}

func slit(n uint64, m ...byte) []byte {
	return checktest.SDT("SLIT", 1, append(binary.LittleEndian.AppendUint64(nil, n), m...))
}

func msct(maxDomain uint32, domains ...[]byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, 56)
	body = binary.LittleEndian.AppendUint32(body, maxDomain)
	body = binary.LittleEndian.AppendUint32(body, 0)
	body = binary.LittleEndian.AppendUint64(body, 1<<46-1)
	for _, d := range domains {
		body = append(body, d...)
	}
	return checktest.SDT("MSCT", 1, body)
}

func msctDomain(low, high uint32) []byte {
	b := []byte{1, 22}
	b = binary.LittleEndian.AppendUint32(b, low)
	b = binary.LittleEndian.AppendUint32(b, high)
	b = binary.LittleEndian.AppendUint32(b, 48)
	return binary.LittleEndian.AppendUint64(b, 1<<40)
}

func TestSRAT(t *testing.T) {
	two := [][]byte{lapic(0, 0), lapic(1, 2), memory(0, 0, 0xA0000, 1), memory(1, 0x100000000, 0x100000000, 1)}
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", srat(3, two...), nil},
		{"revision 4", srat(4, two...), []string{"SRATRevision"}},
		{"table revision word", checktest.SDT("SRAT", 3, append([]byte{2, 0, 0, 0}, make([]byte, 8)...)), []string{"SRATReservedBits", "SRATNoStructures"}},
		{"memory reserved word", srat(3, func() []byte { b := memory(0, 0, 0xA0000, 1); b[24] = 1; return b }()), []string{"SRATReservedBits"}},
		{"reserved memory flag", srat(3, memory(0, 0, 0xA0000, 9)), []string{"SRATReservedBits"}},
		{"zero-length memory", srat(3, memory(0, 0x100000, 0, 1)), []string{"SRATMemoryRange"}},
		{"disabled zero-length memory", srat(3, memory(0, 0x100000, 0, 0)), nil},
		{"wrapping memory", srat(3, memory(0, 1<<63, 1<<63+1, 1)), []string{"SRATMemoryRange"}},
		{"overlap", srat(3, memory(0, 0, 0x200000, 1), memory(1, 0x100000, 0x200000, 1)), []string{"SRATMemoryOverlap"}},
		{"overlap within a domain", srat(3, memory(0, 0, 0x200000, 1), memory(0, 0x100000, 0x200000, 1)), nil},
		{"overlap with a hot-plug window", srat(3, memory(3, 1<<32, 1<<32, 3), memory(2, 1<<32+1<<27, 1<<27, 5)), nil},
		{"duplicate APIC ID", srat(3, lapic(0, 2), lapic(1, 2)), []string{"SRATDuplicateAPICID"}},
		{"x2APIC repeats a local APIC", srat(3, lapic(0, 2), x2apic(1, 2)), []string{"SRATDuplicateAPICID"}},
		{"short structure", srat(3, lapic(0, 0)[:12]), []string{"SRATStructureLength"}},
		{"declared short", srat(3, func() []byte { b := lapic(0, 0)[:12]; b[1] = 12; return b }()), []string{"SRATStructureSize"}},
		{"zero length", srat(3, lapic(0, 0), []byte{0, 0}), []string{"SRATStructureLength"}},
		{"reserved type is info", srat(3, lapic(0, 0), []byte{9, 4, 0, 0}), nil},
		{"empty", srat(3), []string{"SRATNoStructures"}},
		{"truncated", checktest.SDT("SRAT", 3, make([]byte, 4)), []string{"SRATMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
}

func TestSLIT(t *testing.T) {
	two := srat(3, lapic(0, 0), lapic(1, 2))
	cases := []struct {
		name string
		raw  [][]byte
		want []string
	}{
		{"clean", [][]byte{two, slit(2, 10, 21, 21, 10)}, nil},
		{"asymmetric is allowed", [][]byte{two, slit(2, 10, 21, 31, 10)}, nil},
		{"remote distance 10 is information", [][]byte{two, slit(2, 10, 10, 10, 10)}, nil},
		{"unreachable", [][]byte{two, slit(2, 10, 255, 255, 10)}, nil},
		{"diagonal", [][]byte{two, slit(2, 10, 21, 21, 11)}, []string{"SLITSelfDistance"}},
		{"reserved distance", [][]byte{two, slit(2, 10, 9, 21, 10)}, []string{"SLITReservedDistance"}},
		{"short matrix", [][]byte{two, slit(2, 10, 21, 21)}, []string{"SLITLength"}},
		{"huge count", [][]byte{two, slit(1<<40, 10)}, []string{"SLITLength"}},
		{"trailing bytes", [][]byte{two, slit(1, 10, 0)}, []string{"SLITLength", "SLITDomainOutside"}},
		{"SRAT domain outside", [][]byte{two, slit(1, 10)}, []string{"SLITDomainOutside"}},
		{"no SRAT", [][]byte{slit(1, 10)}, nil},
		{"truncated", [][]byte{checktest.SDT("SLIT", 1, make([]byte, 4))}, []string{"SLITMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, SLIT, c.raw...)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	r := checktest.RunTables(t, SLIT, slit(1, 10))
	assert.NotEqual(t, tests.StatusPassed, r.Status, "the SRAT comparison was not made: %+v", r)
}

func TestMSCT(t *testing.T) {
	two := srat(3, lapic(0, 0), lapic(3, 2))
	cases := []struct {
		name string
		raw  [][]byte
		want []string
	}{
		{"clean", [][]byte{two, msct(3, msctDomain(0, 3))}, nil},
		{"range upside down", [][]byte{msct(3, msctDomain(2, 1))}, []string{"MSCTDomainRange"}},
		{"range above maximum", [][]byte{msct(3, msctDomain(0, 4))}, []string{"MSCTDomainRange"}},
		{"structure revision", [][]byte{msct(3, func() []byte { b := msctDomain(0, 3); b[0] = 2; return b }())}, []string{"MSCTDomainStructure"}},
		{"trailing bytes", [][]byte{msct(3, msctDomain(0, 3), []byte{1, 2})}, []string{"MSCTOffset"}},
		{"SRAT domain above maximum", [][]byte{two, msct(2, msctDomain(0, 2))}, []string{"MSCTSRATDomainOutside"}},
		{"truncated", [][]byte{checktest.SDT("MSCT", 1, make([]byte, 8))}, []string{"MSCTMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, MSCT, c.raw...)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	bad := msct(3)
	binary.LittleEndian.PutUint32(bad[36:], 200)
	assert.Equal(t, []string{"MSCTOffset"}, tablecheck.Labels(checktest.RunTables(t, MSCT, checktest.SDT("MSCT", 1, bad[36:]))))
}

func hmatStruct(typ uint16, body []byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, typ)
	b = append(b, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(8+len(body)))
	return append(b, body...)
}

func proximity(initiator, memory uint32) []byte {
	b := []byte{1, 0, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, initiator)
	b = binary.LittleEndian.AppendUint32(b, memory)
	return hmatStruct(0, append(b, make([]byte, 20)...))
}

// locality builds a latency structure from initiator 0 to targets 0 and 1.
func locality(dataType byte) []byte {
	b := []byte{0, dataType, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 2)
	b = append(b, 0, 0, 0, 0)
	b = binary.LittleEndian.AppendUint64(b, 1000)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0xFE, 0xFF)
	return hmatStruct(1, b)
}

func cache(memory, attrs uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, memory)
	b = append(b, 0, 0, 0, 0)
	b = binary.LittleEndian.AppendUint64(b, 10240)
	b = binary.LittleEndian.AppendUint32(b, attrs)
	return hmatStruct(2, append(b, 0, 0, 0, 0))
}

func hmat(rev byte, structs ...[]byte) []byte {
	body := []byte{0, 0, 0, 0}
	for _, s := range structs {
		body = append(body, s...)
	}
	return checktest.SDT("HMAT", rev, body)
}

func TestHMAT(t *testing.T) {
	two := srat(3, lapic(0, 0), memory(0, 0, 1<<30, 1), memory(1, 1<<32, 1<<30, 1))
	cases := []struct {
		name string
		raw  [][]byte
		want []string
	}{
		{"clean, like QEMU's", [][]byte{two, hmat(2, proximity(0, 0), proximity(0, 1), locality(0), locality(3), cache(0, 0x00081111))}, nil},
		{"revision 1", [][]byte{two, hmat(1, proximity(0, 0))}, []string{"HMATRevision"}},
		{"reserved header", [][]byte{two, checktest.SDT("HMAT", 2, []byte{1, 0, 0, 0})}, []string{"HMATReservedBits"}},
		{"domain not in SRAT", [][]byte{two, hmat(2, proximity(0, 5))}, []string{"HMATDomainNotInSRAT"}},
		{"no SRAT", [][]byte{hmat(2, proximity(0, 5))}, nil},
		{"data type 6", [][]byte{two, hmat(2, locality(6))}, []string{"HMATDataType"}},
		{"locality counts disagree", [][]byte{two, hmat(2, func() []byte { b := locality(0); b[16] = 3; return b }())}, []string{"HMATStructureSize"}},
		{"cache level 0", [][]byte{two, hmat(2, cache(0, 0x00081101))}, []string{"HMATCacheAttributes"}},
		{"proximity short", [][]byte{two, hmat(2, hmatStruct(0, make([]byte, 8)))}, []string{"HMATStructureSize"}},
		{"zero length", [][]byte{two, hmat(2, proximity(0, 0), make([]byte, 8))}, []string{"HMATStructureLength"}},
		{"reserved type is info", [][]byte{two, hmat(2, hmatStruct(7, nil))}, nil},
		{"truncated", [][]byte{checktest.SDT("HMAT", 2, nil)}, []string{"HMATMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, HMAT, c.raw...)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
}
