package image_test

// End-to-end proof of the uefi-variables check under OVMF: it runs in the
// Secure Boot boot of efitpm_e2e_test.go (TestBootSecureBootKeys, the
// store with Microsoft's keys enrolled), and the variable store the live
// image captured in its snapshot after the run is compared with the
// listing the check took before it.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/uefivars"
)

// snapshotVariables lists the efivarfs files ("Name-GUID") of a snapshot.
func snapshotVariables(t *testing.T, tgz []byte) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	prefix := efi.VarsDir + "/"
	var out []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		n := strings.TrimPrefix(h.Name, "./")
		if strings.HasPrefix(n, prefix) && h.Typeflag == tar.TypeReg {
			out = append(out, strings.TrimPrefix(n, prefix))
		}
	}
	sort.Strings(out)
	return out
}

// strs reads a []string the results document holds as JSON.
func strs(t *testing.T, v any) []string {
	t.Helper()
	l, ok := v.([]any)
	require.True(t, ok, "%T %v", v, v)
	var out []string
	for _, x := range l {
		s, ok := x.(string)
		require.True(t, ok, "%T %v", x, x)
		out = append(out, s)
	}
	return out
}

// assertUEFIVariables checks the uefi-variables result of an OVMF boot and
// the store the snapshot shows after it.
func assertUEFIVariables(t *testing.T, r shellBoot) {
	t.Helper()
	res := result(t, r.doc, uefivars.Check.ID)
	assert.Equal(t, tests.StatusPassed, res.Status, "%s: %+v", res.Reason, res.Unchecked)
	assert.Empty(t, res.Unchecked, "the 6.1.0 kernel reports the store's space (efivarfs statfs)")
	for _, want := range []string{
		"created FwcheckBasic (NV+BS+RT, 32 bytes) and read it back unchanged",
		"the variable listing (GetNextVariableName) shows the new FwcheckBasic exactly once",
		"appended 16 bytes to FwcheckBasic",
		"deleted FwcheckBasic: it no longer reads or lists",
		"a variable with boot-service access only (NV+BS) is refused at runtime",
		"50 write/delete cycles of a 64-byte variable completed",
		"space trend over 50 write/delete cycles is flat",
		"no test variable is left",
	} {
		assert.True(t, mentions(res, want), "%q: %+v", want, res.Findings)
	}
	free := res.Data["free_after_cycle"].([]any)
	t.Logf("remaining space before the cycles and after each: %v", free)
	require.Len(t, free, 51, "remaining space before the cycles and after each of 50")
	assert.Equal(t, free[0], free[50], "as much space remains after the 50 cycles as before")
	t.Logf("remaining space before the cycles %v, after %v; largest variable probed %v", free[0], free[50], res.Data["largest_variable"])

	// The store after the run, as the live image's snapshot captured it
	// (efivarfs listed again from scratch), is the one before the run.
	before := strs(t, res.Data["store_before"])
	require.NotEmpty(t, before)
	require.NotNil(t, r.snapshot, "the snapshot on the results disk")
	after := snapshotVariables(t, r.snapshot)
	assert.Equal(t, before, after, "the variable store after the run lists the same variables as before it")
	for _, n := range after {
		assert.NotContains(t, n, uefivars.TestGUID.String(), "a test variable left behind")
	}
	assert.Contains(t, after, "PK-8be4df61-93ca-11d2-aa0d-00e098032b8c", "the listing is the real store")
}
