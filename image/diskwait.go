package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// How long the live image waits for the results disk. Disks appear
// asynchronously while their drivers probe: SATA links train, NVMe
// controllers reset, USB devices enumerate (behind hubs, and usb-storage
// waits a second before it scans), SD cards are detected, and a loaded
// hypervisor does all of that slowly. Like a careful init waiting for its
// root file system, the image waits until the FWCHECK label appears or the
// disks stop appearing (no block, SCSI, USB or MMC device came or went for
// Quiet, and no NVMe controller is still starting), bounded by Limit.
//
// A run that needs the disk for its journal (S3 and reboot cycling) waits
// long: without the journal it does not run at all, so a minute spent
// waiting is cheap. Saving the results of a run that did not act on the
// machine waits briefly.
var (
	// JournalWait is the wait of a run that keeps a journal.
	JournalWait = DiskWait{Limit: 60 * time.Second, Quiet: 20 * time.Second}
	// ResultsWait is the wait for the disk the results are saved to.
	ResultsWait = DiskWait{Limit: 15 * time.Second, Quiet: 3 * time.Second}
	// ResultsWaitUSB is ResultsWait on a machine with USB devices, which
	// take longer to enumerate and scan.
	ResultsWaitUSB = DiskWait{Limit: 15 * time.Second, Quiet: 6 * time.Second}
)

// DiskWait bounds the wait for the results disk.
type DiskWait struct {
	// Limit is the longest wait.
	Limit time.Duration
	// Quiet ends the wait earlier: the disks have settled when none came
	// or went for this long. Zero (or Quiet ≥ Limit) waits for the label
	// until Limit.
	Quiet time.Duration
}

// pollEvery is how often the wait looks at the disks again.
const pollEvery = 200 * time.Millisecond

// diskActivity are the sysfs directories whose entries come and go while
// storage drivers probe.
var diskActivity = []string{"sys/class/block", "sys/bus/scsi/devices", "sys/bus/usb/devices", "sys/bus/mmc/devices", "sys/class/nvme"}

// maxActivityEntries bounds what one look at a directory reads.
const maxActivityEntries = 4096

// diskState is one look at the machine's disks.
type diskState struct {
	devs []BlockDev
	// sig changes whenever a device came or went, or a device's FAT
	// volume became readable.
	sig string
	// starting lists NVMe controllers not yet live.
	starting []string
}

// lookAtDisks reads the disks under root.
func lookAtDisks(root string) diskState {
	s := diskState{devs: ScanBlockDevices(root)}
	var b strings.Builder
	for _, dir := range diskActivity {
		f, err := os.Open(filepath.Join(root, dir))
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(maxActivityEntries)
		f.Close()
		sort.Strings(names)
		b.WriteString(dir + ":" + strings.Join(names, ",") + ";")
		if dir == "sys/class/nvme" {
			for _, n := range names {
				st, err := os.ReadFile(filepath.Join(root, dir, n, "state"))
				// new, resetting, connecting: still starting; live,
				// dead, deleting: nothing more will come.
				if err == nil && strings.TrimSpace(string(st)) != "live" && !strings.HasPrefix(string(st), "dead") && !strings.HasPrefix(string(st), "deleting") {
					s.starting = append(s.starting, n)
				}
			}
		}
	}
	for _, d := range s.devs {
		if d.FAT != nil {
			b.WriteString(d.Name + "=" + d.FAT.Serial + ";")
		}
	}
	s.sig = b.String()
	return s
}

// waitClock is the time the wait runs on; tests replace it.
type waitClock struct {
	now   func() time.Time
	sleep func(time.Duration)
}

var realClock = waitClock{now: time.Now, sleep: time.Sleep}

// diskWaitResult is how a wait for the results disk ended.
type diskWaitResult struct {
	pick    BlockDev
	err     error // from PickResults: nil when pick is the results disk
	waited  time.Duration
	settled bool // ended because the disks stopped appearing
	devs    []BlockDev
}

