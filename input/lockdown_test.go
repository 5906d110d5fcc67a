package input

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLockdown(t *testing.T) {
	for in, want := range map[string]string{
		"[none] integrity confidentiality\n": "none",
		"none [integrity] confidentiality\n": "integrity",
		"none integrity [confidentiality]\n": "confidentiality",
		"none integrity confidentiality\n":   "",
		"[bogus]":                            "",
		"]integrity[":                        "",
		"":                                   "",
	} {
		assert.Equal(t, want, ParseLockdown([]byte(in)), "%q", in)
	}
}

func FuzzParseLockdown(f *testing.F) {
	f.Add([]byte("none [integrity] confidentiality\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		switch m := ParseLockdown(b); m {
		case "", "none", "integrity", "confidentiality":
		default:
			t.Fatalf("mode %q", m)
		}
	})
}

// lockedMachine is a machine root whose kernel says it is locked down in
// mode, with the SecureBoot variable sb (-1: none).
func lockedMachine(t *testing.T, mode string, sb int) string {
	root := t.TempDir()
	if mode != "" {
		require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/kernel/security"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, LockdownFile), []byte(mode), 0o444))
	}
	if sb >= 0 {
		require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/firmware/efi/efivars"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, secureBootVar), []byte{6, 0, 0, 0, byte(sb)}, 0o444))
	}
	return root
}

func TestLockdownInput(t *testing.T) {
	for _, c := range []struct {
		mode        string
		sb          int
		want        LockdownState
		words       string
		locked      bool
		description string
	}{
		{"none [integrity] confidentiality\n", 1, LockdownState{"integrity", "on"}, "integrity, because Secure Boot is on", true, "Secure Boot on"},
		{"[none] integrity confidentiality\n", 0, LockdownState{"none", "off"}, "none", false, "Secure Boot off"},
		{"none integrity [confidentiality]\n", 0, LockdownState{"confidentiality", "off"}, "confidentiality (Secure Boot is off: lockdown= on the kernel command line, or the kernel's own default)", true, "lockdown= given"},
		{"", -1, LockdownState{}, "", false, "a BIOS machine with a kernel without securityfs"},
	} {
		m := New(Live(lockedMachine(t, c.mode, c.sb)), Options{})
		st, err := Lockdown.Get(m)
		require.NoError(t, err, c.description)
		assert.Equal(t, c.want, *st, c.description)
		assert.Equal(t, c.words, st.Words(), c.description)
		assert.Equal(t, c.locked, st.Locked(), c.description)
		id := m.Identify()
		assert.Equal(t, c.want.Mode, id.Lockdown, c.description)
		assert.Equal(t, c.want.SecureBoot, id.SecureBoot, c.description)
	}
}

// A recorder whose device the locked-down kernel refuses gives the reason
// in lockdown's words, and the remedy is the lockdown's, on the machine and
// from a snapshot taken there.
func TestLockdownRefusal(t *testing.T) {
	root := lockedMachine(t, "none [integrity] confidentiality\n", 1)
	refuse := func(dev string) Recorder {
		return func(root string) ([]byte, error) {
			return nil, &fs.PathError{Op: "open", Path: filepath.Join(root, dev), Err: syscall.EPERM}
		}
	}
	src := &liveSource{root: root, fsys: os.DirFS(root), recorders: map[string]Recorder{
		"mem": refuse("dev/mem"), "port": refuse("dev/port"), "msr": refuse("dev/cpu/0/msr"),
	}}
	_, err := fs.ReadFile(src, "fwcheck/mem")
	require.Error(t, err)
	assert.Equal(t, "record fwcheck/mem: /dev/mem refused: kernel lockdown (integrity), because Secure Boot is on", err.Error())
	assert.True(t, errors.Is(err, ErrLockdown))
	assert.True(t, errors.Is(err, syscall.EPERM), "the cause is kept")
	_, err = fs.ReadFile(src, "fwcheck/port")
	assert.ErrorContains(t, err, "/dev/port refused: kernel lockdown (integrity)")
	_, err = fs.ReadFile(src, "fwcheck/msr")
	assert.NotErrorIs(t, err, ErrLockdown, "MSR reads are not what lockdown refuses")

	if os.Geteuid() == 0 {
		m := New(src, Options{})
		assert.Equal(t, LockdownRemedy, m.Remedy(&Unavailable{"bda", "record fwcheck/bda.bin: /dev/mem refused: kernel lockdown (integrity), because Secure Boot is on"}, "run as root"))
	}
	// The same machine without lockdown: the refusal is the kernel's
	// other restrictions, not lockdown.
	plain := &liveSource{root: t.TempDir(), fsys: os.DirFS(t.TempDir()), recorders: src.recorders}
	_, err = fs.ReadFile(plain, "fwcheck/mem")
	assert.NotErrorIs(t, err, ErrLockdown)
	assert.ErrorContains(t, err, "operation not permitted")

	// A snapshot taken there says where the cause lies.
	snap, err := newMemFS(map[string]*memFile{RecordedDir + "/" + NotCapturedFile: {data: []byte(
		"bda\tfwcheck/bda.bin\trecord fwcheck/bda.bin: /dev/mem refused: kernel lockdown (integrity), because Secure Boot is on\n")}})
	require.NoError(t, err)
	r := remedyFor(snapshot{name: "s.tar.gz", fsys: snap}, "bda", "x", "run as root")
	assert.Contains(t, r, "the snapshot s.tar.gz was taken under kernel lockdown")
	assert.Contains(t, r, "take it again with Secure Boot off")
}
