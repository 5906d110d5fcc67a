package image_test

// End-to-end tests of the results disk as labs attach it: FAT labelled
// FWCHECK on virtio-blk, NVMe, USB, AHCI; as a whole disk, an MBR partition
// or a GPT partition; attached late by QMP device_add; and the S3 journal
// policy and the wake-source judgement in real guests woken by QMP.
//
// The boots run in parallel. Each bus of the matrix gets one run that asks
// for both S3 and reboot cycling (the image runs the reboot cycles first,
// then the S3 cycles in the last boot), so both journals are proven on
// every bus at the cost of one QEMU run per bus.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/tests"
)

// powerTimeout bounds one power-run boot under TCG on a loaded host.
const powerTimeout = 10 * time.Minute

// fatDisk makes a 16 MiB disk image with a FAT labelled FWCHECK laid out
// as layout ("whole", "mbr" or "gpt") and returns the image and the
// mtools image spec of the file system ("disk.img@@1M" for a partition).
func fatDisk(t *testing.T, layout string) (disk, spec string) {
	t.Helper()
	mkfs := "/usr/sbin/mkfs.vfat"
	if p, err := exec.LookPath("mkfs.vfat"); err == nil {
		mkfs = p
	}
	for _, tool := range []string{mkfs, "sfdisk", "mtype"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat(tool); err != nil {
				t.Skipf("%s missing: cannot make the results disk", tool)
			}
		}
	}
	disk = filepath.Join(t.TempDir(), layout+".img")
	if layout == "whole" {
		out, err := exec.Command(mkfs, "-C", "-n", image.ResultsLabel, disk, "16384").CombinedOutput()
		require.NoError(t, err, "%s", out)
		return disk, disk
	}
	require.NoError(t, os.WriteFile(disk, nil, 0o644))
	require.NoError(t, os.Truncate(disk, 16<<20))
	table := map[string]string{
		"mbr": "label: dos\nstart=2048, type=c\n",
		"gpt": "label: gpt\nstart=2048, size=28672, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7\n",
	}[layout]
	cmd := exec.Command("sfdisk", "-q", disk)
	cmd.Stdin = strings.NewReader(table)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(mkfs, "--offset", "2048", "-n", image.ResultsLabel, disk, "14336").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return disk, disk + "@@1M"
}

// powerRun boots the live image with drives and returns the console.
func powerRun(t *testing.T, ctx context.Context, cfg qemu.Config) string {
	t.Helper()
	kernel, initramfs := liveImage(t, cfg.Machine)
	cfg.Kernel, cfg.Initramfs = kernel, initramfs
	cfg.Append = "fwcheck.after=poweroff " + cfg.Append
	start := time.Now()
	out, err := qemu.Run(ctx, cfg)
	require.NoError(t, err, "boot %s; console:\n%s", cfg.Machine.Name, tail(out))
	t.Logf("%s: QEMU ran %v", cfg.Machine.Name, time.Since(start).Round(100*time.Millisecond))
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "fwcheck: waiting up to") || strings.Contains(l, "fwcheck: found FWCHECK") || strings.Contains(l, "fwcheck: no FWCHECK") {
			t.Log(strings.TrimSpace(l))
		}
	}
	return string(out)
}

func s3Journal(t *testing.T, spec string) []string { return journalEvents(t, spec, "fwcheck-s3.jsonl") }

