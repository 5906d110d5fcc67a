package nfit

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

var pmem = []byte{0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40, 0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb}

func st(typ uint16, n int) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint16(b, typ)
	binary.LittleEndian.PutUint16(b[2:], uint16(n))
	return b
}

func spa(index, flags uint16, n int) []byte {
	b := st(0, n)
	binary.LittleEndian.PutUint16(b[4:], index)
	binary.LittleEndian.PutUint16(b[6:], flags)
	copy(b[16:], pmem)
	binary.LittleEndian.PutUint64(b[32:], 0x108000000)
	binary.LittleEndian.PutUint64(b[40:], 0x8000000)
	return b
}

func mapping(spaIdx, dcrIdx, ilIdx, flags uint16, ways ...uint16) []byte {
	b := st(1, 48)
	binary.LittleEndian.PutUint32(b[4:], 2)
	binary.LittleEndian.PutUint16(b[12:], spaIdx)
	binary.LittleEndian.PutUint16(b[14:], dcrIdx)
	binary.LittleEndian.PutUint16(b[40:], ilIdx)
	binary.LittleEndian.PutUint16(b[42:], 1)
	if len(ways) > 0 {
		binary.LittleEndian.PutUint16(b[42:], ways[0])
	}
	binary.LittleEndian.PutUint16(b[44:], flags)
	return b
}

func dcr(index uint16, n int, windows uint16) []byte {
	b := st(4, n)
	binary.LittleEndian.PutUint16(b[4:], index)
	binary.LittleEndian.PutUint16(b[30:], windows)
	return b
}

func nfit(rev uint8, structs ...[]byte) []byte {
	body := make([]byte, 4)
	for _, s := range structs {
		body = append(body, s...)
	}
	return checktest.SDT("NFIT", rev, body)
}

func TestNFIT(t *testing.T) {
	caps := st(7, 16)
	caps[4], caps[8] = 1, 3
	badCaps := st(7, 16)
	badCaps[8] = 0x10
	unknown := spa(4, 3, 56)
	unknown[16] = 0
	wrap := spa(4, 3, 56)
	binary.LittleEndian.PutUint64(wrap[32:], 0xFFFFFFFFFFFFF000)
	il := st(2, 24)
	binary.LittleEndian.PutUint16(il[4:], 1)
	binary.LittleEndian.PutUint32(il[8:], 2)
	ilShort := st(2, 20)
	binary.LittleEndian.PutUint16(ilShort[4:], 1)
	binary.LittleEndian.PutUint32(ilShort[8:], 2)
	flush := st(6, 24)
	binary.LittleEndian.PutUint16(flush[8:], 2)
	flush2 := st(6, 32)
	binary.LittleEndian.PutUint16(flush2[8:], 2)
	bdw := st(5, 40)
	binary.LittleEndian.PutUint16(bdw[4:], 9)
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"QEMU's layout", nfit(1, spa(4, 3, 56), mapping(4, 5, 0, 0), dcr(5, 80, 0), caps), nil},
		{"SPA with location cookie", nfit(1, spa(4, 7, 64)), nil},
		{"64-byte SPA without the cookie flag", nfit(1, spa(4, 3, 64)), nil},
		{"cookie flag on a 56-byte SPA", nfit(1, spa(4, 7, 56)), []string{"NFITStructureSize"}},
		{"SPA of 60 bytes", nfit(1, spa(4, 3, 60)), []string{"NFITStructureSize"}},
		{"32-byte control region without windows", nfit(1, dcr(5, 32, 0)), nil},
		{"32-byte control region with windows", nfit(1, dcr(5, 32, 2)), []string{"NFITStructureSize"}},
		{"interleave of 2 lines", nfit(1, spa(4, 3, 56), il, mapping(4, 0, 1, 0, 2)), nil},
		{"interleave shorter than its lines", nfit(1, ilShort), []string{"NFITStructureSize"}},
		{"flush hint length for 1 address, count 2", nfit(1, flush), []string{"NFITStructureSize"}},
		{"flush hints of 2 addresses", nfit(1, flush2), nil},
		{"revision 2", nfit(2, spa(4, 3, 56)), []string{"NFITRevision"}},
		{"reserved SPA flag", nfit(1, spa(4, 0x13, 56)), []string{"NFITReserved"}},
		{"reserved capability", nfit(1, badCaps), []string{"NFITReserved"}},
		{"SPA index 0", nfit(1, spa(0, 3, 56)), []string{"NFITIndex"}},
		{"duplicate SPA index", nfit(1, spa(4, 3, 56), spa(4, 3, 56)), []string{"NFITIndex"}},
		{"mapping to a missing SPA", nfit(1, spa(4, 3, 56), mapping(3, 5, 0, 0), dcr(5, 80, 0)), []string{"NFITReference"}},
		{"mapping to a missing control region", nfit(1, spa(4, 3, 56), mapping(4, 6, 0, 0), dcr(5, 80, 0)), []string{"NFITReference"}},
		{"block window to a missing control region", nfit(1, dcr(5, 80, 1), bdw), []string{"NFITReference"}},
		{"SPA range wraps", nfit(1, wrap), []string{"NFITSPARange"}},
		{"unknown range type is information", nfit(1, unknown), nil},
		{"NVDIMM not armed is information", nfit(1, spa(4, 3, 56), mapping(4, 5, 0, 8), dcr(5, 80, 0)), nil},
		{"structure past the end", nfit(1, spa(4, 3, 56)[:50]), []string{"NFITStructureLength"}},
		{"short control region", nfit(1, st(4, 20)), []string{"NFITStructureSize"}},
		{"reserved type is information", nfit(1, st(9, 8)), nil},
		{"control region index 0", nfit(1, dcr(0, 80, 0)), nil},
		{"interleave index 0", nfit(1, func() []byte { b := append([]byte(nil), il...); b[4] = 0; return b }()), []string{"NFITIndex"}},
		{"interleave ignored without an SPA range", nfit(1, mapping(0, 0, 7, 0)), nil},
		{"interleave with one way", nfit(1, spa(4, 3, 56), il, mapping(4, 0, 1, 0)), []string{"NFITInterleaveWays"}},
		{"cache flush without controller flush", nfit(1, func() []byte { b := append([]byte(nil), caps...); b[8] = 1; return b }()), []string{"NFITCapabilities"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	r := checktest.RunTables(t, Check, nfit(1, spa(4, 3, 56), mapping(4, 5, 0, 8), dcr(5, 80, 0)))
	if f := checktest.FindingWith(r, ""); assert.NotNil(t, f) {
		assert.Contains(t, f.Message, "the NVDIMM not armed")
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.HPET(nil)).Status)
}

