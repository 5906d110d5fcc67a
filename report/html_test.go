package report_test

import (
	"bytes"
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

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/s3"
)

// s3Doc is a run of 4 suspend/resume cycles as the s3 check records it:
// cycle 3 failed, cycle 2 has no firmware resume time; plus a klog result
// with findings of every severity and one hostile message.
func s3Doc(t *testing.T) *report.Document {
	cycles := []map[string]any{
		{"cycle": 1, "status": "passed", "asleep_ms": 5012.5, "kernel_resume_ms": 812.25, "firmware_resume_ms": 301.5, "slowest_device": "xhci_hcd 0000:00:14.0", "slowest_ms": 80},
		{"cycle": 2, "status": "passed", "asleep_ms": 5020, "kernel_resume_ms": 820, "slowest_device": "i915 0000:00:02.0", "slowest_ms": 95.5},
		{"cycle": 3, "status": "failed", "asleep_ms": 5003, "kernel_resume_ms": 1934.75, "firmware_resume_ms": 310, "slowest_device": "<img src=x onerror=alert(1)>", "slowest_ms": 1500, "problems": []string{"DeviceResumeFailed"}},
		{"cycle": 4, "status": "passed", "asleep_ms": 5001, "kernel_resume_ms": 805.5, "firmware_resume_ms": 299, "slowest_device": "xhci_hcd 0000:00:14.0", "slowest_ms": 78},
	}
	data := map[string]any{"cycles": cycles}
	rs := []tests.Result{
		{ID: "klog", Title: "kernel log", Category: tests.Log, Status: tests.StatusFailed, Findings: []tests.Finding{
			fail("TPMSelfTestFailed", tests.Critical), fail("AMLMethodNotFound", tests.High), fail("AMLMethodNotFound", tests.High),
			fail("OSCFailedDisablingASPM", tests.Medium), fail("OSILinuxQuery", tests.Low),
			{Kind: tests.KindWarning, Message: `<script>alert("x")</script>`},
		}},
		{ID: "s3", Title: "Suspend/resume cycling", Category: tests.Power, Status: tests.StatusFailed, Data: data, Findings: []tests.Finding{
			{Kind: tests.KindFail, Label: "S3DeviceResumeFailed", Severity: tests.High, Message: "cycle 3: device failed", Advice: "fix it"},
		}},
	}
	m := input.Identity{Source: "live:/", Kernel: "Linux version 6.1.0", DMI: &input.DMIInfo{SysVendor: "ACME", ProductName: "Roadrunner 3000", BIOSVersion: "1.0.7"}}
	d := report.New("1.2.3", m, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC), rs)
	d.Judge(tests.Medium)
	return d
}

func writeHTML(t *testing.T, d *report.Document) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, report.WriteHTML(&b, d, tests.Medium))
	return b.String()
}

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	page := writeHTML(t, s3Doc(t))
	assert.NotContains(t, page, "<img src=x", "machine strings are escaped")
	assert.NotContains(t, page, `<script>alert`)
	assert.Contains(t, page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;")
	// Nothing is fetched: no external references at all.
	assert.NotRegexp(t, `(?i)(src|href)\s*=`, strings.ReplaceAll(page, "&lt;img src=x", ""))
	assert.NotContains(t, page, "<link")
	assert.Contains(t, page, "Content-Security-Policy")
	assert.Contains(t, page, "Roadrunner 3000")
	assert.Equal(t, 4, strings.Count(page, "<svg "), "one plot per measure")
	// Cycle 2 has no firmware resume time: 3 points, the line broken.
	assert.Regexp(t, `id="plot-firmware-resume"[^>]*data-points="3"`, page)
	assert.Regexp(t, `id="plot-kernel-resume"[^>]*data-points="4"`, page)
	assert.Equal(t, 2, strings.Count(regexp.MustCompile(`(?s)id="plot-firmware-resume".*?</svg>`).FindString(page), "<polyline"))

	// A document without cycles has no plot; one without a verdict is
	// judged with the threshold given.
	full := s3Doc(t)
	d := report.New("1.2.3", full.Machine, full.Start, full.End, []tests.Result{full.Results[0].Result})
	page = writeHTML(t, d)
	assert.NotContains(t, page, "<svg")
	assert.Contains(t, page, "FAIL — 4 failures at or above medium")
}

