package image_test

// The arm64 stick, booted: `fwcheck-image usb --arch arm64` writes GRUB's
// arm64 EFI image as BOOTAA64.EFI, and AAVMF on QEMU's virt machine boots
// it from a USB disk (qemu-xhci, usb-storage) as an Arm laptop or server
// boots a stick. The run's folder must land on the stick's FWCHECK
// partition and not on a second FAT disk labelled FWCHECK.

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/mkimage"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/tests"
)

func TestArm64USBStick(t *testing.T) {
	t.Parallel()
	if err := mkimage.USBToolsAvailableArm64(""); err != nil {
		t.Skip(err)
	}
	kernel, initramfs := arm64LiveImage(t, qemu.AAVMF)
	stick := filepath.Join(t.TempDir(), "fwcheck-arm64.img")
	_, err := mkimage.BuildUSBArm64(mkimage.USBOptions{Output: stick, Kernel: kernel, Initramfs: initramfs})
	require.NoError(t, err)
	cfg := filepath.Join(t.TempDir(), image.StickConfigName)
	require.NoError(t, os.WriteFile(cfg, []byte(image.DefaultStickConfig+"after = poweroff\n"), 0o644))
	mtools(t, "mcopy", "-o", "-i", stick+"@@"+strconv.Itoa(mkimage.BootOffset), cfg, "::/"+image.StickConfigName)

	r := bootStick(t, qemu.AAVMF, stick)
	checkStickFiles(t, r)
	assert.Contains(t, r.console, "fwcheck: verdict: ")
	// The x86-only checks say why they did not run, on the stick as with
	// -kernel (arm64Boot's assertions).
	for _, res := range r.doc.Results {
		assert.NotEqual(t, tests.StatusAborted, res.Status, "%s aborted: %s", res.ID, res.Reason)
	}
	for _, id := range x86Only {
		assert.Equal(t, tests.StatusNotApplicable, resultOf(r.bootResult, id).Status, id)
	}
}
