// Package qemu boots fwcheck's live image under QEMU: the harness the
// end-to-end tests use and `fwcheck-image boot` (make demo). It knows two
// machine setups, OVMF (UEFI) on q35 and SeaBIOS on pc, finds their
// firmware, a kernel and a working accelerator (KVM only when it really
// boots a guest, TCG otherwise), and captures the serial console.
package qemu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fwcheck/fwcheck/image"
)

// Binary is the QEMU system emulator the harness runs.
const Binary = "qemu-system-x86_64"

// TCGCPU is the x86 CPU the harness emulates under TCG: every feature TCG
// offers ("max") except ERMS and FSRM, the CPUID bits that tell software
// REP MOVSB and REP STOSB are its fastest copy and fill. On hardware they
// are; QEMU's TCG (7.2, Debian 12's) executes a REP string instruction an
// iteration at a time, so the kernel's ERMS memcpy, memset and
// clear_page become its slowest. Without the two bits the kernel picks
// its 8-byte or unrolled loops, and a q35/OVMF boot of the live image
// reaches /init in 1.7 s instead of 2.2 s, five boots each, alternated
// (docs/performance.md, 2026-12-07). The checks see the same results
// either way (same statuses and labels on both CPUs); no check reads
// these two bits. Under KVM the guest gets the host's CPU.
const TCGCPU = "max,-erms,-fsrm"

// Machine is one machine setup: a QEMU machine type and its firmware.
type Machine struct {
	Name string // "ovmf-q35", "seabios-pc"
	Type string // QEMU -machine type
	UEFI bool
	// SMM boots the machine with SMM (-machine smm=on) and OVMF's SMM
	// build, whose flash only SMM may write.
	SMM bool
	// Arch is the guest's architecture as GOARCH names it: "" (amd64,
	// qemu-system-x86_64) or "arm64" (qemu-system-aarch64, see AAVMF).
	Arch  string
	setup func(tmp string, c Config) ([]string, error) // firmware arguments
}

// Binary returns the QEMU system emulator for m's architecture.
func (m Machine) Binary() string {
	if m.Arch == "arm64" {
		return BinaryAArch64
	}
	return Binary
}

// The machine setups: OVMF on q35 and SeaBIOS on pc are the two the live
// image is proven on; SeaBIOS on q35 is kept because its S3 resume is
// broken (after the first resume, suspends return at once), a real
// firmware fault the suspend/resume check must find.
var (
	OVMF = Machine{Name: "ovmf-q35", Type: "q35", UEFI: true, setup: ovmfArgs}
	// OVMFSMM is q35 with SMM emulated and OVMF's SMM build (Debian's
	// OVMF_CODE_4M.secboot.fd), which keeps its variable store in SMRAM
	// and locks SMRAM before it boots the OS.
	OVMFSMM    = Machine{Name: "ovmf-q35-smm", Type: "q35", UEFI: true, SMM: true, setup: ovmfArgs}
	SeaBIOS    = Machine{Name: "seabios-pc", Type: "pc", setup: func(tmp string, _ Config) ([]string, error) { return seabiosArgs(tmp) }}
	SeaBIOSQ35 = Machine{Name: "seabios-q35", Type: "q35", setup: func(tmp string, _ Config) ([]string, error) { return seabiosArgs(tmp) }}
)

// OVMF code/vars pairs, most preferred first. FWCHECK_OVMF_CODE and
// FWCHECK_OVMF_VARS override them.
var ovmfPairs = [][2]string{
	{"/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd"},
	{"/usr/share/OVMF/OVMF_CODE.fd", "/usr/share/OVMF/OVMF_VARS.fd"},
	{"/usr/share/edk2/ovmf/OVMF_CODE.fd", "/usr/share/edk2/ovmf/OVMF_VARS.fd"},
	{"/usr/share/edk2/x64/OVMF_CODE.4m.fd", "/usr/share/edk2/x64/OVMF_VARS.4m.fd"},
}

