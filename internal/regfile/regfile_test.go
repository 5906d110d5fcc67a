package regfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for path, want := range map[string]string{
		fifo:           "not a regular file but a FIFO (it would block)",
		"/dev/urandom": "not a regular file but a character device",
		dir:            "not a regular file but a directory",
	} {
		_, err := Open(path) // a FIFO without a writer: returns at once
		assert.ErrorContains(t, err, want, path)
		assert.ErrorContains(t, err, path)
	}
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("data"), 0o600))
	f, err := Open(p)
	require.NoError(t, err)
	b, err := io.ReadAll(f)
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, "data", string(b))
}

func TestLimits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte("0123456789"), 0o600))
	b, err := ReadFile(p, 10)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(b))
	_, err = ReadFile(p, 9)
	assert.True(t, errors.Is(err, ErrTooLarge), "%v", err)

	b, err = io.ReadAll(LimitReader(strings.NewReader("0123456789"), 10))
	assert.NoError(t, err)
	assert.Len(t, b, 10)
	b, err = io.ReadAll(LimitReader(strings.NewReader("0123456789"), 4))
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "larger than 4 bytes")
	assert.Len(t, b, 4, "no byte past the limit")
}
