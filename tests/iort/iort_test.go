package iort

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func read(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join(corpus.Dir(t, "acpi", "qemu"), "virt", name))
	require.NoError(t, err)
	return b
}

func found(r tests.Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Label != "" {
			out = append(out, f.Label+": "+f.Message)
		}
	}
	return out
}

// TestQEMUVirt: QEMU's virt IORT routes the root complex to ITS 0, which
// its GICv2 MADT does not have (a QEMU deviation, see tests/all); without
// the MADT that cross-check is not made.
func TestQEMUVirt(t *testing.T) {
	iort, madt := read(t, "IORT"), read(t, "APIC")
	r := checktest.Run(t, Check, checktest.Machine(t, nil, checktest.Table{Raw: iort}, checktest.Table{Raw: madt}))
	assert.Equal(t, []string{"IORTITSUnknown: IORT: ITS group node at offset 48: ITS ID 0 is not among the MADT's 0 GIC ITS structures"}, found(r))
	assert.Equal(t, tests.StatusWarning, r.Status)

	r = checktest.Run(t, Check, checktest.Machine(t, nil, checktest.Table{Raw: iort}))
	assert.Empty(t, found(r))
	assert.Equal(t, tests.StatusIncomplete, r.Status, tests.Render([]tests.Result{r}))
}

// TestMappingTarget: a root complex mapping pointed at an offset where no
// node starts, and one pointed at the root complex itself.
func TestMappingTarget(t *testing.T) {
	orig := read(t, "IORT")
	io, err := acpi.ParseIORT(&acpi.Table{Signature: "IORT", Raw: orig, Header: mustHeader(t, orig)})
	require.NoError(t, err)
	var rc *acpi.IORTNode
	for i := range io.Nodes {
		if io.Nodes[i].Type == acpi.IORTRootComplex {
			rc = &io.Nodes[i]
		}
	}
	require.NotNil(t, rc)
	ref := rc.Offset + int(rc.MappingOffset) + 12
	for _, c := range []struct {
		to   uint32
		want string
	}{
		{0x999, "IORTMappingTarget: IORT: root complex node at offset 72: mapping 0 points at offset 2457, where no node starts"},
		{uint32(rc.Offset), "IORTMappingTarget: IORT: root complex node at offset 72: mapping 0 points at a root complex node (offset 72), which cannot take IDs"},
	} {
		b := append([]byte(nil), orig...)
		binary.LittleEndian.PutUint32(b[ref:], c.to)
		r := checktest.Run(t, Check, checktest.Machine(t, nil, checktest.Table{Raw: b}))
		assert.Equal(t, []string{c.want}, found(r))
	}
}

func mustHeader(t *testing.T, b []byte) acpi.Header {
	h, err := acpi.ParseHeader(b)
	require.NoError(t, err)
	return h
}