func findOVMF() (code, vars string, err error) {
	return findPair("OVMF", ovmfPairs, "apt-get install ovmf, or set FWCHECK_OVMF_CODE and FWCHECK_OVMF_VARS")
}

// findPair returns the firmware code/vars pair FWCHECK_<NAME>_CODE and
// FWCHECK_<NAME>_VARS give, or else the first of pairs whose files both
// exist; hint says how to get one.
func findPair(name string, pairs [][2]string, hint string) (code, vars string, err error) {
	if c, v := os.Getenv("FWCHECK_"+name+"_CODE"), os.Getenv("FWCHECK_"+name+"_VARS"); c != "" && v != "" {
		return c, v, nil
	}
	for _, p := range pairs {
		if fileExists(p[0]) && fileExists(p[1]) {
			return p[0], p[1], nil
		}
	}
	return "", "", fmt.Errorf("%s firmware not found (%s)", name, hint)
}

func ovmfArgs(tmp string, c Config) ([]string, error) {
	code, vars, err := findOVMF()
	if err != nil {
		return nil, err
	}
	var secure []string
	if c.Machine.SMM {
		if code, err = findOVMFSMM(); err != nil {
			return nil, err
		}
		secure = []string{"-global", "driver=cfi.pflash01,property=secure,value=on"}
	}
	if c.OVMFVars != "" {
		vars = c.OVMFVars
	}
	// The variable store is writable: give each boot its own copy.
	b, err := os.ReadFile(vars)
	if err != nil {
		return nil, err
	}
	myVars := filepath.Join(tmp, ovmfVarsCopy)
	if err := os.WriteFile(myVars, b, 0o644); err != nil {
		return nil, err
	}
	return append(secure,
		"-drive", "if=pflash,format=raw,unit=0,readonly=on,file="+code,
		"-drive", "if=pflash,format=raw,unit=1,file="+myVars,
	), nil
}

