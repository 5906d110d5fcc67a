// Package mkimage builds fwcheck's live image: a compressed u-root
// initramfs holding u-root's init, the gosh shell, a few core commands a
// firmware engineer wants at a prompt, fwcheck as the uinit, and the kernel
// modules fwcheck loads at boot, taken from the kernel the image will boot.
//
// The build runs in-process with u-root's mkuimage library and compiles
// the commands from the fwcheck module (its go.mod pins u-root), so it
// needs the Go toolchain and the fwcheck source tree. What the image does
// at boot belongs to package image.
//
// The output's name chooses the compression: ".lz4" LZ4 in the legacy
// frame format the kernel reads (what `make image` writes), ".zst" zstd,
// ".gz" gzip, ".cpio" none. The kernel unpacks the initramfs before it
// starts /init, and under QEMU's TCG that is the longest single step of a
// boot: the same 27.6 MiB cpio was unpacked in 0.57-0.64 s as LZ4 (10.1
// MiB from `lz4 -l -9`, 10.6 MiB from the encoder here), 1.24-1.57 s as
// zstd (7.6 MiB) and 0.43-0.77 s uncompressed, on q35/OVMF boots
// measured at load average 5-9 (2026-12-06, "Asymmetric key parser 'x509'
// registered" to "Freeing initrd memory"). On real hardware both should
// take a few tens of milliseconds, about what the 3 MiB more a boot
// loader reads costs (not measured on hardware), so LZ4 is the choice for
// labs that boot the image in emulators. Earlier, zstd -19 had beaten gzip -9 by 0.40 s to /init
// on SeaBIOS/pc (2.23 against 2.63 s). The LZ4 encoder is
// github.com/pierrec/lz4 (already in the module graph through u-root),
// at its highest level with the legacy frame option; zstd is
// klauspost/compress's, also used to read zstd kernel modules. gzip stays
// for boot loaders and kernels without CONFIG_RD_LZ4/CONFIG_RD_ZSTD.
package mkimage

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fwcheck/fwcheck/image"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/u-root/gobusybox/src/pkg/golang"
	"github.com/u-root/mkuimage/uimage"
	"github.com/u-root/uio/llog"
)

// FwcheckPkg is the import path of the fwcheck command.
const FwcheckPkg = "github.com/fwcheck/fwcheck/cmd/fwcheck"

// Commands are the u-root commands in the image besides init and gosh.
var Commands = []string{
	"core/ls", "core/cat", "core/cp", "core/mkdir", "core/rm", "core/echo", "core/grep", "core/more",
	"core/dmesg", "core/mount", "core/umount", "core/sync", "core/hexdump", "core/strings", "core/dd",
	"core/msr", "core/pci", "core/lsmod", "core/insmod", "core/ps", "core/free", "core/df", "core/date",
	"core/uname", "core/shutdown", "core/poweroff", "core/rsdp",
	"exp/dmidecode", "exp/acpicat", "exp/acpigrep", "exp/efivarfs",
}

// CheckModules are loaded before the checks run.
var CheckModules = []string{"efivarfs", "msr", "cpuid"}

// StorageModules let the image find a FAT results disk on every bus a
// machine or a lab attaches storage to: SATA and IDE (ahci, ata_piix,
// ata_generic), NVMe (also behind Intel VMD, as many laptops ship), virtio
// (virtio-blk and virtio-scsi: LAVA's QEMU devices, cloud VMs and lab
// hypervisors), USB sticks and drives (usb-storage, uas) and SD/MMC cards
// (sdhci-pci, sdhci-acpi and Realtek card readers, with mmc_block).
var StorageModules = []string{
	"vfat", "nls_cp437", "nls_ascii", "nls_utf8", "nls_iso8859_1",
	"sd_mod", "ahci", "ata_piix", "ata_generic", "vmd", "nvme",
	"virtio_pci", "virtio_blk", "virtio_scsi",
	"xhci_pci", "ehci_pci", "ohci_pci", "uhci_hcd", "usb_storage", "uas",
	"mmc_block", "sdhci_pci", "sdhci_acpi", "rtsx_pci_sdmmc",
}

