//go:build !fwcheck_live

// The image builder compiles Go code, so it stays out of the live image
// itself (built with the fwcheck_live tag).

package main

import (
	"fmt"

	"github.com/fwcheck/fwcheck/image/mkimage"
	"github.com/fwcheck/fwcheck/image/qemu"
)

func init() {
	c := &command{
		name:  "image",
		args:  "build -o OUT --kernel VMLINUZ | boot --initramfs FILE --kernel VMLINUZ [--firmware ovmf|seabios] [--append ARGS] [--tpm]",
		short: "build the live image (u-root initramfs) or boot it under QEMU",
	}
	c.run = func(e *env, args []string) int {
		if len(args) == 0 {
			fmt.Fprintf(e.stderr, "fwcheck image: want a subcommand: build or boot (run 'fwcheck help image')\n")
			return exitUsage
		}
		switch args[0] {
		case "-h", "-help", "--help":
			fmt.Fprintf(e.stdout, "Usage: fwcheck image %s\n\n%s\n\n", c.args, c.short)
			fmt.Fprintf(e.stdout, "  build  compile the initramfs in-process (needs Go and the fwcheck source tree)\n")
			fmt.Fprintf(e.stdout, "  boot   boot an initramfs under QEMU on this terminal (serial console on stdio; Ctrl-A X quits)\n")
			return exitOK
		case "build":
			return imageBuild(e, args[1:])
		case "boot":
			return imageBoot(e, args[1:])
		}
		fmt.Fprintf(e.stderr, "fwcheck image: unknown subcommand %q (want build or boot)\n", args[0])
		return exitUsage
	}
	addCommand(c)
}

func imageBuild(e *env, args []string) int {
	c := &command{name: "image build", args: "-o OUT --kernel VMLINUZ [--modules DIR] [--src DIR]",
		short: "build the live image: a gzip-compressed u-root initramfs with fwcheck as the uinit"}
	fs := newFlags(c)
	var o mkimage.Options
	fs.StringVar(&o.Output, "o", "", "write the compressed initramfs to `OUT` (required)")
	fs.StringVar(&o.Kernel, "kernel", "", "the `VMLINUZ` the image will boot; its modules (efivarfs, msr, cpuid, disk drivers) go into the image")
	fs.StringVar(&o.ModulesDir, "modules", "", "take kernel modules from `DIR` instead of /lib/modules/RELEASE")
	fs.StringVar(&o.Source, "src", "", "the fwcheck source tree `DIR` (default: found from the working directory)")
	fs.StringVar(&o.Version, "version", version, "the `VERSION` the image's fwcheck reports")
	pos, code, ok := parseFlags(e, c, fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) > 0:
		return fail(e, c, fmt.Errorf("unexpected argument %q", pos[0]))
	case o.Output == "":
		return fail(e, c, fmt.Errorf("-o OUT is required"))
	case o.Kernel == "" && o.ModulesDir == "":
		return fail(e, c, fmt.Errorf("--kernel VMLINUZ is required (e.g. /boot/vmlinuz-$(uname -r))"))
	}
	o.Logf = func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }
	res, err := mkimage.Build(o)
	if err != nil {
		return fail(e, c, err)
	}
	fmt.Fprintf(e.stdout, "%s: %d bytes (%.2f MiB) compressed, %.2f MiB uncompressed, kernel %s, %d modules\n",
		res.Output, res.Size, float64(res.Size)/(1<<20), float64(res.Uncompressed)/(1<<20), res.KernelRelease, len(res.Modules))
	return exitOK
}

func imageBoot(e *env, args []string) int {
	c := &command{name: "image boot", args: "--initramfs FILE --kernel VMLINUZ [--firmware ovmf|seabios] [--append ARGS] [--tpm]",
		short: "boot the live image under QEMU with the serial console on this terminal"}
	fs := newFlags(c)
	var vm qemu.Config
	fw := fs.String("firmware", "ovmf", "`FIRMWARE`: ovmf (UEFI, q35) or seabios (BIOS, pc)")
	fs.StringVar(&vm.Initramfs, "initramfs", "out/fwcheck.cpio.gz", "the initramfs `FILE` to boot")
	fs.StringVar(&vm.Kernel, "kernel", "", "the `VMLINUZ` to boot (required)")
	fs.StringVar(&vm.Append, "append", "", "extra kernel command line `ARGS`, e.g. fwcheck.after=poweroff")
	fs.BoolVar(&vm.TPM, "tpm", false, "attach a TPM 2.0 emulated by swtpm")
	fs.StringVar(&vm.Accel, "accel", "", "QEMU accelerator: kvm or tcg (default: kvm only when it really boots a guest here)")
	pos, code, ok := parseFlags(e, c, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return fail(e, c, fmt.Errorf("unexpected argument %q", pos[0]))
	}
	if vm.Kernel == "" {
		return fail(e, c, fmt.Errorf("--kernel VMLINUZ is required"))
	}
	switch *fw {
	case "ovmf":
		vm.Machine = qemu.OVMF
	case "seabios":
		vm.Machine = qemu.SeaBIOS
	default:
		return fail(e, c, fmt.Errorf("--firmware: want ovmf or seabios, not %q", *fw))
	}
	if err := qemu.Interactive(vm); err != nil {
		return fail(e, c, err)
	}
	return exitOK
}
