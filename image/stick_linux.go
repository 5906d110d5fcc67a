package image

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// stickSettle is how long the live image waits for the boot stick to show
// up among the disks once the drivers are loaded. The stick is known to be
// there (the machine booted from it), so the wait can be long: USB
// enumeration takes seconds on some machines, and more under emulation.
const stickSettle = 30 * time.Second

// StickConfig reads fwcheck.cfg from the boot partition of the stick the
// machine booted from: the partition whose FAT serial number the stick's
// GRUB passed as fwcheck.esp. It loads the disk drivers to do so (before
// the checks: on a stick boot their probing is part of the boot), waits
// for the partition, mounts it read-only and unmounts it again. It returns
// nil and no error when the partition holds no fwcheck.cfg.
func (l *Live) StickConfig(esp string) ([]byte, error) {
	if esp == "" {
		return nil, nil
	}
	l.loadStorage()
	var boot []BlockDev
	for deadline := time.Now().Add(stickSettle); ; time.Sleep(250 * time.Millisecond) {
		boot = boot[:0]
		for _, d := range ScanBlockDevices(l.Root) {
			if d.Partition && d.FAT != nil && d.FAT.Serial == esp {
				boot = append(boot, d)
			}
		}
		if len(boot) > 0 || time.Now().After(deadline) {
			break
		}
	}
	switch len(boot) {
	case 0:
		return nil, fmt.Errorf("%s not read: %w: no partition has the serial number %s (fwcheck.esp)", StickConfigName, ErrStickNotFound, esp)
	case 1:
	default:
		return nil, fmt.Errorf("%s not read: %d partitions (%s) have the boot partition's serial number %s", StickConfigName, len(boot), names(boot), esp)
	}
	dev := l.path("dev/" + boot[0].Name)
	mnt := l.path("tmp/fwcheck-boot")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return nil, err
	}
	if err := unix.Mount(dev, mnt, "vfat", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return nil, fmt.Errorf("%s not read: mount %s: %w", StickConfigName, dev, err)
	}
	defer unix.Unmount(mnt, 0)
	f, err := os.Open(filepath.Join(mnt, StickConfigName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxConfigFile+1))
}

// loadStorage loads the disk and FAT drivers (again: a loaded module is
// not an error).
func (l *Live) loadStorage() {
	for _, e := range l.storage {
		if _, err := l.loadModule(e.Name); err != nil {
			l.Logf("fwcheck: %v", err)
		}
	}
}
