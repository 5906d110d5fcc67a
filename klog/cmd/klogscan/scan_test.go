package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/klog"
)

const sample = `// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) "ACPI: thermal: " fmt

static int f(void)
{
	pr_err(FW_BUG "Invalid critical threshold (%d)\n", crt);
	dev_warn(&dev->dev, "can't claim BAR %d %pR: no compatible bridge window\n",
		 i, r);
	ACPI_BIOS_ERROR((AE_INFO, "Invalid table length 0x%X in RSDT/XSDT", len));
	ACPI_EXCEPTION((AE_INFO, status, "While evaluating Sleep State [%s]", name));
	printk(KERN_WARNING "plain %s message with 100%% certainty\n", s);
	pr_info("no newline");
	return 0;
}
`

func TestScanSource(t *testing.T) {
	msgs := ScanSource("drivers/acpi/thermal.c", sample)
	var got []string
	for _, m := range msgs {
		got = append(got, m.Macro+"|"+m.Format)
	}
	assert.Equal(t, []string{
		"pr_err|ACPI: thermal: [Firmware Bug]: Invalid critical threshold (%d)",
		"dev_warn|can't claim BAR %d %pR: no compatible bridge window",
		"ACPI_BIOS_ERROR|ACPI BIOS Error (bug): Invalid table length 0x%X in RSDT/XSDT",
		"ACPI_EXCEPTION|ACPI Exception: %s, While evaluating Sleep State [%s]",
		"printk|plain %s message with 100%% certainty",
		"pr_info|ACPI: thermal: no newline",
	}, got)
	assert.Equal(t, 6, msgs[0].Line)
	assert.Equal(t, 7, msgs[1].Line)
}

func TestRegexAndSample(t *testing.T) {
	for _, f := range []string{
		"ACPI: thermal: [Firmware Bug]: Invalid critical threshold (%d)",
		"can't claim BAR %d %pR: no compatible bridge window",
		"ACPI BIOS Error (bug): Invalid table length 0x%X in RSDT/XSDT",
		"mtrr: base(0x%lx000) is not aligned on a size(0x%lx000) boundary",
	} {
		re, lit := Regex(f)
		require.False(t, lit, f)
		assert.Regexp(t, regexp.MustCompile(re), Sample(f), f)
	}
	re, lit := Regex("plain 100%% text")
	assert.True(t, lit)
	assert.Equal(t, "plain 100% text", re)
}

func TestCoverage(t *testing.T) {
	es, err := klog.DefaultDB()
	require.NoError(t, err)
	msgs := ScanSource("drivers/acpi/thermal.c", sample)
	assert.NotNil(t, coveredBy(es, msgs[0]), "the FW_BUG critical threshold message is in the database")
	assert.Nil(t, coveredBy(es, msgs[5]))
}

// TestScanKernelTree runs over a kernel tree when one is given in
// $FWCHECK_KERNEL_SRC (for example Debian's linux-source unpacked).
func TestScanKernelTree(t *testing.T) {
	tree := os.Getenv("FWCHECK_KERNEL_SRC")
	if tree == "" {
		t.Skip("set FWCHECK_KERNEL_SRC to a kernel source tree")
	}
	msgs, err := scanTree(tree, defaultDirs)
	require.NoError(t, err)
	assert.Greater(t, len(msgs), 1000)
	es, err := klog.DefaultDB()
	require.NoError(t, err)
	covered := 0
	for _, m := range msgs {
		if coveredBy(es, m) != nil {
			covered++
		}
	}
	assert.Greater(t, covered, 300)
	_, err = scanTree(filepath.Join(t.TempDir(), "nope"), []string{"x"})
	assert.Error(t, err)
}

func TestScanPrFmtRedefinedAndModname(t *testing.T) {
	src := `#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
void a(void) { pr_err("first one\n"); }
#undef pr_fmt
#define pr_fmt(fmt) "x86/other: " fmt
void b(void) { pr_err("second one\n"); }
`
	msgs := ScanSource("arch/x86/kernel/tsc.c", src)
	require.Len(t, msgs, 2)
	assert.Equal(t, "tsc: first one", msgs[0].Format)
	assert.Equal(t, "x86/other: second one", msgs[1].Format)
}
