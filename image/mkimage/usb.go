package mkimage

// The USB stick image. Layout (MBR partition table, 512-byte sectors):
//
//	sector 0            GRUB's boot.img (boot code only; the partition
//	                    table and disk signature are sfdisk's)
//	sectors 1-2047      GRUB's i386-pc core image (legacy BIOS)
//	partition 1, active FAT32 "FWCHECKBOOT", type 0x0C: EFI/BOOT/BOOTX64.EFI
//	                    (shim, with Debian's signed GRUB beside it and its
//	                    grub.cfg in EFI/debian, or GRUB for UEFI: see
//	                    signed.go), boot/grub/grub.cfg (one file for
//	                    both firmware kinds), fwcheck/vmlinuz,
//	                    fwcheck/initramfs (as built: LZ4, zstd or gzip), fwcheck.cfg
//	partition 2         FAT16 "FWCHECK", type 0x0E: the results
//
// MBR rather than GPT because legacy BIOSes boot an MBR stick with an
// active partition most reliably, and UEFI boots \EFI\BOOT\BOOTX64.EFI from
// any FAT partition of a removable disk; the boot partition has the plain
// FAT32 type (0x0C, as Windows' installer sticks have) rather than the ESP
// type (0xEF) so that Windows mounts it and a lab can edit fwcheck.cfg.
//
// The partition table, the file systems and the boot loader come from
// Debian's tools, driven from here: sfdisk (fdisk), mkfs.vfat (dosfstools),
// mmd/mcopy (mtools) and grub-mkimage with GRUB's x86_64-efi and i386-pc
// module sets (grub-common, grub-efi-amd64-bin, grub-pc-bin).
// github.com/diskfs/go-diskfs could replace sfdisk, mkfs.vfat and mtools,
// but it is not among the modules this project may depend on; the tools
// are run on the build host only, never on the machine under test.

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/internal/atomicfile"
)

// Stick layout, in 512-byte sectors.
const (
	sector      = 512
	StickSize   = 64 << 20                    // the whole image
	bootStart   = 2048                        // 1 MiB: room for GRUB's core image
	bootSectors = 34 << 20 / sector           // FAT32 needs 65525 clusters or more
	resStart    = bootStart + bootSectors     // the results partition follows
	resSectors  = StickSize/sector - resStart // and fills the rest
)

// BootLabel is the volume label of the stick's boot partition.
const BootLabel = "FWCHECKBOOT"

// Paths on the boot partition.
const (
	stickKernel    = "/fwcheck/vmlinuz"
	stickInitramfs = "/fwcheck/initramfs"
)

// GRUB modules in the boot loader images: the boot partition's file
// system and partition table, the Linux loader, the config's commands,
// the serial terminal, and video for the kernel's EFI framebuffer.
var (
	grubCommon = []string{"part_msdos", "part_gpt", "fat", "normal", "configfile", "linux", "search",
		"search_fs_uuid", "search_label", "probe", "test", "echo", "serial", "terminal", "gzio", "sleep"}
	grubEFI  = []string{"efi_gop", "efi_uga", "all_video"}
	grubBIOS = []string{"biosdisk"}
)

// GRUBDir holds GRUB's per-platform module directories (Debian's layout).
const GRUBDir = "/usr/lib/grub"

// USBOptions says what stick image to build.
type USBOptions struct {
	// Output is the disk image to write.
	Output string
	// Kernel is the bzImage the stick boots.
	Kernel string
	// Initramfs is the live image to put on the stick.
	Initramfs string
	// Config is the stick's fwcheck.cfg; nil writes
	// image.DefaultStickConfig.
	Config []byte
	// GRUBDir overrides GRUBDir.
	GRUBDir string
	// Chain is the UEFI boot chain (ChainAuto: signed when it can be);
	// Signed overrides where the signed chain's files are.
	Chain  Chain
	Signed SignedFiles
	// TempDir holds build files; a fresh directory is used when empty.
	TempDir string
	// Logf receives progress messages; nil discards them.
	Logf func(format string, args ...any)
}

// USBResult describes a built stick image.
type USBResult struct {
	Output string
	Size   int64
	// BootSerial and ResultsSerial are the FAT volume serial numbers of
	// the two partitions ("1A2B-3C4D"); DiskID is the MBR disk signature.
	BootSerial, ResultsSerial string
	DiskID                    uint32
	// Free is what is left on the boot partition, in bytes.
	Free int64
	// Chain is the UEFI boot chain on the stick, and ChainWhy what
	// decided it.
	Chain    Chain
	ChainWhy string
}

