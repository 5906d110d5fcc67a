package uefivars

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// control is a machine's Control that can only hand out a variable store.
type control struct{ vs input.VariableStore }

func (control) Mark(string) error { return nil }
func (control) Suspend(input.SuspendRequest) (input.SuspendResult, error) {
	return input.SuspendResult{}, input.ErrNoControl
}
func (control) Reboot(string) error                       { return input.ErrNoControl }
func (c control) Variables() (input.VariableStore, error) { return c.vs, nil }
func uefiMachine(t *testing.T) *input.Machine             { return checktest.FilesMachine(t, uefiFiles()) }
func globalVar(name string) string {
	return efi.VarsDir + "/" + name + "-" + efi.GlobalVariable.String()
}
func uefiFiles() map[string][]byte {
	return map[string][]byte{
		"sys/firmware/efi/fw_platform_size": []byte("64\n"),
		globalVar("BootOrder"):              {7, 0, 0, 0, 0, 0},
	}
}

// ovmfLike is a store the size and limits of OVMF's 4 MiB build (a
// 256 KiB store, 33 KiB variables) holding a few variables already.
func ovmfLike() *input.MemVariables {
	m := &input.MemVariables{Size: 256 << 10, MaxVar: 0x8400}
	for i, n := range []string{"BootOrder", "Boot0000", "Lang"} {
		if err := m.Set(n, efi.GlobalVariable, nvbsrt, []byte{byte(i), 1, 2, 3}); err != nil {
			panic(err)
		}
	}
	return m
}

func runOn(t *testing.T, vs input.VariableStore, settings ...string) tests.Result {
	t.Helper()
	var st tests.Settings
	for i := 0; i+1 < len(settings); i += 2 {
		require.NoError(t, st.Set(Check, settings[i], settings[i+1]))
	}
	return tests.RunOne(&tests.Env{Machine: uefiMachine(t), Control: control{vs}, Settings: &st}, Check)
}

func messages(r tests.Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s %s %s\n", f.Kind, f.Label, f.Message)
	}
	return b.String()
}

// testVars lists the store's variables under TestGUID.
func testVars(t *testing.T, vs input.VariableStore) []string {
	t.Helper()
	ns, err := vs.Names()
	require.NoError(t, err)
	var out []string
	for _, n := range ns {
		if n.GUID == TestGUID {
			out = append(out, n.Name)
		}
	}
	return out
}

func TestGoodStore(t *testing.T) {
	vs := ovmfLike()
	before, _ := vs.Info()
	r := runOn(t, vs)
	msgs := messages(r)
	assert.Equal(t, tests.StatusPassed, r.Status, "%s\n%s", r.Reason, msgs)
	assert.Empty(t, checktest.WarnLabels(r), msgs)
	for _, want := range []string{
		"created FwcheckBasic (NV+BS+RT, 32 bytes) and read it back unchanged",
		"shows the new FwcheckBasic exactly once",
		"replaced FwcheckBasic's data (32 bytes with 48)",
		"appended 16 bytes to FwcheckBasic",
		"remaining storage back to",
		"boot-service access only (NV+BS) is refused at runtime",
		"a volatile variable (BS+RT) is refused at runtime",
		"the store's largest variable is in between",
		"50 write/delete cycles of a 64-byte variable completed",
		"space trend over 50 write/delete cycles is flat",
		"no test variable is left: the store lists the same 3 variables as before the run",
	} {
		assert.Contains(t, msgs, want)
	}
	// The probe brackets the largest data: MaxVar less the header and
	// the name "FwcheckSize" (12 UCS-2 characters with the terminator).
	largest := r.Data["largest_variable"].(int)
	limit := 0x8400 - 60 - 24
	assert.LessOrEqual(t, largest, limit)
	assert.Greater(t, largest, limit-probeStep)
	assert.Empty(t, testVars(t, vs))
	after, _ := vs.Info()
	assert.Equal(t, before, after, "the store's space is back")
	assert.Len(t, r.Data["space_trend"], 11, "before the cycles and after every 5th")
	assert.Equal(t, r.Data["store_before"], r.Data["store_after"])
}

func TestCyclesSetting(t *testing.T) {
	r := runOn(t, ovmfLike(), "cycles", "3")
	assert.Contains(t, messages(r), "3 write/delete cycles of a 64-byte variable completed")
	assert.Equal(t, []Sample{{0, r.Data["space_trend"].([]Sample)[0].Free}, {3, r.Data["space_trend"].([]Sample)[0].Free}}, r.Data["space_trend"])
}

