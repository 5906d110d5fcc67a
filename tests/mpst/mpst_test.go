package mpst

import (
	"encoding/binary"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// node builds a memory power node of ID id with the given states' indexes
// and one physical component.
func node(id uint16, indexes ...uint8) []byte {
	b := make([]byte, 32, 32+2*len(indexes)+2)
	b[0] = 3
	binary.LittleEndian.PutUint16(b[2:], id)
	binary.LittleEndian.PutUint64(b[8:], 0x100000000)
	binary.LittleEndian.PutUint64(b[16:], 0x40000000)
	binary.LittleEndian.PutUint32(b[24:], uint32(len(indexes)))
	binary.LittleEndian.PutUint32(b[28:], 1)
	for i, x := range indexes {
		b = append(b, byte(i+1), x)
	}
	b = append(b, 7, 0)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
	return b
}

// moved sets a node's base address.
func moved(n []byte, base uint64) []byte {
	binary.LittleEndian.PutUint64(n[8:], base)
	return n
}

func char() []byte {
	b := make([]byte, 28)
	b[0], b[1] = 0x40, 1
	return b
}

// mpst builds an MPST of the nodes, then a characteristics count of
// count and the structures chars.
func mpst(rev uint8, nodes [][]byte, count uint16, chars ...[]byte) []byte {
	body := make([]byte, 8)
	body[0] = 3
	binary.LittleEndian.PutUint16(body[4:], uint16(len(nodes)))
	for _, n := range nodes {
		body = append(body, n...)
	}
	body = binary.LittleEndian.AppendUint16(body, count)
	body = append(body, 0, 0)
	for _, c := range chars {
		body = append(body, c...)
	}
	return checktest.SDT("MPST", rev, body)
}

// pcct builds a PCCT of n generic communications subspaces (type 0, 62
// bytes), then the bytes of tail.
func pcct(n int, tail ...byte) []byte {
	body := make([]byte, 12)
	for range n {
		s := make([]byte, 62)
		s[1] = 62
		body = append(body, s...)
	}
	return checktest.SDT("PCCT", 2, append(body, tail...))
}

func TestMPST(t *testing.T) {
	badLen := node(1, 0)
	binary.LittleEndian.PutUint32(badLen[4:], 40)
	badID := char()
	badID[0] = 0x41
	flags := node(2, 0)
	flags[0] = 0x13
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"two nodes, two characteristics", mpst(1, [][]byte{node(1, 0, 1), node(2, 1)}, 2, char(), char()), nil},
		{"revision 2", mpst(2, [][]byte{node(1, 0)}, 1, char()), []string{"MPSTRevision"}},
		{"node length", mpst(1, [][]byte{badLen}, 1, char()), []string{"MPSTNodeLength"}},
		{"node past the end", mpst(1, nil, 0)[:40], []string{"MPSTMalformed"}},
		{"node count over the nodes", func() []byte {
			b := mpst(1, [][]byte{node(1, 0)}, 1, char())
			return checktest.SDT("MPST", 1, append([]byte{3, 0, 0, 0, 2, 0, 0, 0}, b[44:44+36]...))
		}(), []string{"MPSTNodeLength"}},
		{"duplicate node ID", mpst(1, [][]byte{node(1, 0), node(1, 0)}, 1, char()), []string{"MPSTNodeID"}},
		{"one ID over two separate ranges", mpst(1, [][]byte{node(1, 0), moved(node(1, 0), 0x200000000)}, 1, char()), nil},
		{"one ID over overlapping ranges", mpst(1, [][]byte{node(1, 0), moved(node(1, 0), 0x120000000)}, 1, char()), []string{"MPSTNodeID"}},
		{"two IDs over one range", mpst(1, [][]byte{node(1, 0), node(2, 0)}, 1, char()), nil},
		{"state index past the characteristics", mpst(1, [][]byte{node(1, 0, 2)}, 2, char(), char()), []string{"MPSTStateIndex"}},
		{"characteristics count over the structures", mpst(1, [][]byte{node(1, 0)}, 2, char()), []string{"MPSTCharacteristics"}},
		{"characteristics ID is not judged", mpst(1, [][]byte{node(1, 0)}, 1, badID), nil},
		{"reserved node flag", mpst(1, [][]byte{flags}, 1, char()), []string{"MPSTReserved"}},
		{"bytes after the last structure", mpst(1, [][]byte{node(1, 0)}, 1, char(), make([]byte, 4)), []string{"MPSTTrailingBytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, pcct(4), c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.HPET(nil)).Status)
}

// TestMPSTPCC: the MPST's PCC ID (3 in mpst's tables) is looked up in
// the PCCT's subspaces, counted from 0.
func TestMPSTPCC(t *testing.T) {
	raw := mpst(1, [][]byte{node(1, 0)}, 1, char())
	cases := []struct {
		name   string
		tables [][]byte
		want   []string
		says   string
		status tests.Status
	}{
		{"subspace 3 of 4", [][]byte{pcct(4)}, nil, "", tests.StatusPassed},
		{"subspace 3 of 3", [][]byte{pcct(3)}, []string{"MPSTPCCSubspace"}, "PCC subspace 3; the PCCT (PCCT) has 3 subspaces, 0 to 2", tests.StatusWarning},
		{"a PCCT without subspaces", [][]byte{pcct(0)}, []string{"MPSTPCCSubspace"}, "PCC subspace 3; the PCCT (PCCT) has 0 subspaces", tests.StatusWarning},
		{"no PCCT", nil, []string{"MPSTNoPCCT"}, "PCC subspace 3, and the tables have no PCCT", tests.StatusWarning},
		// A subspace list cut short may hold subspace 3 past the fault.
		{"PCCT cut short", [][]byte{pcct(2, 0, 62, 0, 0)}, nil, "", tests.StatusIncomplete},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, append(c.tables, raw)...)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
			assert.Equal(t, c.status, r.Status, "%+v", r)
			for _, l := range c.want {
				f := checktest.FindingWith(r, l)
				assert.Equal(t, tests.KindWarning, f.Kind, "a warning until a corpus machine shows one")
				assert.Equal(t, "MPST: "+c.says, f.Message)
			}
		})
	}
}

// FuzzMPST runs the check over an MPST of the fuzzer's first bytes after
// a valid header, beside a PCCT of its second (none when they are empty):
// it may not abort.
func FuzzMPST(f *testing.F) {
	f.Add(mpst(1, [][]byte{node(1, 0, 1), node(2, 1)}, 2, char(), char())[36:], pcct(4)[36:])
	f.Add(mpst(1, [][]byte{node(1, 0)}, 1, char())[36:], []byte{})
	f.Fuzz(func(t *testing.T, body, pcctBody []byte) {
		fsys := fstest.MapFS{acpi.SysfsDir + "/MPST": &fstest.MapFile{Data: checktest.SDT("MPST", 1, body)}}
		if len(pcctBody) > 0 {
			fsys[acpi.SysfsDir+"/PCCT"] = &fstest.MapFile{Data: checktest.SDT("PCCT", 2, pcctBody)}
		}
		m := input.New(checktest.Snapshot{FS: fsys}, input.Options{})
		if r := tests.RunOne(&tests.Env{Machine: m}, Check); r.Status == tests.StatusAborted {
			t.Fatal(r.Reason)
		}
	})
}
