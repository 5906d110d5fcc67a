package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// BlockDev is one block device of the machine as the live image sees it in
// sysfs, with the FAT identity of its first sector when it holds one.
type BlockDev struct {
	// Name is the kernel's name ("sdb2"); /dev/Name is its node.
	Name string
	// Disk is the whole disk a partition belongs to ("sdb"); for a
	// whole disk it is Name.
	Disk string
	// Partition is true for a partition.
	Partition bool
	// FAT is the FAT volume on the device, nil when it holds none.
	FAT *FATVolume
}

// ScanBlockDevices lists the block devices under root (sys/class/block),
// reading the FAT boot sector of each from root/dev. Devices that cannot be
// read are listed without a FAT volume.
func ScanBlockDevices(root string) []BlockDev {
	ents, err := os.ReadDir(filepath.Join(root, "sys/class/block"))
	if err != nil {
		return nil
	}
	var out []BlockDev
	for _, e := range ents {
		d := BlockDev{Name: e.Name(), Disk: e.Name()}
		sys := filepath.Join(root, "sys/class/block", e.Name())
		if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
			d.Partition = true
			// sys/class/block/sdb2 links to .../block/sdb/sdb2.
			if target, err := filepath.EvalSymlinks(sys); err == nil {
				d.Disk = filepath.Base(filepath.Dir(target))
			} else {
				d.Disk = ""
			}
		}
		if f, err := os.Open(filepath.Join(root, "dev", e.Name())); err == nil {
			if v, err := ReadFATVolume(f); err == nil {
				d.FAT = &v
			}
			f.Close()
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ErrNoResultsPartition means no FAT file system labelled ResultsLabel was
// found where the live image may write.
var ErrNoResultsPartition = errors.New("no " + ResultsLabel + " partition")

// ErrStickNotFound means the boot partition named by fwcheck.esp is not
// among the machine's block devices (yet).
var ErrStickNotFound = errors.New("the boot stick's partition is not among the disks")

// PickResults chooses the partition the live image writes its results to.
//
// When esp is the FAT serial number of the partition the boot loader
// started from (fwcheck.esp, set by the stick's GRUB), the results go only
// to a partition labelled ResultsLabel on the same disk as that boot
// partition, the boot stick: a FWCHECK partition on any other disk of the
// machine is never chosen. Exactly one partition may carry the serial
// number (two means a copy of the stick is attached and the boot disk is
// not known: nothing is written), and exactly one ResultsLabel partition
// may be on that disk.
//
// Without esp (the image was booted by another boot loader, or with
// QEMU's -kernel), the results go to the one FAT file system labelled
// ResultsLabel on the machine; when there are several, to none, since
// which one the user meant is not known.
func PickResults(devs []BlockDev, esp string) (BlockDev, error) {
	isResults := func(d BlockDev) bool { return d.FAT != nil && strings.EqualFold(d.FAT.Label, ResultsLabel) }
	var cands []BlockDev
	if esp == "" {
		for _, d := range devs {
			if isResults(d) {
				cands = append(cands, d)
			}
		}
		switch len(cands) {
		case 0:
			return BlockDev{}, ErrNoResultsPartition
		case 1:
			return cands[0], nil
		}
		return BlockDev{}, fmt.Errorf("%d file systems labelled %s (%s): not writing to any, as which one is meant is not known; boot from the fwcheck stick or keep one",
			len(cands), ResultsLabel, names(cands))
	}
	var boot []BlockDev
	for _, d := range devs {
		if d.Partition && d.FAT != nil && strings.EqualFold(d.FAT.Serial, esp) {
			boot = append(boot, d)
		}
	}
	switch {
	case len(boot) == 0:
		return BlockDev{}, fmt.Errorf("%w: no partition has the FAT serial number %s the boot loader passed (fwcheck.esp)", ErrStickNotFound, esp)
	case len(boot) > 1:
		return BlockDev{}, fmt.Errorf("%d partitions (%s) have the boot partition's serial number %s: a copy of the stick is attached, and which disk booted is not known; not writing results",
			len(boot), names(boot), esp)
	case boot[0].Disk == "":
		return BlockDev{}, fmt.Errorf("the disk holding the boot partition %s is not known: not writing results", boot[0].Name)
	}
	stick := boot[0].Disk
	for _, d := range devs {
		if d.Partition && d.Disk == stick && isResults(d) {
			cands = append(cands, d)
		}
	}
	switch len(cands) {
	case 0:
		return BlockDev{}, fmt.Errorf("%w on the boot stick %s (was it relabelled or reformatted?)", ErrNoResultsPartition, stick)
	case 1:
		return cands[0], nil
	}
	return BlockDev{}, fmt.Errorf("%d partitions labelled %s on the boot stick %s (%s): not writing to any", len(cands), ResultsLabel, stick, names(cands))
}

func names(ds []BlockDev) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Name)
	}
	return strings.Join(s, ", ")
}

// RunFolder returns the name of a run's folder on the results partition,
// "fwcheck-YYYYMMDD-HHMMSS" from the run's start (UTC), with "-2", "-3"…
// added when exists says the name is taken.
func RunFolder(stamp string, exists func(name string) bool) string {
	base := "fwcheck-" + stamp
	name := base
	for n := 2; exists(name) && n < 1000; n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	return name
}

// Names of the files in a run's folder on the results partition.
const (
	RunResultsJSON = "results.json"    // the results document (docs/results.md)
	RunReportText  = "report.txt"      // the human report
	RunReportHTML  = "report.html"     // the report as one HTML page
	RunKernelLog   = "kernel.log"      // the whole kernel log at the end of the run
	RunSnapshot    = "snapshot.tar.gz" // every input, for fwcheck run --from
)
