package msrconsistency

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func machine(dump, dmiVendor, klog string) *input.Machine {
	fs := fstest.MapFS{"fwcheck/msr.txt": {Data: []byte(dump)}}
	if dmiVendor != "" {
		fs["sys/class/dmi/id/sys_vendor"] = &fstest.MapFile{Data: []byte(dmiVendor + "\n")}
	}
	if klog != "" {
		fs["fwcheck/klog.txt"] = &fstest.MapFile{Data: []byte(klog)}
	}
	return input.New(checktest.Snapshot{FS: fs}, input.Options{})
}

const same = "cpu 0 0xfe 0x508\ncpu 0 0x2ff 0xc06\ncpu 0 0x3a 0x5\n" +
	"cpu 1 0xfe 0x508\ncpu 1 0x2ff 0xc06\ncpu 1 0x3a 0x5\n" +
	"cpu 2 0xfe 0x508\ncpu 2 0x2ff 0xc06\ncpu 2 0x3a 0x5\n"

func TestConsistent(t *testing.T) {
	r := checktest.Run(t, Check, machine(same, "", ""))
	assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))
}

func TestDifferences(t *testing.T) {
	d := strings.Replace(same, "cpu 2 0x2ff 0xc06", "cpu 2 0x2ff 0x0", 1)
	d = strings.Replace(d, "cpu 1 0x3a 0x5", "cpu 1 0x3a 0x1", 1)
	d = strings.Replace(d, "cpu 2 0x3a 0x5", "cpu 2 0x3a 0x1", 1)
	r := checktest.Run(t, Check, machine(d, "", ""))
	assert.Equal(t, []string{"MSRInconsistent", "MTRRInconsistent"}, checktest.FailLabels(r))
	assert.Equal(t, "IA32_FEATURE_CONTROL (0x3a): CPU 0 has 0x5; CPUs 1-2 0x1", r.Findings[0].Message)
	assert.Equal(t, "IA32_MTRR_DEF_TYPE (0x2ff): CPU 0 has 0xc06; CPU 2 0x0", r.Findings[1].Message)
	assert.Equal(t, tests.StatusFailed, r.Status)
	// The same registers in a QEMU guest: explained by the virtual machine.
	r = checktest.Run(t, Check, machine(d, "QEMU", ""))
	for _, f := range r.Findings {
		if f.Kind == tests.KindFail {
			assert.Contains(t, f.Explained, "virtual machine (DMI: QEMU")
		}
	}
	assert.NotEqual(t, tests.StatusFailed, r.Status)
}

func TestUnreadCPU(t *testing.T) {
	r := checktest.Run(t, Check, machine(same+"cpu 3 0xfe error: no such device\n", "", ""))
	assert.Equal(t, tests.StatusIncomplete, r.Status)
	r = checktest.Run(t, Check, machine("cpu 0 0xfe 0x508\n", "", ""))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
}

// TestGolden runs the check on the corpus boot logs alone: what the kernel
// said it corrected (seven real machines and the QEMU captures), or that
// it found the CPUs consistent.
func TestGolden(t *testing.T) { checktest.LogGoldens(t, Check) }
