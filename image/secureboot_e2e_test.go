package image_test

// End-to-end proof of the stick's Secure Boot chain: the stick image, as
// `fwcheck-image usb` builds it with Debian's shim, signed GRUB and signed
// kernel installed, boots on q35 with OVMF's Secure Boot build
// (OVMF_CODE_4M.ms.fd, which is the SMM build: smm=on, secure flash) and a
// copy of OVMF_VARS_4M.ms.fd (Secure Boot on, Microsoft's KEK and db
// enrolled), as a USB disk, with a swtpm TPM 2.0 measuring the boot. Nothing
// in the firmware setup is changed. The kernel locks itself down; the run
// says so in its header and in every reason it gives for what it could not
// read, and the event log names the signed chain in PCR 4 and the keys that
// authorised it in PCR 7.

import (
	"bytes"
	"crypto/sha256"
	"debug/pe"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/mkimage"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tpm"
)

// msVars is OVMF's variable store with Secure Boot enabled and Microsoft's
// keys enrolled (Debian's ovmf package).
const msVars = "/usr/share/OVMF/OVMF_VARS_4M.ms.fd"

// stickFile reads a file from the stick's boot partition.
func stickFile(t *testing.T, stick, name string) []byte {
	t.Helper()
	return mtools(t, "mtype", "-i", stick+"@@"+strconv.Itoa(mkimage.BootOffset), "::"+name)
}

// signedStick reports whether stick boots UEFI machines through shim (the
// signed chain), asserting that its files are Debian's.
func signedStick(t *testing.T, stick string) bool {
	t.Helper()
	shim, err := os.ReadFile(mkimage.ShimFile)
	if err != nil {
		return false
	}
	if !bytes.Equal(shim, stickFile(t, stick, "/EFI/BOOT/BOOTX64.EFI")) {
		return false
	}
	grub, err := os.ReadFile(mkimage.SignedGRUBFile)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(grub, stickFile(t, stick, "/EFI/BOOT/grubx64.efi")), "Debian's signed GRUB beside shim")
	return true
}

// checkUnlocked asserts what a boot without Secure Boot says of lockdown:
// the kernel is not locked down, the header says so, and no reason names
// lockdown. secureBoot is the state the header must give ("" on a BIOS
// machine, which has no SecureBoot variable).
func checkUnlocked(t *testing.T, stick string, r stickRun, secureBoot string) {
	t.Helper()
	t.Logf("UEFI chain on the stick: signed=%v", signedStick(t, stick))
	assert.Equal(t, "none", r.doc.Machine.Lockdown, "lockdown in the results' machine identity")
	assert.Equal(t, secureBoot, r.doc.Machine.SecureBoot)
	want := "lockdown: none"
	if secureBoot != "" {
		want += " (Secure Boot " + secureBoot + ")"
	}
	assert.Contains(t, string(r.files[image.RunReportText]), want, "the report header")
	assert.NotContains(t, r.console, "refused: kernel lockdown")
}

// lockdownReason is what every input the locked-down kernel refuses gives
// as its reason here.
const lockdownReason = "refused: kernel lockdown (integrity), because Secure Boot is on"

