package image_test

// End-to-end tests of the USB stick image: build it from this tree, boot
// it through the firmware as a USB mass-storage device (qemu-xhci +
// usb-storage, no -kernel or -initrd) under OVMF and SeaBIOS, then read the
// FWCHECK partition back from the image file on the host, as a user reads
// the stick on a laptop. A second disk with a FAT file system labelled
// FWCHECK is attached each time and must stay byte-identical: results go
// only to the boot stick.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/mkimage"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
)

// usbBootTimeout bounds one stick boot: the firmware's USB boot, GRUB's
// three-second menu, then the same run as a -kernel boot.
// It guards against a hang only: under TCG on a loaded 2-core host two stick
// boots side by side (one with OVMF's SMM build and Secure Boot, which
// verifies shim, GRUB and the kernel) took more than 420 s.
const usbBootTimeout = 15 * time.Minute

// stickRun is what one boot of the stick left behind.
type stickRun struct {
	bootResult
	folder  string
	files   map[string][]byte // the run's folder on FWCHECK
	folders []string          // every run folder on FWCHECK
}

// mtools runs an mtools command with the geometry check off (the
// partitions are not whole tracks).
func mtools(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	c := exec.Command(name, args...)
	c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	out, err := c.Output()
	require.NoError(t, err, "%s %s", name, strings.Join(args, " "))
	return out
}

// buildStick writes a stick image with fwcheck.cfg set to cfg.
func buildStick(t *testing.T, m qemu.Machine, cfg string) string {
	t.Helper()
	if _, err := exec.LookPath("mtype"); err != nil {
		t.Skip("mtools missing (make deps-image)")
	}
	if err := mkimage.USBToolsAvailable(""); err != nil {
		t.Skip(err)
	}
	kernel, initramfs := liveImage(t, m)
	stick := filepath.Join(t.TempDir(), "fwcheck.img")
	_, err := mkimage.BuildUSB(mkimage.USBOptions{Output: stick, Kernel: kernel, Initramfs: initramfs})
	require.NoError(t, err)
	// Edit fwcheck.cfg in the image file, as a lab edits the stick.
	cfgFile := filepath.Join(t.TempDir(), image.StickConfigName)
	require.NoError(t, os.WriteFile(cfgFile, []byte(cfg), 0o644))
	mtools(t, "mcopy", "-o", "-i", stick+"@@"+strconv.Itoa(mkimage.BootOffset), cfgFile, "::/"+image.StickConfigName)
	return stick
}

// decoyDisk makes a second disk of the machine: a FAT file system labelled
// FWCHECK, the very thing the live image looks for.
func decoyDisk(t *testing.T) (path string, orig []byte) {
	t.Helper()
	disk := resultsDisk(t)
	if disk == "" {
		t.Skip("mkfs.vfat or mtools missing (make deps-image)")
	}
	b, err := os.ReadFile(disk)
	require.NoError(t, err)
	return disk, b
}

