package devicetree

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/u-root/u-root/pkg/dt"
)

func load(t testing.TB, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

// The blobs QEMU's virt board hands its firmware (dumped with
// -machine virt,dumpdtb=FILE, packed by dtc).
func TestQEMUVirt(t *testing.T) {
	for _, name := range []string{"qemu-virt-gicv3.dtb", "qemu-virt-gicv2-smp2.dtb"} {
		bl, err := Parse(load(t, name))
		require.NoError(t, err, name)
		require.Empty(t, bl.Problems, name)
		require.NotNil(t, bl.Root)
		assert.Equal(t, uint32(17), bl.Header.Version)
		compat, ok := Prop(bl.Root, "compatible")
		require.True(t, ok)
		l, err := StringList(compat)
		require.NoError(t, err)
		assert.Equal(t, []string{"linux,dummy-virt"}, l)
		psci := bl.Node("/psci")
		require.NotNil(t, psci)
		pc, _ := Prop(psci, "compatible")
		l, err = StringList(pc)
		require.NoError(t, err)
		assert.Equal(t, []string{"arm,psci-1.0", "arm,psci-0.2", "arm,psci"}, l)
		mem := bl.Node("/memory")
		require.NotNil(t, mem)
		a, s := Cells(bl.Root)
		reg, _ := Prop(mem, "reg")
		rs, err := Reg(reg, a, s)
		require.NoError(t, err)
		assert.Equal(t, uint64(0x40000000), rs[0].Addr)
		require.NotNil(t, bl.Node("/chosen"))
		assert.Nil(t, bl.Node("/nonesuch"))
		assert.Greater(t, bl.Nodes, 20)
	}
}

func TestMalformed(t *testing.T) {
	good := load(t, "qemu-virt-gicv3.dtb")
	mut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	off := binary.BigEndian.Uint32(good[8:])
	for name, tc := range map[string]struct {
		b    []byte
		want string
	}{
		"totalsize past the end": {mut(func(b []byte) { binary.BigEndian.PutUint32(b[4:], uint32(len(b)+1)) }), "totalsize"},
		"strings past the end":   {mut(func(b []byte) { binary.BigEndian.PutUint32(b[32:], uint32(len(b))) }), "strings block"},
		"unknown token":          {mut(func(b []byte) { binary.BigEndian.PutUint32(b[off:], 7) }), "unknown token 0x7"},
		"struct misaligned":      {mut(func(b []byte) { binary.BigEndian.PutUint32(b[8:], off+1) }), "aligned"},
		"huge property":          {mut(func(b []byte) { hugeProp(b, off) }), "runs past the structure block"},
	} {
		bl, err := Parse(tc.b)
		require.NoError(t, err, name)
		require.NotEmpty(t, bl.Problems, name)
		assert.Contains(t, bl.Problems[0], tc.want, name)
		assert.Nil(t, bl.Root, name)
	}
	for _, b := range [][]byte{nil, good[:20], mut(func(b []byte) { b[0] = 0 })} {
		_, err := Parse(b)
		assert.Error(t, err)
	}
}

// hugeProp sets the length of the first property to 4 GiB - 1, which
// u-root's parser would allocate.
func hugeProp(b []byte, off uint32) {
	for o := off; o+12 < uint32(len(b)); o += 4 {
		if binary.BigEndian.Uint32(b[o:]) == tokProp {
			binary.BigEndian.PutUint32(b[o+4:], 0xffffffff)
			return
		}
	}
}

func TestStringList(t *testing.T) {
	for _, bad := range []string{"", "abc", "a\x00\x00", "a\x01b\x00"} {
		_, err := StringList([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
	l, err := StringList([]byte("arm,psci-1.0\x00arm,psci\x00"))
	require.NoError(t, err)
	assert.Equal(t, []string{"arm,psci-1.0", "arm,psci"}, l)
}

func FuzzParse(f *testing.F) {
	f.Add(load(f, "qemu-virt-gicv3.dtb"))
	f.Add(load(f, "qemu-virt-gicv2-smp2.dtb"))
	f.Fuzz(func(t *testing.T, b []byte) {
		bl, err := Parse(b)
		if err != nil {
			return
		}
		bl.Walk(func(string, *dt.Node) {})
		_ = bl.Node("/chosen")
	})
}
