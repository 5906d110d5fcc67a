package wsmt

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

func wsmt(rev byte, flags byte) []byte { return checktest.SDT("WSMT", rev, []byte{flags, 0, 0, 0}) }

func TestWSMT(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"all three", wsmt(1, 7), nil},
		{"none", wsmt(1, 0), []string{"WSMTProtectionNotClaimed"}},
		{"system resources only", wsmt(1, 4), []string{"WSMTProtectionNotClaimed"}},
		{"nested without fixed", wsmt(1, 6), []string{"WSMTNestedWithoutFixed", "WSMTProtectionNotClaimed"}},
		{"reserved bit", wsmt(1, 0x17), []string{"WSMTReservedFlags"}},
		{"revision 2", wsmt(2, 7), []string{"WSMTRevision"}},
		{"short", checktest.SDT("WSMT", 1, []byte{7}), []string{"WSMTLength"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tablecheck.Labels(checktest.RunTables(t, Check, c.raw)))
		})
	}
	r := checktest.RunTables(t, Check, wsmt(1, 4))
	if f := checktest.FindingWith(r, "WSMTProtectionNotClaimed"); assert.NotNil(t, f) {
		assert.Equal(t, tests.KindFail, f.Kind, "seen on real machines: a failure")
		assert.Contains(t, f.Message, "FIXED_COMM_BUFFERS, COMM_BUFFER_NESTED_PTR_PROTECTION")
		assert.NotContains(t, f.Message, "not claimed: FIXED_COMM_BUFFERS, COMM_BUFFER_NESTED_PTR_PROTECTION, SYSTEM")
	}
}
