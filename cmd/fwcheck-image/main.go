// Command fwcheck-image builds fwcheck's live image (a u-root initramfs
// with fwcheck as the init's payload) and boots it under QEMU. It is kept
// apart from the fwcheck command, as u-root keeps mkuimage apart from its
// commands, so that the binary that runs on the machine under test does
// not carry a Go toolchain driver, a shell interpreter and compressors.
//
// Usage:
//
//	fwcheck-image build -o OUT --kernel VMLINUZ [--arch amd64|arm64] [--modules DIR] [--src DIR] [--version V]
//	fwcheck-image usb -o IMG --kernel VMLINUZ [--arch amd64|arm64] [--initramfs FILE] [--config FILE] [--chain signed|unsigned] [--modules DIR] [--src DIR] [--version V]
//	fwcheck-image boot --initramfs FILE --kernel VMLINUZ [--firmware ovmf|seabios] [--append ARGS] [--tpm]
//	fwcheck-image lava --device-type qemu|x86 [--boot ipxe|grub] --kernel URL --initramfs URL [--append OPTIONS] [-o FILE]
//
// Exit status: 0 on success, 2 for usage errors and failures (one line).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/mkimage"
	"github.com/fwcheck/fwcheck/image/qemu"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const (
	exitOK    = 0
	exitUsage = 2
)

const synopsis = "build -o OUT --kernel VMLINUZ | usb -o IMG --kernel VMLINUZ | boot --initramfs FILE --kernel VMLINUZ [--firmware ovmf|seabios] [--append ARGS] [--tpm] | lava --device-type qemu|x86 [--boot ipxe|grub] --kernel URL --initramfs URL"

func main() { os.Exit(run(os.Stdout, os.Stderr, os.Args[1:])) }

func run(stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "fwcheck-image: want a subcommand: build, usb, boot or lava (run 'fwcheck-image -h')\n")
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(stdout, "Usage: fwcheck-image %s\n\n", synopsis)
		fmt.Fprintf(stdout, "  build  compile the live image's initramfs in-process (needs Go and the fwcheck source tree)\n")
		fmt.Fprintf(stdout, "  usb    write a bootable USB stick image (UEFI and BIOS) with fwcheck.cfg and a FWCHECK results partition\n")
		fmt.Fprintf(stdout, "  boot   boot an initramfs under QEMU on this terminal (serial console on stdio; Ctrl-A X quits)\n")
		fmt.Fprintf(stdout, "  lava   write a LAVA job definition that boots the image and reads its console lines as test cases\n")
		return exitOK
	case "build":
		return build(stdout, stderr, args[1:])
	case "usb":
		return usb(stdout, stderr, args[1:])
	case "boot":
		return boot(stdout, stderr, args[1:])
	case "lava":
		return lava(stdout, stderr, args[1:])
	}
	fmt.Fprintf(stderr, "fwcheck-image: unknown subcommand %q (want build, usb, boot or lava)\n", args[0])
	return exitUsage
}

// parse parses args into fs and prints help or a one-line error; ok is
// false when the command should exit with code.
func parse(stdout, stderr io.Writer, name, usage string, fs *flag.FlagSet, args []string) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fmt.Fprintf(stdout, "Usage: fwcheck-image %s %s\n\nFlags:\n%s", name, usage, b.String())
		return exitOK, false
	case err != nil:
		fmt.Fprintf(stderr, "fwcheck-image %s: %v (run 'fwcheck-image %s -h')\n", name, err, name)
		return exitUsage, false
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "fwcheck-image %s: unexpected argument %q\n", name, fs.Arg(0))
		return exitUsage, false
	}
	return 0, true
}

func fail(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "fwcheck-image %s: %v\n", name, err)
	return exitUsage
}

func build(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	var o mkimage.Options
	fs.StringVar(&o.Output, "o", "", "write the initramfs to `OUT` (required), compressed as its name ends: .cpio.lz4 (LZ4), .cpio.zst (zstd), .cpio.gz (gzip) or .cpio (none)")
	fs.StringVar(&o.Kernel, "kernel", "", "the `VMLINUZ` the image will boot; its modules (efivarfs, msr, cpuid, disk drivers) go into the image")
	fs.StringVar(&o.ModulesDir, "modules", "", "take kernel modules from `DIR` instead of /lib/modules/RELEASE")
	fs.StringVar(&o.Source, "src", "", "the fwcheck source tree `DIR` (default: found from the working directory)")
	fs.StringVar(&o.Version, "version", version, "the `VERSION` the image's fwcheck reports")
	fs.StringVar(&o.Arch, "arch", "amd64", "the `ARCH` to build for: amd64 or arm64 (the kernel must match; 'make deps-arm64' fetches Debian's arm64 kernel)")
	if code, ok := parse(stdout, stderr, "build", "-o OUT --kernel VMLINUZ [--modules DIR] [--src DIR]", fs, args); !ok {
		return code
	}
	switch {
	case o.Output == "":
		return fail(stderr, "build", fmt.Errorf("-o OUT is required"))
	case o.Kernel == "" && o.ModulesDir == "":
		return fail(stderr, "build", fmt.Errorf("--kernel VMLINUZ is required (e.g. /boot/vmlinuz-$(uname -r))"))
	}
	o.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	res, err := mkimage.Build(o)
	if err != nil {
		return fail(stderr, "build", err)
	}
	fmt.Fprintf(stdout, "%s: %d bytes (%.2f MiB) compressed, %.2f MiB uncompressed, %s, kernel %s, %d modules\n",
		res.Output, res.Size, float64(res.Size)/(1<<20), float64(res.Uncompressed)/(1<<20), res.Arch, res.KernelRelease, len(res.Modules))
	return exitOK
}

