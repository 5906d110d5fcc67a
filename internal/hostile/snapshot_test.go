//go:build linux

package hostile

import (
	"archive/tar"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

const klogLine = "[    0.000000] Linux version 6.1.0 (hostile@test)\n[    1.000000] ACPI: Interpreter enabled\n"

// A snapshot of 40,000 table files took 17 s: the in-memory file system
// scanned every entry on each open. Now it loads at once, and the table
// limit makes the ACPI checks skip with the reason.
func TestSnapshotOf40000TableFiles(t *testing.T) {
	skipShort(t)
	hdr := checktest.SDT("SSDT", 2, nil)
	in := tarGz(t, "many.tar.gz", func(tw *tar.Writer) {
		addFile(t, tw, "proc/version", []byte("Linux version 6.1.0\n"))
		for i := range 40000 {
			addFile(t, tw, fmt.Sprintf("sys/firmware/acpi/tables/SSDT%d", i+1), hdr)
		}
	})
	out := file(t, "out.json", nil)
	r := run(t, "run", "--from", in, "--json", out, "--color", "never")
	assert.Equal(t, 3, r.code, "nothing could be checked: %.300s", r.stderr)
	status, reason, _, _ := readDoc(t, out).result(t, "checksum")
	assert.Equal(t, "skipped", status)
	assert.Contains(t, reason, "more than 4096 tables")
}

// 20,000 nested directories took 10 s.
func TestSnapshotOfDeepDirectories(t *testing.T) {
	in := tarGz(t, "deep.tar.gz", func(tw *tar.Writer) {
		addFile(t, tw, input.RecordedDir+"/"+input.KlogFile, []byte(klogLine))
		name := "deep"
		for range 20000 {
			name += "/d"
			require.NoError(t, tw.WriteHeader(&tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: 0o755}))
		}
		addFile(t, tw, name+"/f", []byte("x"))
	})
	r := run(t, "run", "--from", in, "--color", "never")
	oneLineError(t, r, "a path more than 32 directories deep in the archive")
}

// Nested directories in a snapshot directory, under the ACPI tables
// (5,000 deep: creating and removing more costs the test more than it
// proves): walking them stops at the depth limit instead of opening each
// path through every directory above it.
func TestDirectorySnapshotOfDeepDirectories(t *testing.T) {
	root := snapshotDir(t)
	tables := filepath.Join(root, "sys/firmware/acpi/tables")
	require.NoError(t, os.MkdirAll(tables, 0o755))
	fd, err := unix.Open(tables, unix.O_DIRECTORY|unix.O_RDONLY, 0)
	require.NoError(t, err)
	for range 5000 {
		require.NoError(t, unix.Mkdirat(fd, "d", 0o755))
		next, err := unix.Openat(fd, "d", unix.O_DIRECTORY|unix.O_RDONLY, 0)
		require.NoError(t, err)
		unix.Close(fd)
		fd = next
	}
	unix.Close(fd)
	out := file(t, "out.json", nil)
	r := run(t, "run", "--from", root, "--json", out, "--color", "never")
	assert.Contains(t, []int{0, 1}, r.code, "the log checks run: %.300s", r.stderr)
	status, reason, _, _ := readDoc(t, out).result(t, "checksum")
	assert.Equal(t, "skipped", status)
	assert.Contains(t, reason, "more than 32 directories deep")
	t.Cleanup(func() { exec.Command("rm", "-rf", tables).Run() }) // too deep for os.RemoveAll's paths
}

// A 1.6 MB archive of long names used 2.1 GB: names were not counted.
func TestSnapshotOfLongNames(t *testing.T) {
	in := tarGz(t, "names.tar.gz", func(tw *tar.Writer) {
		for i := range 20 { // the first is refused
			name := fmt.Sprintf("n%d/%s", i, strings.Repeat("n", 1<<20-100))
			require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o444}))
		}
	})
	r := run(t, "run", "--from", in, "--color", "never")
	oneLineError(t, r, "bytes in the archive, longer than the 4096 a path can have")

	// Names of legal length count against the total.
	in = tarGz(t, "names2.tar.gz", func(tw *tar.Writer) {
		for i := range 40000 {
			name := fmt.Sprintf("n/%d/%s", i, strings.Repeat("n", 4000))
			require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o444}))
		}
	})
	st, err := os.Stat(in)
	require.NoError(t, err)
	t.Logf("archive: %d bytes", st.Size())
	r = run(t, "run", "--from", in, "--color", "never")
	oneLineError(t, r, "holds more than 128 MiB (file contents, names and 160 bytes per entry)")
	assert.Less(t, r.rss, int64(1.5*float64(input.MaxSnapshotTotal))+20<<20, "about 1.5 times what is kept, at most")
}

// A million empty entries used 609 MB.
func TestSnapshotOfAMillionEmptyEntries(t *testing.T) {
	in := tarGz(t, "empty.tar.gz", func(tw *tar.Writer) {
		for i := range 1_000_000 {
			require.NoError(t, tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("e/%d", i), Typeflag: tar.TypeReg, Mode: 0o444}))
		}
	})
	r := run(t, "run", "--from", in, "--color", "never")
	oneLineError(t, r, "more than 100000 entries")
}

