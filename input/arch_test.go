package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
)

func TestArchName(t *testing.T) {
	for in, want := range map[string]string{"x86_64\n": "amd64", "aarch64": "arm64", "i686": "386", "arm64\n": "arm64", "riscv64": "riscv64", "": ""} {
		assert.Equal(t, want, ArchName(in), in)
	}
}

// The architectures of real tables: QEMU's virt board (GICC structures,
// ARM_BOOT_ARCH), its q35 (local APICs), and every machine of the corpus
// whose MADT the dump holds (all x86).
func TestACPIArchCorpus(t *testing.T) {
	q := corpus.Dir(t, "acpi", "qemu")
	for machine, want := range map[string]string{"virt": "arm64", "q35": "amd64", "pc": "amd64"} {
		ts, err := acpi.LoadQEMU(os.DirFS(filepath.Join(q, machine)), ".", "")
		require.NoError(t, err)
		assert.Equal(t, want, ACPIArch(ts), machine)
	}
	dumps, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "acpi", "linuxhw"), "core", "*.txt"))
	require.NotEmpty(t, dumps)
	for _, d := range dumps[:10] {
		ts, err := acpi.LoadDumpFile(d)
		require.NoError(t, err)
		if ts.First("APIC") != nil {
			assert.Equal(t, "amd64", ACPIArch(ts), d)
		}
	}
}

func FuzzACPIArch(f *testing.F) {
	f.Add([]byte{0xB, 80}, []byte("arm64"))
	f.Add([]byte{0, 8, 1, 0, 0, 0, 0, 0}, []byte("vendor_id\t: AuthenticAMD\n"))
	f.Fuzz(func(t *testing.T, entries, cpuinfo []byte) {
		body := append(make([]byte, 44), entries...)
		copy(body, "APIC")
		ts := &acpi.Tables{}
		ts.Add(&acpi.Table{Signature: "APIC", Raw: body, Header: acpi.Header{Length: uint32(len(body))}})
		_ = ACPIArch(ts)
		_ = CPUInfoArch(cpuinfo)
		_ = ArchName(string(cpuinfo))
	})
}
