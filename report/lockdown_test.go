package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
)

func TestLockdownLine(t *testing.T) {
	for _, c := range []struct{ lockdown, sb, want string }{
		{"integrity", "on", "integrity, because Secure Boot is on"},
		{"none", "off", "none (Secure Boot off)"},
		{"none", "on", "none (Secure Boot on)"},
		{"none", "", "none"},
		{"", "on", "not shown by the kernel (no /sys/kernel/security/lockdown); Secure Boot on"},
		{"", "", ""},
	} {
		assert.Equal(t, c.want, report.LockdownLine(input.Identity{Lockdown: c.lockdown, SecureBoot: c.sb}), "%+v", c)
	}
}

// The header of every format says the lockdown the run started under.
func TestLockdownInHeader(t *testing.T) {
	d := manyFindings()
	d.Machine.Lockdown, d.Machine.SecureBoot = "integrity", "on"
	assert.Contains(t, text(t, d, report.TextOptions{}), "\nlockdown: integrity, because Secure Boot is on\n")
	var h bytes.Buffer
	require.NoError(t, report.WriteHTML(&h, d, tests.Low))
	assert.Contains(t, h.String(), "<tr><th>lockdown</th><td>integrity, because Secure Boot is on</td></tr>")
	js, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"lockdown":"integrity","secure_boot":"on"`)

	d.Machine.Lockdown, d.Machine.SecureBoot = "", ""
	assert.NotContains(t, text(t, d, report.TextOptions{}), "lockdown:")
	h.Reset()
	require.NoError(t, report.WriteHTML(&h, d, tests.Low))
	assert.False(t, strings.Contains(h.String(), "<th>lockdown</th>"))
}
