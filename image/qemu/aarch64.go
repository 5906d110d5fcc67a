package qemu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fwcheck/fwcheck/image"
)

// BinaryAArch64 is the QEMU system emulator for arm64 guests (Debian's
// qemu-system-arm).
const BinaryAArch64 = "qemu-system-aarch64"

// The arm64 machine setups: QEMU's virt board with AAVMF, the arm64 build
// of EDK2 (Debian's qemu-efi-aarch64), in its two flash devices, booted
// once with the ACPI tables QEMU generates and once without them, when
// the kernel gets only the devicetree QEMU generates (acpi=off). Both use
// a GICv3, as SystemReady machines have.
var (
	AAVMF   = Machine{Name: "aavmf-virt", Type: "virt,gic-version=3,acpi=on", UEFI: true, Arch: "arm64", setup: aavmfArgs}
	AAVMFDT = Machine{Name: "aavmf-virt-dt", Type: "virt,gic-version=3,acpi=off", UEFI: true, Arch: "arm64", setup: aavmfArgs}
)

// AAVMF code/vars pairs, most preferred first. FWCHECK_AAVMF_CODE and
// FWCHECK_AAVMF_VARS override them.
var aavmfPairs = [][2]string{
	{"/usr/share/AAVMF/AAVMF_CODE.fd", "/usr/share/AAVMF/AAVMF_VARS.fd"},
	{"/usr/share/edk2/aarch64/QEMU_EFI-pflash.raw", "/usr/share/edk2/aarch64/vars-template-pflash.raw"},
}

func findAAVMF() (code, vars string, err error) {
	return findPair("AAVMF", aavmfPairs, "apt-get install qemu-efi-aarch64, or run 'make deps-arm64'")
}

func availableArm64() error {
	if _, err := exec.LookPath(BinaryAArch64); err != nil {
		return fmt.Errorf("%s not found (apt-get install qemu-system-arm, or run 'make deps-arm64')", BinaryAArch64)
	}
	_, _, err := findAAVMF()
	return err
}

// aavmfArgs puts AAVMF's code (read-only) and a copy of its variable store
// in the virt board's two flash devices; both must be 64 MiB, as Debian's
// files are.
func aavmfArgs(tmp string, c Config) ([]string, error) {
	code, vars, err := findAAVMF()
	if err != nil {
		return nil, err
	}
	if c.OVMFVars != "" {
		vars = c.OVMFVars
	}
	b, err := os.ReadFile(vars)
	if err != nil {
		return nil, err
	}
	myVars := filepath.Join(tmp, aavmfVarsCopy)
	if err := os.WriteFile(myVars, b, 0o644); err != nil {
		return nil, err
	}
	return []string{
		"-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + code,
		"-drive", "if=pflash,format=raw,unit=1,file=" + myVars,
	}, nil
}

// Arm64Console is the virt board's serial console: its PL011 UART.
const Arm64Console = "ttyAMA0"

// argsArm64 is Config.args for an arm64 machine. Under TCG the CPU is a
// Cortex-A57, whose emulation is the quickest of QEMU's 64-bit cores
// ("max" adds pointer authentication, which TCG computes slowly); under
// KVM it is the host's. Disks go on virtio-blk (the board has no IDE),
// and the memory defaults to 1 GiB (Debian's arm64 kernel and the
// initramfs need more than the x86 machines' 512 MiB).
func (c Config) argsArm64(tmp string, fw []string, accel string, mem int, interactive bool) ([]string, error) {
	if c.Memory == 0 {
		mem = 1024
	}
	cpu := "cortex-a57"
	if accel == "kvm" {
		cpu = "host"
	}
	a := []string{
		"-machine", c.Machine.Type + ",accel=" + accel,
		"-cpu", cpu,
		"-m", fmt.Sprint(mem),
	}
	if !c.AllowReboot {
		a = append(a, "-no-reboot")
	}
	if c.CPUs > 1 {
		a = append(a, "-smp", fmt.Sprint(c.CPUs))
	}
	a = append(a, c.Extra...)
	if interactive {
		a = append(a, "-nographic")
	} else {
		a = append(a, "-display", "none", "-monitor", "none", "-serial", "stdio")
	}
	a = append(a, fw...)
	if c.Kernel != "" {
		// AAVMF starts the kernel through its EFI stub, loaded from
		// QEMU's fw_cfg: the boot is UEFI's, as from a stick.
		cmdline := "console=" + Arm64Console + ",115200 panic=-1 " + image.KernelArgs
		a = append(a,
			"-kernel", c.Kernel,
			"-initrd", c.Initramfs,
			"-append", strings.TrimSpace(cmdline+" "+c.Append),
		)
	}
	for i, d := range c.Disks {
		a = append(a, "-drive", fmt.Sprintf("if=none,id=hd%d,format=raw,file=%s", i, d), "-device", fmt.Sprintf("virtio-blk-pci,drive=hd%d", i))
	}
	for i, d := range c.Drives {
		if d.Bus == "" || d.Bus == "ide" {
			d.Bus = "virtio"
		}
		da, err := DriveArgs(d, i)
		if err != nil {
			return nil, err
		}
		a = append(a, da...)
	}
	if c.QMP != "" {
		a = append(a, "-qmp", "unix:"+c.QMP+",server=on,wait=off")
	}
	if c.USB != "" {
		a = append(a, "-device", "qemu-xhci,id=xhci",
			"-drive", "if=none,id=usbstick,format=raw,file="+c.USB,
			"-device", "usb-storage,bus=xhci.0,drive=usbstick,removable=on,bootindex=0")
	}
	return a, nil
}
