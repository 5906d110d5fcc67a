package acpi

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sratMemory builds an SRAT memory affinity structure.
func sratMemory(domain uint32, base, size uint64, flags uint32) []byte {
	b := make([]byte, 40)
	b[0], b[1] = SRATMemory, 40
	binary.LittleEndian.PutUint32(b[2:], domain)
	binary.LittleEndian.PutUint64(b[8:], base)
	binary.LittleEndian.PutUint64(b[16:], size)
	binary.LittleEndian.PutUint32(b[28:], flags)
	return b
}

// TestSRATMemoryDomains: the memory domains are those of enabled memory
// affinity structures only, not those of processors nor of disabled or
// short memory structures.
func TestSRATMemoryDomains(t *testing.T) {
	body := append([]byte{1, 0, 0, 0}, make([]byte, 8)...)
	x2apic := make([]byte, 24)
	x2apic[0], x2apic[1] = SRATProcessorX2APIC, 24
	binary.LittleEndian.PutUint32(x2apic[4:], 7) // domain 7, a processor's only
	binary.LittleEndian.PutUint32(x2apic[12:], SRATEnabled)
	for _, s := range [][]byte{
		sratMemory(0, 0, 0x80000000, SRATEnabled),
		sratMemory(1, 0x100000000, 0x80000000, SRATEnabled|SRATNonVolatile),
		sratMemory(2, 0x180000000, 0x80000000, 0), // disabled
		x2apic,
		{SRATMemory, 8, 3, 0, 0, 0, 0, 0}, // short: domain 3 not read
	} {
		body = append(body, s...)
	}
	s, err := ParseSRAT(table(sdt(SigSRAT, 3, body)))
	require.NoError(t, err)
	assert.Equal(t, map[uint32]bool{0: true, 1: true}, s.MemoryDomains())
	assert.Equal(t, map[uint32]bool{0: true, 1: true, 7: true}, s.Domains())
}
