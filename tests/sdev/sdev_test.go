package sdev

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

func put16(b []byte, vs ...int) {
	for i, v := range vs {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
}

// namespace builds a namespace device structure naming id (its bytes as
// given) with vendor bytes of vendor data after it.
func namespace(flags byte, id string, vendor int) []byte {
	fixed := 12
	if flags&2 != 0 {
		fixed = 16
	}
	b := make([]byte, fixed, fixed+len(id)+vendor)
	b[1] = flags
	b = append(b, id...)
	b = append(b, make([]byte, vendor)...)
	put16(b[2:], len(b), fixed, len(id), fixed+len(id), vendor)
	return b
}

// endpoint builds a PCIe endpoint structure with a path of n bytes and 8
// bytes of vendor data.
func endpoint(n int) []byte {
	b := make([]byte, 16+n+8)
	b[0] = 1
	put16(b[2:], len(b), 0, 0, 16, n, 16+n, 8)
	return b
}

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func TestSDEV(t *testing.T) {
	const cam = "\\_SB.PC00.XHCI.RHUB.HS08.DCAM\x00"
	outside := namespace(0, cam, 0)
	put16(outside[4:], 60)
	overFixed := endpoint(2)
	put16(overFixed[12:], 4)
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"the corpus's shape", checktest.SDT("SDEV", 1, cat(endpoint(2), namespace(0, cam, 0), namespace(1, cam, 4))), nil},
		{"secure access components", checktest.SDT("SDEV", 1, namespace(2, cam, 0)), nil},
		{"revision 2", checktest.SDT("SDEV", 2, endpoint(2)), []string{"SDEVRevision"}},
		{"reserved flag", checktest.SDT("SDEV", 1, namespace(4, cam, 0)), []string{"SDEVReservedFlags"}},
		{"identifier outside", checktest.SDT("SDEV", 1, outside), []string{"SDEVDataRange"}},
		{"vendor data over the fixed part", checktest.SDT("SDEV", 1, overFixed), []string{"SDEVDataRange"}},
		{"identifier without NUL", checktest.SDT("SDEV", 1, namespace(0, "\\_SB.CAM0", 0)), []string{"SDEVDeviceID"}},
		{"no identifier", checktest.SDT("SDEV", 1, namespace(0, "", 0)), []string{"SDEVDeviceID"}},
		{"empty PCI path", checktest.SDT("SDEV", 1, endpoint(0)), []string{"SDEVPCIPath"}},
		{"odd PCI path", checktest.SDT("SDEV", 1, endpoint(3)), []string{"SDEVPCIPath"}},
		{"short endpoint", checktest.SDT("SDEV", 1, []byte{1, 0, 8, 0, 0, 0, 0, 0}), []string{"SDEVStructureSize"}},
		{"components flag on a 12-byte fixed part", checktest.SDT("SDEV", 1, func() []byte { b := namespace(0, "", 0); b[1] = 2; return b }()), []string{"SDEVStructureSize"}},
		{"structure past the end", checktest.SDT("SDEV", 1, endpoint(2)[:12]), []string{"SDEVStructureLength"}},
		{"reserved type is information", checktest.SDT("SDEV", 1, []byte{5, 0, 4, 0}), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.HPET(nil)).Status)
}

// camDSDT is a DSDT of Scope (\_SB) { Device (CAM0) }.
func camDSDT() []byte {
	return checktest.SDT("DSDT", 2, []byte{0x10, 0x0D, '\\', '_', 'S', 'B', '_', 0x5B, 0x82, 0x05, 'C', 'A', 'M', '0'})
}