// A store that loses space on every delete: the steady loss is the
// bricking bug, named with the figures.
func TestLeakingStore(t *testing.T) {
	vs := ovmfLike()
	vs.Leak = 40
	r := runOn(t, vs)
	msgs := messages(r)
	assert.Contains(t, checktest.WarnLabels(r), labelLeak.Name, msgs)
	assert.Contains(t, checktest.WarnLabels(r), labelReclaim.Name, "the basic variable's delete loses space too")
	assert.Contains(t, msgs, "the store lost 2000 bytes over 50 write/delete cycles of a 64-byte variable, 40 a cycle, which one copy of it (90 to 346 bytes) does not account for")
	assert.Equal(t, tests.StatusWarning, r.Status, msgs)
	assert.Empty(t, testVars(t, vs))
}

// A store that refuses appends: the rest of the run goes on.
func TestNoAppend(t *testing.T) {
	vs := ovmfLike()
	vs.NoAppend = true
	r := runOn(t, vs)
	msgs := messages(r)
	assert.Equal(t, []string{labelAppend.Name}, checktest.WarnLabels(r), msgs)
	assert.Contains(t, msgs, "appending 16 bytes to FwcheckBasic (NV+BS+RT): append to FwcheckBasic-"+TestGUID.String())
	assert.Contains(t, msgs, "space trend over 50 write/delete cycles is flat")
	assert.Empty(t, testVars(t, vs))
}

// A kernel that reports no store space: what depends on it is not checked,
// with the kernel as the reason, and no figure is made up.
func TestSpaceNotReported(t *testing.T) {
	vs := ovmfLike()
	vs.Unreported = true
	r := runOn(t, vs)
	assert.Equal(t, tests.StatusIncomplete, r.Status, messages(r))
	require.Len(t, r.Unchecked, 1)
	assert.Contains(t, r.Unchecked[0].What, "space trend")
	assert.Contains(t, r.Unchecked[0].Reason, "efivarfs' statfs gives a size of 0")
	assert.Contains(t, r.Unchecked[0].Remedy, "6.1.178")
	assert.NotContains(t, r.Data, "space_trend")
	assert.NotContains(t, messages(r), "remaining storage")
	assert.Contains(t, messages(r), "50 write/delete cycles of a 64-byte variable completed")
}

// A store that counts deleted variables until it is reclaimed, as EDK II
// does after ExitBootServices (it reclaims only at boot): within one boot
// that is not a finding, and the check says what it could not tell and
// how to tell it.
func TestDeferredStore(t *testing.T) {
	vs := ovmfLike()
	vs.Deferred = true
	r := runOn(t, vs)
	msgs := messages(r)
	assert.Equal(t, tests.StatusIncomplete, r.Status, msgs)
	assert.Empty(t, checktest.WarnLabels(r), msgs)
	require.Len(t, r.Unchecked, 2, "%+v", r.Unchecked)
	assert.Equal(t, "space given back after a delete", r.Unchecked[0].What)
	assert.Contains(t, r.Unchecked[0].Reason, "402 bytes for the three written")
	assert.Equal(t, "that write/delete cycles lose no space for good", r.Unchecked[1].What)
	assert.Contains(t, r.Unchecked[1].Reason, "150 bytes a cycle, one record each")
	assert.Contains(t, r.Unchecked[1].Remedy, "repeat the run over several boots")
	assert.Contains(t, msgs, "went down by 150 bytes a cycle, one 64-byte variable's record")
	assert.Empty(t, testVars(t, vs))
}

func TestBootServiceAccepted(t *testing.T) {
	vs := ovmfLike()
	vs.AcceptBootService = true
	r := runOn(t, vs)
	assert.Equal(t, []string{labelBootOnly.Name}, checktest.WarnLabels(r), messages(r))
	assert.Empty(t, testVars(t, vs))
}

func TestLeftByEarlierRun(t *testing.T) {
	vs := ovmfLike()
	require.NoError(t, vs.Set("FwcheckCycle", TestGUID, nvbsrt, []byte{1}))
	r := runOn(t, vs)
	assert.Equal(t, tests.StatusPassed, r.Status, messages(r))
	assert.Contains(t, messages(r), "removed 1 test variables an interrupted earlier run left: FwcheckCycle")
	assert.Contains(t, messages(r), "the same 3 variables as before")
	assert.Empty(t, testVars(t, vs))
}

