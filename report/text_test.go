package report_test

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func text(t *testing.T, d *report.Document, o report.TextOptions) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, report.WriteText(&b, d, o))
	return b.String()
}

// manyFindings is a klog-like result: one label 12 times, another once.
func manyFindings() *report.Document {
	var fs []tests.Finding
	for i := range 12 {
		fs = append(fs, tests.Finding{Kind: tests.KindFail, Label: "AMLMethodNotFound", Severity: tests.High,
			Message: fmt.Sprintf("[ %d.0] ACPI Error: method \\_SB.PC%02d._DSM not found", i, i), Advice: "Define the method the AML calls.", Spec: "ACPI 6.5 §19"})
	}
	fs = append(fs, tests.Finding{Kind: tests.KindFail, Label: "OSILinuxQuery", Severity: tests.Low, Message: "BIOS _OSI(Linux) query ignored", Advice: "Do not key behaviour on the OS name."})
	fs = append(fs, tests.Finding{Kind: tests.KindFail, Label: "TPMSelfTestFailed", Severity: tests.Critical, Message: "TPM self test failed", Advice: "Update the TPM firmware."})
	rs := []tests.Result{{ID: "klog", Title: "kernel log", Category: tests.Log, Status: tests.StatusFailed, Findings: fs}}
	m := input.Identity{Source: "live:/", Kernel: "Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)",
		DMI: &input.DMIInfo{SysVendor: "ACME", ProductName: "Roadrunner 3000", BIOSVendor: "ACME BIOS", BIOSVersion: "1.0.7", BIOSDate: "01/02/2026"}}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return report.New("1.2.3", m, t0, t0, rs)
}

func TestTextGroupsByLabelAndSummarises(t *testing.T) {
	out := text(t, manyFindings(), report.TextOptions{})
	assert.Contains(t, out, "fwcheck 1.2.3 — firmware report, 2026-12-01 10:00 UTC")
	assert.Contains(t, out, "examined: this machine\n")
	assert.Contains(t, out, "machine:  ACME Roadrunner 3000, BIOS ACME BIOS 1.0.7 (01/02/2026)")
	assert.Contains(t, out, "kernel:   Linux version 6.1.0-28-amd64")

	assert.Equal(t, 1, strings.Count(out, "FAIL AMLMethodNotFound [high], 12 findings:"), out)
	assert.Equal(t, 1, strings.Count(out, "advice: Define the method"), "advice once per label")
	assert.Equal(t, 5, strings.Count(out, "     - [ "), "five occurrences listed")
	assert.Contains(t, out, "\\_SB.PC04._DSM")
	assert.NotContains(t, out, "\\_SB.PC05._DSM")
	assert.Contains(t, out, "… and 7 more")
	assert.Contains(t, out, "FAIL OSILinuxQuery [low]: BIOS _OSI(Linux) query ignored")

	// The closing summary: every failing label by severity, critical first,
	// then the status counts, then the verdict last.
	sum := out[strings.Index(out, "Failures by severity"):]
	assert.Regexp(t, `(?s)critical\s+TPMSelfTestFailed\s+klog\s+1\n\s+high\s+AMLMethodNotFound\s+klog\s+12\n\s+low\s+OSILinuxQuery\s+klog\s+1\n`, sum)
	assert.Regexp(t, `1 check: 1 failed\n`, sum)
	assert.True(t, strings.HasPrefix(lastLine(out), "verdict: FAIL — 14 failures at or above low"), lastLine(out))
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return ls[len(ls)-1]
}

func TestTextWrapsToWidth(t *testing.T) {
	d := manyFindings()
	d.Results[0].Findings[0].Advice = strings.Repeat("a long advice text that goes on ", 20)
	d.Results[0].Findings[0].Message = "unbroken:" + strings.Repeat("x", 200)
	for _, w := range []int{0, 40, 80, 132} {
		out := text(t, d, report.TextOptions{Width: w})
		want := w
		if w == 0 {
			want = report.DefaultWidth
		}
		for _, l := range strings.Split(out, "\n") {
			assert.LessOrEqual(t, utf8.RuneCountInString(l), want, "width %d: %q", w, l)
		}
		// Continuation lines are indented under their finding.
		assert.Regexp(t, `advice: a long[^\n]*\n {13}\S`, out)
	}
	// Colour codes do not count towards the width.
	out := text(t, d, report.TextOptions{Width: 60, Color: true})
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, "")
	for _, l := range strings.Split(plain, "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), 60, "%q", l)
	}
}

func TestTextColoursBySeverity(t *testing.T) {
	out := text(t, manyFindings(), report.TextOptions{Color: true, Width: 200})
	crit := regexp.MustCompile("(\x1b\\[[0-9;]*m)FAIL\x1b\\[0m TPMSelfTestFailed").FindStringSubmatch(out)
	high := regexp.MustCompile("(\x1b\\[[0-9;]*m)FAIL\x1b\\[0m AMLMethodNotFound").FindStringSubmatch(out)
	low := regexp.MustCompile("(\x1b\\[[0-9;]*m)FAIL\x1b\\[0m OSILinuxQuery").FindStringSubmatch(out)
	require.NotNil(t, crit, out)
	require.NotNil(t, high)
	require.NotNil(t, low)
	assert.NotEqual(t, crit[1], high[1])
	assert.NotEqual(t, high[1], low[1])
	assert.NotEqual(t, crit[1], low[1])
}

