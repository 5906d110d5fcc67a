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
//
// OVMF's variable services (EDK II) count deleted variables' space at
// runtime until garbage collection, so within the boot the space is not
// seen to come back: the check reports that part not checked, with that
// reason, and everything else passes.
func assertUEFIVariables(t *testing.T, r shellBoot) {
	t.Helper()
	res := result(t, r.doc, uefivars.Check.ID)
	t.Logf("uefi-variables took %.1f s in the guest", res.DurationMS/1000)
	for _, f := range res.Findings {
		assert.NotEqual(t, tests.KindWarning, f.Kind, "%s: %s", f.Label, f.Message)
	}
	assert.Equal(t, tests.StatusIncomplete, res.Status, "%s: %+v", res.Reason, res.Unchecked)
	var whats []string
	for _, u := range res.Unchecked {
		t.Logf("not checked: %s: %s (remedy: %s)", u.What, u.Reason, u.Remedy)
		whats = append(whats, u.What)
		assert.Contains(t, u.Reason, "EDK II")
	}
	assert.Equal(t, []string{"space given back after a delete", "that write/delete cycles lose no space for good"}, whats)
	for _, want := range []string{
		"QueryVariableInfo (efivarfs statfs): store 262044 bytes",
		"created FwcheckBasic (NV+BS+RT, 32 bytes) and read it back unchanged",
		"the variable listing (GetNextVariableName) shows the new FwcheckBasic exactly once",
		"QueryVariableInfo: remaining storage went from",
		"replaced FwcheckBasic's data (32 bytes with 48) and read it back",
		"appended 16 bytes to FwcheckBasic",
		"deleted FwcheckBasic: it no longer reads or lists",
		"a variable with boot-service access only (NV+BS) is refused at runtime",
		"a volatile variable (BS+RT) is refused at runtime",
		"the store's largest variable is in between",
		"50 write/delete cycles of a 64-byte variable completed",
		"no test variable is left",
	} {
		assert.True(t, mentions(res, want), "%q: %+v", want, res.Findings)
	}
	// The remaining space, sampled before the cycles and after every 5th,
	// goes down by one variable record a cycle: fresh figures each time
	// (efivarfs answers statfs calls over its rate limit from a cache).
	trend := res.Data["space_trend"].([]any)
	t.Logf("remaining space over the cycles: %v; largest variable %v", trend, res.Data["largest_variable"])
	require.Len(t, trend, 11)
	free := func(i int) float64 { return trend[i].(map[string]any)["free"].(float64) }
	for i := 1; i < len(trend); i++ {
		assert.Less(t, free(i), free(i-1), "sample %d is fresh", i)
	}
	// OVMF's 4 MiB build takes variables of up to 0x8400 bytes with the
	// header (60) and the name ("FwcheckSize", 24 bytes as UCS-2).
	largest := res.Data["largest_variable"].(float64)
	assert.True(t, largest > 0x8400-60-24-512 && largest <= 0x8400-60-24, "largest variable %v", largest)
	perCycle := (free(0) - free(10)) / 50
	assert.True(t, perCycle >= 90 && perCycle <= 346, "%.1f bytes a cycle: one record of the 64-byte variable", perCycle)

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
