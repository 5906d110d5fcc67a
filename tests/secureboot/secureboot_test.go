package secureboot

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

var now = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func cert(t *testing.T, cn string, notAfter time.Time) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: cn},
		NotBefore: notAfter.AddDate(-10, 0, 0), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	require.NoError(t, err)
	return der
}

func sigList(typ efi.GUID, entries ...[]byte) []byte {
	owner := efi.MustGUID("77fa9abd-0359-4d32-bd60-28f4e78f784b")
	size := 16 + len(entries[0])
	b := append([]byte{}, typ[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(28+size*len(entries)))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	for _, e := range entries {
		b = append(append(b, owner[:]...), e...)
	}
	return b
}

func varFile(attrs uint32, data []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, attrs), data...)
}

func hashes(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, 32)
		out[i][0] = byte(i)
	}
	return out
}

type state struct {
	secureBoot, setupMode byte
	pk, kek, db, dbx      []byte
	vendor, product       string
	// klog, when set, is the recorded kernel log.
	klog string
}

func runState(t *testing.T, s state) tests.Result {
	g, isg := efi.GlobalVariable.String(), efi.ImageSecurityDatabase.String()
	d := efi.VarsDir + "/"
	files := map[string][]byte{
		"sys/firmware/efi/fw_platform_size": []byte("64\n"),
		d + "SecureBoot-" + g:               varFile(6, []byte{s.secureBoot}),
		d + "SetupMode-" + g:                varFile(6, []byte{s.setupMode}),
	}
	if s.vendor != "" {
		files["sys/class/dmi/id/sys_vendor"] = []byte(s.vendor + "\n")
		files["sys/class/dmi/id/product_name"] = []byte(s.product + "\n")
	}
	if s.klog != "" {
		files["fwcheck/"+input.KlogFile] = []byte(s.klog)
	}
	for name, v := range map[string][]byte{"PK-" + g: s.pk, "KEK-" + g: s.kek, "db-" + isg: s.db, "dbx-" + isg: s.dbx} {
		if v != nil {
			files[d+name] = varFile(0x27, v)
		}
	}
	return checktest.RunAt(t, Check, checktest.FilesMachine(t, files), now)
}