// findOVMFSMM returns OVMF's SMM build (FWCHECK_OVMF_SMM_CODE overrides).
func findOVMFSMM() (string, error) {
	for _, c := range []string{os.Getenv("FWCHECK_OVMF_SMM_CODE"), "/usr/share/OVMF/OVMF_CODE_4M.secboot.fd", "/usr/share/edk2/ovmf/OVMF_CODE.secboot.fd"} {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", errors.New("OVMF's SMM build not found (apt-get install ovmf: OVMF_CODE_4M.secboot.fd)")
}

// SeaBIOS images QEMU's pc machine loads by default.
var seabiosFiles = []string{"/usr/share/seabios/bios-256k.bin", "/usr/share/qemu/bios-256k.bin"}

func seabiosArgs(string) ([]string, error) {
	for _, f := range seabiosFiles {
		if fileExists(f) {
			return []string{"-bios", f}, nil
		}
	}
	return nil, errors.New("SeaBIOS not found (apt-get install seabios)")
}

// Available reports why m cannot boot on this host, or nil when it can.
func Available(m Machine) error {
	if m.Arch == "arm64" {
		return availableArm64()
	}
	if _, err := exec.LookPath(Binary); err != nil {
		return fmt.Errorf("%s not found (apt-get install qemu-system-x86)", Binary)
	}
	if m.UEFI {
		_, _, err := findOVMF()
		if err == nil && m.SMM {
			_, err = findOVMFSMM()
		}
		return err
	}
	_, err := seabiosArgs("")
	return err
}

// FindKernel returns the kernel to boot: FWCHECK_KERNEL when set, else the
// newest readable /boot/vmlinuz-*.
func FindKernel() (string, error) {
	if k := os.Getenv("FWCHECK_KERNEL"); k != "" {
		if !readable(k) {
			return "", fmt.Errorf("FWCHECK_KERNEL=%s is not readable", k)
		}
		return k, nil
	}
	ks, _ := filepath.Glob("/boot/vmlinuz-*")
	sort.Sort(sort.Reverse(sort.StringSlice(ks)))
	for _, k := range ks {
		if readable(k) {
			return k, nil
		}
	}
	return "", errors.New("no readable kernel in /boot (apt-get install linux-image-amd64, or set FWCHECK_KERNEL)")
}

// Config is one boot.
type Config struct {
	Machine   Machine
	Kernel    string
	Initramfs string
	// Append is added to the kernel command line after console=ttyS0.
	Append string
	// Accel is "kvm" or "tcg"; empty picks one with DefaultAccel.
	Accel string
	// Memory is the guest RAM in MiB (default 512).
	Memory int
	// Disks are raw disk images attached as IDE/AHCI drives.
	Disks []string
	// USB, when set, is a raw disk image attached as a USB stick
	// (usb-storage on an xHCI controller) and booted first. With an empty
	// Kernel the firmware boots it as it would a real stick.
	USB string
	// Console, when set, receives the serial console as it arrives.
	Console io.Writer
	// Input, when set, is typed into the serial console.
	Input io.Reader
	// TPM attaches a TPM 2.0 emulated by swtpm (see SWTPMAvailable).
	TPM bool
	// AllowReboot lets a guest reset restart it, as a real machine does;
	// otherwise a reset ends the run like a power-off (QEMU's -no-reboot).
	AllowReboot bool
	// TPMDevice is the TPM interface QEMU gives the guest: "tpm-tis" (the
	// default) or "tpm-crb".
	TPMDevice string
	// OVMFVars, on an OVMF machine, is the variable store to start from (a
	// copy is booted) instead of the firmware's empty one, e.g.
	// /usr/share/OVMF/OVMF_VARS_4M.ms.fd with Secure Boot keys enrolled.
	OVMFVars string
	// KeepVars, on an OVMF or AAVMF machine, is a file the variable store
	// the guest booted with is copied to when QEMU has exited: what the
	// firmware wrote to its flash, for a test to read (efi.ParseVarStore).
	KeepVars string
	// CPUs is the number of virtual CPUs (default 1).
	CPUs int
	// Extra are further QEMU arguments (-smbios …).
	Extra []string
	// Net, when set, attaches a network card (see Net).
	Net *Net
	// Drives are raw disk images attached on a chosen bus.
	Drives []Drive
	// QMP, when set, is the path of a QMP socket QEMU listens on (see
	// DialQMP): a test attaches disks or wakes the guest through it.
	QMP string
}

// Net is a virtio-net card on QEMU's user-mode network: the guest gets
// 10.0.2.15 by DHCP from QEMU, and 10.0.2.2 is the host's 127.0.0.1, so a
// server a test starts on the loopback is the lab's server.
type Net struct {
	// TFTP is the directory QEMU's own TFTP server serves; BootFile the
	// file its DHCP offers as the boot file. With an empty Config.Kernel
	// the NIC boots first, with QEMU's iPXE option ROM (Debian's
	// ipxe-qemu), which fetches BootFile and runs it (an iPXE script).
	TFTP, BootFile string
}

// NetArgs are QEMU's arguments for n; boot makes the card the first boot
// device.
func NetArgs(n Net, boot bool) []string {
	nd := "user,id=n0"
	if n.TFTP != "" {
		nd += ",tftp=" + n.TFTP
	}
	if n.BootFile != "" {
		nd += ",bootfile=" + n.BootFile
	}
	dev := "virtio-net-pci,netdev=n0"
	if boot {
		dev += ",bootindex=0"
	}
	return []string{"-netdev", nd, "-device", dev}
}

// KernelCmdline is the kernel command line the harness boots with, before
// Config.Append: for a netboot, where iPXE passes it (see Net).
func KernelCmdline(accel string) string {
	if accel == "" {
		accel = DefaultAccel()
	}
	cmdline := "console=ttyS0,115200 panic=-1 " + image.KernelArgs
	if accel == "tcg" {
		// See Config.args.
		cmdline += " no_timer_check"
	}
	return cmdline
}

// Drive is a raw disk image on one of the buses a lab's machines use.
type Drive struct {
	File string
	// Bus is "ide" (the machine's IDE, or AHCI on q35), "ahci" (an ICH9
	// AHCI controller), "virtio" (virtio-blk), "virtio-scsi", "nvme",
	// "usb" (usb-storage on xHCI) or "sd" (an SD card in an SDHCI PCI
	// controller; QEMU wants its size a power of two).
	Bus string
}

// DriveArgs are QEMU's arguments for drive number i; id names the drive and
// its device ("disk1"), for a QMP device_add of the same.
func DriveArgs(d Drive, i int) ([]string, error) {
	id := fmt.Sprintf("disk%d", i)
	drive := []string{"-drive", "if=none,id=" + id + ",format=raw,file=" + d.File}
	switch d.Bus {
	case "ide", "":
		return []string{"-drive", "if=ide,format=raw,file=" + d.File}, nil
	case "ahci":
		return append(drive, "-device", "ich9-ahci,id=ahci"+id, "-device", "ide-hd,bus=ahci"+id+".0,drive="+id), nil
	case "virtio":
		return append(drive, "-device", "virtio-blk-pci,drive="+id), nil
	case "virtio-scsi":
		return append(drive, "-device", "virtio-scsi-pci,id=scsi"+id, "-device", "scsi-hd,bus=scsi"+id+".0,drive="+id), nil
	case "nvme":
		return append(drive, "-device", "nvme,serial=fwcheck"+id+",drive="+id), nil
	case "usb":
		return append(drive, "-device", "qemu-xhci,id=xhci"+id, "-device", "usb-storage,bus=xhci"+id+".0,drive="+id), nil
	case "sd":
		return append(drive, "-device", "sdhci-pci,id=sdhci"+id, "-device", "sd-card,drive="+id), nil
	}
	return nil, fmt.Errorf("drive %s: unknown bus %q", d.File, d.Bus)
}

// SWTPM is the TPM emulator the harness runs for Config.TPM.
const SWTPM = "swtpm"

// SWTPMAvailable reports why a TPM cannot be attached, or nil.
func SWTPMAvailable() error {
	if _, err := exec.LookPath(SWTPM); err != nil {
		return errors.New("swtpm not found (apt-get install swtpm)")
	}
	return nil
}

// startTPM runs swtpm with its state and control socket in tmp and returns
// QEMU's arguments for it and a function that stops it.
func startTPM(tmp, device string) ([]string, func(), error) {
	if device == "" {
		device = "tpm-tis"
	}
	if err := SWTPMAvailable(); err != nil {
		return nil, nil, err
	}
	state := filepath.Join(tmp, "tpm")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, nil, err
	}
	sock := filepath.Join(tmp, "swtpm.sock")
	cmd := exec.Command(SWTPM, "socket", "--tpm2", "--tpmstate", "dir="+state,
		"--ctrl", "type=unixio,path="+sock, "--flags", "not-need-init,startup-clear")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			stop()
			return nil, nil, fmt.Errorf("swtpm did not start: %s", strings.TrimSpace(stderr.String()))
		}
	}
	return []string{
		"-chardev", "socket,id=chrtpm,path=" + sock,
		"-tpmdev", "emulator,id=tpm0,chardev=chrtpm",
		"-device", device + ",tpmdev=tpm0",
	}, stop, nil
}

