package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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
		"ACPI_EXCEPTION|ACPI Error: %s, While evaluating Sleep State [%s]",
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
	cov, err := newCoverage(es)
	require.NoError(t, err)
	assert.NotNil(t, cov.by(msgs[0]), "the FW_BUG critical threshold message is in the database")
	assert.Nil(t, cov.by(msgs[5]))
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

// kernelTree returns a Linux 6.1 tree to scan: $FWCHECK_KERNEL_SRC (a
// directory or tarball), else Debian's linux-source-6.1 tarball, which
// `make deps-image` installs; the test skips without either.
func kernelTree(tb testing.TB) string {
	if p := os.Getenv("FWCHECK_KERNEL_SRC"); p != "" {
		return p
	}
	const deb = "/usr/src/linux-source-6.1.tar.xz"
	if _, err := os.Stat(deb); err != nil {
		tb.Skip("no kernel tree: set FWCHECK_KERNEL_SRC or install linux-source-6.1 (make deps-image)")
	}
	if _, err := exec.LookPath("xz"); err != nil {
		tb.Skip("no xz command to read " + deb)
	}
	return deb
}

// The database covers at least 95% of the firmware-blaming messages the
// 6.1 kernel's platform code and drivers can print (FW_BUG/FW_WARN/FW_INFO,
// ACPICA BIOS and exception macros, BIOS wording); the test fails when the
// share drops.
func TestFirmwareMessageCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a whole kernel tree")
	}
	msgs, err := Scan(kernelTree(t), blameDirs)
	require.NoError(t, err)
	es, err := klog.DefaultDB()
	require.NoError(t, err)
	cov, err := newCoverage(es)
	require.NoError(t, err)
	total, covered, general := 0, 0, 0
	var missing []string
	for _, m := range msgs {
		if !Blames(m) {
			continue
		}
		total++
		e := cov.by(m)
		switch {
		case e == nil:
			missing = append(missing, m.File+": "+m.Format)
		case catchAll(e):
			covered++
			general++
		default:
			covered++
		}
	}
	t.Logf("%d firmware-blaming messages, %d covered (%.1f%%), %d only by catch-all entries; not covered:\n%s",
		total, covered, percent(covered, total), general, strings.Join(missing, "\n"))
	assert.Greater(t, total, 300, "the scan finds the firmware-blaming messages")
	assert.GreaterOrEqual(t, covered*100, 95*total, "the database covers less than 95%% of the firmware-blaming messages")
}

// The whole tree in a few seconds: go test ./internal/cmd/klogscan -run XXX
// -bench ScanTree with FWCHECK_KERNEL_SRC set to an unpacked tree.
func BenchmarkScanTree(b *testing.B) {
	tree := os.Getenv("FWCHECK_KERNEL_SRC")
	if st, err := os.Stat(tree); tree == "" || err != nil || !st.IsDir() {
		b.Skip("set FWCHECK_KERNEL_SRC to an unpacked kernel tree")
	}
	es, err := klog.DefaultDB()
	require.NoError(b, err)
	for b.Loop() {
		msgs, err := Scan(tree, nil)
		require.NoError(b, err)
		cov, err := newCoverage(es)
		require.NoError(b, err)
		for _, m := range msgs {
			cov.by(m)
		}
		b.ReportMetric(float64(len(msgs)), "messages")
	}
}

func TestBlames(t *testing.T) {
	for _, c := range []struct {
		m    Message
		want bool
	}{
		{Message{Macro: "pr_err", Format: "[Firmware Bug]: TSC_DEADLINE disabled due to Errata"}, true},
		{Message{Macro: "ACPI_BIOS_ERROR", Format: "ACPI BIOS Error (bug): Invalid table length"}, true},
		{Message{Macro: "ACPI_EXCEPTION", Format: "ACPI Error: %s, During WalkNamespace"}, true},
		{Message{Macro: "ACPI_ERROR", Format: "ACPI Error: Could not disable %s events"}, false},
		{Message{Macro: "dev_err", Format: "SMBus base address uninitialized, upgrade BIOS"}, true},
		{Message{Macro: "pr_info", Format: "ATOM BIOS: %s"}, false},
		{Message{Macro: "dev_err", Format: "Bad firmware image: no config data"}, false},
		{Message{Macro: "pr_info", Format: "btrfs: %d bios in flight"}, false},
	} {
		assert.Equal(t, c.want, Blames(c.m), c.m.Format)
	}
}

// A tarball is read as a stream, and -dirs selects below its top directory.
func TestScanTarball(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range map[string]string{
		"linux-x/drivers/acpi/thermal.c": sample,
		"linux-x/sound/pci/x.c":          `void f(void) { pr_err("BIOS bug in sound\n"); }`,
		"linux-x/Documentation/x.c":      `void f(void) { pr_err("not scanned\n"); }`,
	} {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	p := filepath.Join(t.TempDir(), "linux.tar.gz")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o600))
	msgs, err := Scan(p, nil)
	require.NoError(t, err)
	assert.Len(t, msgs, 7)
	msgs, err = Scan(p, []string{"drivers/acpi"})
	require.NoError(t, err)
	assert.Len(t, msgs, 6)
	assert.Equal(t, "drivers/acpi/thermal.c", msgs[0].File)
	_, err = Scan(filepath.Join(t.TempDir(), "nope"), nil)
	assert.Error(t, err)
}