// waitForResults looks at the disks under root until PickResults finds the
// results disk (for esp, see PickResults), the disks settle or w.Limit
// passes, printing what it waits for and, every ten seconds, what it has
// seen. A stick boot (esp set) waits for the stick until Limit: it is
// known to be there.
func waitForResults(root, esp string, w DiskWait, why string, clk waitClock, logf func(string, ...any)) diskWaitResult {
	start := clk.now()
	quiet := w.Quiet
	if esp != "" || quiet <= 0 || quiet > w.Limit {
		quiet = w.Limit
	}
	what := "a FAT file system labelled " + ResultsLabel
	if esp != "" {
		what = "the " + ResultsLabel + " partition of the boot stick (boot partition serial " + esp + ")"
	}
	if why != "" {
		what += " " + why
	}
	if quiet < w.Limit {
		logf("fwcheck: waiting up to %v for %s, or until no disk has appeared for %v", w.Limit, what, quiet)
	} else {
		logf("fwcheck: waiting up to %v for %s", w.Limit, what)
	}
	var r diskWaitResult
	lastSig, lastChange, lastReport := "", start, start
	for first := true; ; first = false {
		now := clk.now()
		s := lookAtDisks(root)
		r.devs = s.devs
		r.pick, r.err = PickResults(s.devs, esp)
		r.waited = now.Sub(start)
		if r.err == nil {
			logf("fwcheck: found %s on %s after %.1f s; disks: %s", ResultsLabel, describeDev(r.pick), r.waited.Seconds(), describeDisks(s.devs))
			return r
		}
		if !errors.Is(r.err, ErrStickNotFound) && !errors.Is(r.err, ErrNoResultsPartition) {
			logf("fwcheck: %v", r.err) // ambiguous: waiting does not help
			return r
		}
		if first || s.sig != lastSig {
			lastSig, lastChange = s.sig, now
		}
		if len(s.starting) > 0 {
			lastChange = now // an NVMe controller is still coming up
		}
		switch {
		case now.Sub(lastChange) >= quiet && quiet < w.Limit:
			r.settled = true
			logf("fwcheck: no %s after %.1f s: no disk appeared for %v; disks: %s", ResultsLabel, r.waited.Seconds(), quiet, describeDisks(s.devs))
			return r
		case r.waited >= w.Limit:
			logf("fwcheck: no %s after %.1f s (the limit); disks: %s", ResultsLabel, r.waited.Seconds(), describeDisks(s.devs))
			return r
		case now.Sub(lastReport) >= 10*time.Second:
			lastReport = now
			logf("fwcheck: still waiting for %s (%.0f s); disks so far: %s", ResultsLabel, r.waited.Seconds(), describeDisks(s.devs))
		}
		clk.sleep(pollEvery)
	}
}

// describeDev names a device for the console: "vdb (whole disk, FAT
// serial 1234-ABCD)".
func describeDev(d BlockDev) string {
	kind := "whole disk"
	if d.Partition {
		kind = "partition of " + d.Disk
	}
	serial := ""
	if d.FAT != nil {
		serial = ", FAT serial " + d.FAT.Serial
	}
	return fmt.Sprintf("%s (%s%s)", d.Name, kind, serial)
}

// describeDisks lists the block devices with their FAT labels: "sda sda1
// (FAT FWCHECKBOOT) vdb", or "none"; at most 32 are named.
func describeDisks(devs []BlockDev) string {
	var out []string
	for _, d := range devs {
		if strings.HasPrefix(d.Name, "loop") || strings.HasPrefix(d.Name, "ram") {
			continue
		}
		if len(out) == 32 {
			out = append(out, fmt.Sprintf("and %d more", len(devs)-32))
			break
		}
		s := d.Name
		if d.FAT != nil {
			s += " (FAT " + sanitizeLabel(d.FAT.Label) + ")"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

// sanitizeLabel keeps a label read from a disk printable on a terminal.
func sanitizeLabel(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 {
			return '?'
		}
		return r
	}, s)
}
