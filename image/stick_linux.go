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

// Results is the results partition, mounted, with this run's folder on it.
type Results struct {
	// Dev is the partition's device node, Dir the run's folder (absolute,
	// in the live image) and Folder its name on the partition.
	Dev, Dir, Folder string
	mnt              string
}

// OpenResults loads the disk and FAT drivers, finds the results partition
// (with PickResults: on the boot stick when esp is set), mounts it and
// creates the folder of the run that started at stamp. It returns
// ErrNoResultsPartition, possibly wrapped, when there is none to write to.
// Call Close when done.
func (l *Live) OpenResults(esp string, stamp time.Time) (*Results, error) {
	l.loadStorage()
	wait := diskSettle
	if usb, _ := os.ReadDir(l.path("sys/bus/usb/devices")); len(usb) > 0 {
		wait = usbSettle
	}
	if esp != "" {
		wait = stickSettle
	}
	var (
		dev BlockDev
		err error
	)
	for deadline := time.Now().Add(wait); ; time.Sleep(250 * time.Millisecond) {
		dev, err = PickResults(ScanBlockDevices(l.Root), esp)
		if err == nil || time.Now().After(deadline) {
			break
		}
		if !errors.Is(err, ErrStickNotFound) && !errors.Is(err, ErrNoResultsPartition) {
			break // ambiguous: waiting does not help
		}
	}
	if err != nil {
		return nil, err
	}
	r := &Results{Dev: l.path("dev/" + dev.Name), mnt: l.path("tmp/fwcheck-results")}
	if err := os.MkdirAll(r.mnt, 0o755); err != nil {
		return nil, err
	}
	if err := unix.Mount(r.Dev, r.mnt, "vfat", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "flush"); err != nil {
		return nil, fmt.Errorf("mount %s: %w", r.Dev, err)
	}
	r.Folder = RunFolder(stamp.UTC().Format("20060102-150405"), func(name string) bool {
		_, err := os.Lstat(filepath.Join(r.mnt, name))
		return err == nil
	})
	r.Dir = filepath.Join(r.mnt, r.Folder)
	if err := os.Mkdir(r.Dir, 0o755); err != nil {
		_ = unix.Unmount(r.mnt, 0)
		return nil, fmt.Errorf("%s: %w", r.Dev, err)
	}
	return r, nil
}

// WriteFile writes one file of the run's folder and flushes it to the
// stick.
func (r *Results) WriteFile(name string, data []byte) error {
	f, err := os.OpenFile(filepath.Join(r.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close flushes and unmounts the results partition, so that the stick can
// be pulled out.
func (r *Results) Close() error {
	unix.Sync()
	if err := unix.Unmount(r.mnt, 0); err != nil {
		return fmt.Errorf("unmount %s: %w", r.Dev, err)
	}
	return nil
}

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
