package image_test

// End-to-end proof of the uefi-variables check under OVMF: it runs in the
// Secure Boot boot of efitpm_e2e_test.go (TestBootSecureBootKeys, the
// store with Microsoft's keys enrolled), and the variable store the live
// image captured in its snapshot after the run is compared with the
// listing the check took before it.
//
// The flash store itself (the VARS file QEMU wrote) proves what the
// check's figures say: assertVarStore parses it with efi.ParseVarStore
// and accounts for every byte of remaining space the check saw go, record
// by record. The boot's copy of the store lives in qemu.Run's temporary
// directory and is removed with it, so the proof runs on a recording of
// one such boot (TestUEFIVariablesStoreRecorded); a boot that kept its
// VARS file would pass it to assertVarStore the same way.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/report"
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

	// And the flash itself: the store OVMF left in its VARS file after
	// this very boot accounts for every byte QueryVariableInfo saw go.
	require.NotNil(t, r.vars, "the VARS file of the boot")
	assertVarStore(t, res, r.vars)
}

// proofT is what assertVarStore needs of a *testing.T (a fake one too).
type proofT interface {
	require.TestingT
	Helper()
	Logf(format string, args ...any)
}

// failT records a proof's failures instead of failing the test.
type failT struct{ failed []string }

type failNow struct{}

func (f *failT) Errorf(format string, args ...any) {
	f.failed = append(f.failed, fmt.Sprintf(format, args...))
}
func (f *failT) FailNow()                        { panic(failNow{}) }
func (f *failT) Helper()                         {}
func (f *failT) Logf(format string, args ...any) {}

// The names of the check's variables (tests/uefivars).
const (
	varBasic = "FwcheckBasic"
	varSize  = "FwcheckSize"
	varCycle = "FwcheckCycle"
)

// authRecordSize is the bytes one of the check's variables takes in
// OVMF's (authenticated) store: the 60-byte record header, the name in
// UCS-2 with its terminator and the data, padded to 4 bytes.
func authRecordSize(name string, data int) int { return (60 + 2*(len(name)+1) + data + 3) &^ 3 }

// number is the first decimal number re's first group matches in the
// findings' messages.
func number(t proofT, res report.Result, re string) (int, bool) {
	t.Helper()
	rx := regexp.MustCompile(re)
	for _, f := range res.Findings {
		if m := rx.FindStringSubmatch(f.Message); m != nil {
			n, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			return n, true
		}
	}
	return 0, false
}

// assertVarStore checks the variable store OVMF's flash held after the
// uefi-variables run res against what the check measured: no test
// variable is left live, and every byte of remaining space
// QueryVariableInfo saw go is a record the check wrote, deleted but still
// in the store. EDK II appends every write as a new record, and at
// runtime counts all records, deleted ones too, until a reclaim, so the
// remaining space it reports when the store ends at offset o is the
// store's variable area less the records before o; the check's writes are
// the store's last records, in order.
func assertVarStore(t proofT, res report.Result, vars []byte) {
	t.Helper()
	s, err := efi.ParseVarStore(vars)
	require.NoError(t, err)
	t.Logf("store after the run: %d bytes, %d records (%d live), %d bytes live, %d deleted, %d free",
		s.Size, len(s.Records), len(s.Live()), s.LiveBytes, s.DeletedBytes, s.FreeBytes)
	require.True(t, s.Authenticated, "OVMF's store holds authenticated records")
	assert.Zero(t, s.IncompleteBytes, "no write was cut short")
	// remainingAt is the runtime QueryVariableInfo figure of the store
	// when it ended at offset o.
	area := int(s.Size) - efi.HeaderSize
	remainingAt := func(o int) int { return area - (o - s.RecordsStart()) }
	before, ok := res.Data["space_before"].(map[string]any)
	require.True(t, ok, "space_before: %v", res.Data["space_before"])
	assert.Equal(t, float64(area), before["Total"], "QueryVariableInfo's store size is the store's variable area")

	first := -1 // the check's first record
	byName := map[string][]efi.VarRecord{}
	for i, r := range s.Records {
		if r.GUID != uefivars.TestGUID {
			assert.Equal(t, -1, first, "record %d (%s-%v) came after the check's first write: something else wrote during the run", i, r.Name, r.GUID)
			continue
		}
		if first < 0 {
			first = i
		}
		assert.False(t, r.Live(), "%s-%v is live in the store after the run (%s at 0x%x)", r.Name, r.GUID, r.StateName(), r.Offset)
		assert.True(t, r.Deleted(), "%s at 0x%x: %s", r.Name, r.Offset, r.StateName())
		byName[r.Name] = append(byName[r.Name], r)
	}
	require.GreaterOrEqual(t, first, 0, "the check's records are in the store")
	for n := range byName {
		assert.Contains(t, []string{varBasic, varSize, varCycle}, n, "only the variables the check writes for good are in the store (the refused ones are not)")
	}
	start := s.Records[first].Offset
	assert.Equal(t, int(before["Free"].(float64)), remainingAt(start),
		"the remaining space before the run is the store's free area when the check's first record was written")

	// FwcheckBasic: created with 32 bytes, replaced with 48, appended to
	// with 16 (a new record of all 64), then deleted.
	basic := byName[varBasic]
	require.Len(t, basic, 3)
	basicBytes := 0
	for i, want := range []int{32, 48, 64} {
		assert.Len(t, basic[i].Data, want, "FwcheckBasic record %d", i)
		assert.Equal(t, authRecordSize(varBasic, want), basic[i].Size)
		basicBytes += basic[i].Size
	}
	if loss, ok := number(t, res, `before: the (\d+) bytes of the three copies written are still counted`); assert.True(t, ok, "the check's figure for the deleted copies") {
		assert.Equal(t, basicBytes, loss, "the space not given back after the delete is FwcheckBasic's three records")
	}

	// FwcheckSize: one record for each size the store took.
	sizeData := 0
	for _, r := range byName[varSize] {
		sizeData += len(r.Data)
		assert.Equal(t, authRecordSize(varSize, len(r.Data)), r.Size)
	}
	if spent, ok := number(t, res, `having written (\d+) bytes`); ok {
		assert.Equal(t, spent, sizeData, "the size probe's records hold what it wrote")
	}
	largest := int(res.Data["largest_variable"].(float64))
	if n := len(byName[varSize]); assert.Positive(t, n) {
		assert.Len(t, byName[varSize][n-1].Data, largest, "the probe's last write taken was its largest")
	}

	// FwcheckCycle: one record a cycle, each one record of the 64-byte
	// variable, and the samples are the store's free area after each.
	cycles := byName[varCycle]
	trend := res.Data["space_trend"].([]any)
	sample := func(i int) (cycle, free int) {
		m := trend[i].(map[string]any)
		return int(m["cycle"].(float64)), int(m["free"].(float64))
	}
	lastCycle, lastFree := sample(len(trend) - 1)
	require.Len(t, cycles, lastCycle, "one record per write/delete cycle")
	per := authRecordSize(varCycle, 64)
	for i, r := range cycles {
		assert.Equal(t, per, r.Size, "cycle %d's record", i+1)
	}
	for i := range trend {
		c, free := sample(i)
		var at int // where the store ended at the sample
		if c < len(cycles) {
			at = cycles[c].Offset
		} else {
			at = cycles[len(cycles)-1].Offset + per
		}
		assert.Equal(t, remainingAt(at), free, "remaining space after %d cycles", c)
	}
	_, free0 := sample(0)
	assert.Equal(t, len(cycles)*per, free0-lastFree, "the space the cycles lost is their deleted records")
	assert.Equal(t, lastFree, s.RuntimeRemaining(), "the last sample is the store's free area after the run")
	assert.Equal(t, s.FreeBytes, s.RuntimeRemaining())

	// All the space the check saw go is its deleted records.
	mine := 0
	for _, rs := range byName {
		for _, r := range rs {
			mine += r.Size
		}
	}
	assert.Equal(t, int(before["Free"].(float64))-lastFree, mine, "the run's loss is the check's records")
	t.Logf("the check's %d records (all deleted) take %d bytes: %d of FwcheckBasic, %d of FwcheckSize (%d data), %d of FwcheckCycle (%d × %d); "+
		"QueryVariableInfo went from %v to %d remaining",
		len(s.Records)-first, mine, basicBytes, mine-basicBytes-len(cycles)*per, sizeData, len(cycles)*per, len(cycles), per, before["Free"], lastFree)
}