// Partition locations, for tools that read the image (mtools' "@@offset").
const (
	BootOffset    = bootStart * sector
	ResultsOffset = resStart * sector
)

// grubConfig is the stick's boot/grub/grub.cfg, for UEFI and BIOS alike.
// $root is the partition GRUB was loaded from; its FAT serial number goes
// on the kernel command line as fwcheck.esp, which is how the live image
// knows the boot stick among the machine's disks, and where it reads
// fwcheck.cfg from. (GRUB's "initrd newc:" form could hand the file over in
// the initramfs instead, but the kernel rejects the archive GRUB 2.06
// makes: "Initramfs unpacking failed: malformed archive".)
const grubConfig = `# GRUB configuration of the fwcheck USB stick, written by fwcheck-image.
# One file for UEFI (EFI/BOOT/BOOTX64.EFI) and legacy BIOS (GRUB's core image
# in the sectors before the first partition). Edit fwcheck.cfg, not this file.
if serial --unit=0 --speed=115200; then
  terminal_input console serial
  terminal_output console serial
fi
set timeout=3
set default=0
probe --fs-uuid --set=fwcheck_esp $root
echo "fwcheck: boot partition $root, serial $fwcheck_esp"

menuentry "fwcheck: run the checks" {
  linux ` + stickKernel + ` console=ttyS0,115200 console=tty0 ` + image.KernelArgs + ` fwcheck.esp=$fwcheck_esp
  initrd ` + stickInitramfs + `
}

menuentry "fwcheck: run the checks (shell on the serial port ttyS0)" {
  linux ` + stickKernel + ` console=tty0 console=ttyS0,115200 ` + image.KernelArgs + ` fwcheck.esp=$fwcheck_esp
  initrd ` + stickInitramfs + `
}
`

// stickTools are the host commands BuildUSB runs, with the Debian package
// of each.
var stickTools = []struct{ cmd, pkg string }{
	{"sfdisk", "fdisk"},
	{"mkfs.vfat", "dosfstools"},
	{"mmd", "mtools"},
	{"mcopy", "mtools"},
	{"mdir", "mtools"},
	{"grub-mkimage", "grub-common"},
}

// lookTool finds a command in PATH or the sbin directories, which are not
// in every user's PATH.
func lookTool(cmd string) (string, error) {
	if p, err := exec.LookPath(cmd); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin"} {
		p := filepath.Join(d, cmd)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", cmd)
}