// NetModules are the network cards the image brings up when it posts its
// results to a lab server (fwcheck.post=): virtio-net (QEMU, LAVA's qemu
// devices) and the Intel and Realtek chips lab machines mostly have.
var NetModules = []string{"virtio_pci", "virtio_net", "e1000", "e1000e", "igb", "r8169"}

// Options says what to build.
type Options struct {
	// Output is the initramfs to write, compressed as its name says
	// (.zst, .gz, or .cpio for none).
	Output string
	// Kernel is the bzImage the image will boot; its release selects the
	// module directory.
	Kernel string
	// ModulesDir overrides /lib/modules/RELEASE.
	ModulesDir string
	// Source is the root of the fwcheck module; by default it is found by
	// walking up from the working directory.
	Source string
	// TempDir holds build files; a fresh directory is used when empty.
	TempDir string
	// Version is recorded as fwcheck's version inside the image
	// (image.Version); empty leaves the image's own default.
	Version string
	// Arch is the architecture the image is built for, as GOARCH names it:
	// "amd64" (the default) or "arm64". The kernel must be of the same
	// architecture (see KernelArch).
	Arch string
	// Logf receives progress messages; nil discards them.
	Logf func(format string, args ...any)
}

// Arches are the architectures Build makes images for.
var Arches = []string{"amd64", "arm64"}

// arch returns o.Arch checked, "amd64" when empty.
func (o Options) arch() (string, error) {
	switch o.Arch {
	case "", "amd64":
		return "amd64", nil
	case "arm64":
		return "arm64", nil
	}
	return "", fmt.Errorf("image build: unknown architecture %q (want %s)", o.Arch, strings.Join(Arches, " or "))
}

// Result describes a built image.
type Result struct {
	Output        string
	Arch          string
	Size          int64 // compressed bytes
	Uncompressed  int64
	KernelRelease string
	Modules       []image.ModuleEntry
	// MissingModules were asked for but are neither modules nor built
	// into this kernel.
	MissingModules []string
}

// Build writes the initramfs described by o.
func Build(o Options) (*Result, error) {
	if o.Output == "" {
		return nil, errors.New("image build: no output file")
	}
	if _, err := Compression(o.Output); err != nil {
		return nil, fmt.Errorf("image build: %w", err)
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	src := o.Source
	if src == "" {
		var err error
		if src, err = FindSource("."); err != nil {
			return nil, err
		}
	}
	goroot, err := goRoot()
	if err != nil {
		return nil, err
	}
	tmp := o.TempDir
	if tmp == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "fwcheck-image-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
	}
	arch, err := o.arch()
	if err != nil {
		return nil, err
	}
	if o.Kernel != "" {
		if ka, err := KernelArch(o.Kernel); err == nil && ka != arch {
			return nil, fmt.Errorf("image build: %s is an %s kernel, not %s (pass --arch %s, or a kernel for %s)", o.Kernel, ka, arch, ka, arch)
		}
	}
	res := &Result{Output: o.Output, Arch: arch}

	// Kernel modules, decompressed, in dependency order.
	modFiles, err := stageModules(o, tmp, res, logf)
	if err != nil {
		return nil, err
	}

	cmds := []string{"github.com/u-root/u-root/cmds/core/init", "github.com/u-root/u-root/cmds/core/gosh"}
	for _, c := range Commands {
		cmds = append(cmds, "github.com/u-root/u-root/cmds/"+c)
	}
	cmds = append(cmds, FwcheckPkg)

	cpioPath := filepath.Join(tmp, "initramfs.cpio")
	buildTmp := filepath.Join(tmp, "build")
	if err := os.MkdirAll(buildTmp, 0o755); err != nil {
		return nil, err
	}
	logf("image: compiling u-root init, gosh, %d commands and fwcheck for %s into one busybox binary", len(Commands), arch)
	l := llog.New(slog.LevelWarn, func(format string, args ...any) { logf("image: "+format, args...) })
	err = uimage.Create(l,
		uimage.WithEnv(golang.WithGOROOT(goroot), golang.WithWorkingDir(src), golang.DisableCGO(), golang.WithGOOS("linux"), golang.WithGOARCH(arch)),
		uimage.WithTempDir(buildTmp),
		uimage.WithBaseArchive(uimage.DefaultRamfs()),
		uimage.WithBusyboxCommands(cmds...),
		uimage.WithBusyboxBuildOpts(buildOpts(o.Version)),
		uimage.WithInit("init"),
		uimage.WithShell("gosh"),
		uimage.WithUinit("fwcheck", "boot"),
		uimage.WithFiles(modFiles...),
		uimage.WithSkipLDD(),
		uimage.WithCPIOOutput(cpioPath),
	)
	if err != nil {
		return nil, fmt.Errorf("image build: %w", err)
	}
	if res.Uncompressed, res.Size, err = compressFile(cpioPath, o.Output); err != nil {
		return nil, fmt.Errorf("image build: %w", err)
	}
	logf("image: wrote %s (%.1f MiB compressed, %.1f MiB uncompressed)", o.Output, mib(res.Size), mib(res.Uncompressed))
	return res, nil
}

