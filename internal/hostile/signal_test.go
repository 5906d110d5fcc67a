//go:build linux

package hostile

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SIGKILL during `report -o` left .NAME.tmp* files of up to 135 MB. A
// run stopped by SIGTERM or SIGINT while it writes its output removes the
// temporary file and leaves no half-written target: here a snapshot of a
// machine root with 64 MiB of incompressible tables, stopped as soon as
// its temporary file appears.
func TestOutputTemporaryFileGoneOnSignal(t *testing.T) {
	skipShort(t)
	if os.Geteuid() != 0 {
		t.Skip("snapshot reads a machine root as root")
	}
	root := filepath.Join(t.TempDir(), "machine")
	tables := filepath.Join(root, "sys/firmware/acpi/tables")
	require.NoError(t, os.MkdirAll(tables, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "proc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "proc/version"), []byte("Linux version 6.1.0\n"), 0o644))
	noise := make([]byte, 32<<10)
	for i := range 2048 {
		_, _ = rand.Read(noise)
		copy(noise, "SSDT")
		require.NoError(t, os.WriteFile(filepath.Join(tables, fmt.Sprintf("SSDT%d", i+1)), noise, 0o644))
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "snap.tar.gz")
			cmd := exec.Command(bin, "snapshot", "-o", out, "--root", root)
			require.NoError(t, cmd.Start())
			start := time.Now()
			var tmp string
			for tmp == "" && time.Since(start) < hangLimit {
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), ".snap.tar.gz") {
						tmp = e.Name()
					}
				}
				time.Sleep(time.Millisecond)
			}
			require.NotEmpty(t, tmp, "the snapshot's temporary file appeared")
			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			t.Logf("%v %v after the temporary file %s appeared: %v", sig, time.Since(start).Round(time.Millisecond), tmp, err)
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			assert.True(t, ws.Signaled() && ws.Signal() == sig || ws.ExitStatus() == 128+int(sig), "ended by the signal: %v", err)
			ents, _ := os.ReadDir(dir)
			var left []string
			for _, e := range ents {
				left = append(left, e.Name())
			}
			assert.Empty(t, left, "no temporary file and no half-written snapshot")
		})
	}
}