// TestBootResultsDiskBuses: the results disk on each bus and layout a lab
// uses. On virtio-blk, NVMe and USB (q35/OVMF) and AHCI and virtio-blk
// (pc/SeaBIOS), as a whole-disk FAT, an MBR or a GPT partition, one run
// asks for both power runs: three reboots (the reboot run goes first and
// resets the machine; QEMU restarts it) complete with their journal on
// that disk, and the last boot then runs three S3 cycles that leave their
// three outcomes in the s3 journal there. virtio-scsi (q35/OVMF) and an SD
// card behind sdhci-pci (pc/SeaBIOS) carry TestBootS3's results disk.
func TestBootResultsDiskBuses(t *testing.T) {
	for _, c := range []struct {
		m           qemu.Machine
		bus, layout string
	}{
		{qemu.OVMF, "virtio", "whole"},
		{qemu.OVMF, "nvme", "gpt"},
		{qemu.OVMF, "usb", "whole"},
		{qemu.SeaBIOS, "ahci", "mbr"},
		{qemu.SeaBIOS, "virtio", "gpt"},
	} {
		t.Run(fmt.Sprintf("%s/%s-%s", c.m.Name, c.bus, c.layout), func(t *testing.T) {
			t.Parallel()
			liveImage(t, c.m)
			disk, spec := fatDisk(t, c.layout)
			ctx, cancel := context.WithTimeout(context.Background(), 2*powerTimeout) // four kernel boots
			defer cancel()
			console := powerRun(t, ctx, qemu.Config{Machine: c.m, Drives: []qemu.Drive{{File: disk, Bus: c.bus}}, AllowReboot: true,
				Append: "fwcheck.run=s3 fwcheck.s3=3 fwcheck.s3.sleep=3s fwcheck.s3.awake=1s fwcheck.reboot=3 fwcheck.reboot.method=acpi"})
			dev := map[string]string{"virtio": "vd[a-z]", "nvme": "nvme0n1", "usb": "sd[a-z]", "ahci": "sd[a-z]"}[c.bus]
			part := map[string]string{"whole": "whole disk", "mbr": "partition of ", "gpt": "partition of "}[c.layout]
			found := regexp.MustCompile(`fwcheck: found FWCHECK on `+dev+`\S* \(`+part).FindAllString(console, -1)
			assert.Len(t, found, 4, "the results disk found on %s in each of the four boots", c.bus)
			assert.Equal(t, 4, strings.Count(console, "for the s3 and reboot journals"), "each boot waited for the disk as a journal run")
			assert.Equal(t, 3, strings.Count(console, "resetting the machine through method acpi"))
			assert.NotContains(t, console, "unmount", "the results disk was unmounted cleanly before every reset")

			d := results(t, console)
			r := resultByID(d, "reboot")
			require.NotNil(t, r, "%s", tail([]byte(console)))
			assert.Equal(t, tests.StatusPassed, r.Status, "%s", infoText(r))
			assert.Contains(t, infoText(r), "3 reboots with method acpi: 3 completed, 0 hung, 0 failed")
			want := []string{"run"}
			for n := 1; n <= 3; n++ {
				want = append(want, fmt.Sprintf("request %d", n), fmt.Sprintf("outcome %d completed", n))
			}
			assert.Equal(t, append(want, "done"), journalEvents(t, spec, "fwcheck-reboot.jsonl"), "the reboot journal on the %s disk", c.bus)

			s3 := resultByID(d, "s3")
			require.NotNil(t, s3, "%s", tail([]byte(console)))
			assert.Contains(t, infoText(s3), "3 cycles: 3 passed, 0 failed, 0 hung", "%s", tail([]byte(console)))
			want = []string{"run"}
			for n := 1; n <= 3; n++ {
				want = append(want, fmt.Sprintf("start %d", n), fmt.Sprintf("outcome %d passed", n))
			}
			assert.Equal(t, append(want, "done"), s3Journal(t, spec), "the s3 journal on the %s disk", c.bus)
		})
	}
}

// qmpGuest boots cfg with a QMP socket and runs drive(q, console) beside it.
func qmpGuest(t *testing.T, cfg qemu.Config, drive func(q *qemu.QMP, console *guestConsole)) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fwq")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	cfg.QMP = filepath.Join(dir, "qmp.sock") // short: unix socket paths are bounded
	ctx, cancel := context.WithTimeout(context.Background(), powerTimeout)
	defer cancel()
	gone, guestGone := context.WithCancel(ctx)
	console := &guestConsole{gone: gone}
	cfg.Console = &console.buf
	done := make(chan struct{})
	go func() {
		defer close(done)
		q, err := qemu.DialQMP(cfg.QMP, time.Minute)
		if err != nil {
			t.Errorf("QMP: %v", err)
			return
		}
		defer q.Close()
		drive(q, console)
	}()
	out := powerRun(t, ctx, cfg)
	guestGone()
	<-done
	return out
}

// guestConsole is a running guest's console; gone ends when it exits.
type guestConsole struct {
	buf  syncBuffer
	gone context.Context
}

// waitConsole waits until the console shows s, for at most timeout and
// no longer than the guest runs.
func waitConsole(c *guestConsole, s string, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline) && c.gone.Err() == nil; time.Sleep(200 * time.Millisecond) {
		if strings.Contains(c.buf.String(), s) {
			return true
		}
	}
	return false
}

// TestBootLateResultsDisk attaches the results disk by QMP device_add five
// seconds after the live image started waiting for it (virtio-blk,
// hot-plugged on pc): the S3 run still finds it and journals there.
func TestBootLateResultsDisk(t *testing.T) {
	t.Parallel()
	m := qemu.SeaBIOS
	liveImage(t, m)
	disk, spec := fatDisk(t, "whole")
	cfg := qemu.Config{Machine: m, Append: "fwcheck.run=s3 fwcheck.s3=1 fwcheck.s3.sleep=3s"}
	console := qmpGuest(t, cfg, func(q *qemu.QMP, c *guestConsole) {
		if !waitConsole(c, "fwcheck: waiting up to", 5*time.Minute) {
			t.Error("the image never waited for its disk")
			return
		}
		time.Sleep(5 * time.Second)
		_, err := q.Execute("blockdev-add", map[string]any{"driver": "raw", "node-name": "late",
			"file": map[string]any{"driver": "file", "filename": disk}})
		if !assert.NoError(t, err) {
			return
		}
		_, err = q.Execute("device_add", map[string]any{"driver": "virtio-blk-pci", "drive": "late", "id": "latedisk"})
		if !assert.NoError(t, err) {
			return
		}
	})
	assert.Regexp(t, `fwcheck: found FWCHECK on vd[a-z] \(whole disk`, console)
	s3 := resultByID(results(t, console), "s3")
	require.NotNil(t, s3)
	assert.Contains(t, infoText(s3), "1 cycles: 1 passed")
	assert.Equal(t, []string{"run", "start 1", "outcome 1 passed", "done"}, s3Journal(t, spec))
}

