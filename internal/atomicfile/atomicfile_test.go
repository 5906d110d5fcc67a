package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplacesOnlyOnSuccess(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(p, []byte("precious"), 0o600))

	err := Write(p, 0, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("disk on fire")
	})
	require.Error(t, err)
	b, _ := os.ReadFile(p)
	assert.Equal(t, "precious", string(b), "a failed write leaves the old file")

	require.NoError(t, WriteFile(p, []byte("new"), 0))
	b, _ = os.ReadFile(p)
	assert.Equal(t, "new", string(b))
	fi, _ := os.Stat(p)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "an existing file keeps its bits")

	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 1, "no temporary file is left behind")
}

func TestRefusesDirectories(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(dir, []byte("x"), 0o644)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refusing")
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
}

func TestDevicesAreWrittenInPlaceAndNeverRemoved(t *testing.T) {
	require.NoError(t, WriteFile(os.DevNull, []byte("x"), 0o644))
	require.Error(t, Write(os.DevNull, 0o644, func(io.Writer) error { return errors.New("failed") }))
	fi, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeCharDevice, "/dev/null is still a device")
}

func TestNewFileMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "snap.tar")
	require.NoError(t, WriteFile(p, []byte("x"), 0o600))
	fi, _ := os.Stat(p)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestRefusesReadOnlyFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "keep.tar.gz")
	require.NoError(t, os.WriteFile(p, []byte("precious"), 0o444))
	err := WriteFile(p, []byte("new"), 0o600)
	require.ErrorContains(t, err, "read-only")
	b, _ := os.ReadFile(p)
	assert.Equal(t, "precious", string(b))
}

func TestSymlinkTargetIsReplacedAndTheLinkKept(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	require.NoError(t, os.WriteFile(real, []byte("old"), 0o644))
	require.NoError(t, os.Symlink("real", link))
	require.NoError(t, WriteFile(link, []byte("new"), 0))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "still a link")
	b, _ := os.ReadFile(real)
	assert.Equal(t, "new", string(b))
}
