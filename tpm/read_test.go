package tpm

import (
	"bytes"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"
	"github.com/google/go-tpm/tpm2/transport/linuxudstpm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadPCRsSWTPM reads the PCRs of a real TPM 2.0 emulator (swtpm, as
// the QEMU tests attach it): every allocated bank comes back with 24 PCRs,
// and a value extended into PCR 16 reads back as the extend computes it.
func TestReadPCRsSWTPM(t *testing.T) {
	if _, err := exec.LookPath("swtpm"); err != nil {
		t.Skip("swtpm not installed (make deps-image)")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "tpm.sock")
	cmd := exec.Command("swtpm", "socket", "--tpm2", "--tpmstate", "dir="+dir,
		"--server", "type=unixio,path="+sock, "--ctrl", "type=unixio,path="+filepath.Join(dir, "ctrl.sock"),
		"--flags", "not-need-init,startup-clear")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "swtpm did not start: %s", stderr.String())
	}
	tp, err := linuxudstpm.Open(sock)
	require.NoError(t, err)
	defer tp.Close()

	d := sha256.Sum256([]byte("fwcheck"))
	_, err = tpm2.PCRExtend{
		PCRHandle: tpm2.AuthHandle{Handle: tpm2.TPMHandle(16), Auth: tpm2.PasswordAuth(nil)},
		Digests:   tpm2.TPMLDigestValues{Digests: []tpm2.TPMTHA{{HashAlg: tpm2.TPMAlgSHA256, Digest: d[:]}}},
	}.Execute(tp)
	require.NoError(t, err)

	// PCR 23 in every bank too, so that values differ across banks and
	// batches.
	for _, alg := range []tpm2.TPMAlgID{tpm2.TPMAlgSHA1, tpm2.TPMAlgSHA256, tpm2.TPMAlgSHA384, tpm2.TPMAlgSHA512} {
		h, err := alg.Hash()
		require.NoError(t, err)
		x := h.New()
		x.Write([]byte("fwcheck 23"))
		_, err = tpm2.PCRExtend{
			PCRHandle: tpm2.AuthHandle{Handle: tpm2.TPMHandle(23), Auth: tpm2.PasswordAuth(nil)},
			Digests:   tpm2.TPMLDigestValues{Digests: []tpm2.TPMTHA{{HashAlg: alg, Digest: x.Sum(nil)}}},
		}.Execute(tp)
		require.NoError(t, err)
	}

	ct := &countingTPM{TPM: tp}
	p, err := ReadPCRs(ct)
	require.NoError(t, err)
	require.Contains(t, p.Algs(), SHA256)
	// The same values as reading one PCR per command (what ReadPCRs did
	// before), in far fewer commands.
	for _, a := range p.Algs() {
		bank, err := p.Bank(a)
		require.NoError(t, err)
		for i := uint32(0); i < NumPCRs; i++ {
			mask := selectBytes(1 << i)
			rsp, err := tpm2.PCRRead{PCRSelectionIn: tpm2.TPMLPCRSelection{
				PCRSelections: []tpm2.TPMSPCRSelection{{Hash: tpm2.TPMAlgID(a), PCRSelect: mask}},
			}}.Execute(tp)
			require.NoError(t, err)
			require.Len(t, rsp.PCRValues.Digests, 1)
			assert.Equal(t, rsp.PCRValues.Digests[0].Buffer, bank[i], "%s PCR %d", a, i)
		}
	}
	banks := len(p.Algs())
	assert.LessOrEqual(t, ct.n, 1+banks*3, "at most three TPM2_PCR_Read a bank (swtpm returns 8 PCRs an answer)")
	t.Logf("%d banks read in %d commands (%d one PCR at a time)", banks, ct.n, 1+banks*NumPCRs)
	bank, err := p.Bank(SHA256)
	require.NoError(t, err)
	assert.Len(t, bank, NumPCRs)
	want := sha256.Sum256(append(make([]byte, 32), d[:]...))
	assert.Equal(t, want[:], bank[16])
	assert.Equal(t, make([]byte, 32), bank[0], "nothing measured PCR 0")

	// The JSON form round-trips.
	q, err := ParsePCRs(p.JSON())
	require.NoError(t, err)
	assert.Equal(t, p, q)
	t.Logf("swtpm banks: %v", p.Algs())
}

// countingTPM counts the commands sent through it.
type countingTPM struct {
	transport.TPM
	n int
}

func (c *countingTPM) Send(cmd []byte) ([]byte, error) {
	c.n++
	return c.TPM.Send(cmd)
}
