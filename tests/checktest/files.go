package checktest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
)

// FilesMachine is a machine whose source is a snapshot directory holding
// exactly files (machine paths without the leading slash, to contents).
func FilesMachine(t testing.TB, files map[string][]byte) *input.Machine {
	t.Helper()
	dir := t.TempDir()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, b, 0o644))
	}
	src, err := input.Open(dir)
	require.NoError(t, err)
	return input.New(src, input.Options{})
}

// SnapshotMachine is a machine reading a snapshot (a .tar.gz or directory).
func SnapshotMachine(t testing.TB, path string) *input.Machine {
	t.Helper()
	src, err := input.Open(path)
	require.NoError(t, err)
	return input.New(src, input.Options{})
}
