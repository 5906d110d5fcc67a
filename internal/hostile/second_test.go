//go:build linux

package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/report"
)

// resultsDoc writes a results document with one s3 result of n cycles;
// first, when set, replaces the first cycle's kernel resume time.
func resultsDoc(t *testing.T, n int, first any) string {
	t.Helper()
	skipShort(t)
	cycles := make([]map[string]any, n)
	for i := range cycles {
		cycles[i] = map[string]any{"cycle": i + 1, "status": "passed", "kernel_resume_ms": float64(i%1000) + 0.5,
			"slowest_ms": 12.0, "slowest_device": "0000:00:1f.3"}
	}
	if first != nil {
		cycles[0]["kernel_resume_ms"] = first
	}
	d := map[string]any{"schema": report.SchemaVersion, "results": []any{map[string]any{"id": "s3", "status": "passed",
		"data": map[string]any{"cycles": cycles}}}}
	b, err := json.Marshal(d)
	require.NoError(t, err)
	return file(t, "results.json", b)
}

// `fwcheck report` looped without end on one kernel resume time of
// 1.797e308 (a 3 KB document), and took 34 s on 300,000 cycles; every
// cycle became a table row and a dot of each plot.
func TestReportOfHostileNumbers(t *testing.T) {
	for name, doc := range map[string]string{
		"1.797e308": resultsDoc(t, 3, 1.797e308),
		// 300,000 cycles (32 MB) peaked at 377 MB, the decoded
		// document's maps; read as rows they keep 43 MB
		"300000 cycles":  resultsDoc(t, 300_000, nil),
		"negative":       resultsDoc(t, 3, -5e300),
		"smallest float": resultsDoc(t, 3, 5e-324),
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report.html")
			r := run(t, "report", doc, "-o", out)
			assert.Equal(t, 0, r.code, "%.300s", r.stderr)
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Less(t, len(b), 2<<20, "a bounded page")
			assert.NotContains(t, string(b), "NaN")
			assert.NotContains(t, string(b), "Inf")
			st, err := os.Stat(out)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "machine data")
		})
	}
}

// A kernel log of long unbroken words: wrapping each was quadratic (a 4
// MiB Boot#### variable made a 0.25 s check take 106 s to print).
func TestTextReportOfLongWords(t *testing.T) {
	var b strings.Builder
	for i := range 8 {
		fmt.Fprintf(&b, "[    1.%06d] ACPI Error: AE_NOT_FOUND, While resolving a named reference package element - %s\n", i, strings.Repeat("Z", 900_000))
	}
	in := file(t, "long.log", []byte(b.String()))
	r := run(t, "klog", in, "--color", "never", "--verbose")
	assert.Contains(t, []int{0, 1}, r.code, "%.300s", r.stderr)
	for _, l := range strings.Split(r.stdout, "\n") {
		assert.LessOrEqual(t, len(l), 200, "wrapped")
	}
}

// Output targets are checked before any check runs: `s3 --json DIR` ran
// every cycle, then exited 2 and the results were lost.
func TestOutputTargetsCheckedFirst(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro.json")
	require.NoError(t, os.WriteFile(ro, []byte("{}"), 0o444))
	for _, args := range [][]string{
		{"run", "--json", dir},
		{"run", "--junit", ro},
		{"klog", "--json", filepath.Join(dir, "missing", "out.json"), "/dev/null"},
		{"report", resultsDoc(t, 3, nil), "-o", dir},
	} {
		r := run(t, args...)
		oneLineError(t, r, "")
		assert.Empty(t, r.stdout, "%v: no check ran", args)
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "nothing left behind")
}

// Input files that are not regular: a FIFO blocked --acpidump, --klog and
// --resume forever; /dev/urandom as --acpidump never ended.
func TestInputsThatAreNotRegularFiles(t *testing.T) {
	skipShort(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--acpidump", "/dev/urandom"}, "not a regular file but a character device"},
		{[]string{"run", "--acpidump", fifo}, "not a regular file but a FIFO"},
		{[]string{"run", "--from", fifo}, "not a regular file"},
		{[]string{"run", "--klog", "/dev/urandom"}, "not a regular file or a pipe but a character device"},
		{[]string{"run", "--waivers", fifo}, "not a regular file but a FIFO"},
		{[]string{"report", fifo, "-o", filepath.Join(t.TempDir(), "r.html")}, "not a regular file but a FIFO"},
		{[]string{"diff", fifo, fifo}, "not a regular file but a FIFO"},
		{[]string{"aml", "--acpidump", fifo}, "not a regular file but a FIFO"},
	} {
		r := run(t, c.args...)
		oneLineError(t, r, c.want)
	}
	// A FIFO as the kernel log, as process substitution gives one: read
	// without blocking (no writer: an empty log, nothing checked).
	r := run(t, "klog", fifo)
	assert.Contains(t, []int{2, 3}, r.code, "%.300s", r.stderr)
}

