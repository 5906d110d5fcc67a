package phat

import (
	"encoding/binary"
	"testing"
	"testing/fstest"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// version builds a version data record of n elements whose count says
// count.
func version(count uint32, n int) []byte {
	b := make([]byte, 12+28*n)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(b)))
	b[4] = 1
	binary.LittleEndian.PutUint32(b[8:], count)
	return b
}

// health builds a health data record with device path path (NUL added
// when nul), extra bytes of device data after it, and the data offset
// dataOff (-1: where the data starts, or 0 without data).
func health(am byte, path string, nul bool, extra int, dataOff int) []byte {
	b := make([]byte, 28)
	b[0], b[4], b[7] = 1, 1, am
	u := utf16.Encode([]rune(path))
	if nul {
		u = append(u, 0)
	}
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	if dataOff < 0 {
		dataOff = 0
		if extra > 0 {
			dataOff = len(b)
		}
	}
	b = append(b, make([]byte, extra)...)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(b)))
	binary.LittleEndian.PutUint32(b[24:], uint32(dataOff))
	return b
}

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func TestPHAT(t *testing.T) {
	withRes := health(1, "PciRoot(0x0)", true, 8, -1)
	withRes[5] = 1
	short := health(1, "", false, 0, 0)[:20]
	binary.LittleEndian.PutUint16(short[2:], 20)
	rev2 := version(2, 2)
	rev2[4] = 2
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", checktest.SDT("PHAT", 1, cat(version(3, 3), health(1, "VenHw(1)", true, 16, -1), health(1, "PciRoot(0x0)", true, 0, -1))), nil},
		{"errors found is information", checktest.SDT("PHAT", 1, health(0, "VenHw(1)", true, 0, -1)), nil},
		{"unknown record type is information", checktest.SDT("PHAT", 1, []byte{2, 0, 6, 0, 1, 0}), nil},
		{"revision 2", checktest.SDT("PHAT", 2, version(0, 0)), []string{"PHATRevision"}},
		{"count over elements", checktest.SDT("PHAT", 1, version(4, 3)), []string{"PHATRecordSize"}},
		{"count under elements", checktest.SDT("PHAT", 1, version(1, 3)), []string{"PHATRecordSize"}},
		{"short health record", checktest.SDT("PHAT", 1, short), []string{"PHATRecordSize"}},
		{"record revision", checktest.SDT("PHAT", 1, rev2), []string{"PHATRecordRevision"}},
		{"reserved", checktest.SDT("PHAT", 1, withRes), []string{"PHATReserved"}},
		{"health value", checktest.SDT("PHAT", 1, health(4, "VenHw(1)", true, 0, -1)), []string{"PHATHealthValue"}},
		{"path without NUL", checktest.SDT("PHAT", 1, health(1, "VenHw(1)", false, 0, 0)), []string{"PHATDevicePath"}},
		{"offset inside the path", checktest.SDT("PHAT", 1, health(1, "VenHw(1)", true, 8, 30)), []string{"PHATDataOffset"}},
		{"offset past the record", checktest.SDT("PHAT", 1, health(1, "VenHw(1)", true, 8, 500)), []string{"PHATDataOffset"}},
		{"record past the end", checktest.SDT("PHAT", 1, version(2, 2)[:40]), []string{"PHATRecordLength"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	r := checktest.RunTables(t, Check, checktest.SDT("PHAT", 1, health(0, "VenHw(1)", true, 0, -1)))
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r.Findings)
	assert.Contains(t, r.Findings[0].Message, "VenHw(1)) reports errors found")
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.HPET(nil)).Status)
}

// FuzzPHAT runs the check over a PHAT of the fuzzer's bytes after a
// valid header: it may not abort.
func FuzzPHAT(f *testing.F) {
	f.Add(cat(version(2, 2), health(1, "VenHw(1)", true, 16, -1), health(0, "PciRoot(0x0)", true, 0, -1)))
	f.Fuzz(func(t *testing.T, body []byte) {
		raw := checktest.SDT("PHAT", 1, body)
		m := input.New(checktest.Snapshot{FS: fstest.MapFS{acpi.SysfsDir + "/PHAT": &fstest.MapFile{Data: raw}}}, input.Options{})
		if r := tests.RunOne(&tests.Env{Machine: m}, Check); r.Status == tests.StatusAborted {
			t.Fatal(r.Reason)
		}
	})
}