// FuzzSDEV runs the check over an SDEV of the fuzzer's bytes after a
// valid header, beside a DSDT declaring \_SB.CAM0 (so that the paths
// are looked up) or none: it may not abort.
func FuzzSDEV(f *testing.F) {
	f.Add(cat(endpoint(2), namespace(0, "\\_SB.CAM0\x00", 4), namespace(2, "\\_SB.CAM1\x00", 0)), true)
	f.Add(cat(namespace(0, "_SB.CAM0\x00", 0), namespace(0, "\\_SB\x00", 0), namespace(0, "\\\x00", 0)), true)
	dsdt := camDSDT()
	f.Fuzz(func(t *testing.T, body []byte, withDSDT bool) {
		fsys := fstest.MapFS{acpi.SysfsDir + "/SDEV": &fstest.MapFile{Data: checktest.SDT("SDEV", 1, body)}}
		if withDSDT {
			fsys[acpi.SysfsDir+"/DSDT"] = &fstest.MapFile{Data: dsdt}
		}
		m := input.New(checktest.Snapshot{FS: fsys}, input.Options{})
		if r := tests.RunOne(&tests.Env{Machine: m}, Check); r.Status == tests.StatusAborted {
			t.Fatal(r.Reason)
		}
	})
}

// With the DSDT in the set, a namespace device structure's path is
// looked up in the namespace; without it the lookup is said not done.
func TestSDEVNamespace(t *testing.T) {
	dsdt := checktest.SDT("DSDT", 2, cat(
		[]byte{0x5B, 0x82, 0x05, 'D', 'E', 'V', '0'},        // Device (DEV0)
		[]byte{0x08, 'N', 'A', 'M', '0', 0x01},              // Name (NAM0, One)
		[]byte{0x15, '\\', 'E', 'X', 'T', '0', 0x06, 0x00})) // External (\EXT0, DeviceObj)
	for _, c := range []struct {
		path string
		want []string
		says string
	}{
		{`\DEV0`, nil, ""},
		{`DEV0`, nil, ""},
		{`\_SB.PC00.XHCI.RHUB.HS08.DCAM`, []string{"SDEVNotInNamespace"}, `names \_SB.PC00.XHCI.RHUB.HS08.DCAM, which the namespace does not have`},
		{`\NAM0`, []string{"SDEVNotInNamespace"}, `names \NAM0, an object of type Integer, not a Device`},
	} {
		r := checktest.RunTables(t, Check, dsdt, checktest.SDT("SDEV", 1, cat(endpoint(2), namespace(1, c.path+"\x00", 4))))
		assert.Equal(t, c.want, tablecheck.Labels(r), "%s: %+v", c.path, r.Findings)
		if c.want != nil {
			f := checktest.FindingWith(r, "SDEVNotInNamespace")
			assert.Equal(t, tests.KindWarning, f.Kind, "a warning until a corpus machine shows one")
			assert.Contains(t, f.Message, "namespace device structure at offset 62 "+c.says)
		} else {
			assert.Equal(t, tests.StatusPassed, r.Status, "%s: %+v", c.path, r.Findings)
		}
	}
	// A device inside a scope, named with and without the root prefix.
	for _, path := range []string{`\_SB.CAM0`, `_SB_.CAM0`} {
		r := checktest.RunTables(t, Check, camDSDT(), checktest.SDT("SDEV", 1, namespace(0, path+"\x00", 0)))
		assert.Equal(t, tests.StatusPassed, r.Status, "%s: %+v", path, r.Findings)
	}
	r := checktest.RunTables(t, Check, camDSDT(), checktest.SDT("SDEV", 1, namespace(0, "\\_SB.CAM1\x00", 0)))
	assert.Equal(t, []string{"SDEVNotInNamespace"}, tablecheck.Labels(r))
	// A name only External declares is not judged, and the verdict says so.
	r = checktest.RunTables(t, Check, dsdt, checktest.SDT("SDEV", 1, namespace(0, "\\EXT0\x00", 0)))
	assert.Nil(t, tablecheck.Labels(r))
	assert.Equal(t, tests.StatusIncomplete, r.Status, "%+v", r.Findings)
	// Without a DSDT the path is not looked up.
	r = checktest.RunTables(t, Check, checktest.SDT("SDEV", 1, namespace(0, "\\_SB.CAM0\x00", 0)))
	assert.Nil(t, tablecheck.Labels(r))
	assert.Equal(t, tests.StatusIncomplete, r.Status, "without a DSDT the path is not looked up, and the verdict says so")
	// A table of PCIe endpoints alone has nothing to look up.
	r = checktest.RunTables(t, Check, checktest.SDT("SDEV", 1, endpoint(2)))
	assert.Equal(t, tests.StatusPassed, r.Status)
}
