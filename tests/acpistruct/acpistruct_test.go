package acpistruct

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

// asf builds an ASF! record of type typ and n bytes.
func asf(typ byte, n int) []byte {
	b := make([]byte, n)
	b[0] = typ
	binary.LittleEndian.PutUint16(b[2:], uint16(n))
	return b
}

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func TestStructure(t *testing.T) {
	nhltEndpoint := func(link byte) []byte {
		b := make([]byte, 40)
		binary.LittleEndian.PutUint32(b, 40)
		b[4] = link
		return b
	}
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean ASF!", checktest.SDT("ASF!", 0x20, cat(asf(0, 16), asf(1, 20), asf(0x84, 6))), nil},
		{"ASF! bytes after the last record", checktest.SDT("ASF!", 0x20, cat(asf(0, 16), asf(0x84, 6), []byte{0, 0x10, 0xA0, 0})), nil},
		{"ASF! record past the end", checktest.SDT("ASF!", 0x20, cat(asf(0, 16), []byte{0, 0x10, 0xA0, 0, 0, 0})), []string{"TableStructureLength"}},
		{"ASF! revision", checktest.SDT("ASF!", 0x30, asf(0x80, 16)), []string{"TableRevision"}},
		{"unknown ASF! type is info", checktest.SDT("ASF!", 0x20, asf(0x89, 8)), nil},
		{"NHLT with its trailing configuration", checktest.SDT("NHLT", 0, cat([]byte{2}, nhltEndpoint(1), nhltEndpoint(2), []byte{9, 0, 0, 0, 1, 2, 3})), nil},
		{"NHLT endpoint count", checktest.SDT("NHLT", 0, cat([]byte{3}, nhltEndpoint(1), nhltEndpoint(2))), []string{"TableStructureCount"}},
		{"NHLT endpoint past the end", checktest.SDT("NHLT", 0, cat([]byte{2}, nhltEndpoint(1), nhltEndpoint(2)[:30])), []string{"TableStructureLength"}},
		{"SBST short", checktest.SDT("SBST", 1, make([]byte, 8)), []string{"TableShort"}},
		{"clean SBST", checktest.SDT("SBST", 1, make([]byte, 12)), nil},
		{"SPMI of 64 bytes", checktest.SDT("SPMI", 5, make([]byte, 28)), nil},
		{"SLIC of any revision", checktest.SDT("SLIC", 3, make([]byte, 338)), nil},
		// APMT nodes: length (2 bytes) first, type at offset 3.
		{"clean APMT", checktest.SDT("APMT", 0, cat([]byte{56, 0, 0, 1}, make([]byte, 52), []byte{56, 0, 0, 4}, make([]byte, 52))), nil},
		{"APMT node past the end", checktest.SDT("APMT", 0, cat([]byte{56, 0, 0, 1}, make([]byte, 20))), []string{"TableStructureLength"}},
		// AEST nodes: type, then a 2-byte length.
		{"clean AEST", checktest.SDT("AEST", 1, cat([]byte{0, 8, 0, 0}, make([]byte, 4), []byte{4, 6, 0, 0, 0, 0})), nil},
		{"AEST zero-length node", checktest.SDT("AEST", 1, []byte{1, 0, 0, 0}), []string{"TableStructureLength"}},
		{"MPAM of MSC nodes", checktest.SDT("MPAM", 1, cat([]byte{12, 0, 0, 0}, make([]byte, 8))), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.HPET(nil)).Status)
	// No message quotes a licensing table's bytes.
	key := []byte("ABCDE-FGHIJ-KLMNO-PQRST-UVWXY")
	r := checktest.RunTables(t, Check, checktest.SDT("MSDM", 3, cat(make([]byte, 20), key)))
	for _, f := range r.Findings {
		assert.NotContains(t, f.Message, "ABCDE", f.Message)
	}
}

// wdat builds a WDAT of n 24-byte instruction entries whose count field
// says count.
func wdat(count uint32, n int) []byte {
	fixed := make([]byte, 32)
	binary.LittleEndian.PutUint32(fixed, 32) // watchdog header length
	binary.LittleEndian.PutUint32(fixed[28:], count)
	return checktest.SDT("WDAT", 1, cat(fixed, make([]byte, 24*n)))
}

