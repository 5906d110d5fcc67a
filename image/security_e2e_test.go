package image_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/tests"
)

// TestBootSMM boots q35 twice and reads the host bridge's SMRAM control as
// the smm check does: with SMM emulated and OVMF's SMM build, which locks
// SMRAM (D_LCK) before it boots the OS, the check passes; with the plain
// OVMF build, which never enables SMRAM, the open lock is reported and
// explained by the VM, not failed. The same boots run bios-write-protect
// (QEMU's ICH9 has no BIOS_CNTL and no SPI controller: explained and said,
// never passed as protection) and security-summary (the fwupd attributes
// QEMU cannot meet are unmet and explained, and the tallies are printed).
func TestBootSMM(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m      qemu.Machine
		status tests.Status // checked on the SMM build
		says   string
	}{
		{qemu.OVMFSMM, tests.StatusPassed, "SMRAM locked (D_LCK set)"},
		{qemu.OVMF, "", "D_LCK clear"},
	} {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			if err := qemu.Available(c.m); err != nil {
				t.Skipf("%v (make deps-image)", err)
			}
			r := boot(t, c.m, "fwcheck.run=smm,bios-write-protect,security-summary", false, false)
			res := result(t, r.doc, "smm")
			assert.True(t, mentions(res, c.says), "%+v", res.Findings)
			for _, f := range res.Findings {
				if f.Kind == tests.KindFail {
					assert.NotEmpty(t, f.Explained, "a failure on QEMU's firmware must be explained: %+v", f)
				}
			}
			if c.m.SMM {
				assert.Equal(t, c.status, res.Status, "%+v", res)
				assert.Nil(t, finding(res, "SMRAMNotLocked"))
			} else if f := finding(res, "SMRAMNotLocked"); assert.NotNil(t, f, "%+v", res.Findings) {
				assert.Contains(t, f.Explained, "does not use SMM")
			}

			bw := result(t, r.doc, "bios-write-protect")
			assert.Equal(t, tests.StatusPassed, bw.Status, "everything QEMU lacks is explained: %+v", bw)
			if f := finding(bw, "BIOSLockDisabled"); assert.NotNil(t, f, "%+v", bw.Findings) {
				assert.Contains(t, f.Explained, "no BIOS_CNTL")
			}
			assert.True(t, mentions(bw, "no SPI controller"), "the SPI half is said, not passed: %+v", bw.Findings)

			sum := result(t, r.doc, "security-summary")
			assert.True(t, mentions(sum, "fwupd attributes that fwcheck's security checks decide: HSI-1: 8 = "), "%+v", sum.Findings)
			assert.True(t, mentions(sum, "Level these attributes reach: HSI:0"), "%+v", sum.Findings)
			ble := false
			for _, f := range sum.Findings {
				if f.Kind == tests.KindFail {
					assert.NotEmpty(t, f.Explained, "%+v", f)
				}
				if f.Label == "HSIAttributeUnmet" && strings.HasPrefix(f.Message, "org.fwupd.hsi.Spi.Ble ") {
					ble = true
					assert.Contains(t, f.Explained, "virtual machine")
				}
			}
			assert.True(t, ble, "Spi.Ble is unmet, explained by the VM: %+v", sum.Findings)
		})
	}
}
