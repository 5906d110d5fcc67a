package mkimage

// The arm64 stick: the same two partitions as the x86 stick (see usb.go),
// with GRUB's arm64 EFI image as /EFI/BOOT/BOOTAA64.EFI and no legacy BIOS
// boot code (Arm machines boot through UEFI only).
//
// GRUB rather than the kernel's own EFI stub as BOOTAA64.EFI: the stub
// would start the kernel with no command line (firmware gives a removable
// medium's default loader none), while the live image needs fwcheck.esp,
// the boot partition's FAT serial that GRUB reads at boot (probe
// --fs-uuid) and that tells the image which disk is its stick; GRUB also
// gives the same menu as the x86 stick, with a second entry for a PL011
// console. The stub stays what GRUB starts: Debian's arm64 vmlinuz is an
// EFI application, and GRUB's linux command loads it as one.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fwcheck/fwcheck/image"
)

// The arm64 stick is larger: Debian's arm64 kernel is an uncompressed
// Image of 32 MiB (the x86 bzImage is compressed, 8 MiB), which with the
// initramfs does not fit the x86 stick's 34 MiB boot partition.
const (
	StickSizeArm64     = 128 << 20
	bootSectorsArm64   = 96 << 20 / sector
	resStartArm64      = bootStart + bootSectorsArm64
	resSectorsArm64    = StickSizeArm64/sector - resStartArm64
	ResultsOffsetArm64 = resStartArm64 * sector
)

var arm64Layout = stickLayout{StickSizeArm64, bootSectorsArm64, resStartArm64, resSectorsArm64}

// grubConfigArm64 is the arm64 stick's boot/grub/grub.cfg. The first entry
// gives no console=, so that the kernel takes the console the firmware
// describes (ACPI's SPCR, or the devicetree's /chosen stdout-path, which a
// console= on the command line would override); the second names the
// PL011 UART most Arm boards and QEMU's virt have.
const grubConfigArm64 = `# GRUB configuration of the fwcheck arm64 USB stick, written by fwcheck-image.
# UEFI only (EFI/BOOT/BOOTAA64.EFI). Edit fwcheck.cfg, not this file.
terminal_input console
terminal_output console
set timeout=3
set default=0
probe --fs-uuid --set=fwcheck_esp $root
echo "fwcheck: boot partition $root, serial $fwcheck_esp"

menuentry "fwcheck: run the checks (console from the firmware: SPCR or stdout-path)" {
  linux ` + stickKernel + ` ` + image.KernelArgs + ` fwcheck.esp=$fwcheck_esp
  initrd ` + stickInitramfs + `
}

menuentry "fwcheck: run the checks (console on the PL011 UART ttyAMA0)" {
  linux ` + stickKernel + ` console=tty0 console=ttyAMA0,115200 ` + image.KernelArgs + ` fwcheck.esp=$fwcheck_esp
  initrd ` + stickInitramfs + `
}
`

// grubArm64 are the GRUB modules of BOOTAA64.EFI.
var grubArm64 = append(append([]string{}, grubCommon...), "efi_gop", "all_video")

