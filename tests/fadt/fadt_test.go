package fadt

import (
	"encoding/binary"
	"testing"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

func TestFADTClean(t *testing.T) {
	r := checktest.RunTables(t, Check, checktest.FADT(nil))
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r.Findings)
	assert.Empty(t, checktest.FailLabels(r))
}

func TestFADTFindings(t *testing.T) {
	le32 := func(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	setFlag := func(b []byte, set, clear uint32) {
		f := binary.LittleEndian.Uint32(b[112:])
		le32(b, 112, (f|set)&^clear)
	}
	cases := []struct {
		name string
		mod  func(b []byte)
		want []string
	}{
		{"short for revision", func(b []byte) { le32(b, 4, 268) }, []string{"FADTLengthRevision"}},
		{"FACS pointers differ", func(b []byte) { binary.LittleEndian.PutUint64(b[132:], 0x1_0000_0000) }, []string{"FADTFACSAddressMismatch"}},
		{"FACS both equal is fine since 6.0", func(b []byte) { binary.LittleEndian.PutUint64(b[132:], 0x7FF00000) }, nil},
		{"no FACS", func(b []byte) { le32(b, 36, 0) }, []string{"FADTFACSMissing"}},
		{"no FACS but hardware-reduced", func(b []byte) { le32(b, 36, 0); setFlag(b, acpi.FADTFlagHWReduced, 0) }, nil},
		{"DSDT pointers differ", func(b []byte) { le32(b, 40, 0x1234000) }, []string{"FADTDSDTAddressMismatch"}},
		{"no DSDT", func(b []byte) { le32(b, 40, 0); binary.LittleEndian.PutUint64(b[140:], 0) }, []string{"FADTDSDTMissing"}},
		{"no PM1a event block", func(b []byte) { le32(b, 56, 0); b[148+4], b[148+5] = 0, 0 }, []string{"FADTPMBlockMissing"}},
		{"PM timer length", func(b []byte) { b[91] = 3 }, []string{"FADTPMBlockLength", "FADTXBlockWidthMismatch"}},
		{"odd GPE0 length", func(b []byte) { b[92] = 15 }, []string{"FADTPMBlockLength"}},
		{"X_ block address differs", func(b []byte) { b[208+4] = 0x10 }, []string{"FADTXBlockAddressMismatch"}},
		{"reserved byte 111", func(b []byte) { b[111] = 1 }, []string{"FADTReservedNonZero"}},
		{"reserved flags", func(b []byte) { setFlag(b, 1<<30, 0) }, []string{"FADTReservedNonZero"}},
		{"former INT_MODEL 1 is allowed", func(b []byte) { b[44] = 1 }, nil},
		{"former INT_MODEL 2", func(b []byte) { b[44] = 2 }, []string{"FADTReservedNonZero"}},
		{"PM profile", func(b []byte) { b[45] = 9 }, []string{"FADTPMProfileInvalid"}},
		{"SCI 0", func(b []byte) { binary.LittleEndian.PutUint16(b[46:], 0) }, []string{"FADTSCIInterruptZero"}},
		{"SMI enable = disable", func(b []byte) { b[53] = 0xA0 }, []string{"FADTSMICommandValues"}},
		{"SMI enable = disable = 0: fixed ACPI mode", func(b []byte) { b[52], b[53] = 0, 0 }, nil},
		{"reset supported, no address", func(b []byte) { b[116+4], b[116+5] = 0, 0 }, []string{"FADTResetSupportedNoAddress"}},
		{"reset register unflagged", func(b []byte) { setFlag(b, 0, acpi.FADTFlagResetRegSup) }, []string{"FADTResetRegisterUnflagged"}},
		{"reset space", func(b []byte) { b[116] = 3 }, []string{"FADTResetRegSpace"}},
		{"reset width", func(b []byte) { b[117] = 16 }, []string{"FADTResetRegWidth"}},
		{"reset offset", func(b []byte) { b[118] = 1 }, []string{"FADTResetRegOffset"}},
		{"reset access size", func(b []byte) { b[119] = 2 }, []string{"FADTResetRegAccessSize"}},
		{"reset value zero", func(b []byte) { b[128] = 0 }, []string{"FADTResetValueZero"}},
		{"0xCF9 0x06", func(b []byte) { b[128] = 0x06 }, []string{"FADTResetCF9SingleWrite"}},
		{"0xCF9 0x0E", func(b []byte) { b[128] = 0x0E }, []string{"FADTResetCF9SingleWrite"}},
		{"0xCF9 0x02 alone", func(b []byte) { b[128] = 0x02 }, nil},
		{"FACS misaligned", func(b []byte) { le32(b, 36, 0x7FF00020) }, []string{"FADTFACSAlignment"}},
		{"sleep control without status", func(b []byte) { copy(b[244:], []byte{0, 8, 0, 1, 0, 0x10, 0xD0, 0xFE}) }, []string{"FADTSleepRegisterPair"}},
		{"sleep control and status", func(b []byte) {
			copy(b[244:], []byte{0, 8, 0, 1, 0, 0x10, 0xD0, 0xFE})
			copy(b[256:], []byte{0, 8, 0, 1, 1, 0x10, 0xD0, 0xFE})
		}, nil},
		{"PM2_CNT_LEN without a PM2 block", func(b []byte) { b[90] = 1 }, []string{"FADTBlockLengthWithoutBlock"}},
		{"GPE1_BLK_LEN without a GPE1 block", func(b []byte) { b[93] = 8 }, []string{"FADTBlockLengthWithoutBlock"}},
		{"X_GPE0 qword access", func(b []byte) { b[220+3] = 4 }, []string{"FADTGPEBlockAccessSize"}},
		{"X_GPE0 undefined access size is legacy", func(b []byte) { b[220+3] = 0 }, nil},
		{"X_GPE1 access size on an absent block", func(b []byte) { copy(b[232:], []byte{1, 0, 0, 4}) }, nil},
		{"persistent CPU caches 11b", func(b []byte) { setFlag(b, 3<<22, 0) }, []string{"FADTReservedNonZero"}},
		{"persistent CPU caches 10b in 6.5", func(b []byte) { setFlag(b, 2<<22, 0) }, nil},
		{"persistent CPU caches before 6.4", func(b []byte) { b[131] = 3; setFlag(b, 1<<22, 0) }, []string{"FADTReservedNonZero"}},
		{"ARM_BOOT_ARCH in a 5.0 FADT", func(b []byte) { b[8], b[131] = 5, 0; le32(b, 4, 268); b[129] = 1 }, []string{"FADTReservedNonZero"}},
		{"hardware-reduced on revision 4", func(b []byte) { b[8] = 4; le32(b, 4, 244); setFlag(b, acpi.FADTFlagHWReduced, 0) }, []string{"FADTHWReducedRevision"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, checktest.FADT(c.mod))
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}
}

// A hardware-reduced FADT's sleep registers must be 8 bits at offset 0;
// the label is a warning until a real occurrence is read.
func TestFADTSleepRegisterLayout(t *testing.T) {
	hwReduced := func(width, offset byte) func(b []byte) {
		return func(b []byte) {
			binary.LittleEndian.PutUint32(b[112:], acpi.FADTFlagHWReduced)
			copy(b[244:], []byte{0, width, offset, 1, 0, 0x02, 0xA0, 0xFE})
			copy(b[256:], []byte{0, 8, 0, 1, 1, 0x02, 0xA0, 0xFE})
		}
	}
	r := checktest.RunTables(t, Check, checktest.FADT(hwReduced(8, 0)))
	assert.NotContains(t, checktest.WarnLabels(r), "FADTSleepRegisterLayout", "%+v", r.Findings)
	for _, c := range []struct{ width, offset byte }{{16, 0}, {8, 2}} {
		r := checktest.RunTables(t, Check, checktest.FADT(hwReduced(c.width, c.offset)))
		assert.Contains(t, checktest.WarnLabels(r), "FADTSleepRegisterLayout", "width %d offset %d: %+v", c.width, c.offset, r.Findings)
	}
}

func TestFADTResetInfos(t *testing.T) {
	smi := checktest.RunTables(t, Check, checktest.FADT(func(b []byte) { b[116+4], b[116+5], b[128] = 0xB2, 0, 0xFB }))
	assert.Empty(t, checktest.FailLabels(smi))
	f := checktest.FindingWith(smi, "FADTResetViaSMI")
	require.NotNil(t, f)
	assert.Equal(t, tests.KindInfo, f.Kind)
	assert.Contains(t, f.Message, "SMI_CMD")

	kbc := checktest.RunTables(t, Check, checktest.FADT(func(b []byte) { b[116+4], b[116+5], b[128] = 0x64, 0, 0xFE }))
	f = checktest.FindingWith(kbc, "FADTResetViaKBC")
	require.NotNil(t, f)
	assert.Contains(t, f.Message, "does not declare an 8042")
}

func TestFADTChecksTheFACS(t *testing.T) {
	facs := make([]byte, 64)
	copy(facs, "FACS")
	facs[4] = 64
	r := checktest.RunTables(t, Check, checktest.FADT(nil), facs)
	assert.Empty(t, checktest.FailLabels(r))
	short := append([]byte{}, facs[:40]...)
	r = checktest.RunTables(t, Check, checktest.FADT(nil), short)
	assert.Equal(t, []string{"FACSInvalid"}, checktest.FailLabels(r))
}

func TestFADTMissingAndMalformed(t *testing.T) {
	r := checktest.RunTables(t, Check, checktest.SDT("SSDT", 2, nil))
	assert.Equal(t, []string{"FADTMissing"}, checktest.FailLabels(r))
	r = checktest.RunTables(t, Check, checktest.SDT("FACP", 1, make([]byte, 20)))
	assert.Equal(t, []string{"FADTMalformed"}, checktest.FailLabels(r))
}

func TestFADTRevision1HasNoResetReg(t *testing.T) {
	b := checktest.FADT(func(b []byte) { b[8] = 1 })[:acpi.FADTLenRev1]
	binary.LittleEndian.PutUint32(b[4:], acpi.FADTLenRev1)
	checktest.FixSum(b)
	r := checktest.RunTables(t, Check, b)
	assert.Empty(t, checktest.FailLabels(r))
	var msgs []string
	for _, f := range r.Findings {
		msgs = append(msgs, f.Message)
	}
	assert.Contains(t, msgs, "FADT revision 1 (116 bytes) has no RESET_REG: the OS resets by other means")
}

func TestFACSRules(t *testing.T) {
	facs := func(mod func(b []byte)) []byte {
		b := make([]byte, 64)
		copy(b, "FACS")
		b[4], b[32] = 64, 2
		if mod != nil {
			mod(b)
		}
		return b
	}
	cases := []struct {
		name string
		fadt []byte
		facs []byte
		want []string
	}{
		{"clean", checktest.FADT(nil), facs(nil), nil},
		{"64-bit wake flag", checktest.FADT(nil), facs(func(b []byte) { b[20] = 2 }), nil},
		{"reserved flag bit", checktest.FADT(nil), facs(func(b []byte) { b[20] = 4 }), []string{"FACSReservedNonZero"}},
		{"reserved byte 33", checktest.FADT(nil), facs(func(b []byte) { b[33] = 0x1A }), []string{"FACSReservedNonZero"}},
		{"reserved bytes 40-63", checktest.FADT(nil), facs(func(b []byte) { b[63] = 0xFF }), []string{"FACSReservedNonZero"}},
		{"OSPM flags are the OS's", checktest.FADT(nil), facs(func(b []byte) { b[36], b[39] = 1, 0x80 }), nil},
		{"S4BIOS without request", checktest.FADT(nil), facs(func(b []byte) { b[20] = 1 }), []string{"FACSS4BIOSWithoutRequest"}},
		{"S4BIOS with request", checktest.FADT(func(b []byte) { b[54] = 0xF2 }), facs(func(b []byte) { b[20] = 1 }), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, c.fadt, c.facs)
			assert.Equal(t, c.want, checktest.FailLabels(r))
		})
	}
}

