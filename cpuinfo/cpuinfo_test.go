package cpuinfo

import (
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