// TestSecureBootStick boots the stick with Secure Boot on and a TPM.
func TestSecureBootStick(t *testing.T) {
	t.Parallel()
	m := qemu.OVMFSMM
	if _, err := os.Stat(msVars); err != nil {
		t.Skipf("%s missing (apt-get install ovmf)", msVars)
	}
	if err := mkimage.SignedAvailable(mkimage.SignedFiles{}); err != nil {
		t.Skipf("%v (make deps-image)", err)
	}
	if err := qemu.SWTPMAvailable(); err != nil {
		t.Skipf("%v (make deps-image)", err)
	}
	stick := buildStick(t, m, image.DefaultStickConfig+"after = poweroff\n")
	if !signedStick(t, stick) {
		kernel, _ := liveImage(t, m)
		t.Skipf("the stick has the unsigned chain: %s is not a signed kernel", kernel)
	}
	r := bootStick(t, m, stick, func(c *qemu.Config) { c.OVMFVars, c.TPM = msVars, true })
	checkStickFiles(t, r)

	// Through shim and the signed GRUB, which found its grub.cfg.
	assert.Contains(t, r.console, "fwcheck: boot partition", "GRUB read the stick's grub.cfg")
	klog := string(r.files[image.RunKernelLog])
	assert.Contains(t, klog, "Secure boot enabled")
	assert.Contains(t, klog, "Kernel is locked down from EFI Secure Boot")

	// The modules in the initramfs are the kernel package's, signed: all
	// load under lockdown, and the stick's USB drivers found it.
	assert.NotRegexp(t, `fwcheck: setup: module .*`, r.console)
	assert.NotContains(t, klog, "Loading of unsigned module is rejected")
	assert.Contains(t, r.console, "fwcheck: setup: modules [efivarfs msr cpuid]")

	// The header says lockdown integrity, because of Secure Boot.
	d := r.doc
	assert.Equal(t, "integrity", d.Machine.Lockdown)
	assert.Equal(t, "on", d.Machine.SecureBoot)
	assert.Contains(t, string(r.files[image.RunReportText]), "lockdown: integrity, because Secure Boot is on")
	assert.Contains(t, string(r.files[image.RunReportHTML]), "<th>lockdown</th><td>integrity, because Secure Boot is on</td>")

	byID := resultsByID(d)
	// secure-boot: on, and the db entry that let shim in is Microsoft's
	// UEFI CA, a shim's own key what let GRUB and the kernel in.
	sb := result(t, d, "secure-boot")
	var infos []string
	for _, f := range sb.Findings {
		infos = append(infos, f.Message)
	}
	all := strings.Join(infos, "\n")
	assert.Contains(t, all, "Secure Boot enabled, SetupMode=0")
	assert.Regexp(t, `boot authorised by db entry \d+ of list \d+ \(X509, owner [0-9a-f-]+\): "CN=Microsoft Corporation UEFI CA 2011`, all)
	assert.Regexp(t, `boot authorised by (Shim|MokListRT)[^:]*: "CN=Debian Secure Boot CA`, all)

	// Every input the kernel refused names lockdown as the reason, with
	// the remedy: the RSDP and XSDT (acpi-tables, checksum), the EBDA
	// (e820) and the BIOS area (legacy-bios), which only /dev/mem has.
	refused := map[string]bool{}
	for _, res := range d.Results {
		var reasons []string
		if res.Status == tests.StatusSkipped || res.Status == tests.StatusNotApplicable {
			reasons = append(reasons, res.Reason)
		}
		for _, u := range res.Unchecked {
			reasons = append(reasons, u.Reason+" — "+u.Remedy)
		}
		for _, why := range reasons {
			if strings.Contains(why, "/dev/mem") || strings.Contains(why, "/dev/port") || strings.Contains(strings.ToLower(why), "not permitted") {
				refused[res.ID] = true
				assert.Contains(t, why, lockdownReason, "check %s", res.ID)
				assert.NotContains(t, why, "iomem=relaxed", "check %s: iomem=relaxed does not lift lockdown", res.ID)
				if res.Status != tests.StatusNotApplicable {
					assert.Contains(t, why, input.LockdownRemedy, "check %s: the remedy", res.ID)
				}
			}
		}
	}
	t.Logf("refused by lockdown: %v", refused)
	for _, id := range []string{"acpi-tables", "checksum", "e820", "legacy-bios"} {
		assert.True(t, refused[id], "%s names lockdown", id)
	}
	assert.Contains(t, string(r.files[image.RunReportText]), "/dev/mem refused: kernel lockdown (integrity), because")

	// What lockdown leaves readable is read: the ACPI tables from sysfs,
	// SMBIOS, the UEFI variables, the event log, MSRs.
	for _, id := range []string{"checksum", "fadt", "smbios", "secure-boot", "tpm-eventlog", "mtrr"} {
		if res, ok := byID[id]; ok {
			assert.NotEqual(t, tests.StatusSkipped, res.Status, "%s: %s", id, res.Reason)
		}
	}

	// The event log replays, and PCR 4 names the signed chain: shim from
	// the stick's EFI/BOOT, the GRUB beside it, and the kernel.
	ev := byID["tpm-eventlog"]
	assert.Equal(t, tests.StatusPassed, ev.Status, "%s %+v", ev.Reason, ev.Findings)
	snap := filepath.Join(t.TempDir(), image.RunSnapshot)
	require.NoError(t, os.WriteFile(snap, r.files[image.RunSnapshot], 0o600))
	src, err := input.Open(snap)
	require.NoError(t, err)
	raw, err := fs.ReadFile(src, "sys/kernel/security/tpm0/binary_bios_measurements")
	require.NoError(t, err)
	log, err := tpm.Parse(raw)
	require.NoError(t, err)
	// Each PCR 4 image event's SHA-256 digest is the image's Authenticode
	// hash; the firmware gives shim's device path, shim GRUB's file path,
	// and the kernel's events (by shim's verifier and the firmware's
	// loader) carry none.
	measured := map[string]string{}
	for _, e := range log.Events {
		if e.PCR != 4 || e.Type != tpm.EvEFIBootServicesApplication {
			continue
		}
		path := ""
		il, err := tpm.ParseImageLoad(e.Data)
		if !errors.Is(err, tpm.ErrNoDevicePath) {
			require.NoError(t, err, "event %d", e.Seq)
			dp, _, err := efi.ParseDevicePath(il.DevicePath)
			require.NoError(t, err, "event %d", e.Seq)
			path = dp.String()
		}
		measured[hex.EncodeToString(e.Digests[tpm.SHA256])] = path
	}
	t.Logf("PCR 4 images: %q", measured)
	kernel, _ := liveImage(t, m)
	for _, img := range []struct{ file, path string }{
		{mkimage.ShimFile, `\EFI\BOOT\BOOTX64.EFI`}, {mkimage.SignedGRUBFile, `\EFI\BOOT\grubx64.efi`}, {kernel, ""},
	} {
		h := authenticodeSHA256(t, img.file)
		path, ok := measured[h]
		if assert.True(t, ok, "PCR 4 measures %s (Authenticode SHA-256 %s)", img.file, h) && img.path != "" {
			assert.True(t, strings.HasSuffix(path, img.path), "%s measured as %s", img.file, path)
		}
	}
	pcrs, err := input.PCRs.Get(input.New(src, input.Options{}))
	require.NoError(t, err)
	bank, err := pcrs.Bank(tpm.SHA256)
	require.NoError(t, err)
	replay, _, err := log.Replay(tpm.SHA256)
	require.NoError(t, err)
	for _, i := range []uint32{4, 7} {
		assert.Equal(t, bank[i], replay[i], "PCR %d replays", i)
	}
}