// panicking panics on the n-th Set, as a check that goes wrong half-way.
type panicking struct {
	*input.MemVariables
	n int
}

func (p *panicking) Set(name string, g efi.GUID, a efi.Attributes, d []byte) error {
	if p.n--; p.n == 0 {
		panic("half-way")
	}
	return p.MemVariables.Set(name, g, a, d)
}

// failingList fails to list after the first call.
type failingList struct {
	*input.MemVariables
	calls int
}

func (f *failingList) Names() ([]input.VariableName, error) {
	if f.calls++; f.calls > 1 {
		return nil, errors.New("listing broke")
	}
	return f.MemVariables.Names()
}

// The test variables are removed also when the check fails half-way.
func TestCleanupAfterFailure(t *testing.T) {
	for _, n := range []int{2, 5, 9, 30} {
		vs := &panicking{ovmfLike(), n}
		r := runOn(t, vs)
		assert.Equal(t, tests.StatusAborted, r.Status)
		assert.Contains(t, r.Reason, "half-way")
		assert.Empty(t, testVars(t, vs.MemVariables), "after a panic at Set %d", n)
	}
	fl := &failingList{MemVariables: ovmfLike()}
	r := runOn(t, fl)
	assert.Empty(t, testVars(t, fl.MemVariables), messages(r))
	assert.NotEqual(t, tests.StatusPassed, r.Status)
}

// A full store refuses the first write: the check says so and stops.
func TestFullStore(t *testing.T) {
	vs := &input.MemVariables{Size: 100, MaxVar: 0x8400}
	r := runOn(t, vs)
	assert.Equal(t, []string{labelWrite.Name}, checktest.WarnLabels(r), messages(r))
	assert.Contains(t, messages(r), "creating FwcheckBasic (NV+BS+RT, 32 bytes)")
}

func TestNotLive(t *testing.T) {
	r := tests.RunOne(&tests.Env{Machine: uefiMachine(t)}, Check)
	assert.Equal(t, tests.StatusSkipped, r.Status)
	legacy := checktest.FilesMachine(t, map[string][]byte{"sys/class/dmi/id/bios_vendor": []byte("SeaBIOS\n")})
	r = tests.RunOne(&tests.Env{Machine: legacy, Control: control{ovmfLike()}}, Check)
	assert.Equal(t, tests.StatusNotApplicable, r.Status, r.Reason)
	sel, err := tests.Select([]*tests.Check{Check}, tests.Selection{})
	require.NoError(t, err)
	assert.Empty(t, sel, "runs only when named")
}

func TestTrend(t *testing.T) {
	seq := func(free ...uint64) []Sample {
		var out []Sample
		for i, f := range free {
			out = append(out, Sample{5 * i, f})
		}
		return out
	}
	for _, c := range []struct {
		free              []uint64
		loss, perCycle    uint64
		steady, reclaimed bool
	}{
		{[]uint64{1000, 1000, 1000}, 0, 0, false, false},
		{[]uint64{1000, 900, 800, 700}, 300, 20, true, false},
		{[]uint64{1000, 900, 1000, 900}, 100, 6, false, true}, // came back once: garbage collection
		{[]uint64{1000, 1000, 1000, 900}, 100, 6, false, false},
		{[]uint64{1000, 1100, 1200}, 0, 0, false, true},
		{[]uint64{1000}, 0, 0, false, false},
		{nil, 0, 0, false, false},
	} {
		got := Trend(seq(c.free...))
		assert.Equal(t, c.loss, got.Loss, "%v", c.free)
		assert.Equal(t, c.perCycle, got.PerCycle, "%v", c.free)
		assert.Equal(t, c.steady, got.Steady, "%v", c.free)
		assert.Equal(t, c.reclaimed, got.Reclaimed, "%v", c.free)
	}
}

// A small store: the size probe stops at half the available space and
// says what it bracketed.
func TestSizeProbeBudget(t *testing.T) {
	vs := &input.MemVariables{Size: 80 << 10, MaxVar: 19000}
	r := runOn(t, vs, "cycles", "1")
	msgs := messages(r)
	assert.Empty(t, checktest.WarnLabels(r), msgs)
	assert.Contains(t, msgs, "the probe stopped there, having written")
	largest := r.Data["largest_variable"].(int)
	assert.Less(t, largest, 19000-60-24)
	assert.Greater(t, largest, 1024)
	assert.Empty(t, testVars(t, vs))
}