func TestSecureBoot(t *testing.T) {
	later := now.AddDate(5, 0, 0)
	good := func() state {
		return state{secureBoot: 1, setupMode: 0, vendor: "ACME",
			pk:  sigList(efi.CertX509, cert(t, "ACME Platform Key 2026", later)),
			kek: sigList(efi.CertX509, cert(t, "ACME KEK CA", later)),
			db:  sigList(efi.CertX509, cert(t, "ACME DB CA", later)),
			dbx: sigList(efi.CertSHA256, hashes(50)...)}
	}
	r := runState(t, good())
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r.Findings)
	assert.NotNil(t, findingContaining(r, `"CN=ACME Platform Key 2026" issued by "CN=ACME Platform Key 2026"`))
	assert.NotNil(t, findingContaining(r, "dbx: 1 signature lists: 50 SHA256"))

	cases := []struct {
		name string
		mod  func(s *state)
		want []string
	}{
		{"setup mode", func(s *state) { s.setupMode, s.secureBoot, s.pk = 1, 0, nil }, []string{"SecureBootSetupMode"}},
		{"AMI test key", func(s *state) { s.pk = sigList(efi.CertX509, cert(t, "DO NOT TRUST - AMI Test PK", later)) }, []string{"SecureBootTestPlatformKey"}},
		{"two PKs", func(s *state) {
			s.pk = append(sigList(efi.CertX509, cert(t, "A", later)), sigList(efi.CertX509, cert(t, "B", later))...)
		}, []string{"SecureBootPKCount"}},
		{"tiny dbx", func(s *state) { s.dbx = sigList(efi.CertSHA256, hashes(1)...) }, []string{"SecureBootDbxEmpty"}},
		{"no dbx", func(s *state) { s.dbx = nil }, []string{"SecureBootDbxEmpty"}},
		{"tiny dbx, Secure Boot off", func(s *state) { s.secureBoot = 0; s.dbx = nil }, nil},
		{"expired KEK", func(s *state) {
			s.kek = sigList(efi.CertX509, cert(t, "Microsoft Corporation KEK CA 2011", time.Date(2026, 6, 24, 0, 0, 0, 0, time.UTC)))
		}, []string{"SecureBootCertificateExpired"}},
		{"expiring db", func(s *state) { s.db = sigList(efi.CertX509, cert(t, "DB", now.AddDate(0, 6, 0))) }, []string{"SecureBootCertificateExpiring"}},
		{"bad certificate", func(s *state) { s.db = sigList(efi.CertX509, []byte("garbage")) }, []string{"SecureBootDatabaseMalformed"}},
		{"truncated db", func(s *state) { s.db = s.db[:len(s.db)-3] }, []string{"SecureBootDatabaseMalformed"}},
		{"SecureBoot 2", func(s *state) { s.secureBoot = 2 }, []string{"SecureBootVariableMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := good()
			c.mod(&s)
			r := runState(t, s)
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}

	// A VM's empty variable store is explained, not failed.
	s := good()
	s.setupMode, s.secureBoot, s.pk, s.vendor = 1, 0, nil, "QEMU"
	r = runState(t, s)
	f := checktest.FindingWith(r, "SecureBootSetupMode")
	require.NotNil(t, f)
	assert.Contains(t, f.Explained, "virtual machine (DMI: QEMU")
	assert.Empty(t, checktest.FailLabels(r)[1:])

	// The arm64 virt board under TCG, as its live image reads it: QEMU's
	// SMBIOS names the system "QEMU" "QEMU Virtual Machine".
	s.product = "QEMU Virtual Machine"
	f = checktest.FindingWith(runState(t, s), "SecureBootSetupMode")
	require.NotNil(t, f)
	assert.Equal(t, "virtual machine (DMI: QEMU QEMU Virtual Machine): a virtual machine's variable store starts without keys", f.Explained)

	// Without sysfs DMI (a snapshot that lacks it) the kernel log's DMI
	// line still shows the guest.
	s.vendor, s.product = "", ""
	s.klog = "[    0.000000] DMI: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015\n"
	f = checktest.FindingWith(runState(t, s), "SecureBootSetupMode")
	require.NotNil(t, f)
	assert.Contains(t, f.Explained, "virtual machine (DMI: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015)")

	// A real machine's setup mode stays a failure.
	s.klog = "[    0.000000] DMI: LENOVO 21CB/21CB, BIOS N3AET75W 01/01/2024\n"
	s.vendor, s.product = "LENOVO", "21CB"
	r = runState(t, s)
	assert.Equal(t, []string{"SecureBootSetupMode"}, checktest.FailLabels(r), "%+v", r.Findings)
}

func findingContaining(r tests.Result, s string) *tests.Finding {
	for i := range r.Findings {
		if strings.Contains(r.Findings[i].Message, s) {
			return &r.Findings[i]
		}
	}
	return nil
}

// TestGuests runs the check on the efivarfs of QEMU guests: OVMF booted
// with Debian's variable store that enrols Microsoft's keys under a Debian
// platform key, and with the empty store.
func TestGuests(t *testing.T) {
	r := checktest.RunAt(t, Check, checktest.SnapshotMachine(t, "../all/testdata/efitpm/ovmf-q35-ms-vars.tar.gz"), now)
	assert.Equal(t, tests.StatusFailed, r.Status)
	for _, want := range []string{
		"Secure Boot enabled, SetupMode=0",
		`PK: "CN=Debian UEFI Secure Boot (PK/KEK key), O=Debian" issued by "CN=Debian UEFI Secure Boot (PK/KEK key), O=Debian"`,
		"KEK: 2 signature lists: 2 X509",
		`KEK: "CN=Microsoft Corporation KEK CA 2011, O=Microsoft Corporation, C=US" expired on 2026-06-24`,
		`db: "CN=Microsoft Corporation UEFI CA 2011, O=Microsoft Corporation, C=US" expired on 2026-06-27`,
		`db: "CN=Microsoft Windows Production PCA 2011, O=Microsoft Corporation, C=US" expired on 2026-10-19`,
		"dbx: 1 signature lists: 1 SHA256",
		"Secure Boot is enabled and dbx holds 1 entry",
		"PK holds one key, not marked as a test key",
	} {
		assert.NotNil(t, findingContaining(r, want), "%q in %+v", want, r.Findings)
	}
	assert.ElementsMatch(t, []string{"SecureBootCertificateExpired", "SecureBootCertificateExpired", "SecureBootCertificateExpired", "SecureBootDbxEmpty"},
		checktest.FailLabels(r))

	r = checktest.Run(t, Check, checktest.SnapshotMachine(t, "../all/testdata/efitpm/ovmf-q35-tpm-crb.tar.gz"))
	assert.Equal(t, tests.StatusPassed, r.Status, "setup mode, explained by the VM: %+v", r.Findings)
	assert.Contains(t, checktest.FindingWith(r, "SecureBootSetupMode").Explained, "QEMU")
	r = checktest.Run(t, Check, checktest.SnapshotMachine(t, "../all/testdata/efitpm/seabios-pc-tpm-tis.tar.gz"))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
}

// TestSecureBootStick runs the check on what the fwcheck stick's own boot
// with Secure Boot on recorded (OVMF's Secure Boot build with Microsoft's
// keys, through Debian's shim and GRUB; image/secureboot_e2e_test.go): the
// event log's authority events name the db entry that let shim in (the
// Microsoft UEFI CA 2011, found in db as the firmware shows it) and the
// key of shim's own that let GRUB and the kernel in.
func TestSecureBootStick(t *testing.T) {
	r := checktest.RunAt(t, Check, checktest.SnapshotMachine(t, "testdata/ovmf-secureboot-stick.tar.gz"), now)
	for _, want := range []string{
		"Secure Boot enabled, SetupMode=0",
		`boot authorised by db entry 0 of list 1 (X509, owner 77fa9abd-0359-4d32-bd60-28f4e78f784b): "CN=Microsoft Corporation UEFI CA 2011, O=Microsoft Corporation, C=US"`,
		`shim enforced SBAT level`,
		`boot authorised by MokListRT: "CN=Debian Secure Boot CA" issued by "CN=Debian Secure Boot CA"`,
	} {
		assert.NotNil(t, findingContaining(r, want), "%q in %+v", want, r.Findings)
	}
}

// An authority event for a db entry that db no longer holds says so.
func TestAuthorityNotInDB(t *testing.T) {
	later := now.AddDate(5, 0, 0)
	ca := cert(t, "ACME DB CA", later)
	owner := efi.MustGUID("77fa9abd-0359-4d32-bd60-28f4e78f784b")
	ev := authorityEvent(efi.ImageSecurityDatabase, "db", append(owner[:], cert(t, "Other CA", later)...))
	files := map[string][]byte{
		"sys/firmware/efi/fw_platform_size":                        []byte("64\n"),
		efi.VarsDir + "/SecureBoot-" + efi.GlobalVariable.String(): varFile(6, []byte{1}),
		efi.VarsDir + "/SetupMode-" + efi.GlobalVariable.String():  varFile(6, []byte{0}),
		efi.VarsDir + "/db-" + efi.ImageSecurityDatabase.String():  varFile(0x27, sigList(efi.CertX509, ca)),
		"sys/kernel/security/tpm0/binary_bios_measurements":        ev,
		"sys/class/tpm/tpm0/tpm_version_major":                     []byte("2\n"),
	}
	r := checktest.RunAt(t, Check, checktest.FilesMachine(t, files), now)
	assert.NotNil(t, findingContaining(r, `boot authorised by db (an entry that is not in db now): "CN=Other CA"`), "%+v", r.Findings)
}

// authorityEvent is a SHA-1 (TCG 1.2 format) event log holding one
// EV_EFI_VARIABLE_AUTHORITY event in PCR 7.
func authorityEvent(guid efi.GUID, name string, data []byte) []byte {
	var vd []byte
	vd = append(vd, guid[:]...)
	vd = binary.LittleEndian.AppendUint64(vd, uint64(len(name)))
	vd = binary.LittleEndian.AppendUint64(vd, uint64(len(data)))
	for _, c := range name {
		vd = binary.LittleEndian.AppendUint16(vd, uint16(c))
	}
	vd = append(vd, data...)
	b := binary.LittleEndian.AppendUint32(nil, 7)
	b = binary.LittleEndian.AppendUint32(b, 0x800000e0)
	b = append(b, make([]byte, 20)...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vd)))
	return append(b, vd...)
}
