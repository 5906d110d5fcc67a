package deviceids

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests/checktest"
)

// testdata/dsdt.asl (compiled with iasl -f: iasl itself rejects the bad
// IDs) has each case.
func TestDeviceIDs(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), b)
	got := checktest.Labelled(r)
	assert.Equal(t, []string{
		`DeviceHIDInvalid: \_SB.BAD1._HID is "ID9001"`,
		`DeviceCIDInvalid: \_SB.BAD2._CID holds "WITTTest"`,
		`DeviceHIDInvalid: \_SB.BAD3._HID is integer 0x80000000, not a compressed EISA ID`,
		`DeviceUIDType: \_SB.BAD4._UID is a Package`,
	}, got)
}