// A reboot run's cycles are plotted by its own measures.
func TestHTMLPlotsRebootCycles(t *testing.T) {
	cycles := []map[string]any{
		{"cycle": 1, "status": "completed", "method": "acpi", "request_to_kernel_ms": 4000, "firmware_start_ms": 1200.5, "exit_boot_services_ms": 2500},
		{"cycle": 2, "status": "hung", "method": "acpi", "problems": []string{"needed a power cycle"}},
		{"cycle": 3, "status": "completed", "method": "acpi", "request_to_kernel_ms": 5000, "firmware_start_ms": 1180, "exit_boot_services_ms": 2450, "log_findings": []string{"TPMSelfTestFailed"}},
	}
	d := report.New("t", input.Identity{Source: "live:/"}, time.Now(), time.Now(), []tests.Result{
		{ID: "reboot", Title: "Reboot cycling", Category: tests.Power, Status: tests.StatusFailed, Data: map[string]any{"cycles": cycles}, Findings: []tests.Finding{fail("RebootHung", tests.Critical)}},
	})
	page := writeHTML(t, d)
	assert.Equal(t, 3, strings.Count(page, "<svg "), "request to kernel, firmware start, ExitBootServices")
	assert.Regexp(t, `id="plot-request-to-kernel"[^>]*data-points="2"`, page)
	assert.Contains(t, page, "<th>ExitBootServices (FPDT) (ms)</th>")
	assert.NotContains(t, page, "slowest device")
	assert.Contains(t, page, "<div>needed a power cycle</div>")
	assert.Contains(t, page, "<div>TPMSelfTestFailed</div>")
}

// TestHTMLInChromium renders the page in headless Chromium and reads the
// DOM after its script ran: the numbers, the plots and the filter are
// there, and the console is silent. A page with a script error shows that
// a console error would be seen.
func TestHTMLInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed ('make deps-image')")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "report.html")
	require.NoError(t, os.WriteFile(p, []byte(writeHTML(t, s3Doc(t))), 0o644))

	dom, console := render(t, chromium, dir, "file://"+p+"#sev=critical,high&check=klog")
	assert.Empty(t, console, "console messages")
	assert.Contains(t, dom, `data-ready="1"`, "the script ran")
	// The filter from the address: critical and high findings of klog.
	assert.Contains(t, dom, "3 of 7 findings shown")
	assert.Len(t, regexp.MustCompile(`<tr class="finding"[^>]*hidden=""`).FindAllString(dom, -1), 4)
	// The summary numbers and the failing labels.
	assert.Contains(t, dom, `<span data-sev="high">3</span>`)
	assert.Regexp(t, `<td>AMLMethodNotFound</td><td>klog</td><td class="count">2</td>`, dom)
	assert.Contains(t, dom, "FAIL — 5 failures at or above medium")
	// The plots: a dot per measured cycle with its value, the failed one
	// marked; and the cycle table.
	kernel := regexp.MustCompile(`(?s)<svg id="plot-kernel-resume".*?</svg>`).FindString(dom)
	require.NotEmpty(t, kernel, dom)
	assert.Equal(t, 4, strings.Count(kernel, "<circle"))
	assert.Contains(t, kernel, `data-value="1934.8"`)
	assert.Contains(t, kernel, `class="pt bad"`)
	assert.Contains(t, kernel, "<polyline")
	assert.Contains(t, dom, "<td>1934.8</td>")
	assert.Regexp(t, `<tr data-cycle="2"><td>2</td><td>passed</td><td>5020.0</td><td></td><td>820.0</td>`, dom, "an unmeasured value is an empty cell")
	assert.Contains(t, dom, "&lt;img src=x onerror=alert(1)&gt;")

	// Without a filter in the address every finding shows.
	dom, console = render(t, chromium, dir, "file://"+p)
	assert.Empty(t, console)
	assert.Contains(t, dom, "7 of 7 findings shown")

	bad := filepath.Join(dir, "bad.html")
	require.NoError(t, os.WriteFile(bad, []byte(`<!DOCTYPE html><body><script>undefinedFunction();</script></body>`), 0o644))
	_, console = render(t, chromium, dir, "file://"+bad)
	assert.NotEmpty(t, console, "a script error reaches the console log this test reads")
}