// domainSPA is an SPA range of index 4 whose proximity domain is d,
// valid or not.
func domainSPA(d uint32, valid bool) []byte {
	b := spa(4, 1, 56)
	if valid {
		b[6] |= 2
	}
	binary.LittleEndian.PutUint32(b[12:], d)
	return b
}

// sratMem is an SRAT memory affinity structure of domain d.
func sratMem(d uint32, flags uint32) []byte {
	b := make([]byte, 40)
	b[0], b[1] = 1, 40
	binary.LittleEndian.PutUint32(b[2:], d)
	binary.LittleEndian.PutUint64(b[16:], 0x40000000)
	binary.LittleEndian.PutUint32(b[28:], flags)
	return b
}

// srat builds an SRAT (revision 3) of the structures, then tail.
func srat(structs ...[]byte) []byte {
	body := append([]byte{1, 0, 0, 0}, make([]byte, 8)...)
	for _, s := range structs {
		body = append(body, s...)
	}
	return checktest.SDT("SRAT", 3, body)
}

// TestNFITDomains: an SPA range's valid proximity domain is looked up in
// the SRAT's enabled memory affinity structures, when there is an SRAT.
func TestNFITDomains(t *testing.T) {
	cpu := make([]byte, 24) // x2APIC affinity, domain 5, enabled
	cpu[0], cpu[1], cpu[4], cpu[12] = 2, 24, 5, 1
	two := srat(sratMem(0, 1), sratMem(1, 5))
	cases := []struct {
		name   string
		tables [][]byte
		want   []string
		says   string
		status tests.Status
	}{
		{"domain 1 of 0 and 1", [][]byte{two, nfit(1, domainSPA(1, true))}, nil, "", tests.StatusPassed},
		{"domain 2 not declared", [][]byte{two, nfit(1, domainSPA(2, true))}, []string{"NFITDomainNotInSRAT"},
			"SPA range at offset 40 (index 4, 0x108000000-0x10fffffff) gives proximity domain 2; the SRAT's enabled memory affinity structures declare domains 0 1", tests.StatusWarning},
		{"domain 2 not said valid", [][]byte{two, nfit(1, domainSPA(2, false))}, nil, "", tests.StatusPassed},
		{"no SRAT", [][]byte{nfit(1, domainSPA(2, true))}, nil, "", tests.StatusPassed},
		{"domain 1 only a disabled structure's", [][]byte{srat(sratMem(0, 1), sratMem(1, 0)), nfit(1, domainSPA(1, true))}, []string{"NFITDomainNotInSRAT"},
			"SPA range at offset 40 (index 4, 0x108000000-0x10fffffff) gives proximity domain 1; the SRAT's enabled memory affinity structures declare domain 0", tests.StatusWarning},
		{"domain 5 only a processor's", [][]byte{srat(sratMem(0, 1), cpu), nfit(1, domainSPA(5, true))}, []string{"NFITDomainNotInSRAT"},
			"SPA range at offset 40 (index 4, 0x108000000-0x10fffffff) gives proximity domain 5; the SRAT's enabled memory affinity structures declare domain 0", tests.StatusWarning},
		// The domain's structure may lie past where the SRAT's walk stopped.
		{"SRAT cut short", [][]byte{srat(sratMem(0, 1), []byte{1, 40, 1, 0}), nfit(1, domainSPA(1, true))}, nil, "", tests.StatusIncomplete},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.tables...)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
			assert.Equal(t, c.status, r.Status, "%+v", r)
			for _, l := range c.want {
				f := checktest.FindingWith(r, l)
				assert.Equal(t, tests.KindWarning, f.Kind, "a warning until a corpus machine shows one")
				assert.Equal(t, "NFIT: "+c.says, f.Message)
			}
		})
	}
}