// args returns QEMU's arguments for c, with files it needs put into tmp.
func (c Config) args(tmp string, interactive bool) ([]string, error) {
	fw, err := c.Machine.setup(tmp, c)
	if err != nil {
		return nil, err
	}
	accel := c.Accel
	if accel == "" {
		accel = DefaultAccel()
	}
	mem := c.Memory
	if mem == 0 {
		mem = 512
	}
	cpu := TCGCPU
	if accel == "kvm" {
		cpu = "host"
	}
	if c.Machine.Arch == "arm64" {
		return c.argsArm64(tmp, fw, accel, mem, interactive)
	}
	a := []string{
		"-machine", c.Machine.Type + map[bool]string{true: ",smm=on"}[c.Machine.SMM] + ",accel=" + accel,
		"-cpu", cpu,
		"-m", fmt.Sprint(mem),
		// Offer S3 to the guest explicitly, whatever the QEMU version's
		// default: the suspend/resume check cycles through it.
		"-global", map[bool]string{true: "ICH9-LPC", false: "PIIX4_PM"}[c.Machine.Type == "q35"] + ".disable_s3=0",
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
		cmdline := "console=ttyS0,115200 panic=-1 " + image.KernelArgs
		if accel == "tcg" {
			// The kernel's check that the IO-APIC delivers the 8254
			// timer counts ticks against a busy loop; an emulated CPU on
			// a loaded host misses them and the kernel panics ("IO-APIC
			// + timer doesn't work!", seen with load above 25 on two
			// cores). KVM guests skip the check by themselves.
			cmdline += " no_timer_check"
		}
		a = append(a,
			"-kernel", c.Kernel,
			"-initrd", c.Initramfs,
			"-append", strings.TrimSpace(cmdline+" "+c.Append),
		)
	}
	for _, d := range c.Disks {
		a = append(a, "-drive", "if=ide,format=raw,file="+d)
	}
	for i, d := range c.Drives {
		da, err := DriveArgs(d, i)
		if err != nil {
			return nil, err
		}
		a = append(a, da...)
	}
	if c.QMP != "" {
		a = append(a, "-qmp", "unix:"+c.QMP+",server=on,wait=off")
	}
	if c.Net != nil {
		a = append(a, NetArgs(*c.Net, c.Kernel == "")...)
	}
	if c.USB != "" {
		a = append(a, "-device", "qemu-xhci,id=xhci",
			"-drive", "if=none,id=usbstick,format=raw,file="+c.USB,
			"-device", "usb-storage,bus=xhci.0,drive=usbstick,removable=on,bootindex=0")
	}
	return a, nil
}