// bootStick boots stick on m with a decoy disk and returns the run; opts
// change the machine (a TPM, a variable store with Secure Boot keys).
func bootStick(t *testing.T, m qemu.Machine, stick string, opts ...func(*qemu.Config)) stickRun {
	t.Helper()
	decoy, orig := decoyDisk(t)
	ctx, cancel := context.WithTimeout(context.Background(), usbBootTimeout)
	defer cancel()
	start := time.Now()
	cfg := qemu.Config{Machine: m, USB: stick, Disks: []string{decoy}}
	for _, o := range opts {
		o(&cfg)
	}
	console, err := qemu.Run(ctx, cfg)
	wall := time.Since(start)
	require.NoError(t, err, "boot %s from the USB stick (accel %s); console:\n%s", m.Name, qemu.DefaultAccel(), tail(console))

	after, err := os.ReadFile(decoy)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(orig, after), "the second disk (FAT labelled FWCHECK, not on the stick) was written to")

	js, err := image.ExtractResults(console)
	require.NoError(t, err, "console:\n%s", tail(console))
	r := stickRun{bootResult: bootResult{console: string(console), json: js, wall: wall}, files: map[string][]byte{}}
	r.doc = reporttest.Check(t, js)
	if mt := verdictRE.FindStringSubmatch(r.console); mt != nil {
		r.verdicts, _ = strconv.ParseFloat(mt[1], 64)
	}
	t.Logf("%s from USB (accel %s): verdicts %.2f s after kernel start; QEMU start to poweroff %v",
		m.Name, qemu.DefaultAccel(), r.verdicts, wall.Round(100*time.Millisecond))

	// Read the FWCHECK partition back from the image file.
	part := stick + "@@" + strconv.FormatInt(resultsOffset(t, stick), 10)
	for _, f := range strings.Fields(string(mtools(t, "mdir", "-b", "-i", part, "::/"))) {
		if name := strings.TrimPrefix(f, "::/"); strings.HasPrefix(name, "fwcheck-") && strings.HasSuffix(name, "/") {
			r.folders = append(r.folders, strings.TrimSuffix(name, "/"))
		}
	}
	require.Len(t, r.folders, 1, "run folders on FWCHECK")
	r.folder = r.folders[0]
	for _, name := range []string{image.RunResultsJSON, image.RunReportText, image.RunReportHTML, image.RunKernelLog, image.RunSnapshot} {
		r.files[name] = mtools(t, "mtype", "-i", part, "::/"+r.folder+"/"+name)
	}
	r.fatJSON = r.files[image.RunResultsJSON]
	return r
}

// resultsOffset reads where the stick's second partition (FWCHECK)
// starts from its MBR: the amd64 and arm64 sticks lay it out differently.
func resultsOffset(t *testing.T, stick string) int64 {
	t.Helper()
	f, err := os.Open(stick)
	require.NoError(t, err)
	defer f.Close()
	mbr := make([]byte, 512)
	_, err = f.ReadAt(mbr, 0)
	require.NoError(t, err)
	require.Equal(t, []byte{0x55, 0xaa}, mbr[510:], "an MBR")
	lba := int64(binary.LittleEndian.Uint32(mbr[446+16+8:]))
	require.NotZero(t, lba, "a second partition")
	return lba * 512
}

// checkStickFiles asserts the run's folder holds what a user reads.
func checkStickFiles(t *testing.T, r stickRun) {
	assert.Regexp(t, `^fwcheck-\d{8}-\d{6}$`, r.folder)
	assert.JSONEq(t, string(r.json), string(r.files[image.RunResultsJSON]), "results.json is the document on the console")
	reporttest.Check(t, r.files[image.RunResultsJSON])
	rep := string(r.files[image.RunReportText])
	assert.Contains(t, rep, "failures by severity")
	assert.Regexp(t, `verdict: (PASS|FAIL|INCOMPLETE)`, rep)
	assert.Contains(t, string(r.files[image.RunReportHTML]), `id="verdict"`, "the HTML report")
	klog := string(r.files[image.RunKernelLog])
	assert.Contains(t, klog, "Linux version")
	assert.Contains(t, klog, "fwcheck.esp=", "the whole log, from the kernel's first lines")
	assert.Contains(t, klog, "usb-storage", "and up to the end of the run")

	// The snapshot opens for fwcheck run --from.
	snap := filepath.Join(t.TempDir(), image.RunSnapshot)
	require.NoError(t, os.WriteFile(snap, r.files[image.RunSnapshot], 0o600))
	src, err := input.Open(snap)
	require.NoError(t, err)
	b, err := fs.ReadFile(src, "proc/version")
	require.NoError(t, err, "the snapshot holds the kernel version")
	assert.Contains(t, string(b), "Linux version")
	_, err = fs.Stat(src, "sys/firmware/acpi/tables/FACP")
	assert.NoError(t, err, "the snapshot holds the ACPI tables")

	// The run wrote to the stick that booted: the console names its
	// results partition and the setup came from GRUB's command line.
	assert.Regexp(t, `fwcheck: results written to /dev/sd[a-z]2, folder `+r.folder, r.console)
	assert.NotContains(t, r.console, "results not written")
}