// drtm builds a DRTM with vtl validated tables, res resources and a DPS
// ID, cut (or lengthened) by extra bytes.
func drtm(vtl, res uint32, extra int) []byte {
	b := make([]byte, 60)
	b = binary.LittleEndian.AppendUint32(b, vtl)
	b = append(b, make([]byte, 8*vtl)...)
	b = binary.LittleEndian.AppendUint32(b, res)
	b = append(b, make([]byte, 16*res)...)
	b = append(b, make([]byte, 20)...)
	if extra < 0 {
		b = b[:len(b)+extra]
	} else {
		b = append(b, make([]byte, extra)...)
	}
	return checktest.SDT("DRTM", 1, b)
}

// ibftStruct builds an iBFT structure header of id and n bytes.
func ibftStruct(id byte, n int) []byte {
	b := make([]byte, n)
	b[0], b[1] = id, 1
	binary.LittleEndian.PutUint16(b[2:], uint16(n))
	return b
}

// ibft builds an iBFT: the 48-byte header, a control structure with the
// given offsets (initiator, NIC 0, target 0, …), then rest.
func ibft(offsets []uint16, rest ...[]byte) []byte {
	ctl := ibftStruct(1, 8+2*len(offsets))
	for i, o := range offsets {
		binary.LittleEndian.PutUint16(ctl[8+2*i:], o)
	}
	return checktest.SDT("IBFT", 1, cat(make([]byte, 12), ctl, cat(rest...)))
}

func TestWDATAndIBFT(t *testing.T) {
	// The control structure of three offsets is 14 bytes at 48: the
	// structures follow from 62.
	const at = 48 + 14
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"WDAT of 8 entries", wdat(8, 8), nil},
		{"WDAT count over its entries", wdat(9, 8), []string{"TableStructureCount"}},
		{"WDAT bytes after its entries", wdat(7, 8), []string{"TableStructureCount"}},
		{"WDAT count of 2^32-1", wdat(0xFFFFFFFF, 1), []string{"TableStructureCount"}},
		{"iBFT initiator, NIC and target", ibft([]uint16{at, at + 74, at + 74 + 102}, ibftStruct(2, 74), ibftStruct(3, 102), ibftStruct(4, 54)), nil},
		{"iBFT without a second pair", ibft([]uint16{at, 0, 0}, ibftStruct(2, 74)), nil},
		{"iBFT offset at the wrong structure", ibft([]uint16{at, at, 0}, ibftStruct(2, 74)), []string{"TableStructureReference"}},
		{"iBFT offset past the end", ibft([]uint16{at, 4000, 0}, ibftStruct(2, 74)), []string{"TableStructureReference"}},
		{"iBFT structure past the end", ibft([]uint16{at, 0, 0}, ibftStruct(2, 74)[:40]), []string{"TableStructureLength"}},
		{"DRTM with its three lists", drtm(2, 1, 0), nil},
		{"DRTM resources past the end", drtm(1, 3, -20), []string{"TableStructureCount"}},
		{"DRTM without a DPS ID", drtm(0, 0, -20), []string{"TableStructureCount"}},
		{"DRTM of its fixed part only", checktest.SDT("DRTM", 1, make([]byte, 60)), []string{"TableStructureCount"}},
		{"DRTM shorter than its fixed part", checktest.SDT("DRTM", 1, make([]byte, 40)), []string{"TableShort"}},
		{"iBFT without a control structure", checktest.SDT("IBFT", 1, cat(make([]byte, 12), ibftStruct(2, 74))), []string{"TableStructureReference"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
}

// FuzzStructure runs the check over a table of each signature it reads,
// made of the fuzzer's bytes after a valid header: it may not abort.
func FuzzStructure(f *testing.F) {
	index := func(sig string) uint8 {
		for i, d := range tables {
			if d.sig == sig {
				return uint8(i)
			}
		}
		panic(sig)
	}
	f.Add(index("WDAT"), wdat(8, 8)[36:])
	f.Add(uint8(len(tables)-1), ibft([]uint16{62, 136, 238}, ibftStruct(2, 74), ibftStruct(3, 102), ibftStruct(4, 54))[36:])
	f.Add(index("ASF!"), asf(0, 16))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		d := tables[int(which)%len(tables)]
		raw := checktest.SDT(d.sig, 1, body)
		m := input.New(checktest.Snapshot{FS: fstest.MapFS{acpi.SysfsDir + "/" + d.sig: &fstest.MapFile{Data: raw}}}, input.Options{})
		r := tests.RunOne(&tests.Env{Machine: m}, Check)
		if r.Status == tests.StatusAborted {
			t.Fatalf("%s: %s", d.sig, r.Reason)
		}
	})
}
