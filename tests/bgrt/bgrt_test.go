package bgrt

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// bgrt builds a clean BGRT (version 1, displayed, bitmap at 0x8C000000);
// mod changes the body (offset 0 is the Version field).
func bgrt(rev byte, mod func(b []byte)) []byte {
	body := make([]byte, 20)
	body[0], body[2] = 1, 1
	binary.LittleEndian.PutUint64(body[4:], 0x8C000000)
	binary.LittleEndian.PutUint32(body[12:], 0x1D3)
	if mod != nil {
		mod(body)
	}
	return checktest.SDT("BGRT", rev, body)
}

func TestBGRT(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", bgrt(1, nil), nil},
		{"not displayed, rotated 270", bgrt(1, func(b []byte) { b[2] = 6 }), nil},
		{"revision 0", bgrt(0, nil), []string{"BGRTRevision"}},
		{"version 2", bgrt(1, func(b []byte) { b[0] = 2 }), []string{"BGRTVersion"}},
		{"reserved status", bgrt(1, func(b []byte) { b[2] = 0x09 }), []string{"BGRTStatusReserved"}},
		{"image type", bgrt(1, func(b []byte) { b[3] = 1 }), []string{"BGRTImageType"}},
		{"null image", bgrt(1, func(b []byte) { copy(b[4:12], make([]byte, 8)) }), []string{"BGRTNullImage"}},
		{"short", checktest.SDT("BGRT", 1, make([]byte, 12)), []string{"BGRTLength"}},
		{"long", checktest.SDT("BGRT", 1, append(bgrt(1, nil)[36:], 0, 0, 0, 0)), []string{"BGRTLength"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tablecheck.Labels(checktest.RunTables(t, Check, c.raw)))
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, checktest.FADT(nil)).Status)
}

func TestBGRTImageInMemoryMap(t *testing.T) {
	mm := []memmap.Range{{Start: 0x100000, End: 0x8FFFFFFF, Type: "System RAM"}}
	r := checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: bgrt(1, nil)}))
	assert.Equal(t, tests.StatusPassed, r.Status)
	mm[0].End = 0x8BFFFFFF
	r = checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: bgrt(1, nil)}))
	assert.Equal(t, []string{"BGRTImageNotInMemory"}, tablecheck.Labels(r))
}
