package image

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock runs a wait in simulated time; at calls events as their times
// pass (a disk appearing while drivers probe).
type fakeClock struct {
	t      time.Time
	events map[time.Duration]func()
	start  time.Time
}

func (c *fakeClock) clock() waitClock {
	return waitClock{now: func() time.Time { return c.t }, sleep: func(d time.Duration) {
		c.t = c.t.Add(d)
		for at, f := range c.events {
			if c.t.Sub(c.start) >= at {
				f()
				delete(c.events, at)
			}
		}
	}}
}

func addDisk(t *testing.T, root, name string, sector []byte) {
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/class/block", name), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "dev"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "dev", name), sector, 0o644))
}

func runWait(t *testing.T, root string, w DiskWait, events map[time.Duration]func()) (diskWaitResult, string) {
	c := &fakeClock{t: time.Unix(1000, 0), start: time.Unix(1000, 0), events: events}
	var log strings.Builder
	r := waitForResults(root, "", w, "for the s3 journal", c.clock(), func(f string, a ...any) {
		log.WriteString(strings.TrimSpace(fmt.Sprintf(f, a...)) + "\n")
	})
	return r, log.String()
}

func TestWaitForResults(t *testing.T) {
	labelled, err := os.ReadFile("testdata/f32.bootsector")
	require.NoError(t, err)
	plain, err := os.ReadFile("testdata/fnl.bootsector")
	require.NoError(t, err)

	// A disk that appears 25 s after the drivers load, while the USB
	// devices keep coming: found within the journal wait.
	root := t.TempDir()
	addDisk(t, root, "sda", plain)
	r, log := runWait(t, root, JournalWait, map[time.Duration]func(){
		10 * time.Second: func() { require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/bus/usb/devices/1-1"), 0o755)) },
		25 * time.Second: func() { addDisk(t, root, "vdb", labelled) },
	})
	require.NoError(t, r.err)
	assert.Equal(t, "vdb", r.pick.Name)
	assert.InDelta(t, 25, r.waited.Seconds(), 0.3)
	assert.Contains(t, log, "waiting up to 1m0s for a FAT file system labelled FWCHECK for the s3 journal, or until no disk has appeared for 20s")
	assert.Contains(t, log, "still waiting for FWCHECK (10 s); disks so far: sda (FAT NO NAME)")
	assert.Contains(t, log, "found FWCHECK on vdb (whole disk, FAT serial")

	// The same late disk with the short wait: the disks settled first.
	root = t.TempDir()
	addDisk(t, root, "sda", plain)
	r, log = runWait(t, root, ResultsWait, map[time.Duration]func(){25 * time.Second: func() { addDisk(t, root, "vdb", labelled) }})
	assert.ErrorIs(t, r.err, ErrNoResultsPartition)
	assert.True(t, r.settled)
	assert.InDelta(t, 3, r.waited.Seconds(), 0.3)
	assert.Contains(t, log, "no FWCHECK after 3.0 s: no disk appeared for 3s; disks: sda (FAT NO NAME)")

	// An NVMe controller still starting holds the settling off until the limit.
	root = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/class/nvme/nvme0"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "sys/class/nvme/nvme0/state"), []byte("connecting\n"), 0o644))
	r, log = runWait(t, root, ResultsWait, nil)
	assert.False(t, r.settled)
	assert.InDelta(t, 15, r.waited.Seconds(), 0.3)
	assert.Contains(t, log, "no FWCHECK after 15.0 s (the limit); disks: none")

	// Two FWCHECK disks: no waiting helps.
	root = t.TempDir()
	addDisk(t, root, "vdb", labelled)
	addDisk(t, root, "vdc", labelled)
	r, _ = runWait(t, root, JournalWait, nil)
	assert.ErrorContains(t, r.err, "2 file systems labelled FWCHECK")
	assert.Zero(t, r.waited)
}

func TestDescribeDisksIsPrintable(t *testing.T) {
	got := describeDisks([]BlockDev{{Name: "sdb1", FAT: &FATVolume{Label: "A\x1b[2J"}}, {Name: "loop0"}})
	assert.Equal(t, "sdb1 (FAT A?[2J)", got)
	assert.Equal(t, "none", describeDisks(nil))
}
