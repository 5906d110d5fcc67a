package image

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fat(label, serial string) *FATVolume { return &FATVolume{Label: label, Serial: serial} }

func TestPickResults(t *testing.T) {
	stick := []BlockDev{
		{Name: "sdb", Disk: "sdb"},
		{Name: "sdb1", Disk: "sdb", Partition: true, FAT: fat("FWCHECKBOOT", "1234-ABCD")},
		{Name: "sdb2", Disk: "sdb", Partition: true, FAT: fat("FWCHECK", "5678-0000")},
	}
	internal := []BlockDev{
		{Name: "sda", Disk: "sda"},
		{Name: "sda1", Disk: "sda", Partition: true, FAT: fat("FWCHECK", "9999-0000")}, // a tempting decoy
		{Name: "nvme0n1", Disk: "nvme0n1"},
	}
	all := append(append([]BlockDev{}, internal...), stick...)

	// Booted from the stick: only the stick's FWCHECK, whatever comes first.
	d, err := PickResults(all, "1234-abcd")
	require.NoError(t, err)
	assert.Equal(t, "sdb2", d.Name)

	// The stick has not shown up yet: the decoy is not taken instead.
	_, err = PickResults(internal, "1234-ABCD")
	assert.ErrorIs(t, err, ErrStickNotFound)

	// A copy of the stick is attached: which one booted is not known.
	clone := []BlockDev{
		{Name: "sdc1", Disk: "sdc", Partition: true, FAT: fat("FWCHECKBOOT", "1234-ABCD")},
		{Name: "sdc2", Disk: "sdc", Partition: true, FAT: fat("FWCHECK", "5678-0000")},
	}
	_, err = PickResults(append(all, clone...), "1234-ABCD")
	assert.ErrorContains(t, err, "a copy of the stick")

	// The stick's results partition was reformatted with another label.
	relabelled := append(append([]BlockDev{}, internal...), stick[0], stick[1],
		BlockDev{Name: "sdb2", Disk: "sdb", Partition: true, FAT: fat("DATA", "5678-0000")})
	_, err = PickResults(relabelled, "1234-ABCD")
	assert.ErrorIs(t, err, ErrNoResultsPartition)

	// Two FWCHECK partitions on the stick.
	two := append(append([]BlockDev{}, stick...), BlockDev{Name: "sdb3", Disk: "sdb", Partition: true, FAT: fat("fwcheck", "1111-2222")})
	_, err = PickResults(two, "1234-ABCD")
	assert.ErrorContains(t, err, "2 partitions labelled FWCHECK on the boot stick sdb")

	// The serial on a whole disk (a superfloppy) is not a boot partition.
	_, err = PickResults([]BlockDev{{Name: "sdd", Disk: "sdd", FAT: fat("FWCHECK", "1234-ABCD")}}, "1234-ABCD")
	assert.ErrorIs(t, err, ErrStickNotFound)

	// Booted some other way: the one FWCHECK of the machine, or none.
	d, err = PickResults(internal, "")
	require.NoError(t, err)
	assert.Equal(t, "sda1", d.Name)
	_, err = PickResults(all, "")
	assert.ErrorContains(t, err, "2 file systems labelled FWCHECK (sda1, sdb2)")
	_, err = PickResults(stick[:2], "")
	assert.ErrorIs(t, err, ErrNoResultsPartition)
}

// TestScanBlockDevices lays out sysfs and /dev as the kernel does for a
// disk with two partitions and reads them back.
func TestScanBlockDevices(t *testing.T) {
	root := t.TempDir()
	devs := filepath.Join(root, "sys/devices/pci0000:00/usb1/1-1/host0/block/sdb")
	for _, d := range []string{devs, filepath.Join(devs, "sdb1"), filepath.Join(devs, "sdb2"), filepath.Join(root, "sys/class/block"), filepath.Join(root, "dev")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	for _, p := range []string{"sdb1", "sdb2"} {
		require.NoError(t, os.WriteFile(filepath.Join(devs, p, "partition"), []byte("1\n"), 0o644))
	}
	for _, n := range []string{"sdb", "sdb1", "sdb2"} {
		target := devs
		if n != "sdb" {
			target = filepath.Join(devs, n)
		}
		require.NoError(t, os.Symlink(target, filepath.Join(root, "sys/class/block", n)))
	}
	f32, err := os.ReadFile("testdata/f32.bootsector")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "dev/sdb2"), f32, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "dev/sdb1"), make([]byte, 512), 0o644))
	// dev/sdb is missing: listed, without a file system.

	got := ScanBlockDevices(root)
	require.Len(t, got, 3)
	assert.Equal(t, BlockDev{Name: "sdb", Disk: "sdb"}, got[0])
	assert.Equal(t, BlockDev{Name: "sdb1", Disk: "sdb", Partition: true}, got[1])
	assert.Equal(t, "sdb", got[2].Disk)
	require.NotNil(t, got[2].FAT)
	assert.Equal(t, "FWCHECK", got[2].FAT.Label)
	assert.Equal(t, "D0CB-14F1", got[2].FAT.Serial, "volume ID f1 14 cb d0 at 0x43")
	assert.Empty(t, ScanBlockDevices(filepath.Join(root, "nowhere")))
}

func TestRunFolder(t *testing.T) {
	taken := map[string]bool{"fwcheck-20261201-150000": true, "fwcheck-20261201-150000-2": true}
	assert.Equal(t, "fwcheck-20261201-150000-3", RunFolder("20261201-150000", func(n string) bool { return taken[n] }))
	assert.Equal(t, "fwcheck-20261201-150001", RunFolder("20261201-150001", func(n string) bool { return taken[n] }))
}