// USBToolsAvailable reports what is missing on this host to build a stick
// image, naming the Debian packages, or nil.
func USBToolsAvailable(grubDir string) error {
	if grubDir == "" {
		grubDir = GRUBDir
	}
	var missing []string
	seen := map[string]bool{}
	add := func(pkg string) {
		if !seen[pkg] {
			seen[pkg] = true
			missing = append(missing, pkg)
		}
	}
	for _, t := range stickTools {
		if _, err := lookTool(t.cmd); err != nil {
			add(t.pkg)
		}
	}
	for _, p := range []struct{ dir, pkg string }{{"x86_64-efi", "grub-efi-amd64-bin"}, {"i386-pc", "grub-pc-bin"}} {
		if _, err := os.Stat(filepath.Join(grubDir, p.dir, "moddep.lst")); err != nil {
			add(p.pkg)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("building the USB image needs %s (apt-get install them, or run 'make deps-image')", strings.Join(missing, " "))
	}
	return nil
}

// BuildUSB writes the USB stick image described by o.
func BuildUSB(o USBOptions) (*USBResult, error) {
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
	grubDir := o.GRUBDir
	if grubDir == "" {
		grubDir = GRUBDir
	}
	if err := USBToolsAvailable(grubDir); err != nil {
		return nil, fmt.Errorf("usb image: %w", err)
	}
	for _, f := range []string{o.Kernel, o.Initramfs} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("usb image: %w", err)
		}
	}
	chain, why, err := pickChain(o)
	if err != nil {
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

	res := &USBResult{Output: o.Output, Size: StickSize, Chain: chain, ChainWhy: why}
	bootID, resID, err := res.drawIDs()
	if err != nil {
		return nil, err
	}

	// The boot loader images.
	efiImg, coreImg := filepath.Join(tmp, "BOOTX64.EFI"), filepath.Join(tmp, "core.img")
	if err := grubMkimage(grubDir, "x86_64-efi", "/boot/grub", efiImg, append(grubCommon, grubEFI...)); err != nil {
		return nil, err
	}
	// The BIOS core image finds its files on partition 1 of the drive the
	// BIOS booted ("(,msdos1)": the boot drive, whatever its number).
	if err := grubMkimage(grubDir, "i386-pc", "(,msdos1)/boot/grub", coreImg, append(grubCommon, grubBIOS...)); err != nil {
		return nil, err
	}
	core, err := os.ReadFile(coreImg)
	if err != nil {
		return nil, err
	}
	if len(core) > (bootStart-1)*sector {
		return nil, fmt.Errorf("usb image: GRUB's core image is %d bytes, more than the %d before the first partition", len(core), (bootStart-1)*sector)
	}
	bootImg, err := os.ReadFile(filepath.Join(grubDir, "i386-pc", "boot.img"))
	if err != nil {
		return nil, fmt.Errorf("usb image: %w", err)
	}
	if len(bootImg) != sector {
		return nil, fmt.Errorf("usb image: %s/i386-pc/boot.img is %d bytes, not one sector", grubDir, len(bootImg))
	}

	// The boot partition.
	bootFS := filepath.Join(tmp, "boot.fat")
	if err := run("mkfs.vfat", "-F", "32", "-s", "1", "-n", BootLabel, "-i", fmt.Sprintf("%08X", bootID),
		"-h", fmt.Sprint(bootStart), "-C", bootFS, fmt.Sprint(bootSectors*sector/1024)); err != nil {
		return nil, err
	}
	cfgFile, grubCfg := filepath.Join(tmp, "fwcheck.cfg"), filepath.Join(tmp, "grub.cfg")
	if err := os.WriteFile(cfgFile, cfg, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(grubCfg, []byte(grubConfig), 0o644); err != nil {
		return nil, err
	}
	if err := run("mmd", append([]string{"-i", bootFS}, stickDirs(chain)...)...); err != nil {
		return nil, err
	}
	files := efiLoaders(chain, o.Signed, efiImg)
	for _, p := range grubConfigs(chain) {
		files = append(files, [2]string{grubCfg, p})
	}
	for _, c := range append(files, [][2]string{
		{o.Kernel, stickKernel},
		{o.Initramfs, stickInitramfs},
		{cfgFile, "/" + image.StickConfigName},
	}...) {
		if err := run("mcopy", "-i", bootFS, c[0], "::"+c[1]); err != nil {
			return nil, fmt.Errorf("%w (the boot partition holds %d MiB)", err, bootSectors*sector>>20)
		}
	}
	if res.Free, err = fatFree(bootFS); err != nil {
		return nil, err
	}

	resFS, err := amd64Layout.resultsFS(tmp, resID)
	if err != nil {
		return nil, err
	}

	// The disk: partition table, then the pieces at their places.
	disk := filepath.Join(tmp, "disk.img")
	f, err := amd64Layout.createDisk(disk, res.DiskID)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	mbr := make([]byte, sector)
	if _, err := f.ReadAt(mbr, 0); err != nil {
		return nil, err
	}
	// GRUB's boot code goes before the disk signature (offset 440); the
	// partition table and the 0x55AA signature stay sfdisk's. boot.img
	// loads the core image from sector 1 (its default), and the core
	// image's first sector lists the rest as sectors 2 onwards.
	copy(mbr[:440], bootImg[:440])
	for _, p := range []struct {
		off  int64
		data []byte
	}{{0, mbr}, {sector, core}} {
		if _, err := f.WriteAt(p.data, p.off); err != nil {
			return nil, err
		}
	}
	if err := amd64Layout.publish(f, disk, bootFS, resFS, o.Output); err != nil {
		return nil, err
	}
	logf("usb: wrote %s (%d MiB): boot partition %s (%s, %.1f MiB free), results partition %s (%s); UEFI boot chain %s (%s)",
		o.Output, StickSize>>20, BootLabel, res.BootSerial, float64(res.Free)/(1<<20), image.ResultsLabel, res.ResultsSerial, chain, why)
	return res, nil
}

// serial formats a FAT volume ID the way GRUB and Linux print it.
func serial(id uint32) string { return fmt.Sprintf("%04X-%04X", id>>16, id&0xffff) }

// stickLayout is where a stick's two partitions lie, in sectors: the boot
// partition from bootStart, the results partition after it to the end.
type stickLayout struct {
	size                              int64 // the whole image, in bytes
	bootSectors, resStart, resSectors int64
}

var amd64Layout = stickLayout{StickSize, bootSectors, resStart, resSectors}

// drawIDs draws the disk signature and the two FAT volume IDs at random
// and records them in res.
func (res *USBResult) drawIDs() (bootID, resID uint32, err error) {
	var ids [12]byte
	if _, err := rand.Read(ids[:]); err != nil {
		return 0, 0, err
	}
	res.DiskID = binary.LittleEndian.Uint32(ids[0:]) | 1 // never 0: "no signature"
	bootID, resID = binary.LittleEndian.Uint32(ids[4:]), binary.LittleEndian.Uint32(ids[8:])
	res.BootSerial, res.ResultsSerial = serial(bootID), serial(resID)
	return bootID, resID, nil
}

// resultsFS makes the results partition's file system in dir: FAT16,
// big enough for FAT32 only on a larger disk.
func (l stickLayout) resultsFS(dir string, id uint32) (string, error) {
	fs := filepath.Join(dir, "results.fat")
	return fs, run("mkfs.vfat", "-F", "16", "-n", image.ResultsLabel, "-i", fmt.Sprintf("%08X", id),
		"-h", fmt.Sprint(l.resStart), "-C", fs, fmt.Sprint(l.resSectors*sector/1024))
}

// createDisk creates the disk image at its size with the MBR partition
// table: a bootable FAT partition, then the results partition.
func (l stickLayout) createDisk(disk string, diskID uint32) (*os.File, error) {
	f, err := os.Create(disk)
	if err != nil {
		return nil, err
	}
	table := fmt.Sprintf("label: dos\nlabel-id: 0x%08x\nunit: sectors\n"+
		"start=%d, size=%d, type=c, bootable\nstart=%d, size=%d, type=e\n",
		diskID, bootStart, l.bootSectors, l.resStart, l.resSectors)
	if err := f.Truncate(l.size); err != nil {
		f.Close()
		return nil, err
	}
	if err := runIn(table, "sfdisk", "--no-reread", "--no-tell-kernel", "-q", disk); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// publish copies the two file systems to their partitions, closes f and
// writes the disk to output atomically.
func (l stickLayout) publish(f *os.File, disk, bootFS, resFS, output string) error {
	for _, p := range []struct {
		file string
		off  int64
	}{{bootFS, BootOffset}, {resFS, l.resStart * sector}} {
		if err := copyAt(f, p.file, p.off); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	in, err := os.Open(disk)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(output), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(output, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	}); err != nil {
		return fmt.Errorf("usb image: %w", err)
	}
	return nil
}

func grubMkimage(grubDir, platform, prefix, out string, mods []string) error {
	args := append([]string{"-d", filepath.Join(grubDir, platform), "-O", platform, "-p", prefix, "-o", out}, mods...)
	return run("grub-mkimage", args...)
}

// run runs a host tool and turns a failure into one error with its output.
func run(cmd string, args ...string) error { return runIn("", cmd, args...) }

func runIn(stdin, cmd string, args ...string) error {
	p, err := lookTool(cmd)
	if err != nil {
		return fmt.Errorf("usb image: %w", err)
	}
	c := exec.Command(p, args...)
	c.Stdin = strings.NewReader(stdin)
	// mtools refuses images whose size is not a whole number of tracks
	// unless told otherwise.
	c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		return fmt.Errorf("usb image: %s %s: %w: %s", cmd, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

func copyAt(dst *os.File, src string, off int64) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = io.Copy(io.NewOffsetWriter(dst, off), in)
	return err
}

// fatFree returns the free bytes of a FAT image, from mdir's last line
// ("  12 345 678 bytes free").
func fatFree(img string) (int64, error) {
	p, err := lookTool("mdir")
	if err != nil {
		return 0, err
	}
	c := exec.Command(p, "-i", img, "::")
	c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	out, err := c.Output()
	if err != nil {
		return 0, fmt.Errorf("usb image: mdir: %w", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if num, ok := strings.CutSuffix(strings.TrimSpace(l), " bytes free"); ok {
			var n int64
			for _, r := range num {
				if r >= '0' && r <= '9' {
					n = n*10 + int64(r-'0')
				}
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("usb image: mdir printed no free space: %s", out)
}
