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
	return input.New(checktest.Snapshot{FS: virtFS(t, ep, drop...)}, input.Options{})
}

// virtFS is virtMachine's files.
func virtFS(t testing.TB, ep []byte, drop ...string) fstest.MapFS {
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
	return fs
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

// TestRootFromLog: on the arm64 live image /dev/mem cannot read the RSDP
// (the kernel refuses RAM), so the kernel log's RSDP line and the root
// table it used stand in; RsdtAddress stays not checked.
func TestRootFromLog(t *testing.T) {
	const rsdp = "[    0.000000] ACPI: RSDP 0x000000007BCA0018 000024 (v02 BOCHS )\n"
	const xsdt = "[    0.000000] ACPI: XSDT 0x000000007BCAFE98 000064 (v01 BOCHS  BXPC     00000001      01000013)\n"
	run := func(log string) tests.Result {
		fs := virtFS(t, entry(64))
		fs["fwcheck/"+input.KlogFile] = &fstest.MapFile{Data: []byte(log)}
		return checktest.Run(t, Check, input.New(checktest.Snapshot{FS: fs}, input.Options{}))
	}
	// The lines of the image's TestArm64ACPI boot.
	r := run(rsdp + xsdt)
	assert.Empty(t, found(r), tests.Render([]tests.Result{r}))
	assert.Contains(t, tests.Render([]tests.Result{r}), "kernel log: RSDP at 0x000000007BCA0018, revision 2, and the kernel uses the XSDT it gives")
	if assert.Len(t, r.Unchecked, 1) {
		assert.Equal(t, "RSDP RsdtAddress 0 (no RSDT)", r.Unchecked[0].What)
	}

	r = run("[    0.000000] ACPI: RSDP 0x00000000000F5A40 000014 (v00 BOCHS )\n[    0.000000] ACPI: RSDT 0x000000001FFE1A3A 000034 (v01 BOCHS  BXPC     00000001 BXPC 00000001)\n")
	assert.Equal(t, tests.KindWarning, found(r)["SBBRRootPointer"], tests.Render([]tests.Result{r}))
	assert.Empty(t, r.Unchecked)

	r = run("[    0.000000] ACPI: RSDP 0x000000007BCA0018 000024 (v02 BOCHS )\n[    0.000000] ACPI: RSDT 0x000000007BCAFE98 000034 (v01 BOCHS  BXPC     00000001 BXPC 00000001)\n")
	assert.Equal(t, tests.KindWarning, found(r)["SBBRRootPointer"], tests.Render([]tests.Result{r}))

	// No RSDP line: not checked, as without a log.
	r = run("[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x411fd070]\n")
	if assert.Len(t, r.Unchecked, 1) {
		assert.Equal(t, "RSDP revision and XSDT-only root", r.Unchecked[0].What)
	}
}

// FuzzRootFromLog: any kernel log gives a result, never a panic.
func FuzzRootFromLog(f *testing.F) {
	f.Add("[    0.000000] ACPI: RSDP 0x000000007BCA0018 000024 (v02 BOCHS )\n[    0.000000] ACPI: XSDT 0x000000007BCAFE98 000064 (v01 BOCHS  BXPC     00000001      01000013)\n")
	f.Add("ACPI: RSDP 0xFFFFFFFFFFFFFFFF 00000000 (v999 \nACPI: RSDT 0x\n")
	fs := virtFS(f, entry(64))
	f.Fuzz(func(t *testing.T, log string) {
		m := fstest.MapFS{}
		for k, v := range fs {
			m[k] = v
		}
		m["fwcheck/"+input.KlogFile] = &fstest.MapFile{Data: []byte(log)}
		r := checktest.Run(t, Check, input.New(checktest.Snapshot{FS: m}, input.Options{}))
		assert.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
	})
}