func TestTextSingularPlural(t *testing.T) {
	d := report.New("t", input.Identity{Source: "snapshot:none", Files: map[string]string{"acpi-tables": "dump.txt"}}, time.Now(), time.Now(), []tests.Result{
		{ID: "hpet", Title: "HPET", Category: tests.ACPI, Status: tests.StatusSkipped, Reason: "no"},
		{ID: "fadt", Title: "FADT", Category: tests.ACPI, Status: tests.StatusFailed, Findings: []tests.Finding{
			{Kind: tests.KindFail, Label: "X", Severity: tests.High, Message: "m", Advice: "a"}}},
	})
	out := text(t, d, report.TextOptions{})
	assert.Contains(t, out, "examined: ACPI tables from dump.txt (nothing else")
	assert.Contains(t, out, "2 checks: 1 failed, 1 skipped")
	assert.Contains(t, out, "verdict: FAIL — 1 failure at or above low (1 check skipped)")
}

// hostile is every kind of string the report writes, each carrying
// terminal control sequences: a kernel-log line, a table's OEM ID, a
// snapshot's file name, a database's advice.
const hostile = "\x1b]0;pwned\x07\x1b[2J\x1b[8mhidden\x1b[0m\x9b31m\u202eevil\r\x00\xc2\u009bC1"

func hostileDoc() *report.Document {
	rs := []tests.Result{
		{ID: "klog", Title: "log " + hostile, Category: tests.Log, Status: tests.StatusFailed, Findings: []tests.Finding{
			{Kind: tests.KindFail, Label: "Bad" + hostile, Severity: tests.High, Message: "line " + hostile, Advice: "advice " + hostile, Spec: hostile},
			{Kind: tests.KindFail, Label: "Bad", Severity: tests.High, Message: hostile, Advice: hostile, Explained: hostile},
			{Kind: tests.KindWarning, Message: hostile},
			{Kind: tests.KindInfo, Message: hostile},
			{Kind: tests.KindPass, Message: hostile},
		}, Unchecked: []tests.Unchecked{{What: hostile, Reason: hostile, Remedy: hostile}}},
		{ID: "hpet", Title: "HPET", Category: tests.ACPI, Status: tests.StatusSkipped, Reason: "snapshot " + hostile},
	}
	m := input.Identity{Source: "snapshot:" + hostile, Kernel: hostile, Files: map[string]string{"kernel-log": hostile},
		DMI: &input.DMIInfo{SysVendor: hostile, ProductName: hostile, BIOSVersion: hostile}}
	d := report.New(hostile, m, time.Now(), time.Now(), rs)
	d.Settings = map[string]string{"s3.journal": hostile}
	d.Errors = []string{hostile}
	return d
}

// Nothing the firmware or a log says reaches the terminal raw: without
// colour the report holds no control character but newlines; with colour
// the only escapes are the report's own SGR codes.
func TestTextSanitisesEveryUntrustedString(t *testing.T) {
	for _, o := range []report.TextOptions{{}, {Verbose: true}, {Quiet: true}} {
		out := text(t, hostileDoc(), o)
		assertTerminalSafe(t, out, false)
		assert.Contains(t, out, `^[]0;pwned\x07^[[2J^[[8mhidden^[[0m\x9b31m\u202eevil\x0d\x00\xc2`)
	}
	out := text(t, hostileDoc(), report.TextOptions{Color: true, Verbose: true})
	assertTerminalSafe(t, out, true)
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

func assertTerminalSafe(t *testing.T, out string, color bool) {
	t.Helper()
	if color {
		out = sgr.ReplaceAllString(out, "")
	}
	assert.True(t, utf8.ValidString(out), "valid UTF-8")
	for i, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e {
			t.Fatalf("control character %U at %d: %q", r, i, out[max(0, i-20):min(len(out), i+20)])
		}
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain ACPI \\_SB.PCI0 text": "plain ACPI \\_SB.PCI0 text",
		"Größe 温度":                   "Größe 温度",
		"a\x1b[31mb":                 "a^[[31mb",
		"tab\there":                  "tab here",
		"nl\nx":                      `nl\x0ax`,
		"\x00\x07\x7f":               `\x00\x07\x7f`,
		"\u009b2J":                   `\x9b2J`,
		"\xff\xfe":                   `\xff\xfe`,
		"rtl\u202etxt":               `rtl\u202etxt`,
	} {
		assert.Equal(t, want, report.Sanitize(in, false), "%q", in)
	}
	assert.Equal(t, "a\nb", report.Sanitize("a\nb", true))
}

