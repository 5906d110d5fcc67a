package atomicfile

import (
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

// A process interrupted while it writes leaves no temporary file (a
// report -o killed midway left .NAME.tmp* files of up to 135 MB), and
// dies of the signal.
func TestTemporaryFileRemovedOnSignal(t *testing.T) {
	if dir := os.Getenv("ATOMICFILE_CHILD"); dir != "" {
		f, err := Create(filepath.Join(dir, "out.json"), 0)
		if err != nil {
			os.Exit(3)
		}
		f.WriteString("partial")
		os.WriteFile(filepath.Join(dir, "ready"), nil, 0o600)
		time.Sleep(time.Minute)
		os.Exit(4)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run", "^TestTemporaryFileRemovedOnSignal$")
		cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD="+dir)
		require.NoError(t, cmd.Start())
		for i := 0; ; i++ {
			if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
				break
			}
			require.Less(t, i, 3000, "the child never got ready")
			time.Sleep(10 * time.Millisecond)
		}
		ents, _ := os.ReadDir(dir)
		require.Len(t, ents, 2, "the temporary file exists while writing")
		require.NoError(t, cmd.Process.Signal(sig))
		err := cmd.Wait()
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		// died of the signal, or exited 128+signal where the signal was
		// ignored when the test started (a background job's SIGINT)
		assert.True(t, ws.Signaled() && ws.Signal() == sig || ws.ExitStatus() == 128+int(sig), "%v: ended by the signal (%v)", sig, err)
		ents, _ = os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		assert.Equal(t, "ready", strings.Join(names, ","), "%v: the temporary file is gone, no target made", sig)
	}
}
