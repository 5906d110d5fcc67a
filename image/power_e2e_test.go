package image_test

// End-to-end tests of the runs that act on the machine: suspend/resume and
// reboot cycling in real QEMU guests, with their journals on a real FAT
// results disk that outlives the guest. A hang is a QEMU killed while the
// guest is suspended, or a guest reset that QEMU turns into an exit
// (-no-reboot), and the same disk booted again.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
	"github.com/fwcheck/fwcheck/image/qemu"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
)

// powerBoot is one QEMU run of the live image on m with disk attached.
// When cut is set, QEMU is killed (a power cut) `after` the console first
// shows cut; killed says whether that happened.
type powerBoot struct {
	m           qemu.Machine
	args        string
	disk        string
	bus         string // the disk's bus (qemu.Drive); empty: IDE
	allowReboot bool
	cut         string
	after       time.Duration
	timeout     time.Duration
}

// watcher cancels a context some time after the console shows a string.
type watcher struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	want   string
	after  time.Duration
	cancel context.CancelFunc
	fired  bool
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.want != "" && !w.fired && strings.Contains(w.buf.String(), w.want) {
		w.fired = true
		time.AfterFunc(w.after, w.cancel)
	}
	return len(p), nil
}

func (b powerBoot) run(t *testing.T) (console string, killed bool) {
	t.Helper()
	kernel, initramfs := liveImage(t, b.m)
	timeout := b.timeout
	if timeout == 0 {
		timeout = bootTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cutCtx, cutCancel := context.WithCancel(ctx)
	defer cutCancel()
	w := &watcher{want: b.cut, after: b.after, cancel: cutCancel}
	cfg := qemu.Config{
		Machine: b.m, Kernel: kernel, Initramfs: initramfs,
		Append:      "fwcheck.after=poweroff " + b.args,
		Drives:      []qemu.Drive{{File: b.disk, Bus: b.bus}},
		Console:     w,
		AllowReboot: b.allowReboot,
	}
	start := time.Now()
	out, err := qemu.Run(cutCtx, cfg)
	w.mu.Lock()
	killed = w.fired && ctx.Err() == nil && cutCtx.Err() != nil
	w.mu.Unlock()
	if !killed {
		require.NoError(t, err, "boot %s; console:\n%s", b.m.Name, tail(out))
	}
	t.Logf("%s: QEMU ran %v%s", b.m.Name, time.Since(start).Round(100*time.Millisecond), map[bool]string{true: ", killed as planned"}[killed])
	return string(out), killed
}

// results returns the results document the console's last boot printed.
func results(t *testing.T, console string) *report.Document {
	t.Helper()
	js, err := image.ExtractResults([]byte(console))
	require.NoError(t, err, "console:\n%s", tail([]byte(console)))
	return reporttest.Check(t, js)
}

// journalEvents reads a journal back from the results disk, as a lab would
// from the stick: "event cycle status" per line.
func journalEvents(t *testing.T, disk, name string) []string {
	t.Helper()
	b, err := exec.Command("mtype", "-i", disk, "::"+name).Output()
	require.NoError(t, err, "reading %s from the results disk", name)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Event   string `json:"event"`
			Cycle   int    `json:"cycle"`
			Outcome *struct {
				Status string `json:"status"`
			} `json:"outcome"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &r), "journal line %q", l)
		s := r.Event
		if r.Cycle > 0 {
			s += fmt.Sprint(" ", r.Cycle)
		}
		if r.Outcome != nil {
			s += " " + r.Outcome.Status
		}
		out = append(out, s)
	}
	return out
}

func resultByID(d *report.Document, id string) *report.Result {
	for i := range d.Results {
		if d.Results[i].ID == id {
			return &d.Results[i]
		}
	}
	return nil
}

func infoText(r *report.Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.Message + "\n")
	}
	return b.String()
}

func needDisk(t *testing.T) string {
	disk := resultsDisk(t)
	if disk == "" {
		t.Skip("no FAT tools to make the results disk")
	}
	return disk
}

// TestBootS3 boots the live image and has it run five suspend/resume
// cycles woken by the RTC alarm, through the real kernel's
// /sys/power/state, on pc/SeaBIOS and on q35/OVMF: every cycle sleeps and
// resumes, with times measured, and the journal on the results disk holds
// the five complete records. The results disk is an SD card (sdhci-pci) on
// pc and a virtio-scsi disk on q35: the two buses the matrix of
// disks_e2e_test.go does not boot, proven here at no extra boot.
func TestBootS3(t *testing.T) {
	for _, c := range []struct {
		m        qemu.Machine
		bus, dev string
	}{{qemu.SeaBIOS, "sd", "mmcblk0"}, {qemu.OVMF, "virtio-scsi", "sd[a-z]"}} {
		m := c.m
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			liveImage(t, m)
			disk := needDisk(t)
			console, _ := powerBoot{m: m, args: "fwcheck.run=s3 fwcheck.s3=5 fwcheck.s3.sleep=3s fwcheck.s3.awake=1s", disk: disk, bus: c.bus, timeout: powerTimeout}.run(t)
			assert.Regexp(t, `fwcheck: found FWCHECK on `+c.dev+` \(whole disk`, console, "the results disk on %s", c.bus)
			d := results(t, console)
			require.Len(t, d.Results, 1, console)
			s3 := d.Results[0]
			assert.Equal(t, "s3", s3.ID)
			assert.Equal(t, tests.StatusPassed, s3.Status, "%s\n%s", infoText(&s3), tail([]byte(console)))
			all := infoText(&s3)
			assert.Contains(t, all, "5 cycles: 5 passed, 0 failed, 0 hung")
			for n := 1; n <= 5; n++ {
				assert.Contains(t, all, fmt.Sprintf("cycle %d passed: asleep ", n))
				assert.Contains(t, console, fmt.Sprintf("s3: cycle %d/5: suspending for 3s", n), "progress on the console")
			}
			assert.Regexp(t, `kernel resume \(ms\): min [0-9.]+, median`, all, "resume times are measured")
			cycles, ok := s3.Data["cycles"].([]any)
			require.True(t, ok, "the results carry every cycle")
			assert.Len(t, cycles, 5)
			want := []string{"run"}
			for n := 1; n <= 5; n++ {
				want = append(want, fmt.Sprintf("start %d", n), fmt.Sprintf("outcome %d passed", n))
			}
			assert.Equal(t, append(want, "done"), journalEvents(t, disk, "fwcheck-s3.jsonl"))
		})
	}
}

// TestBootS3HangIsJournalled kills QEMU while the guest sleeps in its
// second cycle, boots the same disk again, and expects the run to go on:
// cycle 2 recorded as hung, cycle 3 run, no cycle record lost.
func TestBootS3HangIsJournalled(t *testing.T) {
	t.Parallel()
	m := qemu.SeaBIOS
	liveImage(t, m)
	disk := needDisk(t)
	args := "fwcheck.run=s3 fwcheck.s3=3 fwcheck.s3.sleep=10s fwcheck.s3.awake=1s"
	_, killed := powerBoot{m: m, args: args, disk: disk, cut: "s3: cycle 2/3: suspending", after: 4 * time.Second}.run(t)
	require.True(t, killed, "the guest was cut off in cycle 2")
	assert.Equal(t, []string{"run", "start 1", "outcome 1 passed", "start 2"}, journalEvents(t, disk, "fwcheck-s3.jsonl"),
		"the journal as the power cut left it")

	console, _ := powerBoot{m: m, args: args, disk: disk}.run(t)
	d := results(t, console)
	s3 := resultByID(d, "s3")
	require.NotNil(t, s3)
	assert.Equal(t, tests.StatusFailed, s3.Status)
	assert.Contains(t, infoText(s3), "3 cycles: 2 passed, 0 failed, 1 hung")
	assert.Contains(t, infoText(s3), "first failing cycle: 2")
	var hung []string
	for _, f := range s3.Findings {
		if f.Label == "S3Hung" {
			hung = append(hung, f.Message)
		}
	}
	require.Len(t, hung, 1)
	assert.True(t, strings.HasPrefix(hung[0], "cycle 2: "), hung[0])
	assert.Equal(t, []string{"run", "start 1", "outcome 1 passed", "start 2", "hung 2 hung", "start 3", "outcome 3 passed", "done"},
		journalEvents(t, disk, "fwcheck-s3.jsonl"), "every cycle has its record")
}

// TestBootS3MisResume runs S3 on q35 with SeaBIOS, whose resume path is
// broken: the first cycle sleeps and wakes, later suspends return at once.
// The check must find "no sleep" on exactly cycles 2 and 3. The first
// resume already shows the cause: ACPICA cannot disable the RTC event,
// because the PM1 registers do not answer after SeaBIOS's q35 resume (the
// same error on every q35/SeaBIOS cycle in the shared corpus, never with
// OVMF), and the check reports that on cycle 1. The guest cannot power
// off after such a resume either, so QEMU is stopped once the results are out.
func TestBootS3MisResume(t *testing.T) {
	t.Parallel()
	m := qemu.SeaBIOSQ35
	liveImage(t, m)
	disk := needDisk(t)
	console, _ := powerBoot{m: m, args: "fwcheck.run=s3 fwcheck.s3=3 fwcheck.s3.sleep=4s fwcheck.s3.awake=1s", disk: disk,
		cut: image.EndMarker, after: 2 * time.Second}.run(t)
	s3 := resultByID(results(t, console), "s3")
	require.NotNil(t, s3)
	assert.Equal(t, tests.StatusFailed, s3.Status)
	var noSleep []string
	for _, f := range s3.Findings {
		if f.Label == "S3NoSleep" {
			c, _, _ := strings.Cut(f.Message, ":")
			noSleep = append(noSleep, c)
		}
	}
	assert.Equal(t, []string{"cycle 2", "cycle 3"}, noSleep, "%s", infoText(s3))
	assert.Contains(t, infoText(s3), "cycle 1: [", "cycle 1's kernel log shows the broken resume")
	assert.Contains(t, infoText(s3), "Could not disable RealTimeClock events")
}

// TestBootRebootHang: the first reset does not come back (QEMU exits on
// it, as a machine that hangs at reset would need its power cycled), and
// the same disk boots again after longer than the hang limit. The run
// records reboot 1 as hung and completes the others.
func TestBootRebootHang(t *testing.T) {
	t.Parallel()
	m := qemu.SeaBIOS
	liveImage(t, m)
	disk := needDisk(t)
	// The hang limit must hold a normal reset of a TCG guest on a loaded
	// host (2-5 s to the next kernel here unloaded, many times that with
	// every core busy) with room to spare: reboots 2 and 3 must not count
	// as hung. The "power switch" below then waits longer than the limit,
	// so reboot 1 surely does: the guest's clock (QEMU's RTC follows the
	// host's) sees at least that wait between the request and the next
	// kernel, whatever the load.
	const hangAfter = 60 * time.Second
	args := fmt.Sprintf("fwcheck.run=reboot fwcheck.reboot=3 fwcheck.reboot.hang-after=%s", hangAfter)
	console, _ := powerBoot{m: m, args: args, disk: disk}.run(t)
	require.Contains(t, console, "reboot: reboot 1/3: resetting the machine through method default")
	assert.Equal(t, []string{"run", "request 1"}, journalEvents(t, disk, "fwcheck-reboot.jsonl"))
	time.Sleep(hangAfter + 5*time.Second)

	console, _ = powerBoot{m: m, args: args, disk: disk, allowReboot: true, timeout: 6 * time.Minute}.run(t)
	r := resultByID(results(t, console), "reboot")
	require.NotNil(t, r)
	assert.Equal(t, tests.StatusFailed, r.Status)
	assert.Contains(t, infoText(r), "3 reboots with method default: 2 completed, 1 hung, 0 failed")
	assert.Contains(t, infoText(r), "first failing reboot: 1")
	assert.Equal(t, []string{"run", "request 1", "outcome 1 hung", "request 2", "outcome 2 completed", "request 3", "outcome 3 completed", "done"},
		journalEvents(t, disk, "fwcheck-reboot.jsonl"))
}
