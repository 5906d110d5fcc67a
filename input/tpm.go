package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwcheck/fwcheck/tpm"
)

// The TPM inputs: the firmware's event log and the PCR values, read from
// the TPM through go-tpm and recorded as JSON, so the log replays offline.
var (
	// TPMEventLog is the TCG event log the firmware handed the kernel.
	TPMEventLog = Declare(Def[*TPMLog]{
		Name: "tpm-eventlog", Doc: "the TPM event log (/sys/kernel/security/tpm0/binary_bios_measurements)", Root: true,
		Capture: []string{tpmClassDir + "/tpm_version_major", tpmLogPath},
		Load:    loadTPMLog,
	})
	// PCRs are the TPM's PCR values, every allocated bank (TPM2_PCR_Read
	// on /dev/tpmrm0).
	PCRs = Declare(Def[*tpm.PCRs]{
		Name: "tpm-pcrs", Doc: "the TPM's PCR values (TPM2_PCR_Read on /dev/tpmrm0)", Root: true,
		Capture: []string{RecordedDir + "/" + PCRFile},
		Load:    loadPCRs,
	})
)

const (
	tpmClassDir = "sys/class/tpm/tpm0"
	tpmLogPath  = "sys/kernel/security/tpm0/binary_bios_measurements"
	// PCRFile is the recorded PCR values' name below RecordedDir.
	PCRFile = "tpm/pcrs.json"
)

// maxEventLog bounds the event log read (real ones are 10-100 KiB; the
// TPM2 table's log area is at most a few MiB).
const maxEventLog = 16 << 20

// TPMLog is the machine's TPM event log, or why it has none.
type TPMLog struct {
	// TPM is false when the machine shows no TPM at all.
	TPM bool
	// Version is the TPM's major version ("2", "1"), if the kernel says.
	Version string
	// Raw is the log; nil when the kernel exposes none (Missing says why).
	Raw     []byte
	Missing string
	// Log is the parsed log; ParseErr says why it is nil when Raw is not.
	Log      *tpm.Log
	ParseErr string
}

func loadTPMLog(src Source) (*TPMLog, error) {
	t := &TPMLog{}
	if b, err := fs.ReadFile(src, tpmClassDir+"/tpm_version_major"); err == nil {
		t.TPM, t.Version = true, strings.TrimSpace(string(b))
	} else if _, err := fs.Stat(src, tpmClassDir); err == nil {
		t.TPM = true
	}
	st, err := fs.Stat(src, tpmLogPath)
	switch {
	case err == nil && st.Size() > maxEventLog:
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte limit", tpmLogPath, st.Size(), maxEventLog)
	case errors.Is(err, fs.ErrNotExist):
		if t.TPM {
			t.Missing = "the kernel exposes no event log at /" + tpmLogPath + " (securityfs not mounted, or the firmware gave none)"
		}
		return t, nil
	case err != nil:
		return nil, err
	}
	t.TPM = true
	if t.Raw, err = fs.ReadFile(src, tpmLogPath); err != nil {
		return nil, err
	}
	if t.Log, err = tpm.Parse(t.Raw); err != nil {
		t.ParseErr = err.Error()
	}
	return t, nil
}

func loadPCRs(src Source) (*tpm.PCRs, error) {
	b, err := fs.ReadFile(src, RecordedDir+"/"+PCRFile)
	if err != nil {
		return nil, err
	}
	return tpm.ParsePCRs(b)
}

// recordPCRs reads the PCRs of the TPM under root through the kernel's
// resource manager. No TPM, or one that cannot be read, is recorded as
// such: the log's checks then say why they could not replay it.
func recordPCRs(root string) ([]byte, error) {
	dev := filepath.Join(root, "dev/tpmrm0")
	if _, err := os.Stat(dev); err != nil {
		p := &tpm.PCRs{Error: "no /dev/tpmrm0 (no TPM 2.0, or its driver is not loaded)", NoTPM: true}
		if _, err := os.Stat(filepath.Join(root, "dev/tpm0")); err == nil {
			p = &tpm.PCRs{Error: "/dev/tpm0 but no /dev/tpmrm0: a TPM 1.2, or a kernel without the TPM 2.0 resource manager"}
		}
		return p.JSON(), nil
	}
	p, err := readPCRs(dev)
	if err != nil {
		p = &tpm.PCRs{Device: "/dev/tpmrm0", Error: err.Error()}
	}
	return p.JSON(), nil
}