// render loads url in headless Chromium and returns the DOM after load and
// the console messages Chromium logged.
func render(t *testing.T, chromium, dir, url string) (dom string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0", "--dump-dom", url)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			console = append(console, l)
		}
	}
	return out.String(), console
}

// The s3 check's own records, as a run in this process holds them, plot
// the same as the JSON a file holds.
func TestHTMLPlotsS3Outcomes(t *testing.T) {
	outs := []s3.Outcome{{Cycle: 1, Status: "passed", AsleepMS: 3000, KernelResumeMS: 12.5}, {Cycle: 2, Status: "failed", AsleepMS: 1949, KernelResumeMS: 14}}
	d := report.New("t", input.Identity{Source: "live:/"}, time.Now(), time.Now(), []tests.Result{
		{ID: "s3", Title: "s3", Category: tests.Power, Status: tests.StatusPassed, Data: map[string]any{"cycles": outs}},
	})
	page := writeHTML(t, d)
	assert.Regexp(t, `id="plot-asleep"[^>]*data-points="2"`, page)
	assert.Regexp(t, `id="plot-kernel-resume"[^>]*data-points="2"`, page)
	assert.Contains(t, page, `data-value="12.5"`)
	assert.Equal(t, 2, strings.Count(page, "<svg "))
}

// The findings table groups as the text report does: one row per check and
// label with its advice once, most severe first; a label's 37 low findings
// do not bury one medium finding, and what explains them is said once.
func TestHTMLGroupsFindingsByLabel(t *testing.T) {
	var fs []tests.Finding
	for i := 0; i < 37; i++ {
		fs = append(fs, tests.Finding{Kind: tests.KindFail, Label: "AMLUnresolved", Severity: tests.Low,
			Message: fmt.Sprintf(`\_SB.DEV%d: unresolved reference`, i), Advice: "Declare the object as External.", Explained: "virtual machine (DMI: QEMU)"})
	}
	fs = append(fs, tests.Finding{Kind: tests.KindFail, Label: "SMBIOSMissingStructure", Severity: tests.Medium, Message: "no type 4", Advice: "Publish it."})
	d := doc(tests.Result{ID: "amlparse", Title: "AML", Category: tests.ACPI, Status: tests.StatusFailed, Findings: fs})
	page := writeHTML(t, d)
	rows := regexp.MustCompile(`<tr class="finding"[^>]*>.*</tr>`).FindAllString(page, -1)
	require.Len(t, rows, 2, "one row per label")
	assert.Contains(t, rows[0], "SMBIOSMissingStructure", "the failure first")
	assert.Contains(t, rows[1], `data-count="37"`)
	assert.Contains(t, rows[1], "AMLUnresolved <span class=\"count\">×37</span>")
	assert.Equal(t, 1, strings.Count(page, "Declare the object as External."), "the advice once")
	assert.Equal(t, 1, strings.Count(rows[1], "explained by: virtual machine (DMI: QEMU)"), "the explanation once")
	assert.Equal(t, 37, strings.Count(rows[1], "unresolved reference"))
}
