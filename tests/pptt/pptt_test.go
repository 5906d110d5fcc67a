package pptt

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

// virt reads QEMU's arm64 virt MADT and PPTT from the corpus.
func virt(t *testing.T) (madt, pptt []byte) {
	dir := filepath.Join(corpus.Dir(t, "acpi", "qemu"), "virt")
	madt, err := os.ReadFile(filepath.Join(dir, "APIC"))
	require.NoError(t, err)
	pptt, err = os.ReadFile(filepath.Join(dir, "PPTT"))
	require.NoError(t, err)
	return madt, pptt
}

// TestPPTTAgainstGICC: QEMU's one leaf matches its one GICC (UID 0); with
// the GICC's UID changed, the leaf names no processor and the GICC has
// no leaf.
func TestPPTTAgainstGICC(t *testing.T) {
	madt, pptt := virt(t)
	r := checktest.Run(t, Check, checktest.Machine(t, nil, checktest.Table{Raw: madt}, checktest.Table{Raw: pptt}))
	assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))

	m := append([]byte(nil), madt...)
	off := acpi.MADTMinLength
	for m[off] != acpi.MADTGICC {
		off += int(m[off+1])
	}
	m[off+8] = 7 // the GICC's ACPI processor UID
	m[9] -= 7    // keep the checksum
	r = checktest.Run(t, Check, checktest.Machine(t, nil, checktest.Table{Raw: m}, checktest.Table{Raw: pptt}))
	assert.Equal(t, tests.StatusWarning, r.Status)
	var msgs []string
	for _, f := range r.Findings {
		if f.Label == "PPTTLeafProcessor" {
			msgs = append(msgs, f.Message)
		}
	}
	assert.Equal(t, []string{"PPTT: leaf ACPI processor ID 0 is not the UID of a usable GICC", "PPTT: 1 usable GICCs have no leaf in the hierarchy: UIDs 7"}, msgs)
}
