package image

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Live is fwcheck's view of the booted live image: the consoles it prints
// on, the modules it loaded and the background work it started.
type Live struct {
	// Root is the root of the file system, "/" in the image; tests use a
	// temporary directory for the parts that do not need privileges.
	Root string

	consoles []*os.File // every console the kernel prints on
	serial   []*os.File // the serial ones among them
	out      io.Writer  // all consoles, for progress messages

	storage []ModuleEntry // GroupStorage modules, loaded after the checks
	net     []ModuleEntry // GroupNet modules, loaded by NetUp only

	resultsDir, resultsDev string // the results partition, while mounted

	// ESP is the FAT serial number of the boot stick's boot partition
	// (fwcheck.esp), set before OpenResults; empty when the image was not
	// booted from the stick.
	ESP string
	// DiskWait, when not zero, is how long OpenResults waits for the
	// results disk at most (fwcheck.disk-wait), instead of its default.
	DiskWait time.Duration
}

type mountSpec struct {
	source, target, fstype string
	flags                  uintptr
	data                   string
	need                   string // path that must exist for the mount to make sense
}

// Mounts done before modules are loaded, and after.
var (
	earlyMounts = []mountSpec{
		{"proc", "proc", "proc", unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC, "", ""},
		{"sysfs", "sys", "sysfs", unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC, "", ""},
		{"devtmpfs", "dev", "devtmpfs", unix.MS_NOSUID, "mode=0755", ""},
	}
	lateMounts = []mountSpec{
		{"efivarfs", "sys/firmware/efi/efivars", "efivarfs", unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC, "", "sys/firmware/efi"},
		{"securityfs", "sys/kernel/security", "securityfs", unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC, "", "sys/kernel/security"},
		{"debugfs", "sys/kernel/debug", "debugfs", unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC, "", "sys/kernel/debug"},
		// What earlier boots left in pstore: the end of the log of a
		// boot that hung in a suspend/resume cycle.
		{"pstore", "sys/fs/pstore", "pstore", unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC, "", "sys/fs/pstore"},
	}
)

// Setup prepares the live image for the checks: it opens the consoles,
// mounts sysfs, proc and devtmpfs, loads the GroupChecks modules and
// mounts efivarfs (on UEFI machines), securityfs and debugfs. The disk
// drivers wait until the checks are done (OpenResults), so that their
// probing does not race with the checks that read the kernel log. Problems are printed on the
// consoles and returned; none of them stops the checks, which skip what
// they cannot read.
func Setup() (*Live, error) {
	l := &Live{Root: "/"}
	var errs []error
	for _, m := range earlyMounts {
		errs = append(errs, l.mount(m))
	}
	l.openConsoles()
	entries, err := l.moduleOrder()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	var loaded, mountedFS []string
	for _, e := range entries {
		if e.Group != GroupStorage && e.Group != GroupNet {
			ok, err := l.loadModule(e.Name)
			if ok {
				loaded = append(loaded, e.Name)
			}
			errs = append(errs, err)
		}
	}
	for _, m := range lateMounts {
		err := l.mount(m)
		if err == nil && mounted(l.path(m.target), m.fstype) {
			mountedFS = append(mountedFS, m.fstype)
		}
		errs = append(errs, err)
	}
	l.Logf("fwcheck: setup: modules [%s], mounted [%s]", strings.Join(loaded, " "), strings.Join(mountedFS, " "))
	for _, e := range entries {
		if e.Group == GroupStorage {
			l.storage = append(l.storage, e)
		}
		if e.Group == GroupNet {
			l.net = append(l.net, e)
		}
	}
	err = errors.Join(errs...)
	if err != nil {
		for _, e := range errs {
			if e != nil {
				l.Logf("fwcheck: setup: %v", e)
			}
		}
	}
	return l, err
}

func (l *Live) path(p string) string { return filepath.Join(l.Root, p) }

func (l *Live) mount(m mountSpec) error {
	if m.need != "" {
		if _, err := os.Stat(l.path(m.need)); err != nil {
			return nil // not this kind of machine (e.g. efivarfs on BIOS)
		}
	}
	target := l.path(m.target)
	if mounted(target, m.fstype) {
		return nil
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		return fmt.Errorf("mount %s: %w", m.fstype, err)
	}
	if err := unix.Mount(m.source, target, m.fstype, m.flags, m.data); err != nil && !errors.Is(err, unix.EBUSY) {
		return fmt.Errorf("mount %s on %s: %w", m.fstype, target, err)
	}
	return nil
}