// Run boots c headless and returns the serial console once the guest
// powers off (or reboots, or panics: QEMU runs with -no-reboot and the
// kernel with panic=-1). ctx bounds the boot; on expiry QEMU is killed and
// the console so far is returned with the context's error.
func Run(ctx context.Context, c Config) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "fwcheck-qemu-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	args, err := c.args(tmp, false)
	if err != nil {
		return nil, err
	}
	if c.TPM {
		tpmArgs, stop, err := startTPM(tmp, c.TPMDevice)
		if err != nil {
			return nil, err
		}
		defer stop()
		args = append(args, tpmArgs...)
	}
	var console, stderr bytes.Buffer
	cmd := exec.Command(c.Machine.Binary(), args...)
	cmd.Stdout = &console
	if c.Console != nil {
		cmd.Stdout = io.MultiWriter(&console, c.Console)
	}
	cmd.Stderr = &stderr
	var stdin io.WriteCloser
	if c.Input != nil {
		// Copy input ourselves: it may never end, and exec.Cmd.Wait would
		// wait for its copier.
		if stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if stdin != nil {
		go func() { _, _ = io.Copy(stdin, c.Input) }()
		defer stdin.Close()
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
		if err != nil {
			err = fmt.Errorf("%s: %w: %s", c.Machine.Binary(), err, strings.TrimSpace(stderr.String()))
		}
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		err = fmt.Errorf("%s %s: guest did not power off: %w", c.Machine.Binary(), c.Machine.Name, ctx.Err())
	}
	if c.KeepVars != "" && c.Machine.UEFI {
		if kerr := keepVars(tmp, c.KeepVars); err == nil {
			err = kerr
		}
	}
	return console.Bytes(), err
}