// USBToolsAvailableArm64 is USBToolsAvailable for the arm64 stick: the
// same tools, and GRUB's arm64-efi modules (grub-efi-arm64-bin, which an
// amd64 host installs after dpkg --add-architecture arm64).
func USBToolsAvailableArm64(grubDir string) error {
	if grubDir == "" {
		grubDir = GRUBDir
	}
	var missing []string
	for _, t := range stickTools {
		if _, err := lookTool(t.cmd); err != nil && !contains(missing, t.pkg) {
			missing = append(missing, t.pkg)
		}
	}
	if _, err := os.Stat(filepath.Join(grubDir, "arm64-efi", "moddep.lst")); err != nil {
		missing = append(missing, "grub-efi-arm64-bin")
	}
	if len(missing) > 0 {
		return fmt.Errorf("building the arm64 USB image needs %v (apt-get install them, or run 'make deps-arm64')", missing)
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// BuildUSBArm64 writes the arm64 USB stick image described by o (its
// Kernel an arm64 Image, its Initramfs built with Options.Arch "arm64").
func BuildUSBArm64(o USBOptions) (*USBResult, error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	switch {
	case o.Output == "":
		return nil, errors.New("usb image: no output file")
	case o.Kernel == "":
		return nil, errors.New("usb image: no kernel")
	case o.Initramfs == "":
		return nil, errors.New("usb image: no initramfs")
	}
	if a, err := KernelArch(o.Kernel); err != nil || a != "arm64" {
		return nil, fmt.Errorf("usb image: %s is not an arm64 kernel Image (%v)", o.Kernel, err)
	}
	grubDir := o.GRUBDir
	if grubDir == "" {
		grubDir = GRUBDir
	}
	if err := USBToolsAvailableArm64(grubDir); err != nil {
		return nil, fmt.Errorf("usb image: %w", err)
	}
	cfg := o.Config
	if cfg == nil {
		cfg = []byte(image.DefaultStickConfig)
	}
	tmp := o.TempDir
	if tmp == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "fwcheck-usb-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
	}
	res := &USBResult{Output: o.Output, Size: StickSizeArm64}
	bootID, resID, err := res.drawIDs()
	if err != nil {
		return nil, err
	}

	efiImg := filepath.Join(tmp, "BOOTAA64.EFI")
	if err := grubMkimage(grubDir, "arm64-efi", "/boot/grub", efiImg, grubArm64); err != nil {
		return nil, err
	}
	bootFS := filepath.Join(tmp, "boot.fat")
	if err := run("mkfs.vfat", "-F", "32", "-s", "1", "-n", BootLabel, "-i", fmt.Sprintf("%08X", bootID),
		"-h", fmt.Sprint(bootStart), "-C", bootFS, fmt.Sprint(bootSectorsArm64*sector/1024)); err != nil {
		return nil, err
	}
	cfgFile, grubCfg := filepath.Join(tmp, "fwcheck.cfg"), filepath.Join(tmp, "grub.cfg")
	if err := os.WriteFile(cfgFile, cfg, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(grubCfg, []byte(grubConfigArm64), 0o644); err != nil {
		return nil, err
	}
	if err := run("mmd", "-i", bootFS, "::/EFI", "::/EFI/BOOT", "::/boot", "::/boot/grub", "::/fwcheck"); err != nil {
		return nil, err
	}
	for _, c := range [][2]string{
		{efiImg, "/EFI/BOOT/BOOTAA64.EFI"},
		{grubCfg, "/boot/grub/grub.cfg"},
		{o.Kernel, stickKernel},
		{o.Initramfs, stickInitramfs},
		{cfgFile, "/" + image.StickConfigName},
	} {
		if err := run("mcopy", "-i", bootFS, c[0], "::"+c[1]); err != nil {
			return nil, fmt.Errorf("%w (the boot partition holds %d MiB)", err, bootSectorsArm64*sector>>20)
		}
	}
	if res.Free, err = fatFree(bootFS); err != nil {
		return nil, err
	}
	resFS, err := arm64Layout.resultsFS(tmp, resID)
	if err != nil {
		return nil, err
	}
	disk := filepath.Join(tmp, "disk.img")
	// No boot code in the MBR: UEFI reads the partition table only.
	f, err := arm64Layout.createDisk(disk, res.DiskID)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := arm64Layout.publish(f, disk, bootFS, resFS, o.Output); err != nil {
		return nil, err
	}
	logf("usb: wrote %s (%d MiB, arm64): boot partition %s (%s, %.1f MiB free) with /EFI/BOOT/BOOTAA64.EFI, results partition %s (%s)",
		o.Output, StickSizeArm64>>20, BootLabel, res.BootSerial, float64(res.Free)/(1<<20), image.ResultsLabel, res.ResultsSerial)
	return res, nil
}
