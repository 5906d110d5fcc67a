package methods

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

// TestFixture runs the check over testdata/dsdt.asl (compiled by iasl -f,
// the .aml checked in): one defect per label.
func TestFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	r := checktest.RunTables(t, Check, checktest.FADT(nil), b)
	require.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
	got := map[string]string{}
	for _, f := range r.Findings {
		if f.Label != "" {
			got[f.Label+" "+string(f.Kind)] += f.Message + "\n"
		}
	}
	for _, w := range []struct{ key, msg string }{
		{"PRTEmpty fail", `\_SB.PCI0._PRT is an empty package`},
		{"MethodReturnType fail", `\_SB.BAT0._PCL is a reference to Scope \_SB`},
		{"MethodValueRange fail", `\_SB.BAT0._STA is 0x11F: reserved bits`},
		{"BatteryInfoRange warning", `\_SB.BAT0._BIF: power unit 2`},
		{"BatteryInfoRange warning", `\_SB.BAT0._BST: state 0x3 says charging and discharging`},
		{"BCLLevels warning", `\_SB.GFX0.LCD._BCL element 0 is 120`},
		{"BCLLevels warning", `\_SB.GFX0.LCD._BQC is 42`},
		{"MethodMutexHeld fail", `\_SB.GFX0.LCD._BCM returns with \BMTX acquired`},
		{"WDGSize warning", `\_SB.WMI0._WDG is 21 bytes`},
		{"PLDBuffer fail", `\_SB.USB1._PLD buffer 0: revision 0`},
		{"MethodNoReturnValue warning", `\_SB.USB1._RMV returns no value`},
		{"MethodPackageShape fail", `\_SB.USB1._UPC: package of 3 elements, want 4`},
		{"MethodUndefinedName fail", `\_SB.DEV1._STA: unresolved`},
		{"MethodAMLError fail", `\_SB.DEV1._CRS: AML error`},
		{"MethodArgCount fail", `\_SB.DEV1._PS0 declares 1 arguments; the OS passes 0`},
		{"PSSOrder warning", `\_PR.CPU0._PSS: P1 runs at 2000 MHz, above P0's 1000 MHz`},
		{"PPCRange warning", `\_PR.CPU0._PPC is 2, but _PSS has 2 states`},
		{"TSDMultiple warning", `\_PR.CPU0._TSD holds 2 dependency packages`},
		{"CSTCount warning", `\_PR.CPU0._CST: count 2, but 1 C-state packages follow`},
		{"ThermalTripOrder warning", `\TZ0: _HOT 3700 (96.9 °C) lies above _CRT 3600`},
		{"ThermalTripOrder warning", `\TZ0: _AC1 3300 (56.9 °C) lies above _AC0 3200`},
		{"PSDDomain warning", `_PSD domain 0: \_PR.CPU0 says coordination 0xFC for 2 processors, \_PR.CPU1 says 0xFE for 2`},
		{"ECNoGPE warning", `\_SB.EC0 (PNP0C09) has no _GPE`},
		{"LinkDeviceMethods warning", `\_SB.LNKX (PNP0C0F) has no _PRS, _SRS`},
		{"PRTSource warning", `\_SB.PCI1._PRT: an entry names \_SB.NOTL (Integer), not a link device`},
		{"WDGMethodMissing fail", `\_SB.WMI1._WDG: the method 44332211-6655-8877-99AA-BBCCDDEEFF00 (object ID "AA") has no WMAA`},
		{"TimeAlarmMethods warning", `\_SB.TAD0._GCP is 0x5 (bit 2: real-time clock) but it has no _GRT, _SRT`},
	} {
		assert.Contains(t, got[w.key], w.msg, w.key)
	}
	// the emulated read of HWST makes _RMV's missing value a warning, and
	// _PSR (0 under emulation) is within range: no finding
	assert.NotContains(t, strings.Join(checktest.Labelled(r), "\n"), "_PSR")
	assert.Equal(t, tests.StatusFailed, r.Status)
}

// TestNamesDoc keeps NAMES.md, the list of names with their rules, in
// step with names.go (regenerate with -update).
func TestNamesDoc(t *testing.T) {
	got := "# Predefined names the methods check evaluates\n\n" +
		"Generated from names.go (`go test ./tests/methods -run TestNamesDoc -update`); " +
		"sections are ACPI 6.5's.\n\n" + Names()
	if *checktest.Update {
		require.NoError(t, os.WriteFile("NAMES.md", []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile("NAMES.md")
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "NAMES.md is stale: run go test ./tests/methods -run TestNamesDoc -update")
}

// TestRunBudget: the check spends the run's AML budget, the one aml-parse
// and the other AML checks share; once it is spent, what is left is NOT
// CHECKED with the budget as the reason, not evaluated on a budget of its
// own.
func TestRunBudget(t *testing.T) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(t, err)
	ns, _ := aml.Load(aml.Table{Name: "DSDT", Signature: "DSDT", Revision: b[8], AML: b[36:]})
	fresh := evaluate(nil, &amlcheck.Loaded{NS: ns, Budget: aml.NewRunBudget()})
	spent := &aml.RunBudget{Steps: 20, Bytes: aml.DefaultRunBytes, Time: aml.DefaultRunTime}
	c := evaluate(nil, &amlcheck.Loaded{NS: ns, Budget: spent})
	steps, _, _ := spent.Used()
	assert.LessOrEqual(t, steps, int64(20), "the evaluations stay within the run's steps")
	ended := 0
	for reason, objs := range c.unchecked {
		if strings.Contains(reason, "AML evaluation budget") {
			ended += len(objs)
		}
	}
	assert.Greater(t, ended, 0, "objects past the run's budget are not checked, for that reason")
	for reason := range fresh.unchecked {
		assert.NotContains(t, reason, "AML evaluation budget", "the default run budget is far above one machine's")
	}
}