// buildOpts returns the busybox's go build options: the version goes into
// image.Version, a package variable that gobusybox leaves alone (it turns
// the initialisers of command packages into code, which -X cannot reach).
func buildOpts(version string) *golang.BuildOpts {
	o := &golang.BuildOpts{}
	if version != "" {
		// A second -ldflags would replace the library's "-s -w": strip
		// here instead, with the library's own stripping off.
		o.NoStrip = true
		o.ExtraArgs = []string{"-ldflags=-s -w -buildid= -X github.com/fwcheck/fwcheck/image.Version=" + version}
	}
	return o
}

// goRoot asks the go command in PATH for its GOROOT. The library would take
// the GOROOT fwcheck was built with, which -trimpath erases.
func goRoot() (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("image build: the Go toolchain (go) is not in PATH; building the image compiles fwcheck and u-root from source")
	}
	out, err := exec.Command(gobin, "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("image build: go env GOROOT: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// stageModules copies the modules the image loads into tmp, decompressed,
// and returns them as mkuimage "host:archive" file specs, the order file
// included.
func stageModules(o Options, tmp string, res *Result, logf func(string, ...any)) ([]string, error) {
	dir := o.ModulesDir
	if dir != "" && o.Kernel != "" {
		res.KernelRelease, _ = KernelRelease(o.Kernel) // for the summary only
	}
	if dir == "" {
		if o.Kernel == "" {
			return nil, errors.New("image build: no kernel given (--kernel VMLINUZ); its modules go into the image")
		}
		rel, err := KernelRelease(o.Kernel)
		if err != nil {
			return nil, fmt.Errorf("image build: %s: %w", o.Kernel, err)
		}
		res.KernelRelease = rel
		dir = filepath.Join("/lib/modules", rel)
	}
	set, err := ReadModuleSet(dir)
	if err != nil {
		return nil, fmt.Errorf("image build: modules of the kernel: %w (is the kernel's modules package installed?)", err)
	}
	var entries []image.ModuleEntry
	seen := map[string]bool{}
	for _, g := range []struct {
		name string
		mods []string
	}{{image.GroupChecks, CheckModules}, {image.GroupStorage, StorageModules}, {image.GroupNet, NetModules}} {
		order, missing := set.Resolve(g.mods...)
		res.MissingModules = append(res.MissingModules, missing...)
		for _, m := range order {
			// The net group lists its dependencies again (virtio_pci is
			// a storage module too): it is loaded on its own, by NetUp.
			if !seen[m] || g.name == image.GroupNet && !seen["net:"+m] {
				seen[m], seen["net:"+m] = true, g.name == image.GroupNet
				entries = append(entries, image.ModuleEntry{Group: g.name, Name: m})
			}
		}
	}
	if len(res.MissingModules) > 0 {
		logf("image: modules not found in %s (fine if the kernel lacks them): %s", dir, strings.Join(res.MissingModules, ", "))
	}
	stage := filepath.Join(tmp, "modules")
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return nil, err
	}
	var specs []string
	staged := map[string]bool{}
	for _, e := range entries {
		if staged[e.Name] {
			continue
		}
		staged[e.Name] = true
		b, err := ReadModule(filepath.Join(dir, set.Path(e.Name)))
		if err != nil {
			return nil, fmt.Errorf("image build: %w", err)
		}
		host := filepath.Join(stage, e.Name+".ko")
		if err := os.WriteFile(host, b, 0o644); err != nil {
			return nil, err
		}
		specs = append(specs, host+":"+image.ModuleFile(e.Name))
	}
	orderHost := filepath.Join(stage, "order")
	f, err := os.Create(orderHost)
	if err != nil {
		return nil, err
	}
	if err := image.FormatModuleOrder(f, entries); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	res.Modules = entries
	return append(specs, orderHost+":"+image.ModuleOrderFile), nil
}