// A hard link inside a snapshot directory to /etc/shadow put the file into
// the results as the DMI product name.
func TestDirectorySnapshotRefusesHardLinks(t *testing.T) {
	root := snapshotDir(t)
	secret := filepath.Join(root, "..", "shadow")
	require.NoError(t, os.WriteFile(secret, []byte("root:$6$hostile-secret-hash:19000:0:99999:7:::\n"), 0o600))
	name := filepath.Join(root, "sys/class/dmi/id/product_name")
	os.Remove(name)
	require.NoError(t, os.Link(secret, name))
	out := file(t, "out.json", nil)
	r := run(t, "run", "--from", root, "--json", out, "--color", "never", "--verbose")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	for _, s := range []string{string(b), r.stdout, r.stderr} {
		assert.NotContains(t, s, "hostile-secret-hash")
	}
	assert.Contains(t, string(b), `"bios_vendor": "SeaBIOS"`, "the snapshot's own files are read")
}

// `tar -C dir .` writes a "./" entry first: such an archive was refused.
func TestTarOfDotIsASnapshot(t *testing.T) {
	root := snapshotDir(t)
	arch := filepath.Join(t.TempDir(), "snap.tar.gz")
	out, err := exec.Command("tar", "-czf", arch, "-C", root, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	res := file(t, "out.json", nil)
	r := run(t, "run", "--from", arch, "--json", res, "--color", "never")
	assert.Contains(t, []int{0, 1, 3}, r.code, "%.300s", r.stderr)
	b, err := os.ReadFile(res)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"bios_vendor": "SeaBIOS"`)
}

// `snapshot -o -` wrote a file named "-"; results files were created 0644
// although they hold machine data.
func TestSnapshotToStdoutAndFileModes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("snapshot reads a machine root as root")
	}
	root := filepath.Join(t.TempDir(), "machine")
	for p, c := range map[string]string{"proc/version": "Linux version 6.1.0\n", "sys/class/dmi/id/sys_vendor": "QEMU\n"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(c), 0o644))
	}
	r := run(t, "snapshot", "-o", "-", "--root", root)
	assert.Equal(t, 0, r.code, "%.300s", r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "\x1f\x8b"), "the archive on standard output")
	_, err := os.Stat(filepath.Join(workDir, "-"))
	assert.True(t, os.IsNotExist(err), "no file named -")

	dir := t.TempDir()
	js, ju := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	r = run(t, "run", "checksum", "--from", snapshotDir(t), "--json", js, "--junit", ju, "--color", "never")
	assert.Contains(t, []int{0, 1, 3}, r.code, "%.300s", r.stderr)
	for _, p := range []string{js, ju} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), p)
	}
}

// One Boot#### variable whose description is a word of 2 million
// characters (a 4 MiB variable, the limit) made a 0.25 s check take 106 s
// to print: wrapping it is linear now.
func TestBootVariableOfOneLongWord(t *testing.T) {
	root := snapshotDir(t)
	const guid = "8be4df61-93ca-11d2-aa0d-00e098032b8c"
	vars := filepath.Join(root, "sys/firmware/efi/efivars")
	require.NoError(t, os.MkdirAll(vars, 0o755))
	opt := []byte{7, 0, 0, 0, 1, 0, 0, 0, 4, 0} // efivarfs attributes; LOAD_OPTION_ACTIVE, a 4-byte path list
	for range 2<<20 - 64 {
		opt = append(opt, 'A', 0)
	}
	opt = append(opt, 0, 0, 0x7F, 0xFF, 0x04, 0x00) // the description's NUL, the end of the device path
	require.NoError(t, os.WriteFile(filepath.Join(vars, "Boot0001-"+guid), opt, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(vars, "BootOrder-"+guid), []byte{7, 0, 0, 0, 1, 0}, 0o644))
	r := run(t, "run", "uefi-boot", "--from", root, "--verbose", "--color", "never")
	assert.Contains(t, []int{0, 1}, r.code, "%.300s", r.stderr)
	assert.Greater(t, strings.Count(r.stdout, "AAAAAAAA"), 20_000, "the description is printed, wrapped")
	for _, l := range strings.Split(r.stdout, "\n") {
		assert.LessOrEqual(t, len(l), 200, "wrapped")
	}
}
