package input

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tarGzOf writes an archive through add, which writes its entries.
func tarGzOf(t testing.TB, add func(tw *tar.Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	add(tw)
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestSnapshotArchiveLimits(t *testing.T) {
	tooMany := tarGzOf(t, func(tw *tar.Writer) {
		for i := 0; i <= MaxSnapshotEntries; i++ {
			tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("d/%d", i), Typeflag: tar.TypeDir, Mode: 0o755})
		}
	})
	_, err := readTarGz(bytes.NewReader(tooMany))
	assert.ErrorContains(t, err, "more than 100000 entries")

	// Names count against the total too: internal/hostile tries an archive
	// of long names.

	var tooBig bytes.Buffer // a header claiming more than the limit, and no data
	zw := gzip.NewWriter(&tooBig)
	require.NoError(t, tar.NewWriter(zw).WriteHeader(&tar.Header{Name: "big", Typeflag: tar.TypeReg, Size: MaxSnapshotFile + 1}))
	require.NoError(t, zw.Close())
	_, err = readTarGz(bytes.NewReader(tooBig.Bytes()))
	assert.ErrorContains(t, err, "too large")

	both := tarGzBytes(map[string]string{"a": "x", "a/b": "y"})
	_, err = readTarGz(bytes.NewReader(both))
	assert.ErrorContains(t, err, "both a file and a directory")
}

func TestMemFSDeepAndWide(t *testing.T) {
	files := map[string]*memFile{}
	deep := strings.TrimSuffix(strings.Repeat("d/", 20000), "/")
	files[deep+"/f"] = &memFile{data: []byte("x")}
	for i := 0; i < 40000; i++ {
		files[fmt.Sprintf("sys/firmware/acpi/tables/SSDT%d", i)] = &memFile{}
	}
	m, err := newMemFS(files)
	require.NoError(t, err)
	ents, err := fs.ReadDir(m, "sys/firmware/acpi/tables")
	require.NoError(t, err)
	assert.Len(t, ents, 40000)
	b, err := fs.ReadFile(m, deep+"/f")
	require.NoError(t, err)
	assert.Equal(t, "x", string(b))
	ents, err = fs.ReadDir(m, ".")
	require.NoError(t, err)
	assert.Equal(t, []string{"d", "sys"}, []string{ents[0].Name(), ents[1].Name()})
}

// A snapshot directory yields its own regular files only.
func TestDirectorySnapshotRefusesLinksOutDevicesAndFIFOs(t *testing.T) {
	root := writeTree(t, map[string]string{
		"proc/version":                 "Linux version 6.1\n",
		"sys/class/dmi/id/bios_vendor": "SeaBIOS\n",
	})
	secret := filepath.Join(t.TempDir(), "shadow")
	require.NoError(t, os.WriteFile(secret, []byte("root:$6$secret"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(root, "sys/class/dmi/id/sys_vendor")))
	require.NoError(t, os.Symlink("../../../../"+filepath.Base(filepath.Dir(secret)), filepath.Join(root, "sys/class/dmi/id/product_name")))
	require.NoError(t, os.Symlink("bios_vendor", filepath.Join(root, "sys/class/dmi/id/board_vendor"))) // inside: fine
	require.NoError(t, os.MkdirAll(filepath.Join(root, RecordedDir), 0o755))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(root, RecordedDir, KlogFile)))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "proc/iomem"), 0o644))

	src, err := Open(root)
	require.NoError(t, err)
	m := New(src, Options{})
	dmi, err := DMI.Get(m)
	require.NoError(t, err)
	assert.Equal(t, &DMIInfo{BIOSVendor: "SeaBIOS", BoardVendor: "SeaBIOS"}, dmi, "links out of the snapshot are not followed")
	_, err = KernelLog.Get(m)
	assert.ErrorContains(t, err, "escapes")
	_, err = fs.ReadFile(src, "proc/iomem")
	assert.ErrorContains(t, err, "not a regular file")
	if os.Geteuid() == 0 {
		require.NoError(t, syscall.Mknod(filepath.Join(root, "proc/zero"), syscall.S_IFCHR|0o644, 1<<8|5))
		_, err = fs.ReadFile(src, "proc/zero")
		assert.ErrorContains(t, err, "not a regular file")
	}
}

func TestDirectorySnapshotSizeLimit(t *testing.T) {
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "big"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxSnapshotFile+1)) // sparse
	f.Close()
	src, err := Open(root)
	require.NoError(t, err)
	_, err = fs.ReadFile(src, "big")
	assert.ErrorContains(t, err, "too large")
}

func TestKernelLogFileLimit(t *testing.T) {
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact.txt")
	line := "[    1.000000] ACPI: Interpreter enabled\n"
	b := []byte(strings.Repeat(line, MaxSnapshotFile/len(line)))
	b = append(b, strings.Repeat("x", MaxSnapshotFile-len(b))...)
	require.NoError(t, os.WriteFile(exact, b, 0o644))
	recs, err := loadKlogFile(exact, nil)
	require.NoError(t, err, "a log of exactly the limit is read")
	assert.NotEmpty(t, recs)

	over := filepath.Join(dir, "over.txt")
	require.NoError(t, os.WriteFile(over, append(b, '\n'), 0o644))
	_, err = loadKlogFile(over, nil)
	assert.EqualError(t, err, over+": larger than 64 MiB, more than a kernel log holds")

	notLog := filepath.Join(dir, "notlog.txt")
	require.NoError(t, os.WriteFile(notLog, []byte("hello\nworld\n"), 0o644))
	_, err = loadKlogFile(notLog, nil)
	assert.ErrorContains(t, err, "not a kernel log")
	empty := filepath.Join(dir, "empty.txt")
	require.NoError(t, os.WriteFile(empty, []byte("\n  \n"), 0o644))
	_, err = loadKlogFile(empty, nil)
	assert.NoError(t, err, "an empty log is no error (the checks skip it)")
	_, err = loadKlogFile("-", []byte("junk\n[    2.000000] late but real\n"))
	assert.NoError(t, err)
}
