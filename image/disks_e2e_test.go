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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
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
			ctx, cancel := context.WithTimeout(context.Background(), 3*powerTimeout) // four kernel boots
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
			// Not its status: a kernel-log finding in one boot of a loaded
			// TCG host (IOAPICTimerNotConnected, seen) fails the run
			// without saying anything of the disk or the journal.
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
			checkCycleLines(t, console)
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

// TestBootEarlyWakeBySource: two cycles with a 30 s alarm, each followed
// by a resume held up for many seconds (QMP stop, then cont), as a resume
// stuck in a slow device would be. Cycle 1 is woken by QMP system_wakeup
// 6 s into its sleep and held 30 s: the alarm's time passes before the
// guest can read it back, and the wall time looks nearly full. Cycle 2 is
// woken by its alarm and held 15 s. The wake source tells them apart from
// the first cycle on (the RTC is rtc_cmos with its ACPI RTC event handler,
// known before the first suspend): cycle 1 is an early wake, cycle 2 is
// not.
func TestBootEarlyWakeBySource(t *testing.T) {
	t.Parallel()
	m := qemu.SeaBIOS
	liveImage(t, m)
	disk, _ := fatDisk(t, "whole")
	cfg := qemu.Config{Machine: m, Drives: []qemu.Drive{{File: disk, Bus: "virtio"}},
		Append: "fwcheck.run=s3 fwcheck.s3=2 fwcheck.s3.sleep=30s fwcheck.s3.awake=1s"}
	// status waits until QMP reports the guest in (or out of) state st.
	status := func(q *qemu.QMP, c *guestConsole, st string, in bool) bool {
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline) && c.gone.Err() == nil; time.Sleep(100 * time.Millisecond) {
			if got, err := q.Status(); err == nil && (got == st) == in {
				return true
			}
		}
		return false
	}
	hold := func(q *qemu.QMP, d time.Duration) bool {
		if _, err := q.Execute("stop", nil); !assert.NoError(t, err) {
			return false
		}
		time.Sleep(d)
		_, err := q.Execute("cont", nil)
		return assert.NoError(t, err)
	}
	console := qmpGuest(t, cfg, func(q *qemu.QMP, c *guestConsole) {
		// Cycle 1: woken by QMP 6 s in, then a 30 s resume.
		if !waitConsole(c, "s3: cycle 1/2: suspending", 8*time.Minute) || !status(q, c, "suspended", true) {
			t.Error("the guest never suspended in cycle 1")
			return
		}
		time.Sleep(6 * time.Second)
		if _, err := q.Execute("system_wakeup", nil); !assert.NoError(t, err) || !hold(q, 30*time.Second) {
			return
		}
		// Cycle 2: woken by its alarm, then a 15 s resume.
		if !waitConsole(c, "s3: cycle 2/2: suspending", 5*time.Minute) || !status(q, c, "suspended", true) {
			t.Error("the guest never suspended in cycle 2")
			return
		}
		if !status(q, c, "suspended", false) {
			t.Error("the alarm never woke cycle 2")
			return
		}
		hold(q, 15*time.Second)
	})
	s3 := resultByID(results(t, console), "s3")
	require.NotNil(t, s3)
	var wakes []string
	for _, f := range s3.Findings {
		if (f.Label == "S3EarlyWake" || f.Label == "S3LateWake" || f.Label == "S3NoSleep") && f.Explained == "" {
			wakes = append(wakes, f.Label+" "+f.Message)
		}
	}
	require.Len(t, wakes, 1, "%s", infoText(s3))
	assert.True(t, strings.HasPrefix(wakes[0], "S3EarlyWake cycle 1: "), wakes[0])
	assert.Contains(t, wakes[0], "did not count this wake (rtc_cmos counts every alarm wake", "cycle 1 told by the RTC's wakeup source")
	assert.NotContains(t, infoText(s3), "the fallback", "no cycle judged by wall time")
	cycles, _ := s3.Data["cycles"].([]any)
	require.Len(t, cycles, 2)
	assert.Equal(t, "other", cycles[0].(map[string]any)["woken_by"])
	assert.Equal(t, "alarm", cycles[1].(map[string]any)["woken_by"], "the alarm woke cycle 2, its slow resume notwithstanding")
	// The baseline as the guest's snapshot (in the run folder) recorded it.
	snap := snapshotFiles(t, readRunFile(t, disk, image.RunSnapshot), "sys/class/rtc/rtc0/name", "sys/firmware/acpi/interrupts/ff_rt_clk")
	t.Logf("baseline in the guest: rtc0/name %q, ff_rt_clk %q", snap[0], snap[1])
	assert.True(t, strings.HasPrefix(snap[0], "rtc_cmos "), snap[0])
	assert.NotContains(t, snap[1], "invalid")
}

// snapshotFiles returns the contents of the named files of a snapshot
// (.tar.gz), "" for each one it lacks.
func snapshotFiles(t *testing.T, tgz []byte, names ...string) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	out := make([]string, len(names))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		for i, n := range names {
			if strings.TrimPrefix(h.Name, "./") == n {
				b, err := io.ReadAll(io.LimitReader(tr, 1<<16))
				require.NoError(t, err)
				out[i] = string(b)
			}
		}
	}
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
