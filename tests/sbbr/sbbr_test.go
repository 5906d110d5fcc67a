package sbbr

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// virtMachine is QEMU's arm64 virt tables as sysfs has them, with an
// SMBIOS entry point of the given form (and an End-of-Table structure).
func virtMachine(t *testing.T, ep []byte, drop ...string) *input.Machine {
	dir := filepath.Join(corpus.Dir(t, "acpi", "qemu"), "virt")
	fs := fstest.MapFS{}
	for _, sig := range []string{"APIC", "DBG2", "DSDT", "FACP", "GTDT", "IORT", "MCFG", "PPTT", "SPCR"} {
		if contains(drop, sig) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, sig))
		require.NoError(t, err)
		fs["sys/firmware/acpi/tables/"+sig] = &fstest.MapFile{Data: b}
	}
	if ep != nil {
		fs["sys/firmware/dmi/tables/smbios_entry_point"] = &fstest.MapFile{Data: ep}
		fs["sys/firmware/dmi/tables/DMI"] = &fstest.MapFile{Data: []byte{127, 4, 0, 0, 0, 0}}
	}
	return input.New(checktest.Snapshot{FS: fs}, input.Options{})
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func entry(bits int) []byte {
	var e []byte
	if bits == 64 {
		e = make([]byte, 0x18)
		copy(e, "_SM3_")
		e[6], e[7], e[8] = 0x18, 3, 0
		binary.LittleEndian.PutUint32(e[0xC:], 6)
	} else {
		e = make([]byte, 0x1F)
		copy(e, "_SM_")
		e[5], e[6], e[7] = 0x1F, 2, 8
		copy(e[0x10:], "_DMI_")
	}
	return e
}

func found(r tests.Result) map[string]tests.Kind {
	out := map[string]tests.Kind{}
	for _, f := range r.Findings {
		if f.Label != "" {
			out[f.Label] = f.Kind
		}
	}
	return out
}

func TestSBBR(t *testing.T) {
	r := checktest.Run(t, Check, virtMachine(t, entry(64)))
	assert.Empty(t, found(r), tests.Render([]tests.Result{r}))
	assert.Contains(t, tests.Render([]tests.Result{r}), "SMBIOS 3.0 through the 64-bit (_SM3_) entry point")

	r = checktest.Run(t, Check, virtMachine(t, entry(32)))
	assert.Equal(t, tests.KindWarning, found(r)["SBBRSMBIOS3"], tests.Render([]tests.Result{r}))

	r = checktest.Run(t, Check, virtMachine(t, entry(64), "GTDT", "PPTT"))
	assert.Equal(t, tests.KindWarning, found(r)["SBBRTableMissing"])
	assert.Contains(t, tests.Render([]tests.Result{r}), "GTDT (generic timers and watchdogs) is absent; SBBR requires it")
	assert.Contains(t, tests.Render([]tests.Result{r}), "PPTT (processor topology and caches) is absent; SBBR requires it")

	// Without the IORT the MADT has no ITS, so the IORT is not required.
	r = checktest.Run(t, Check, virtMachine(t, entry(64), "IORT"))
	assert.Empty(t, found(r), tests.Render([]tests.Result{r}))
	assert.Contains(t, tests.Render([]tests.Result{r}), "IORT (IO remapping) is absent: SBBR requires it only when")
}

// TestProfileValid: the profile validates with its check, and every
// override names a label some check declares (tests/all validates it
// with every check at start-up).
func TestProfileValid(t *testing.T) {
	require.Equal(t, []*tests.Check{Check}, Profile.Checks)
	for _, o := range Profile.Overrides {
		assert.NotEmpty(t, o.Why, o.Label)
	}
}
