package tpmeventlog

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tpm"
)

// The snapshots the image tests recorded from QEMU guests with swtpm:
// OVMF on q35 with a CRB TPM, SeaBIOS on pc with a TIS TPM. Each holds the
// firmware's real event log and the PCRs the guest read through go-tpm.
var guests = []string{"ovmf-q35-tpm-crb", "seabios-pc-tpm-tis"}

const logFile = "sys/kernel/security/tpm0/binary_bios_measurements"

func readSnapshot(t *testing.T, name string) map[string][]byte {
	f, err := os.Open("../all/testdata/efitpm/" + name + ".tar.gz")
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		require.NoError(t, err)
		files[h.Name], err = io.ReadAll(tr)
		require.NoError(t, err)
	}
}

func TestRealLogs(t *testing.T) {
	for _, g := range guests {
		t.Run(g, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.SnapshotMachine(t, "../all/testdata/efitpm/"+g+".tar.gz"))
			assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r.Findings)
			for _, bank := range []string{"sha1", "sha256", "sha384", "sha512"} {
				assert.NotNil(t, findingWithText(r, bank+" bank: PCR 0, 1, 2, 3, 4, 5, 6, 7"), "%s replays", bank)
			}
		})
	}
}

// TestCorruptedEvent changes one digest of one event in a copy of a real
// log (OVMF's first firmware-volume blob in PCR 0, SeaBIOS's first option
// ROM in PCR 2): the replay no longer gives the TPM's value, and the finding
// names that PCR and that bank, and no other.
func TestCorruptedEvent(t *testing.T) {
	for g, pcr := range map[string]uint32{"ovmf-q35-tpm-crb": 0, "seabios-pc-tpm-tis": 2} {
		for _, a := range []tpm.Alg{tpm.SHA256, tpm.SHA1} {
			t.Run(g+"/"+a.String(), func(t *testing.T) {
				files := readSnapshot(t, g)
				raw := bytes.Clone(files[logFile])
				l, err := tpm.Parse(raw)
				require.NoError(t, err)
				for _, e := range l.Events {
					if e.PCR == pcr && !tpm.DataDigested(e.Type) && e.Type != tpm.EvNoAction {
						e.Digests[a][0] ^= 0xff // the digest aliases raw
						break
					}
				}
				require.NotEqual(t, files[logFile], raw, "an event was changed")
				files[logFile] = raw
				r := checktest.Run(t, Check, checktest.FilesMachine(t, files))
				assert.Equal(t, []string{"TPMPCRReplayMismatch"}, checktest.FailLabels(r))
				f := checktest.FindingWith(r, "TPMPCRReplayMismatch")
				require.NotNil(t, f)
				assert.Contains(t, f.Message, fmt.Sprintf("PCR %d, %s bank: the log replays to", pcr, a))
				assert.Equal(t, tests.High, f.Severity)
			})
		}
	}
}

// TestCorruptedData changes the data of OVMF's EV_EFI_VARIABLE_DRIVER_CONFIG
// event for SecureBoot: the PCRs still replay (the digests are intact), but
// the event no longer matches its digest.
func TestCorruptedData(t *testing.T) {
	files := readSnapshot(t, "ovmf-q35-tpm-crb")
	raw := bytes.Clone(files[logFile])
	l, err := tpm.Parse(raw)
	require.NoError(t, err)
	e := l.Events[3]
	require.Equal(t, "EV_EFI_VARIABLE_DRIVER_CONFIG", tpm.EventTypeName(e.Type))
	e.Data[len(e.Data)-1] ^= 1 // the SecureBoot value
	files[logFile] = raw
	r := checktest.Run(t, Check, checktest.FilesMachine(t, files))
	assert.Equal(t, []string{"TPMEventLogDataMismatch", "TPMEventLogDataMismatch", "TPMEventLogDataMismatch", "TPMEventLogDataMismatch"}, checktest.FailLabels(r))
	assert.Contains(t, checktest.FindingWith(r, "TPMEventLogDataMismatch").Message, "event 4 (EV_EFI_VARIABLE_DRIVER_CONFIG, PCR 7): its sha1 digest")
}

// TestTruncatedRealLog cuts a real log inside its last event.
func TestTruncatedRealLog(t *testing.T) {
	files := readSnapshot(t, "ovmf-q35-tpm-crb")
	files[logFile] = files[logFile][:len(files[logFile])-10]
	r := checktest.Run(t, Check, checktest.FilesMachine(t, files))
	assert.Equal(t, "TPMEventLogTruncated", checktest.FailLabels(r)[0])
}

func findingWithText(r tests.Result, s string) *tests.Finding {
	for i := range r.Findings {
		if bytes.Contains([]byte(r.Findings[i].Message), []byte(s)) {
			return &r.Findings[i]
		}
	}
	return nil
}