// mounted reports whether a file system of type fstype is mounted on target.
func mounted(target, fstype string) bool {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[1] == target && f[2] == fstype {
			return true
		}
	}
	return false
}

func (l *Live) moduleOrder() ([]ModuleEntry, error) {
	f, err := os.Open(l.path(ModuleOrderFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseModuleOrder(f)
}

// loadModule loads the module name from the image and reports whether it
// is in the kernel afterwards.
func (l *Live) loadModule(name string) (bool, error) {
	file := l.path(ModuleFile(name))
	f, err := os.Open(file)
	if err != nil {
		return false, fmt.Errorf("module %s: %w", name, err)
	}
	defer f.Close()
	err = unix.FinitModule(int(f.Fd()), "", 0)
	if errors.Is(err, unix.ENOSYS) {
		var b []byte
		if b, err = os.ReadFile(file); err == nil {
			err = unix.InitModule(b, "")
		}
	}
	switch {
	case err == nil, errors.Is(err, unix.EEXIST): // loaded, or already there
		return true, nil
	case errors.Is(err, unix.ENODEV):
		// Nothing for it on this machine: efivarfs refuses to load
		// when the kernel was not booted through UEFI.
		return false, nil
	}
	return false, fmt.Errorf("module %s: %w", name, err)
}

// openConsoles opens every console listed in /proc/consoles. Without that
// list, standard output stands in for all of them.
func (l *Live) openConsoles() {
	b, err := os.ReadFile(l.path("proc/consoles"))
	if err == nil {
		for _, name := range ParseConsoles(b) {
			f, err := os.OpenFile(l.path("dev/"+name), os.O_WRONLY|unix.O_NOCTTY, 0)
			if err != nil {
				continue
			}
			l.consoles = append(l.consoles, f)
			if IsSerialConsole(name) {
				l.serial = append(l.serial, f)
			}
		}
	}
	var ws []io.Writer
	for _, f := range l.consoles {
		ws = append(ws, f)
	}
	if len(ws) == 0 {
		ws = []io.Writer{os.Stdout}
	}
	l.out = io.MultiWriter(ws...)
}

// Logf prints a progress line on every console.
func (l *Live) Logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	io.WriteString(l.out, msg)
}

// Console returns a writer that prints on every console.
func (l *Live) Console() io.Writer { return l.out }

// Serial returns a writer that prints on every serial console, or on
// standard output when there is none: where the per-result lines
// (report/lines) go, as the results block does.
func (l *Live) Serial() io.Writer {
	if len(l.serial) == 0 {
		return os.Stdout
	}
	ws := make([]io.Writer, len(l.serial))
	for i, f := range l.serial {
		ws[i] = f
	}
	return io.MultiWriter(ws...)
}

// Uptime is the time since the kernel started (CLOCK_BOOTTIME).
func Uptime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// ProcessStarted is when the kernel started this process (its exec), as a
// time since kernel start, from /proc/self/stat's starttime; its
// resolution is the kernel's USER_HZ tick (10 ms). It is -1 when the file
// does not say. With Uptime at main it divides a process's start between
// its parent and the Go runtime's own start-up (issue 24's boot times).
func ProcessStarted() time.Duration {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return -1
	}
	return statStartTime(string(b))
}

// Publish shows the results: the human report on every console, then the
// JSON document framed by BeginMarker and EndMarker on every serial console
// (on standard output when there is none), with kernel console messages
// held back while the JSON block is printed so that nothing interleaves.
func (l *Live) Publish(text, jsonDoc []byte) error {
	if _, err := l.out.Write(text); err != nil {
		return err
	}
	var block bytes.Buffer
	block.WriteString("\n" + BeginMarker + "\n")
	block.Write(bytes.TrimRight(jsonDoc, "\n"))
	block.WriteString("\n" + EndMarker + "\n")

	restore := quietKernel(l.path("proc/sys/kernel/printk"))
	defer restore()
	var targets []io.Writer
	for _, f := range l.serial {
		targets = append(targets, f)
	}
	if len(targets) == 0 {
		targets = []io.Writer{os.Stdout}
	}
	var errs []error
	for _, w := range targets {
		if _, err := w.Write(block.Bytes()); err != nil {
			errs = append(errs, err)
		}
		if f, ok := w.(*os.File); ok {
			// Wait until the UART has sent the block before letting the
			// kernel print again.
			_ = unix.IoctlSetInt(int(f.Fd()), unix.TCSBRK, 1)
		}
	}
	return errors.Join(errs...)
}