// FuzzNFIT runs the check over an NFIT of the fuzzer's first bytes after
// a valid header, beside an SRAT of its second (none when they are
// empty): it may not abort.
func FuzzNFIT(f *testing.F) {
	f.Add(nfit(1, spa(4, 3, 56), mapping(4, 5, 0, 0), dcr(5, 80, 0))[36:], srat(sratMem(0, 1))[36:])
	f.Add(nfit(1, domainSPA(3, true))[36:], []byte{})
	if root := corpus.Root(); root != "" {
		for _, p := range []string{"q35/%s.dimmpxm", "virt/%s.memhp"} {
			raw, err := os.ReadFile(filepath.Join(root, "acpi", "qemu", fmt.Sprintf(p, "NFIT")))
			sr, err2 := os.ReadFile(filepath.Join(root, "acpi", "qemu", fmt.Sprintf(p, "SRAT")))
			if err == nil && err2 == nil {
				f.Add(raw[36:], sr[36:])
			}
		}
	}
	f.Fuzz(func(t *testing.T, body, sratBody []byte) {
		fsys := fstest.MapFS{acpi.SysfsDir + "/NFIT": &fstest.MapFile{Data: checktest.SDT("NFIT", 1, body)}}
		if len(sratBody) > 0 {
			fsys[acpi.SysfsDir+"/SRAT"] = &fstest.MapFile{Data: checktest.SDT("SRAT", 3, sratBody)}
		}
		m := input.New(checktest.Snapshot{FS: fsys}, input.Options{})
		if r := tests.RunOne(&tests.Env{Machine: m}, Check); r.Status == tests.StatusAborted {
			t.Fatal(r.Reason)
		}
	})
}

// TestQEMU: QEMU's NFITs (an NVDIMM on pc and q35, a hot-pluggable one
// on virt) have no finding, alone or beside the SRAT of their
// configuration, whose memory affinity structures hold the NVDIMMs'
// proximity domains.
func TestQEMU(t *testing.T) {
	root := corpus.Root()
	if root == "" {
		t.Skip("no shared corpus (FWCHECK_SHARED)")
	}
	for _, p := range []string{"pc/%s.dimmpxm", "q35/%s.dimmpxm", "virt/%s.memhp"} {
		raw, err := os.ReadFile(filepath.Join(root, "acpi", "qemu", fmt.Sprintf(p, "NFIT")))
		if err != nil {
			t.Fatal(err)
		}
		sr, err := os.ReadFile(filepath.Join(root, "acpi", "qemu", fmt.Sprintf(p, "SRAT")))
		if err != nil {
			t.Fatal(err)
		}
		ts := &acpi.Tables{}
		ts.Add(&acpi.Table{Signature: acpi.SigNFIT, Raw: raw})
		n, err := acpi.ParseNFIT(ts.List[0])
		if err != nil {
			t.Fatal(err)
		}
		valid := 0
		for _, s := range n.Structures {
			if s.Type == acpi.NFITSPARange && s.Flags&acpi.NFITSPADomainValid != 0 {
				valid++
			}
		}
		assert.NotZero(t, valid, "%s: QEMU's SPA ranges say their proximity domain is valid", p)
		for _, tables := range [][][]byte{{raw}, {sr, raw}} {
			r := checktest.RunTables(t, Check, tables...)
			assert.Equal(t, tests.StatusPassed, r.Status, "%s: %+v", p, r.Findings)
			assert.Empty(t, tablecheck.Labels(r), p)
		}
	}
}
