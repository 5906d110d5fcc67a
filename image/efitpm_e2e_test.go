package image_test

// End-to-end proof of the UEFI and TPM checks: the live image boots under
// QEMU with swtpm attached (q35/OVMF with a CRB TPM, pc/SeaBIOS with a TIS
// TPM); both firmwares measure the boot for real, and the event log must
// replay to the PCRs the guest reads through go-tpm. After the checks the
// test takes a snapshot in the guest's shell and copies it out through the
// FAT results disk; with FWCHECK_RECORD=DIR it keeps the UEFI and TPM part
// of it there (how the fixtures in tests/*/testdata were recorded).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/uefivars"
)

// efiTPMChecks are the checks these boots run.
const efiTPMChecks = "uefi-boot,secure-boot,esrt,tpm-eventlog,tpm2-table"

// shellBoot is a boot of the UEFI/TPM checks and what it left.
type shellBoot struct {
	console  string
	doc      *report.Document
	snapshot []byte // the guest's snapshot (.tar.gz), nil without a results disk
	vars     []byte // OVMF's variable store as the guest left it
}

// bootAndSnapshot boots cfg's machine with a TPM and the UEFI/TPM checks
// (and the extra checks named) and a results disk, and returns the console, the results and the
// snapshot the live image saved in its run folder there.
func bootAndSnapshot(t *testing.T, cfg qemu.Config, extra ...string) shellBoot {
	t.Helper()
	if err := qemu.SWTPMAvailable(); err != nil {
		t.Skipf("%v (make deps-image)", err)
	}
	run := strings.Join(append([]string{efiTPMChecks}, extra...), ",")
	keep := filepath.Join(t.TempDir(), "vars.fd")
	b := boot(t, cfg.Machine, "fwcheck.run="+run, true, true, func(c *qemu.Config) {
		c.TPMDevice, c.OVMFVars, c.KeepVars = cfg.TPMDevice, cfg.OVMFVars, keep
	})
	r := shellBoot{console: b.console, doc: b.doc}
	if cfg.Machine.UEFI {
		var err error
		r.vars, err = os.ReadFile(keep)
		require.NoError(t, err, "the variable store QEMU's flash held after the boot")
	}
	if b.disk != "" {
		r.snapshot = readRunFile(t, b.disk, image.RunSnapshot)
	}
	return r
}

func result(t *testing.T, d *report.Document, id string) report.Result {
	t.Helper()
	for _, r := range d.Results {
		if r.ID == id {
			t.Logf("%-12s %-14s %s", r.ID, r.Status, r.Reason)
			for _, f := range r.Findings {
				t.Logf("    %s %s %s: %s", f.Kind, f.Label, f.Severity, f.Message)
			}
			return r
		}
	}
	t.Fatalf("no result for %s", id)
	return report.Result{}
}

// record keeps the UEFI and TPM files of a guest snapshot in
// $FWCHECK_RECORD/name.tar.gz.
func record(t *testing.T, name string, snap []byte) {
	dir := os.Getenv("FWCHECK_RECORD")
	if dir == "" || snap == nil {
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(snap))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		keep := false
		for _, p := range []string{"sys/firmware/efi/", "sys/kernel/security/", "sys/class/tpm/", "fwcheck/tpm/", "sys/class/dmi/"} {
			keep = keep || strings.HasPrefix(h.Name, p)
		}
		if !keep {
			continue
		}
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		require.NoError(t, tw.WriteHeader(h))
		_, err = tw.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".tar.gz"), buf.Bytes(), 0o644))
	t.Logf("recorded %s/%s.tar.gz (%d bytes)", dir, name, buf.Len())
}

