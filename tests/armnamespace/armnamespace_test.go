package armnamespace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// virt returns QEMU's arm64 virt tables, the MADT passed through edit.
func virt(t *testing.T, edit func([]byte)) []checktest.Table {
	dir := filepath.Join(corpus.Dir(t, "acpi", "qemu"), "virt")
	var out []checktest.Table
	for _, sig := range []string{"APIC", "DBG2", "DSDT", "FACP", "GTDT", "IORT", "MCFG", "PPTT", "SPCR"} {
		b, err := os.ReadFile(filepath.Join(dir, sig))
		require.NoError(t, err)
		if sig == "APIC" && edit != nil {
			edit(b)
		}
		out = append(out, checktest.Table{Raw: b})
	}
	return out
}

func TestQEMUVirt(t *testing.T) {
	r := checktest.Run(t, Check, checktest.Machine(t, nil, virt(t, nil)...))
	out := tests.Render([]tests.Result{r})
	assert.Equal(t, tests.StatusPassed, r.Status, out)
	assert.Contains(t, out, "1 usable GICCs, 1 ACPI0007 processor devices")
	assert.Contains(t, out, "DMA masters, 1 with a _CCA")
}

// TestGICCWithoutProcessorDevice: a GICC whose UID no ACPI0007 device
// has.
func TestGICCWithoutProcessorDevice(t *testing.T) {
	r := checktest.Run(t, Check, checktest.Machine(t, nil, virt(t, func(m []byte) {
		off := acpi.MADTMinLength
		for m[off] != acpi.MADTGICC {
			off += int(m[off+1])
		}
		m[off+8] = 5 // the GICC's ACPI processor UID
		m[9] -= 5
	})...))
	assert.Equal(t, tests.StatusWarning, r.Status)
	var msgs []string
	for _, f := range r.Findings {
		if f.Label == "ArmProcessorDevice" {
			msgs = append(msgs, f.Message)
		}
	}
	assert.Equal(t, []string{"GICC UID 5 (MPIDR 0x0) has no ACPI0007 device with that _UID"}, msgs)
}

// TestNotArm: x86 tables are not this check's.
func TestNotArm(t *testing.T) {
	dsdt := checktest.Table{Raw: checktest.SDT("DSDT", 2, nil)}
	r := checktest.Run(t, Check, checktest.Machine(t, nil, dsdt, checktest.Table{Raw: checktest.HPET(nil)}))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
}