// TestBootEarlyWakeBySource: cycle 1 is woken by its RTC alarm; cycle 2,
// with a 40 s alarm, by QMP system_wakeup 8 s into the sleep, and the
// guest is then held (QMP stop) for 40 s before it goes on resuming, as a
// resume stuck in a slow device would be: the alarm's time passes before
// the guest can read it back. The wake source tells: cycle 2 is an early
// wake, cycle 1 is not.
func TestBootEarlyWakeBySource(t *testing.T) {
	t.Parallel()
	m := qemu.SeaBIOS
	liveImage(t, m)
	disk, _ := fatDisk(t, "whole")
	cfg := qemu.Config{Machine: m, Drives: []qemu.Drive{{File: disk, Bus: "virtio"}},
		Append: "fwcheck.run=s3 fwcheck.s3=2 fwcheck.s3.sleep=40s fwcheck.s3.awake=1s"}
	var slept bool
	console := qmpGuest(t, cfg, func(q *qemu.QMP, c *guestConsole) {
		// Cycle 1 sleeps its full 40 s, woken by the alarm.
		if !waitConsole(c, "s3: cycle 2/2: suspending", 8*time.Minute) {
			t.Error("cycle 2 never started")
			return
		}
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline) && c.gone.Err() == nil; time.Sleep(250 * time.Millisecond) {
			if st, err := q.Status(); err == nil && st == "suspended" {
				slept = true
				break
			}
		}
		if !slept {
			t.Error("the guest never suspended in cycle 2")
			return
		}
		time.Sleep(8 * time.Second)
		_, err := q.Execute("system_wakeup", nil)
		if !assert.NoError(t, err) {
			return
		}
		_, err = q.Execute("stop", nil)
		if !assert.NoError(t, err) {
			return
		}
		time.Sleep(40 * time.Second)
		_, err = q.Execute("cont", nil)
		if !assert.NoError(t, err) {
			return
		}
	})
	s3 := resultByID(results(t, console), "s3")
	require.NotNil(t, s3)
	var early []string
	for _, f := range s3.Findings {
		if f.Label == "S3EarlyWake" || f.Label == "S3LateWake" || f.Label == "S3NoSleep" {
			early = append(early, f.Label+" "+f.Message)
		}
	}
	require.Len(t, early, 1, "%s", infoText(s3))
	assert.True(t, strings.HasPrefix(early[0], "S3EarlyWake cycle 2: "), early[0])
	assert.Contains(t, early[0], "did not count this wake", "told by the RTC's wakeup source")
	cycles, _ := s3.Data["cycles"].([]any)
	require.Len(t, cycles, 2)
	assert.Equal(t, "alarm", cycles[0].(map[string]any)["woken_by"])
	assert.Equal(t, "other", cycles[1].(map[string]any)["woken_by"])
}

// TestBootS3WithoutJournal: no results disk, fwcheck.s3=3 is refused with
// its remedy and nothing suspends; with fwcheck.s3.journal=none it runs and
// the result says the journal was off.
func TestBootS3WithoutJournal(t *testing.T) {
	m := qemu.SeaBIOS
	for _, c := range []struct{ name, args string }{
		{"refused", "fwcheck.run=s3 fwcheck.s3=3 fwcheck.disk-wait=20s"},
		{"journal-none", "fwcheck.run=s3 fwcheck.s3=1 fwcheck.s3.sleep=3s fwcheck.s3.journal=none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			liveImage(t, m)
			ctx, cancel := context.WithTimeout(context.Background(), powerTimeout)
			defer cancel()
			console := powerRun(t, ctx, qemu.Config{Machine: m, Append: c.args})
			d := results(t, console)
			s3 := resultByID(d, "s3")
			require.NotNil(t, s3)
			if c.name == "refused" {
				assert.NotContains(t, console, "suspending for")
				assert.Equal(t, tests.StatusIncomplete, s3.Status)
				assert.Contains(t, strings.Join(d.Errors, "\n"), "fwcheck.s3.journal=none", "the remedy")
				assert.Contains(t, console, "no FWCHECK after")
				return
			}
			assert.Equal(t, tests.StatusPassed, s3.Status, "%s", infoText(s3))
			assert.Contains(t, infoText(s3), "journal off")
		})
	}
}
