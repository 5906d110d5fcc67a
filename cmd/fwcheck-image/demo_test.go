package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/image"
)

// filter runs console through a demoFilter, written in chunks of n bytes
// (the serial console arrives in pieces of any size).
func filter(console []byte, n int) (term, results string) {
	var t, r bytes.Buffer
	f := newDemoFilter(&t, &r)
	for len(console) > 0 {
		k := min(n, len(console))
		_, _ = f.Write(console[:k])
		console = console[k:]
	}
	f.Flush()
	return t.String(), r.String()
}

var kernelLine = regexp.MustCompile(`^\[ *\d+\.\d+\] `)

// lastNonKernel returns the last paragraph of the terminal that is not a
// kernel message: the line that starts it and the indented lines after.
func lastNonKernel(term string) (head string, rest []string) {
	lines := strings.Split(strings.ReplaceAll(term, "\r", ""), "\n")
	last := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "" || kernelLine.MatchString(l) || strings.HasPrefix(l, " ") {
			continue
		}
		last = i
	}
	if last < 0 {
		return "", nil
	}
	for _, l := range lines[last+1:] {
		if strings.HasPrefix(l, " ") {
			rest = append(rest, l)
		}
	}
	return lines[last], rest
}

// A console with the report, the results block and the kernel's power-off
// messages, firmware screen clears in front: the terminal keeps the report
// with its verdict last (kernel lines aside) and no clear; the results
// file holds exactly the block, which image.ExtractResults reads back.
// Every chunk size gives the same result.
func TestDemoFilterSynthetic(t *testing.T) {
	console := "\x1b[2J\x1b[01;01HBdsDxe: loading Boot0001\r\n\x1bc" +
		"[    1.000000] Linux version 6.1.0\r\n" +
		"fwcheck dev — firmware report\r\n" +
		"PASSED     fadt  FADT\r\n" +
		"verdict: PASS — no failure at or above medium (6 findings explained\r\n" +
		"         by the environment)\r\n" +
		image.BeginMarker + "\r\n" +
		"{\"schema\": 1,\r\n \"results\": []}\r\n" +
		image.EndMarker + "\r\n" +
		"fwcheck: done; poweroff\r\n" +
		"[   12.000000] reboot: Power down\r\n" +
		"-----BEGIN a line that only looks like the marker\r\n" +
		"$ "
	var first string
	for _, n := range []int{1, 2, 3, 7, 64, len(console)} {
		term, results := filter([]byte(console), n)
		if first == "" {
			first = term
		}
		assert.Equal(t, first, term, "chunks of %d", n)
		assert.NotContains(t, term, "\x1b[2J")
		assert.NotContains(t, term, "\x1bc")
		assert.Contains(t, term, "\x1b[01;01H", "other escapes pass")
		assert.NotContains(t, term, image.BeginMarker+"\r")
		assert.NotContains(t, term, `"schema"`)
		assert.NotContains(t, term, "fwcheck: done;")
		assert.Contains(t, term, "-----BEGIN a line that only looks like the marker")
		assert.True(t, strings.HasSuffix(term, "$ "), "a prompt without a newline is shown: %q", term)
		doc, err := image.ExtractResults([]byte(results))
		require.NoError(t, err, "chunks of %d: %q", n, results)
		assert.JSONEq(t, `{"schema": 1, "results": []}`, string(doc))
	}
	head, _ := lastNonKernel(strings.TrimSuffix(first, "$ ") + "\n")
	assert.True(t, strings.HasPrefix(head, "-----BEGIN a line"), head)
}

// The transcript of a real `make demo` console (testdata/demo-console.txt:
// QEMU q35/OVMF, TCG, 2 vCPUs, the live image booted "quiet" with
// fwcheck.after=poweroff, captured from fwcheck-image boot without
// --results): through the demo filter, the last thing on the terminal
// that is not a kernel message is the report's verdict, the results
// document goes to the file whole, and no screen clear remains.
func TestDemoTranscriptVerdictLast(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "demo-console.txt"))
	require.NoError(t, err)
	require.Contains(t, string(raw), image.BeginMarker, "the fixture is a whole console")
	term, results := filter(raw, 4096)
	head, rest := lastNonKernel(term)
	assert.Regexp(t, `^(fwcheck: )?verdict: `, head, "last non-kernel line (then %q)", rest)
	assert.NotContains(t, term, "\x1b[2J")
	doc, err := image.ExtractResults([]byte(results))
	require.NoError(t, err)
	var d struct {
		Verdict struct {
			Summary string `json:"summary"`
		} `json:"verdict"`
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal(doc, &d))
	assert.NotEmpty(t, d.Results)
	assert.Contains(t, head, d.Verdict.Summary, "the terminal's last line is the document's verdict")
	assert.Contains(t, string(raw), "\x1b[2J", "OVMF cleared the screen in the real console")
	// Unfiltered, the JSON is what the person would have seen last.
	head, _ = lastNonKernel(string(raw))
	assert.NotRegexp(t, `^(fwcheck: )?verdict: `, head, "without the filter the verdict is not last")
}
