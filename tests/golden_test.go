package tests

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Golden files hold Render's output for real corpus inputs. Regenerate them
// after an intended change of a check:
//
//	go test ./tests -run Golden -update
//
// then review the diff under tests/testdata/*/golden before committing.
var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/ with the current results")

// checkGolden compares got with dir/name.txt, or writes it there under
// -update.
func checkGolden(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join(dir, name+".txt")
	if *updateGolden {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run: go test ./tests -run Golden -update")
	assert.Equal(t, string(want), got)
}

// checkNoStaleGolden fails when dir holds a golden file for none of names.
func checkNoStaleGolden(t *testing.T, dir string, names []string) {
	t.Helper()
	want := map[string]bool{}
	for _, n := range names {
		want[n+".txt"] = true
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, f := range files {
		assert.True(t, want[filepath.Base(f)], "stale golden file %s", f)
	}
	assert.Len(t, files, len(want))
}