func TestFACSInReservedMemory(t *testing.T) {
	facs := make([]byte, 64)
	copy(facs, "FACS")
	facs[4] = 64
	mm := []memmap.Range{{Start: 0x100000, End: 0x7FEFFFFF, Type: "System RAM"}, {Start: 0x7FF00000, End: 0x7FFFFFFF, Type: "ACPI Non-volatile Storage"}}
	r := checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: checktest.FADT(nil)}, checktest.Table{Raw: facs}))
	assert.Empty(t, tablecheck.Labels(r), "%+v", r.Findings)
	mm[0].End, mm[1].Start = 0x7FF0003F, 0x7FF00040
	r = checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: checktest.FADT(nil)}, checktest.Table{Raw: facs}))
	assert.Equal(t, []string{"FACSNotReserved"}, tablecheck.Labels(r))
}

func TestFADTSMICommandMissingAndRevision2(t *testing.T) {
	r := checktest.RunTables(t, Check, checktest.FADT(func(b []byte) { binary.LittleEndian.PutUint32(b[48:], 0) }))
	assert.Equal(t, []string{"FADTSMICommandMissing"}, tablecheck.Labels(r))
	r = checktest.RunTables(t, Check, checktest.FADT(func(b []byte) {
		binary.LittleEndian.PutUint32(b[48:], 0)
		b[52], b[53] = 0, 0
	}))
	assert.Empty(t, tablecheck.Labels(r))

	rev2 := func(n int) []byte {
		b := checktest.FADT(func(b []byte) { b[8] = 2 })[:n]
		binary.LittleEndian.PutUint32(b[4:], uint32(n))
		checktest.FixSum(b)
		return b
	}
	assert.NotContains(t, checktest.FailLabels(checktest.RunTables(t, Check, rev2(132))), "FADTLengthRevision")
	assert.Contains(t, checktest.FailLabels(checktest.RunTables(t, Check, rev2(116))), "FADTLengthRevision")
}
