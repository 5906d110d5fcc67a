package checksum

import (
	"testing"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
)

func TestChecksumClean(t *testing.T) {
	r := checktest.RunTables(t, Check, checktest.FADT(nil), checktest.SDT("SSDT", 2, []byte{1, 2, 3}), checktest.RSDP(2, 0x1000, 0x2000))
	assert.Equal(t, tests.StatusPassed, r.Status)
	assert.Empty(t, checktest.FailLabels(r))
}

func TestChecksumTableMismatch(t *testing.T) {
	ssdt := checktest.SDT("SSDT", 2, []byte{1, 2, 3})
	good := ssdt[9]
	ssdt[HeaderOff] += 5 // corrupt one body byte: the table now sums to 5
	r := checktest.RunTables(t, Check, checktest.FADT(nil), ssdt)
	assert.Equal(t, []string{"ACPITableChecksum"}, checktest.FailLabels(r))
	f := checktest.FindingWith(r, "ACPITableChecksum")
	require.NotNil(t, f)
	assert.Contains(t, f.Message, "SSDT: checksum byte is 0x")
	assert.Contains(t, f.Message, "sum to 0x05")
	assert.Equal(t, tests.Medium, f.Severity)
	assert.Contains(t, f.Message, "expected 0x"+hex2(good-5))
	assert.NotEmpty(t, f.Advice)
	assert.Equal(t, "ACPI 6.5 §5.2.6", f.Spec)
}

// HeaderOff is the first body byte of an SDT.
const HeaderOff = acpi.HeaderSize

func hex2(b byte) string { return string("0123456789ABCDEF"[b>>4]) + string("0123456789ABCDEF"[b&15]) }

func TestChecksumRSDP(t *testing.T) {
	bad20 := checktest.RSDP(2, 0x1000, 0x2000)
	bad20[8]++
	bad20[32]-- // keep the whole structure summing to zero
	r := checktest.RunTables(t, Check, checktest.FADT(nil), bad20)
	assert.Equal(t, []string{"RSDPChecksum"}, checktest.FailLabels(r))
	assert.Equal(t, tests.High, checktest.FindingWith(r, "RSDPChecksum").Severity)

	badExt := checktest.RSDP(2, 0x1000, 0x2000)
	badExt[32]++
	r = checktest.RunTables(t, Check, checktest.FADT(nil), badExt)
	assert.Equal(t, []string{"RSDPExtendedChecksum"}, checktest.FailLabels(r))

	v1 := checktest.RSDP(0, 0x1000, 0)
	r = checktest.RunTables(t, Check, checktest.FADT(nil), v1)
	assert.Empty(t, checktest.FailLabels(r), "a v1 RSDP has no extended checksum")
}

func TestChecksumNoRSDPSaysSo(t *testing.T) {
	r := checktest.RunTables(t, Check, checktest.FADT(nil))
	assert.Equal(t, tests.StatusIncomplete, r.Status, "tables summed, RSDP not checked: not a pass")
	require.Len(t, r.Unchecked, 1)
	assert.Equal(t, "RSDP checksums", r.Unchecked[0].What)
	assert.Contains(t, r.Unchecked[0].Reason, "RSDP is not in this table set")
}