// FuzzSanitize: whatever the input, the output is valid UTF-8 with no
// control character (newline only when kept), and clean input is
// unchanged.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "ok", hostile, "\x1b[0m", "\xc2\x9b", "a\nb\tc", "\u2028\u2066"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, keep bool) {
		out := report.Sanitize(s, keep)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
		}
		for _, r := range out {
			if r < 0x20 && !(keep && r == '\n') || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e || r == 0x2028 {
				t.Fatalf("control %U survives in %q (from %q)", r, out, s)
			}
		}
		if report.Sanitize(out, keep) != out {
			t.Fatalf("not idempotent on %q", s)
		}
		safe := utf8.ValidString(s)
		for _, r := range s {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x2000 && r <= 0x206f || r == 0x061c {
				safe = false
			}
		}
		if safe && out != s {
			t.Fatalf("changed clean %q to %q", s, out)
		}
	})
}

// FuzzWriteText: whatever the strings and the width, the report is
// written, no line is wider than the width, and nothing but the report's
// own colour codes reaches the terminal.
func FuzzWriteText(f *testing.F) {
	f.Add("ACPI: table \\_SB.PCI0 bad", "FADTBad", "advice text", "live:/", 80, true)
	f.Add(hostile, hostile, hostile, "snapshot:"+hostile, 41, false)
	f.Add(strings.Repeat("x", 300), "L", strings.Repeat("word ", 100), "snapshot:none", 0, true)
	f.Add("a\nb\n\n  indented", "L", "", "live:/root", 200, false)
	f.Fuzz(func(t *testing.T, msg, label, advice, source string, width int, color bool) {
		if width > 1000 || width < -1000 {
			return
		}
		var fs []tests.Finding
		for range 7 {
			fs = append(fs, tests.Finding{Kind: tests.KindFail, Label: label, Severity: tests.High, Message: msg, Advice: advice, Spec: msg})
		}
		fs = append(fs, tests.Finding{Kind: tests.KindWarning, Message: msg}, tests.Finding{Kind: tests.KindFail, Label: label, Severity: tests.Low, Message: msg, Advice: advice, Explained: msg})
		rs := []tests.Result{{ID: "klog", Title: msg, Category: tests.Log, Status: tests.StatusFailed, Reason: msg, Findings: fs,
			Unchecked: []tests.Unchecked{{What: msg, Reason: advice, Remedy: msg}}}}
		d := report.New(msg, input.Identity{Source: source, Kernel: msg, DMI: &input.DMIInfo{SysVendor: msg}}, time.Time{}, time.Time{}, rs)
		var b bytes.Buffer
		require.NoError(t, report.WriteText(&b, d, report.TextOptions{Width: width, Color: color, Verbose: true}))
		out := b.String()
		if color {
			out = sgr.ReplaceAllString(out, "")
		}
		w := max(width, 40)
		if width <= 0 {
			w = report.DefaultWidth
		}
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > w {
				t.Fatalf("line of %d > %d: %q", n, w, l)
			}
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Fatalf("control %U in the report", r)
			}
		}
	})
}

// BenchmarkWriteText writes the report of a run with 100 labels of 100
// findings each (the framework's cap), as a hostile log can produce.
func BenchmarkWriteText(b *testing.B) {
	var fs []tests.Finding
	for l := range 100 {
		for i := range 100 {
			fs = append(fs, tests.Finding{Kind: tests.KindFail, Label: fmt.Sprintf("Label%d", l), Severity: tests.Severity(1 + l%4),
				Message: fmt.Sprintf("[ %d.%06d] ACPI Error: AE_NOT_FOUND, while resolving a named reference \\_SB.PCI0.LPC%d", l, i, i), Advice: strings.Repeat("Fix the firmware. ", 20)})
		}
	}
	d := report.New("b", input.Identity{Source: "live:/"}, time.Now(), time.Now(), []tests.Result{{ID: "klog", Title: "kernel log", Status: tests.StatusFailed, Findings: fs}})
	b.ReportAllocs()
	for b.Loop() {
		if err := report.WriteText(io.Discard, d, report.TextOptions{Color: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTextGolden keeps the report's layout under review: a grouped klog
// run at 80 and 60 columns, a waived run, and the hostile strings.
func TestTextGolden(t *testing.T) {
	fixed := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h := hostileDoc()
	h.Start = fixed
	ws, err := report.ReadWaivers(strings.NewReader(`{"waivers": [{"label": "AMLMethodNotFound", "reason": "fixed in 1.1", "expires": "2026-12-31"}, {"label": "OSILinuxQuery", "reason": "old", "expires": "2026-01-01"}]}`))
	require.NoError(t, err)
	w := manyFindings()
	w.ApplyWaivers(ws, fixed)
	for _, c := range []struct {
		name string
		d    *report.Document
		o    report.TextOptions
	}{
		{"grouped-80", manyFindings(), report.TextOptions{FailOn: tests.Medium}},
		{"grouped-60-verbose", manyFindings(), report.TextOptions{Width: 60, Verbose: true}},
		{"waived", w, report.TextOptions{FailOn: tests.Medium}},
		{"hostile", h, report.TextOptions{Verbose: true}},
	} {
		checktest.Golden(t, "testdata/golden", c.name, text(t, c.d, c.o))
	}
}
