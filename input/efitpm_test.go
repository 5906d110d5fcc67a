package input

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/efi"
)

// TestEFITPMCapture captures the UEFI and TPM inputs of a machine root (a
// UEFI machine with a TPM whose /dev/tpmrm0 is absent) and reads them back
// from the snapshot.
func TestEFITPMCapture(t *testing.T) {
	g := efi.GlobalVariable.String()
	root := writeTree(t, map[string]string{
		"sys/firmware/efi/fw_platform_size":                 "64\n",
		"sys/firmware/efi/efivars/BootOrder-" + g:           "\x07\x00\x00\x00\x01\x00",
		"sys/firmware/efi/esrt/fw_resource_count":           "0\n",
		"sys/class/tpm/tpm0/tpm_version_major":              "2\n",
		"sys/kernel/security/tpm0/binary_bios_measurements": "short",
	})
	src := &liveSource{root: root, fsys: os.DirFS(root), recorders: liveRecorders()}
	var buf bytes.Buffer
	notes, err := Capture(&buf, src, []Decl{EFIVars, ESRT, TPMEventLog, PCRs})
	require.NoError(t, err)
	assert.Empty(t, notes)
	dir := t.TempDir()
	p := dir + "/s.tar.gz"
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o600))
	snap, err := Open(p)
	require.NoError(t, err)
	m := New(snap, Options{})

	ev, err := EFIVars.Get(m)
	require.NoError(t, err)
	assert.True(t, ev.UEFI)
	assert.NotNil(t, ev.Vars.Global("BootOrder"))
	es, err := ESRT.Get(m)
	require.NoError(t, err)
	require.NotNil(t, es.ESRT)
	tl, err := TPMEventLog.Get(m)
	require.NoError(t, err)
	assert.True(t, tl.TPM)
	assert.Equal(t, "2", tl.Version)
	assert.Contains(t, tl.ParseErr, "shorter than its first event", "a log too short to parse is a finding, not an unavailable input")
	pcrs, err := PCRs.Get(m)
	require.NoError(t, err)
	assert.True(t, pcrs.NoTPM)
	assert.Contains(t, pcrs.Error, "no /dev/tpmrm0")

	// A legacy BIOS machine: the UEFI inputs say so, they are not missing.
	m = New(snapshot{name: "bios", fsys: os.DirFS(writeTree(t, map[string]string{"proc/version": "Linux"}))}, Options{})
	ev, err = EFIVars.Get(m)
	require.NoError(t, err)
	assert.False(t, ev.UEFI)
	tl, err = TPMEventLog.Get(m)
	require.NoError(t, err)
	assert.False(t, tl.TPM)
}