// authenticodeSHA256 is the Authenticode hash of a PE image (Microsoft's
// PE/COFF specification, "Windows Authenticode Portable Executable Signature
// Format"): the headers without the checksum and the certificate table's
// directory entry, the sections in file order, and what follows them up to
// the certificate table. It is what UEFI measures for an image.
func authenticodeSHA256(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	f, err := pe.NewFile(bytes.NewReader(b))
	require.NoError(t, err, file)
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	require.True(t, ok, "%s: a PE32+ image", file)
	peOff := int(binary.LittleEndian.Uint32(b[0x3c:]))
	opt := peOff + 24
	checksum := opt + 64
	certDir := opt + 112 + 4*8 // PE32+: 112 bytes before the data directories
	h := sha256.New()
	h.Write(b[:checksum])
	h.Write(b[checksum+4 : certDir])
	h.Write(b[certDir+8 : oh.SizeOfHeaders])
	secs := slices.Clone(f.Sections)
	slices.SortFunc(secs, func(a, b *pe.Section) int { return int(a.Offset) - int(b.Offset) })
	end := int(oh.SizeOfHeaders)
	for _, s := range secs {
		if s.Size == 0 {
			continue
		}
		h.Write(b[s.Offset : s.Offset+s.Size])
		end = max(end, int(s.Offset+s.Size))
	}
	certs := oh.DataDirectory[4]
	stop := len(b)
	if certs.Size > 0 {
		stop = int(certs.VirtualAddress) // a file offset, for this directory
	}
	if end < stop {
		h.Write(b[end:stop])
	}
	return hex.EncodeToString(h.Sum(nil))
}