// FindSource returns the root of the fwcheck module at or above dir.
func FindSource(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && modulePath(string(b)) == "github.com/fwcheck/fwcheck" {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("image build: %s is not inside the fwcheck source tree (the image is compiled from it); run from the checkout or pass --src", abs)
		}
	}
}

func modulePath(gomod string) string {
	for _, line := range strings.Split(gomod, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// Compression returns the compression an initramfs named name gets:
// "lz4", "zstd", "gzip" or "none"; an error for another extension.
func Compression(name string) (string, error) {
	switch {
	case strings.HasSuffix(name, ".lz4"):
		return "lz4", nil
	case strings.HasSuffix(name, ".zst"):
		return "zstd", nil
	case strings.HasSuffix(name, ".gz"):
		return "gzip", nil
	case strings.HasSuffix(name, ".cpio"):
		return "none", nil
	}
	return "", fmt.Errorf("%s: name the initramfs .cpio.lz4 (LZ4), .cpio.zst (zstd), .cpio.gz (gzip) or .cpio (uncompressed)", name)
}

// compressFile writes src to dst compressed as dst's name says, through a
// temporary file renamed into place, so that a failed build leaves the
// previous image whole.
func compressFile(src, dst string) (raw, compressed int64, err error) {
	kind, err := Compression(dst)
	if err != nil {
		return 0, 0, err
	}
	in, err := os.Open(src)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, 0, err
	}
	tmp := dst + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return 0, 0, err
	}
	var zw io.WriteCloser
	switch kind {
	case "zstd":
		// Concurrency 1: the frames stay in one sequence the kernel's
		// decompressor reads as it goes; a content checksum lets it
		// catch a stick that corrupted the file.
		zw, err = zstd.NewWriter(out, zstd.WithEncoderLevel(zstd.SpeedBestCompression),
			zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	case "lz4":
		// The legacy frame is the only LZ4 format the kernel's
		// initramfs unpacker reads (8 MiB blocks, no checksums).
		lw := lz4.NewWriter(out)
		err = lw.Apply(lz4.LegacyOption(true), lz4.CompressionLevelOption(lz4.Level9), lz4.ConcurrencyOption(1))
		zw = lw
	case "gzip":
		zw, err = gzip.NewWriterLevel(out, gzip.BestCompression)
	default:
		zw = nopCloser{out}
	}
	if err != nil {
		out.Close()
		os.Remove(tmp)
		return 0, 0, err
	}
	raw, err = io.Copy(zw, in)
	if err == nil {
		err = zw.Close()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return 0, 0, err
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		return 0, 0, err
	}
	return raw, fi.Size(), os.Rename(tmp, dst)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
