//go:build linux

package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fingerprint is what "untouched" means for a path: the same inode, type,
// bits, size, modification time and (for a file) contents; for a
// directory, the same entries.
type fingerprint struct {
	ino, rdev  uint64
	mode       os.FileMode
	size       int64
	mtime      int64
	contents   string
	dirEntries []string
}

func fingerprintOf(t *testing.T, p string) fingerprint {
	t.Helper()
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	f := fingerprint{ino: st.Ino, rdev: st.Rdev, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	switch {
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		f.contents = string(b)
	case fi.IsDir():
		ents, err := os.ReadDir(p)
		require.NoError(t, err)
		for _, e := range ents {
			f.dirEntries = append(f.dirEntries, e.Name())
		}
	}
	return f
}

// `fwcheck snapshot -o` deleted its target on any failure, a device node
// and a link to /proc/self/fd/1 among them. A read-only file, a directory,
// /dev/null, a device node and that link must come out of it untouched,
// run as root and as an unprivileged user.
func TestSnapshotOutputIsNeverDestroyed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run fwcheck both as root and as nobody")
	}
	// A small machine to capture, readable by nobody.
	root := filepath.Join(workDir, "machine")
	for p, c := range map[string]string{
		"proc/version":                "Linux version 6.1.0\n",
		"sys/class/dmi/id/sys_vendor": "QEMU\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(c), 0o644))
	}
	for _, user := range []struct {
		name string
		uid  int
	}{{"root", -1}, {"nobody", 65534}} {
		t.Run(user.name, func(t *testing.T) {
			// The directory is writable by everyone, so renaming over the
			// files in it would succeed: only fwcheck's care keeps them.
			dir, err := os.MkdirTemp(workDir, "out-")
			require.NoError(t, err)
			require.NoError(t, os.Chmod(dir, 0o777))
			readOnly := filepath.Join(dir, "readonly.tar.gz")
			require.NoError(t, os.WriteFile(readOnly, []byte("a snapshot someone keeps"), 0o444))
			subdir := filepath.Join(dir, "results")
			require.NoError(t, os.Mkdir(subdir, 0o777))
			require.NoError(t, os.WriteFile(filepath.Join(subdir, "keep.json"), []byte("{}"), 0o644))

			// A device node and a link to standard output, as the issue
			// saw deleted: written in place, kept.
			node := filepath.Join(dir, "null")
			require.NoError(t, syscall.Mknod(node, syscall.S_IFCHR|0o666, 1<<8|3))
			require.NoError(t, os.Chmod(node, 0o666))
			stdout := filepath.Join(dir, "stdout")
			require.NoError(t, os.Symlink("/proc/self/fd/1", stdout))
			type target struct {
				path     string
				wantCode int
				want     string // in the one-line error
			}
			refuse := "refusing to replace it"
			targets := []target{{readOnly, 2, refuse}, {subdir, 2, refuse}, {os.DevNull, 0, ""}, {node, 0, ""}}
			if user.uid < 0 {
				targets = append(targets, target{stdout, 0, ""})
			} else {
				// The test's pipe is root's: nobody may not reopen it.
				targets = append(targets, target{stdout, 2, "permission denied"})
			}
			if user.uid >= 0 {
				// root's file, which nobody may not write but could rename over.
				theirs := filepath.Join(dir, "roots.tar.gz")
				require.NoError(t, os.WriteFile(theirs, []byte("root's snapshot"), 0o644))
				targets = append(targets, target{theirs, 2, refuse})
			}
			for _, target := range targets {
				before := fingerprintOf(t, target.path)
				r := runAs(t, user.uid, "snapshot", "-o", target.path, "--root", root)
				bounded(t, r)
				assert.Equal(t, target.wantCode, r.code, "%s: %s", target.path, r.stderr)
				if target.wantCode == 2 {
					oneLineError(t, r, target.want)
				}
				after := fingerprintOf(t, target.path)
				if target.path == stdout {
					link, err := os.Readlink(stdout)
					require.NoError(t, err)
					assert.Equal(t, "/proc/self/fd/1", link)
				}
				if target.path == stdout && r.code == 0 {
					assert.True(t, strings.HasPrefix(r.stdout, "\x1f\x8b"), "the snapshot went to standard output")
				}
				if target.path == os.DevNull || target.path == node {
					before.mtime, after.mtime = 0, 0 // writing to it touches its time
				}
				assert.Equal(t, before, after, "%s untouched", target.path)
			}
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, ents, len(targets)-1, "no temporary file left behind") // /dev/null is elsewhere
		})
	}
}
