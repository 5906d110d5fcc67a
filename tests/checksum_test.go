package tests

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
)

func synthRSDP(rev uint8, rsdt uint32, xsdt uint64) []byte {
	b := make([]byte, acpi.RSDPv2Size)
	copy(b, "RSD PTR ")
	copy(b[9:], "FWCHK ")
	b[15] = rev
	binary.LittleEndian.PutUint32(b[16:], rsdt)
	binary.LittleEndian.PutUint32(b[20:], acpi.RSDPv2Size)
	binary.LittleEndian.PutUint64(b[24:], xsdt)
	b[8] = -acpi.Sum(b[:20])
	b[32] = -acpi.Sum(b)
	if rev < 2 {
		return b[:acpi.RSDPv1Size]
	}
	return b
}

func TestChecksumClean(t *testing.T) {
	r := runCheck(t, "checksum", synthFADT(nil), sdtRaw("SSDT", 2, []byte{1, 2, 3}), synthRSDP(2, 0x1000, 0x2000))
	assert.Equal(t, StatusPassed, r.Status)
	assert.Empty(t, failLabels(r))
}

func TestChecksumTableMismatch(t *testing.T) {
	ssdt := sdtRaw("SSDT", 2, []byte{1, 2, 3})
	good := ssdt[9]
	ssdt[HeaderOff] += 5 // corrupt one body byte: the table now sums to 5
	r := runCheck(t, "checksum", synthFADT(nil), ssdt)
	assert.Equal(t, []string{"ACPITableChecksum"}, failLabels(r))
	f := findingWith(r, "ACPITableChecksum")
	require.NotNil(t, f)
	assert.Contains(t, f.Message, "SSDT: checksum byte is 0x")
	assert.Contains(t, f.Message, "sum to 0x05")
	assert.Equal(t, Medium, f.Severity)
	assert.Contains(t, f.Message, "expected 0x"+hex2(good-5))
	assert.NotEmpty(t, f.Advice)
	assert.Equal(t, "ACPI 6.5 §5.2.6", f.Spec)
}

// HeaderOff is the first body byte of an SDT.
const HeaderOff = acpi.HeaderSize

func hex2(b byte) string { return string("0123456789ABCDEF"[b>>4]) + string("0123456789ABCDEF"[b&15]) }

func TestChecksumRSDP(t *testing.T) {
	bad20 := synthRSDP(2, 0x1000, 0x2000)
	bad20[8]++
	bad20[32]-- // keep the whole structure summing to zero
	r := runCheck(t, "checksum", synthFADT(nil), bad20)
	assert.Equal(t, []string{"RSDPChecksum"}, failLabels(r))
	assert.Equal(t, High, findingWith(r, "RSDPChecksum").Severity)

	badExt := synthRSDP(2, 0x1000, 0x2000)
	badExt[32]++
	r = runCheck(t, "checksum", synthFADT(nil), badExt)
	assert.Equal(t, []string{"RSDPExtendedChecksum"}, failLabels(r))

	v1 := synthRSDP(0, 0x1000, 0)
	r = runCheck(t, "checksum", synthFADT(nil), v1)
	assert.Empty(t, failLabels(r), "a v1 RSDP has no extended checksum")
}

func TestChecksumNoRSDPSaysSo(t *testing.T) {
	r := runCheck(t, "checksum", synthFADT(nil))
	assert.Equal(t, StatusPassed, r.Status)
	var infos []string
	for _, f := range r.Findings {
		if f.Kind == KindInfo {
			infos = append(infos, f.Message)
		}
	}
	require.Len(t, infos, 1)
	assert.Contains(t, infos[0], "no RSDP")
}