func usb(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("usb", flag.ContinueOnError)
	var o mkimage.Options
	var u mkimage.USBOptions
	fs.StringVar(&u.Output, "o", "", "write the disk image to `IMG` (required); write it to a stick with dd or a USB image writer")
	fs.StringVar(&o.Kernel, "kernel", "", "the `VMLINUZ` the stick boots; its modules go into the initramfs")
	fs.StringVar(&u.Initramfs, "initramfs", "", "put this initramfs `FILE` on the stick instead of building one (it must be built for --kernel)")
	cfgFile := fs.String("config", "", "the stick's fwcheck.cfg from `FILE` (default: every option at its default)")
	fs.Func("chain", "the UEFI boot `CHAIN`: signed (Debian's shim and signed GRUB: boots with Secure Boot on; needs shim-signed, grub-efi-amd64-signed and a signed kernel) or unsigned (GRUB built here: any kernel, Secure Boot off); default: signed when it can be", func(v string) error {
		switch c := mkimage.Chain(v); c {
		case mkimage.ChainSigned, mkimage.ChainUnsigned:
			u.Chain = c
			return nil
		}
		return fmt.Errorf("want signed or unsigned, not %q", v)
	})
	fs.StringVar(&o.ModulesDir, "modules", "", "take kernel modules from `DIR` instead of /lib/modules/RELEASE")
	fs.StringVar(&o.Source, "src", "", "the fwcheck source tree `DIR` (default: found from the working directory)")
	fs.StringVar(&o.Version, "version", version, "the `VERSION` the image's fwcheck reports")
	fs.StringVar(&o.Arch, "arch", "amd64", "the `ARCH` of the stick: amd64 (UEFI and BIOS) or arm64 (UEFI: /EFI/BOOT/BOOTAA64.EFI)")
	if code, ok := parse(stdout, stderr, "usb", "-o IMG --kernel VMLINUZ [--arch amd64|arm64] [--initramfs FILE] [--config FILE] [--chain signed|unsigned]", fs, args); !ok {
		return code
	}
	switch {
	case u.Output == "":
		return fail(stderr, "usb", fmt.Errorf("-o IMG is required"))
	case o.Kernel == "":
		return fail(stderr, "usb", fmt.Errorf("--kernel VMLINUZ is required (e.g. /boot/vmlinuz-$(uname -r))"))
	}
	buildUSB, tools := mkimage.BuildUSB, mkimage.USBToolsAvailable
	if o.Arch == "arm64" && u.Chain == mkimage.ChainSigned {
		return fail(stderr, "usb", fmt.Errorf("--chain signed is amd64 only: the arm64 stick boots GRUB built here, with Secure Boot off"))
	}
	if o.Arch == "arm64" {
		buildUSB, tools = mkimage.BuildUSBArm64, mkimage.USBToolsAvailableArm64
	}
	if err := tools(""); err != nil {
		return fail(stderr, "usb", err)
	}
	if *cfgFile != "" {
		b, err := os.ReadFile(*cfgFile)
		if err != nil {
			return fail(stderr, "usb", err)
		}
		u.Config = b
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	u.Kernel = o.Kernel
	if u.Initramfs == "" {
		tmp, err := os.MkdirTemp("", "fwcheck-usb-")
		if err != nil {
			return fail(stderr, "usb", err)
		}
		defer os.RemoveAll(tmp)
		o.Output, o.Logf = filepath.Join(tmp, "fwcheck.cpio.lz4"), logf
		res, err := mkimage.Build(o)
		if err != nil {
			return fail(stderr, "usb", err)
		}
		u.Initramfs = res.Output
	}
	res, err := buildUSB(u)
	if err != nil {
		return fail(stderr, "usb", err)
	}
	fmt.Fprintf(stdout, "%s: %d MiB disk image: boot partition %s (serial %s, %.1f MiB free), results partition %s (serial %s)\n",
		res.Output, res.Size>>20, mkimage.BootLabel, res.BootSerial, float64(res.Free)/(1<<20), "FWCHECK", res.ResultsSerial)
	fmt.Fprintf(stdout, "UEFI boot chain: %s (%s)\n", res.Chain, res.ChainWhy)
	return exitOK
}

func boot(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("boot", flag.ContinueOnError)
	var vm qemu.Config
	fw := fs.String("firmware", "ovmf", "`FIRMWARE`: ovmf (UEFI, q35), seabios (BIOS, pc), aavmf (arm64 UEFI, virt with ACPI) or aavmf-dt (arm64 UEFI, virt with a devicetree only)")
	fs.StringVar(&vm.Initramfs, "initramfs", "out/fwcheck.cpio.lz4", "the initramfs `FILE` to boot")
	fs.StringVar(&vm.Kernel, "kernel", "", "the `VMLINUZ` to boot (required)")
	fs.StringVar(&vm.Append, "append", "", "extra kernel command line `ARGS`, e.g. fwcheck.after=poweroff")
	fs.StringVar(&vm.USB, "usb", "", "boot this USB stick `IMG` (from 'fwcheck-image usb') through the firmware instead of --kernel and --initramfs")
	fs.BoolVar(&vm.TPM, "tpm", false, "attach a TPM 2.0 emulated by swtpm")
	fs.StringVar(&vm.Accel, "accel", "", "QEMU accelerator: kvm or tcg (default: kvm only when it really boots a guest here)")
	fs.Func("disk", "attach the raw disk image `FILE` (repeatable), e.g. a FAT image labelled FWCHECK for the results and journals", func(v string) error {
		vm.Disks = append(vm.Disks, v)
		return nil
	})
	fs.BoolVar(&vm.AllowReboot, "allow-reboot", false, "let a guest reset restart it (reboot cycling) instead of ending the run")
	results := fs.String("results", "", "demo mode: write the results JSON the image prints to `FILE` instead of the terminal, and drop the firmware's screen clears, so that the report's verdict stays the last line")
	if code, ok := parse(stdout, stderr, "boot", "--initramfs FILE --kernel VMLINUZ | --usb IMG [--firmware ovmf|seabios] [--append ARGS] [--tpm] [--disk FILE] [--allow-reboot] [--results FILE]", fs, args); !ok {
		return code
	}
	switch {
	case vm.USB != "":
		vm.Kernel, vm.Initramfs = "", ""
	case vm.Kernel == "":
		return fail(stderr, "boot", fmt.Errorf("--kernel VMLINUZ (or --usb IMG) is required"))
	}
	switch *fw {
	case "ovmf":
		vm.Machine = qemu.OVMF
	case "seabios":
		vm.Machine = qemu.SeaBIOS
	case "aavmf":
		vm.Machine = qemu.AAVMF
	case "aavmf-dt":
		vm.Machine = qemu.AAVMFDT
	default:
		return fail(stderr, "boot", fmt.Errorf("--firmware: want ovmf, seabios, aavmf or aavmf-dt, not %q", *fw))
	}
	var filter *demoFilter
	if *results != "" {
		if dir := filepath.Dir(*results); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fail(stderr, "boot", err)
			}
		}
		f, err := os.OpenFile(*results, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fail(stderr, "boot", err)
		}
		defer f.Close()
		filter = newDemoFilter(stdout, f)
		vm.Console = filter
	}
	err := qemu.Interactive(vm)
	if filter != nil {
		filter.Flush()
	}
	if err != nil {
		return fail(stderr, "boot", err)
	}
	return exitOK
}

