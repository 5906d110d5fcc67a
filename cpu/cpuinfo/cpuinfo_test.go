package cpuinfo

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 167
model name	: Intel(R) Xeon(R) Processor
stepping	: 1
microcode	: 0x1
flags		: fpu vme nx vmx hypervisor
address sizes	: 48 bits physical, 57 bits virtual

processor	: 1
vendor_id	: AuthenticAMD
microcode	: 0x8701021
flags		: fpu svm
address sizes	: 43 bits physical, 48 bits virtual
`

func TestParse(t *testing.T) {
	cs, err := Parse([]byte(sample))
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, "GenuineIntel", cs[0].Vendor)
	assert.Equal(t, 167, cs[0].Model)
	assert.True(t, cs[0].Has("nx") && cs[0].Has("hypervisor"))
	assert.Equal(t, 48, cs[0].PhysBits)
	assert.Equal(t, uint64(0x8701021), cs[1].Microcode)
	assert.True(t, cs[1].HaveMicrocode)
	assert.Equal(t, 43, cs[1].PhysBits)
	_, err = Parse([]byte("flags : x\n"))
	assert.Error(t, err)
	_, err = Parse([]byte("processor : -1\n"))
	assert.Error(t, err)
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Fuzz(func(t *testing.T, b []byte) { Parse(b) })
}

func TestFromLog(t *testing.T) {
	f := FromLog([]string{
		"microcode: CPU0 sig=0x6f6, pf=0x20, revision=0xd2",
		"microcode: CPU1 sig=0x6f6, pf=0x20, revision=0xd1",
		"microcode: CPU2: patch_level=0x010000d9",
		"NX (Execute Disable) protection: active",
		"x86/cpu: VMX (outside TXT) disabled by BIOS",
		"kvm: disabled by bios",
		"MDS: Vulnerable: Clear CPU buffers attempted, no microcode",
		"Speculative Return Stack Overflow: Vulnerable: Safe RET, no microcode",
	})
	assert.Equal(t, map[int]uint64{0: 0xd2, 1: 0xd1, 2: 0x010000d9}, f.Microcode)
	assert.NotEmpty(t, f.VMXOff)
	assert.NotEmpty(t, f.KVMOff)
	assert.Equal(t, "NX (Execute Disable) protection: active", f.NX)
	assert.Len(t, f.NoMicrocode, 2)
}

func FuzzFromLog(f *testing.F) {
	f.Add("microcode: CPU0 sig=0x6f6, pf=0x20, revision=0xd2\nkvm: disabled by bios\n")
	f.Fuzz(func(t *testing.T, s string) { FromLog(strings.Split(s, "\n")) })
}

func TestCPUIDRoundTripAndDevice(t *testing.T) {
	// A file laid out like /dev/cpu/N/cpuid for leaf 1: 16 bytes at offset 1.
	p := filepath.Join(t.TempDir(), "cpuid")
	b := make([]byte, 17)
	binary.LittleEndian.PutUint32(b[1+8:], 1<<5|1<<31) // ECX: VMX, hypervisor
	require.NoError(t, os.WriteFile(p, b, 0o644))
	r, err := ReadCPUIDDevice(p, []Leaf{{1, 0}})
	require.NoError(t, err)
	c := CPUID{0: r}
	set, known := c.Bit(0, Leaf{1, 0}, 2, 5)
	assert.True(t, set && known)
	_, known = c.Bit(0, Leaf{7, 0}, 1, 0)
	assert.False(t, known)
	var out bytes.Buffer
	require.NoError(t, c.Format(&out))
	d, err := ParseCPUID(out.Bytes())
	require.NoError(t, err)
	assert.Equal(t, c, d)
	_, err = ReadCPUIDDevice(p, []Leaf{{0x80000001, 0}})
	assert.Error(t, err, "offset past the file: as a CPU without the leaf")
	for _, bad := range []string{"cpu 0 1 0 0 0 0\n", "cpu x 1 0 0 0 0 0\n", "cpu 0 1 0 0 0 0 zz\n"} {
		_, err := ParseCPUID([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func FuzzParseCPUID(f *testing.F) {
	f.Add([]byte("cpu 0 0x1 0x0 0x000806a1 0x00100800 0x80000021 0x1f8bfbff\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCPUID(b)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := c.Format(&out); err != nil {
			t.Fatal(err)
		}
		if _, err := ParseCPUID(out.Bytes()); err != nil {
			t.Fatal(err)
		}
	})
}