// TestBootTPMReplay: on both firmwares the event log replays to the TPM's
// PCRs in every bank, the UEFI checks run on OVMF and are not applicable
// on SeaBIOS.
func TestBootTPMReplay(t *testing.T) {
	for _, c := range []struct {
		m      qemu.Machine
		device string
	}{{qemu.OVMF, "tpm-crb"}, {qemu.SeaBIOS, "tpm-tis"}} {
		t.Run(c.m.Name+"-"+c.device, func(t *testing.T) {
			t.Parallel()
			r := bootAndSnapshot(t, qemu.Config{Machine: c.m, TPMDevice: c.device})
			record(t, c.m.Name+"-"+c.device, r.snapshot)
			ev := result(t, r.doc, "tpm-eventlog")
			assert.Equal(t, tests.StatusPassed, ev.Status, "the firmware's log replays to the PCRs")
			assert.True(t, mentions(ev, "sha256 bank: PCR 0, 1, 2, 3, 4, 5, 6, 7"), "PCRs 0-7 replay in the SHA-256 bank")
			// QEMU describes the TPM in a TPM2 table: CRB (start method 7)
			// or FIFO/TIS (6), with the log area it gives the firmware.
			tt := result(t, r.doc, "tpm2-table")
			assert.Equal(t, tests.StatusPassed, tt.Status)
			want := map[string]string{"tpm-crb": "start method 7 (command response buffer (CRB))", "tpm-tis": "start method 6 (FIFO/TIS (memory-mapped I/O))"}[c.device]
			assert.True(t, mentions(tt, want), "%s: %+v", want, tt.Findings)
			assert.True(t, mentions(tt, "log area 65536 bytes at"), "%+v", tt.Findings)
			for _, id := range []string{"uefi-boot", "secure-boot", "esrt"} {
				res := result(t, r.doc, id)
				if !c.m.UEFI {
					assert.Equal(t, tests.StatusNotApplicable, res.Status, "%s on a legacy BIOS", id)
				}
			}
			if c.m.UEFI {
				ub := result(t, r.doc, "uefi-boot")
				assert.NotEqual(t, tests.StatusSkipped, ub.Status)
				assert.True(t, mentions(ub, "BootOrder ["), "BootOrder decoded: %+v", ub.Findings)
				// OVMF's UiApp boot option, its firmware-volume path in the spec's text form.
				assert.True(t, mentions(ub, `Boot0000 "UiApp" (active, hidden): Fv(7cb8bdc9-f8eb-4f34-aaea-3ee4af6516a1)/FvFile(462caa21-7614-4503-836e-8ab6f4662331)`),
					"OVMF's UiApp option decoded: %+v", ub.Findings)
				sb := result(t, r.doc, "secure-boot")
				assert.True(t, mentions(sb, "Secure Boot disabled, SetupMode=1"), "the empty variable store: %+v", sb.Findings)
				f := finding(sb, "SecureBootSetupMode")
				require.NotNil(t, f, "setup mode reported")
				assert.True(t, strings.HasPrefix(f.Explained, "virtual machine (DMI: QEMU "), "the shared VM evidence names QEMU's DMI: %s", f.Explained)
			}
		})
	}
}

func sleep() { time.Sleep(300 * time.Millisecond) }

func finding(r report.Result, label string) *tests.Finding {
	for i := range r.Findings {
		if r.Findings[i].Label == label {
			return &r.Findings[i]
		}
	}
	return nil
}

// TestBootSecureBootKeys boots OVMF with the variable store Debian ships
// with Microsoft's keys enrolled (OVMF_VARS_4M.ms.fd): secure-boot reports
// Secure Boot's state and the enrolled keys.
func TestBootSecureBootKeys(t *testing.T) {
	t.Parallel()
	vars := "/usr/share/OVMF/OVMF_VARS_4M.ms.fd"
	if _, err := os.Stat(vars); err != nil {
		t.Skipf("no %s (apt-get install ovmf)", vars)
	}
	r := bootAndSnapshot(t, qemu.Config{Machine: qemu.OVMF, TPMDevice: "tpm-crb", OVMFVars: vars}, uefivars.Check.ID)
	record(t, "ovmf-q35-ms-vars", r.snapshot)
	// The variable services, written for real (uefivars_e2e_test.go).
	assertUEFIVariables(t, r)
	sb := result(t, r.doc, "secure-boot")
	assert.True(t, mentions(sb, "Secure Boot enabled, SetupMode=0"), "a platform key is enrolled: %+v", sb.Findings)
	assert.True(t, mentions(sb, "PK: 1 signature lists: 1 X509"), "%+v", sb.Findings)
	assert.True(t, mentions(sb, "KEK: "), "%+v", sb.Findings)
	assert.True(t, mentions(sb, `KEK: "CN=Microsoft Corporation KEK CA 2011`), "Microsoft's KEK: %+v", sb.Findings)
	assert.True(t, mentions(sb, `db: "CN=Microsoft Corporation UEFI CA 2011`), "Microsoft's UEFI CA in db: %+v", sb.Findings)
	// The guest booted the live image, so the UEFI boot variables and the
	// event log of a Secure Boot boot are checked too.
	assert.Equal(t, tests.StatusPassed, result(t, r.doc, "uefi-boot").Status)
	assert.Equal(t, tests.StatusPassed, result(t, r.doc, "tpm-eventlog").Status)
}