func lava(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("lava", flag.ContinueOnError)
	var j image.LAVAJob
	fs.StringVar(&j.DeviceType, "device-type", "qemu", "LAVA `TYPE`: qemu (QEMU boots the kernel and initramfs) or x86 (a lab machine netbooted over TFTP)")
	fs.StringVar(&j.Boot, "boot", "ipxe", "x86 boot `METHOD`: ipxe or grub")
	fs.StringVar(&j.Kernel, "kernel", "", "`URL` of the kernel the dispatcher downloads (http://, https:// or file://; required)")
	fs.StringVar(&j.Initramfs, "initramfs", "", "`URL` of the live image's initramfs (required)")
	fs.StringVar(&j.Options, "append", "", "the live image's `OPTIONS`, e.g. \"fwcheck.s3=3 fwcheck.s3.sleep=5s\"")
	fs.StringVar(&j.Name, "name", "", "the job's `NAME` (default: from the options)")
	fs.DurationVar(&j.Timeout, "timeout", 0, "the job-level `TIMEOUT` (default: 20m, plus 2m per S3 cycle and 5m per reboot)")
	out := fs.String("o", "-", "write the job to `FILE` (- is standard output)")
	if code, ok := parse(stdout, stderr, "lava", "--device-type qemu|x86 [--boot ipxe|grub] --kernel URL --initramfs URL [--append OPTIONS] [-o FILE]", fs, args); !ok {
		return code
	}
	switch j.DeviceType {
	case "qemu":
		if flagSet(fs, "boot") {
			return fail(stderr, "lava", fmt.Errorf("--boot is for --device-type x86: LAVA's qemu device boots the kernel itself"))
		}
	case "x86":
	default:
		return fail(stderr, "lava", fmt.Errorf("--device-type: want qemu or x86, not %q", j.DeviceType))
	}
	b, err := j.YAML()
	if err != nil {
		return fail(stderr, "lava", err)
	}
	if *out == "-" {
		_, err = stdout.Write(b)
	} else {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		return fail(stderr, "lava", err)
	}
	return exitOK
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