// quietKernel lowers the console log level to 1 (emergencies only) and
// returns a function that restores the previous setting.
func quietKernel(printk string) func() {
	old, err := os.ReadFile(printk)
	if err != nil {
		return func() {}
	}
	if err := os.WriteFile(printk, []byte("1"), 0o644); err != nil {
		return func() {}
	}
	return func() {
		f := strings.Fields(string(old))
		if len(f) > 0 {
			_ = os.WriteFile(printk, []byte(f[0]), 0o644)
		}
	}
}

// OpenResults loads the disk and FAT drivers and mounts the FAT file system
// labelled ResultsLabel (on a boot from the USB stick, l.ESP set: the
// stick's own, see PickResults), waiting for it as waitForResults says, and
// keeps it mounted until CloseResults: runs that must survive a reset (the
// s3 and reboot journals) write there as they go. journal, when not empty,
// names the journal the run keeps there ("the s3 journal"): such a run
// waits long (JournalWait), any other briefly (ResultsWait). The console
// shows what the wait is for and what it found. It returns the mount
// directory and the device, or ok=false when there is no results disk
// (ok=false with an error when the stick's cannot be told apart). Calling
// it again returns the same mount.
func (l *Live) OpenResults(journal string) (dir, dev string, ok bool, err error) {
	if l.resultsDir != "" {
		return l.resultsDir, l.resultsDev, true, nil
	}
	l.loadStorage()
	w, why := ResultsWait, ""
	if usb, _ := os.ReadDir(l.path("sys/bus/usb/devices")); len(usb) > 0 {
		w = ResultsWaitUSB
	}
	if journal != "" {
		w, why = JournalWait, "for "+journal
	}
	if l.ESP != "" {
		w.Limit = max(w.Limit, stickSettle)
	}
	if l.DiskWait > 0 {
		w.Limit = l.DiskWait
	}
	r := waitForResults(l.Root, l.ESP, w, why, realClock, l.Logf)
	pick, err := r.pick, r.err
	switch {
	case errors.Is(err, ErrNoResultsPartition) && l.ESP == "":
		return "", "", false, nil
	case err != nil:
		return "", "", false, err
	}
	dev = l.path("dev/" + pick.Name)
	mnt := l.path("tmp/fwcheck-results")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return "", dev, true, err
	}
	if err := unix.Mount(dev, mnt, "vfat", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "flush"); err != nil {
		return "", dev, true, fmt.Errorf("mount %s: %w", dev, err)
	}
	l.resultsDir, l.resultsDev = mnt, dev
	return mnt, dev, true, nil
}

// CloseResults writes out and unmounts the results partition, if mounted.
func (l *Live) CloseResults() error {
	if l.resultsDir == "" {
		return nil
	}
	unix.Sync()
	err := unix.Unmount(l.resultsDir, 0)
	if err != nil {
		err = fmt.Errorf("unmount %s: %w", l.resultsDev, err)
	}
	l.resultsDir, l.resultsDev = "", ""
	return err
}

// releaseTTY gives up the controlling terminal before fwcheck exits.
// u-root's init starts the uinit as a session leader on the console and has
// already opened the console devices the shell will write to; when a
// session leader exits holding its terminal, the kernel hangs up every open
// file of that terminal, including the shell's, and the shell dies at once.
// TIOCNOTTY detaches without that hangup (its SIGHUP goes to our own
// process group, which ignores it here).
func releaseTTY() {
	signal.Ignore(unix.SIGHUP)
	for fd := 0; fd <= 2; fd++ {
		if unix.IoctlSetInt(fd, unix.TIOCNOTTY, 0) == nil {
			return
		}
	}
}

// DoAfter carries out the after-action. AfterShell returns, so that u-root's
// init starts the shell; poweroff and reboot only return on failure.
func (l *Live) DoAfter(a After) error {
	var cmd int
	switch a {
	case AfterPoweroff:
		cmd = unix.LINUX_REBOOT_CMD_POWER_OFF
	case AfterReboot:
		cmd = unix.LINUX_REBOOT_CMD_RESTART
	default:
		l.Logf("fwcheck: done; starting the shell (fwcheck.after=poweroff|reboot to change this)")
		releaseTTY()
		return nil
	}
	l.Logf("fwcheck: done; %s", a)
	unix.Sync()
	if err := unix.Reboot(cmd); err != nil {
		return fmt.Errorf("%s: %w", a, err)
	}
	select {} // the kernel is going down
}
