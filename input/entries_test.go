package input

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
)

// sdtOf builds a table with a valid header and checksum around body.
func sdtOf(sig string, body []byte) []byte {
	b := make([]byte, acpi.HeaderSize+len(body))
	copy(b, sig)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
	b[8] = 1
	copy(b[acpi.HeaderSize:], body)
	b[9] = -acpi.Sum(b)
	return b
}

// The live recorder of fwcheck/acpi/ENTRIES reads, through the machine's
// /dev/mem, the first bytes at each XSDT entry: a table's header, bytes
// that are no table, and memory that cannot be read (beyond the file),
// which stays unread rather than judged.
func TestRecordRootEntries(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "dev"), 0o755))
	mem := make([]byte, 0x103000)
	rsdp := make([]byte, acpi.RSDPv2Size)
	copy(rsdp, "RSD PTR ")
	rsdp[15] = 2
	binary.LittleEndian.PutUint32(rsdp[20:], acpi.RSDPv2Size)
	binary.LittleEndian.PutUint64(rsdp[24:], 0x100000)
	rsdp[8] = -acpi.Sum(rsdp[:20])
	rsdp[32] = -acpi.Sum(rsdp)
	copy(mem[0xE0000:], rsdp)
	var entries []byte
	for _, a := range []uint64{0x101000, 0x102000, 0x900000} {
		entries = binary.LittleEndian.AppendUint64(entries, a)
	}
	copy(mem[0x100000:], sdtOf("XSDT", entries))
	copy(mem[0x101000:], sdtOf("FACP", make([]byte, 240)))
	binary.LittleEndian.PutUint64(mem[0x102000:], 0xDEADBEEF)
	require.NoError(t, os.WriteFile(filepath.Join(root, "dev", "mem"), mem, 0o644))

	rec := liveRecorders()["acpi/"+EntriesFile]
	require.NotNil(t, rec)
	b, err := rec(root)
	require.NoError(t, err)
	ps, err := acpi.ParseProbes(b)
	require.NoError(t, err)
	require.Len(t, ps, 3, "%s", b)
	assert.Equal(t, "", ps[0].Bad(), "the FADT")
	assert.Contains(t, ps[1].Bad(), "no table signature")
	assert.Nil(t, ps[2].Head, "beyond memory: unread")
	assert.Equal(t, "", ps[2].Bad())
}