// TestUSBStickOVMF boots the stick under OVMF on q35 as a USB disk: every
// safe check runs with the verdicts QEMU's firmware gets, and the run's
// folder is on the stick's FWCHECK partition.
func TestUSBStickOVMF(t *testing.T) {
	t.Parallel()
	stick := buildStick(t, qemu.OVMF, image.DefaultStickConfig+"after = poweroff\n")
	r := bootStick(t, qemu.OVMF, stick)
	checkBoot(t, qemu.OVMF, r.bootResult)
	checkStickFiles(t, r)
	checkUnlocked(t, stick, r, "off")
}

// TestUSBStickSeaBIOS boots the same kind of stick through SeaBIOS on pc
// (legacy BIOS: GRUB's boot sector and core image).
func TestUSBStickSeaBIOS(t *testing.T) {
	t.Parallel()
	stick := buildStick(t, qemu.SeaBIOS, image.DefaultStickConfig+"after = poweroff\n")
	r := bootStick(t, qemu.SeaBIOS, stick)
	checkBoot(t, qemu.SeaBIOS, r.bootResult)
	checkStickFiles(t, r)
	checkUnlocked(t, stick, r, "")
}

// TestUSBStickConfig edits fwcheck.cfg in the image file to run only fadt,
// with a malformed line and a bad value: only fadt runs, the bad lines are
// reported in the results, and the rest of the file applies.
func TestUSBStickConfig(t *testing.T) {
	t.Parallel()
	stick := buildStick(t, qemu.OVMF, "# edited\nfwcheck.run=fadt\nthis is not an option\nfail-on = sometimes\nafter = poweroff\n")
	r := bootStick(t, qemu.OVMF, stick)
	var ids []string
	for _, res := range r.doc.Results {
		ids = append(ids, res.ID)
	}
	assert.Equal(t, []string{"fadt"}, ids)
	errs := strings.Join(r.doc.Errors, "\n")
	assert.Contains(t, errs, `fwcheck.cfg line 3: "this is not an option": want NAME = VALUE`)
	assert.Contains(t, errs, `fwcheck.cfg line 4: fwcheck.fail-on="sometimes"`)
	assert.Contains(t, r.console, "fwcheck: read fwcheck.cfg from the boot stick")
	assert.Contains(t, r.console, "fwcheck: done; poweroff", "after = poweroff from the file")
	checkStickFiles(t, r)
}

// TestUSBStickS3 has the stick's fwcheck.cfg ask for two suspend/resume
// cycles on pc/SeaBIOS: the journal is kept on the stick's FWCHECK
// partition through the cycles (the stick suspends and resumes with the
// machine), the run's folder gets a copy of it, and the second disk stays
// untouched.
func TestUSBStickS3(t *testing.T) {
	t.Parallel()
	stick := buildStick(t, qemu.SeaBIOS, "run = s3\ns3 = 2\ns3.sleep = 3s\ns3.awake = 1s\nafter = poweroff\n")
	r := bootStick(t, qemu.SeaBIOS, stick)
	require.Len(t, r.doc.Results, 1, r.console)
	s3 := r.doc.Results[0]
	assert.Equal(t, "s3", s3.ID)
	assert.Equal(t, tests.StatusPassed, s3.Status, "%+v\n%s", s3.Findings, tail([]byte(r.console)))
	assert.Contains(t, r.console, "fwcheck: journals on the results partition /dev/sd")
	checkStickFiles(t, r)

	part := stick + "@@" + strconv.FormatInt(resultsOffset(t, stick), 10)
	root := mtools(t, "mtype", "-i", part, "::/fwcheck-s3.jsonl")
	copied := mtools(t, "mtype", "-i", part, "::/"+r.folder+"/fwcheck-s3.jsonl")
	assert.Equal(t, string(root), string(copied), "the run folder holds the journal as it was at the end")
	var outcomes int
	for _, l := range strings.Split(strings.TrimSpace(string(root)), "\n") {
		var rec struct {
			Event   string `json:"event"`
			Outcome *struct {
				Status string `json:"status"`
			} `json:"outcome"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &rec), "journal line %q", l)
		if rec.Event == "outcome" {
			outcomes++
			require.NotNil(t, rec.Outcome)
			assert.Equal(t, "passed", rec.Outcome.Status)
		}
	}
	assert.Equal(t, 2, outcomes, "two cycles journalled:\n%s", root)
}