// blobs writes an archive holding a kernel log and n files of size bytes
// (which no input reads).
func blobs(t *testing.T, name string, n, size int) string {
	blob := make([]byte, size)
	for i := range blob {
		blob[i] = byte(i * 7 >> 3)
	}
	return tarGz(t, name, func(tw *tar.Writer) {
		addFile(t, tw, input.RecordedDir+"/"+input.KlogFile, []byte(klogLine))
		for i := range n {
			addFile(t, tw, fmt.Sprintf("extra/blob%d", i), blob)
		}
	})
}

// Within the limit, peak memory stays within about 1.5 times the data
// kept (it was 3 times).
func TestSnapshotMemoryNearTheData(t *testing.T) {
	const size, n = 24 << 20, 4 // 96 MiB
	base := run(t, "run", "klog", "--from", blobs(t, "small.tar.gz", 0, 0), "--color", "never")
	r := run(t, "run", "klog", "--from", blobs(t, "big.tar.gz", n, size), "--color", "never")
	assert.Equal(t, base.code, r.code, "%.300s", r.stderr)
	data := int64(n * size)
	ratio := float64(r.rss-base.rss) / float64(data)
	t.Logf("data %d MiB, baseline RSS %.1f MB, RSS %.1f MB: %.2f times the data above the baseline", data>>20, float64(base.rss)/1e6, float64(r.rss)/1e6, ratio)
	assert.LessOrEqual(t, ratio, 1.5)
}

func TestSnapshotOverTheDataLimit(t *testing.T) {
	r := run(t, "run", "--from", blobs(t, "over.tar.gz", 3, 43<<20), "--color", "never")
	oneLineError(t, r, "holds more than 128 MiB")
}

// snapshotDir writes a snapshot directory holding a kernel log and DMI.
func snapshotDir(t *testing.T) string {
	skipShort(t)
	root := t.TempDir()
	for p, c := range map[string]string{
		input.RecordedDir + "/" + input.KlogFile: klogLine,
		"sys/class/dmi/id/bios_vendor":           "SeaBIOS\n",
		"proc/version":                           "Linux version 6.1.0\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(c), 0o644))
	}
	return root
}

// A directory snapshot's log linked to /dev/zero ran the runtime out of
// memory; as a FIFO it hung; as a device node inside the snapshot it is
// endless too. Each is refused, and the log checks skip saying why.
func TestDirectorySnapshotLogIsNoFile(t *testing.T) {
	for name, mk := range map[string]func(p string) error{
		"link to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"fifo":              func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"device":            func(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|5) },
		"relative link out": func(p string) error { return os.Symlink("../../../../../../../../dev/zero", p) },
	} {
		t.Run(name, func(t *testing.T) {
			if name == "device" && os.Geteuid() != 0 {
				t.Skip("mknod needs root")
			}
			root := snapshotDir(t)
			p := filepath.Join(root, input.RecordedDir, input.KlogFile)
			require.NoError(t, os.Remove(p))
			require.NoError(t, mk(p))
			out := file(t, "out.json", nil)
			r := run(t, "run", "klog", "--from", root, "--json", out, "--color", "never")
			assert.Equal(t, 3, r.code, "%.300s", r.stderr)
			status, reason, _, _ := readDoc(t, out).result(t, "klog")
			assert.Equal(t, "skipped", status)
			assert.Regexp(t, "escapes|not a regular file", reason)
		})
	}
}

// DMI linked to /etc/shadow put that file into the results.
func TestDirectorySnapshotDoesNotLeakFilesOutsideIt(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "shadow")
	require.NoError(t, os.WriteFile(secret, []byte("root:$6$hostile-secret-hash:19000:0:99999:7:::\n"), 0o600))
	root := snapshotDir(t)
	dmi := filepath.Join(root, "sys/class/dmi/id")
	require.NoError(t, os.Symlink(secret, filepath.Join(dmi, "sys_vendor")))
	require.NoError(t, os.Symlink("/etc/shadow", filepath.Join(dmi, "product_name")))
	require.NoError(t, os.Symlink("../../../../../../../../../../../etc/shadow", filepath.Join(dmi, "board_name")))
	out := file(t, "out.json", nil)
	r := run(t, "run", "--from", root, "--json", out, "--color", "always", "--verbose")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	for _, s := range []string{string(b), r.stdout, r.stderr} {
		assert.NotContains(t, s, "hostile-secret-hash")
		assert.NotContains(t, s, "root:")
	}
	assert.Contains(t, string(b), `"bios_vendor": "SeaBIOS"`, "the snapshot's own files are read")
}

func TestDirectorySnapshotFileTooLarge(t *testing.T) {
	root := snapshotDir(t)
	f, err := os.OpenFile(filepath.Join(root, input.RecordedDir, input.KlogFile), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(input.MaxSnapshotFile+1)) // sparse
	f.Close()
	out := file(t, "out.json", nil)
	r := run(t, "run", "klog", "--from", root, "--json", out, "--color", "never")
	assert.Equal(t, 3, r.code, "%.300s", r.stderr)
	status, reason, _, _ := readDoc(t, out).result(t, "klog")
	assert.Equal(t, "skipped", status)
	assert.Contains(t, reason, "too large")
}
