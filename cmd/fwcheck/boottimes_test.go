package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
)

func TestInitStarted(t *testing.T) {
	recs, err := klog.ParseKmsg(strings.NewReader("6,1,100,-;Freeing unused kernel image memory: 2048K\n6,2,2601234,-;Run /init as init process\n"))
	assert.NoError(t, err)
	assert.Equal(t, 2601234*time.Microsecond, initStarted(recs))
	assert.Equal(t, time.Duration(-1), initStarted(recs[:1]))
}

func TestSlowest(t *testing.T) {
	doc := report.New("v", input.Identity{}, time.Time{}, time.Time{}, []tests.Result{
		{ID: "fadt", Duration: 2 * time.Millisecond},
		{ID: "klog", Duration: 80 * time.Millisecond},
		{ID: "cpufreq", Duration: 120 * time.Millisecond},
	})
	assert.Equal(t, "cpufreq 0.12 s, klog 0.08 s", slowest(doc, 2))
	assert.Equal(t, "cpufreq 0.12 s, klog 0.08 s, fadt 0.00 s", slowest(doc, 5))
}

func TestBootTimes(t *testing.T) {
	s := time.Second
	assert.Equal(t, "fwcheck: boot times: kernel to /init 2.60 s, /init to fwcheck 0.41 s, fwcheck's set-up 0.08 s, the run's requests 0.06 s, the checks 0.46 s",
		bootTimes(2600*time.Millisecond, -1, 3010*time.Millisecond, 3090*time.Millisecond, 3150*time.Millisecond, 3610*time.Millisecond))
	assert.Equal(t, "fwcheck: boot times: kernel to /init 2.60 s, /init to fwcheck 0.41 s (u-root's init 0.30 s, the binary's start 0.11 s), fwcheck's set-up 0.08 s, the run's requests 0.06 s, the checks 0.46 s",
		bootTimes(2600*time.Millisecond, 2900*time.Millisecond, 3010*time.Millisecond, 3090*time.Millisecond, 3150*time.Millisecond, 3610*time.Millisecond))
	// A start time outside /init..main (a clock that disagrees) is left out.
	assert.Equal(t, "fwcheck: boot times: kernel to /init 2.60 s, /init to fwcheck 0.41 s, fwcheck's set-up 0.08 s, the run's requests 0.06 s, the checks 0.46 s",
		bootTimes(2600*time.Millisecond, 3020*time.Millisecond, 3010*time.Millisecond, 3090*time.Millisecond, 3150*time.Millisecond, 3610*time.Millisecond))
	assert.Equal(t, "fwcheck: boot times: kernel to fwcheck 3.00 s, fwcheck's set-up 0.00 s, the run's requests 0.00 s, the checks 1.00 s",
		bootTimes(-1, 2*s, 3*s, 3*s, 3*s, 4*s))
}
