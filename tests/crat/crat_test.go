package crat

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// structure builds an enabled CRAT structure of type typ in domain dom.
func structure(typ byte, size int, dom uint32) []byte {
	b := make([]byte, size)
	b[0], b[1], b[4] = typ, byte(size), 1
	if size >= 12 {
		binary.LittleEndian.PutUint32(b[8:], dom)
	}
	return b
}

func crat(total uint32, structs ...[]byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, total)
	body = append(body, 1, 0, 0, 0, 0, 0, 0, 0)
	for _, s := range structs {
		body = append(body, s...)
	}
	return checktest.SDT("CRAT", 1, body)
}

func cdit(n uint32, m ...byte) []byte {
	return checktest.SDT("CDIT", 1, append(binary.LittleEndian.AppendUint32(nil, n), m...))
}

func TestCRAT(t *testing.T) {
	ok := [][]byte{structure(0, 40, 0), structure(1, 40, 0), structure(2, 64, 0), structure(3, 64, 0)}
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", crat(4, ok...), nil},
		{"count", crat(5, ok...), []string{"CRATEntryCount"}},
		{"short cache", crat(1, structure(2, 40, 0)), []string{"CRATStructureSize"}},
		{"zero length", crat(1, structure(1, 40, 0), []byte{1, 0}), []string{"CRATStructureLength"}},
		{"undefined type is info", crat(2, structure(1, 40, 0), structure(9, 8, 0)), nil},
		{"revision 2", checktest.SDT("CRAT", 2, crat(4, ok...)[36:]), []string{"CRATRevision"}},
		{"truncated", checktest.SDT("CRAT", 1, make([]byte, 4)), []string{"CRATMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
}

func TestCDIT(t *testing.T) {
	two := crat(2, structure(1, 40, 0), structure(1, 40, 1))
	cases := []struct {
		name string
		raw  [][]byte
		want []string
	}{
		{"clean, as the corpus ones", [][]byte{crat(1, structure(1, 40, 0)), cdit(1, 10)}, nil},
		{"two domains", [][]byte{two, cdit(2, 10, 20, 20, 10)}, nil},
		{"CRAT domain outside", [][]byte{two, cdit(1, 10)}, []string{"CDITDomainOutside"}},
		{"disabled structure's domain is not counted", [][]byte{crat(2, structure(1, 40, 0), func() []byte { b := structure(1, 40, 1); b[4] = 0; return b }()), cdit(1, 10)}, nil},
		{"diagonal", [][]byte{cdit(1, 0)}, []string{"CDITSelfDistance"}},
		{"reserved distance", [][]byte{two, cdit(2, 10, 5, 20, 10)}, []string{"CDITReservedDistance"}},
		{"short", [][]byte{two, cdit(2, 10, 20)}, []string{"CDITLength"}},
		{"truncated", [][]byte{checktest.SDT("CDIT", 1, make([]byte, 2))}, []string{"CDITMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, CDIT, c.raw...)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	assert.Equal(t, tests.StatusPassed, checktest.RunTables(t, CDIT, two, cdit(2, 10, 20, 20, 10)).Status)
}