// The names of the variable store copies a UEFI machine's setup writes
// into the run's directory and boots.
const (
	ovmfVarsCopy  = "OVMF_VARS.fd"
	aavmfVarsCopy = "AAVMF_VARS.fd"
)

// keepVars copies the variable store a UEFI guest ran with (the copy the
// machine's setup wrote into tmp) to dst.
func keepVars(tmp, dst string) error {
	for _, name := range []string{ovmfVarsCopy, aavmfVarsCopy} {
		b, err := os.ReadFile(filepath.Join(tmp, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	}
	return fmt.Errorf("keep the variable store: no firmware variable store in %s", tmp)
}

// Interactive boots c with the serial console (and QEMU's monitor, Ctrl-A
// C) on this process's terminal, until the guest powers off or the user
// quits with Ctrl-A X.
func Interactive(c Config) error {
	if err := Available(c.Machine); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "fwcheck-qemu-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	args, err := c.args(tmp, true)
	if err != nil {
		return err
	}
	if c.TPM {
		tpmArgs, stop, err := startTPM(tmp, c.TPMDevice)
		if err != nil {
			return err
		}
		defer stop()
		args = append(args, tpmArgs...)
	}
	cmd := exec.Command(c.Machine.Binary(), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if c.Console != nil { // the terminal through a filter (make demo)
		cmd.Stdout = c.Console
	}
	return cmd.Run()
}

var (
	accelOnce sync.Once
	accel     string
)

// DefaultAccel returns the accelerator to use: FWCHECK_QEMU_ACCEL when set,
// "kvm" when /dev/kvm exists and a KVM guest really runs code (a one-sector
// boot disk that writes to the serial port), "tcg" otherwise. The probe
// runs once per process and takes at most a few seconds.
func DefaultAccel() string {
	accelOnce.Do(func() {
		if a := os.Getenv("FWCHECK_QEMU_ACCEL"); a != "" {
			accel = a
			return
		}
		accel = "tcg"
		if KVMWorks(5 * time.Second) {
			accel = "kvm"
		}
	})
	return accel
}

// probeMagic is what the probe boot sector writes to COM1.
const probeMagic = "FWKVMOK"

// probeSector is a BIOS boot sector that writes probeMagic to COM1 and halts.
func probeSector() []byte {
	var code []byte
	code = append(code, 0xba, 0xf8, 0x03) // mov dx, 0x3f8
	for _, ch := range []byte(probeMagic + "\n") {
		code = append(code, 0xb0, ch, 0xee) // mov al, ch; out dx, al
	}
	code = append(code, 0xfa, 0xf4, 0xeb, 0xfd) // cli; hlt; jmp hlt
	s := make([]byte, 512)
	copy(s, code)
	s[510], s[511] = 0x55, 0xaa
	return s
}

// KVMWorks reports whether a KVM guest boots and runs code here within
// timeout.
func KVMWorks(timeout time.Duration) bool {
	if _, err := os.Stat("/dev/kvm"); err != nil {
		return false
	}
	return probe("kvm", timeout)
}

// probe boots the probe sector with accelerator accel and reports whether
// it printed its message within timeout.
func probe(accel string, timeout time.Duration) bool {
	if _, err := exec.LookPath(Binary); err != nil {
		return false
	}
	tmp, err := os.MkdirTemp("", "fwcheck-kvmprobe-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(tmp)
	disk := filepath.Join(tmp, "probe.img")
	if err := os.WriteFile(disk, probeSector(), 0o644); err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, Binary, "-machine", "pc,accel="+accel, "-nodefaults", "-display", "none",
		"-monitor", "none", "-serial", "stdio", "-drive", "if=ide,format=raw,file="+disk)
	out := &syncBuffer{}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		return false
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for ctx.Err() == nil {
		if strings.Contains(out.String(), probeMagic) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func readable(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