// recordedStore is a recording of TestBootSecureBootKeys' uefi-variables
// run (2026-12-02, Debian's OVMF_VARS_4M.ms.fd, kernel 6.1, TCG): its
// result as the results document held it, and OVMF's VARS file as QEMU
// left it (gzipped, 7 KiB; 528 KiB unpacked; qemu.Config.KeepVars keeps
// it). It lets the proof, and the proof's own failure cases, run without
// a boot; TestBootSecureBootKeys runs it on its own boot's store. The store is OVMF's
// (BSD-2-Clause-Patent) with the keys Debian's ovmf package enrols and
// the variables the boot and the check wrote.
const recordedStore = "../efi/testdata/ovmf-4m-ms-after-uefivars"

// TestUEFIVariablesStoreRecorded runs the store proof on the recording.
func TestUEFIVariablesStoreRecorded(t *testing.T) {
	js, vars := readRecordedStore(t)
	var res report.Result
	require.NoError(t, json.Unmarshal(js, &res))
	require.Equal(t, uefivars.Check.ID, res.ID)
	assertVarStore(t, res, vars)
}

// readRecordedStore returns the recording's result (JSON) and its VARS
// file, unpacked.
func readRecordedStore(t *testing.T) (result, vars []byte) {
	t.Helper()
	js, err := os.ReadFile(recordedStore + ".result.json")
	require.NoError(t, err)
	f, err := os.Open(recordedStore + ".fd.gz")
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	vars, err = io.ReadAll(zr)
	require.NoError(t, err)
	return js, vars
}

// TestVarStoreProofCatchesLeak: the proof fails a store whose records do
// not account for the check's figures (a leak) and one where a test
// variable is still live.
func TestVarStoreProofCatchesLeak(t *testing.T) {
	js, vars := readRecordedStore(t)
	s, err := efi.ParseVarStore(vars)
	require.NoError(t, err)
	for _, c := range []struct {
		name, want string
		edit       func(res *report.Result, vars []byte)
	}{
		{"space lost that no record holds", "remaining space after 50 cycles", func(res *report.Result, _ []byte) {
			tr := res.Data["space_trend"].([]any)
			last := tr[len(tr)-1].(map[string]any)
			last["free"] = last["free"].(float64) - 16
		}},
		{"a test variable left live", "is live in the store after the run", func(_ *report.Result, vars []byte) {
			for _, r := range s.Records {
				if r.GUID == uefivars.TestGUID {
					vars[r.Offset+2] = efi.VarAdded
					return
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var res report.Result
			require.NoError(t, json.Unmarshal(js, &res))
			v := bytes.Clone(vars)
			c.edit(&res, v)
			ft := &failT{}
			func() {
				defer func() {
					if r := recover(); r != nil && r != (failNow{}) {
						panic(r)
					}
				}()
				assertVarStore(ft, res, v)
			}()
			require.NotEmpty(t, ft.failed, "the proof fails")
			assert.Contains(t, strings.Join(ft.failed, "\n"), c.want)
		})
	}
}
