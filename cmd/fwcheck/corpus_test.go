package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/report/reporttest"
	"github.com/fwcheck/fwcheck/tests"
)

// goldenDir holds the ACPI checks' golden results (see tests/all/acpi_test.go).
var goldenDir = filepath.Join("..", "..", "tests", "all", "testdata", "acpi", "golden")

// goldenSection returns check id's block of a golden file: its status line
// and the finding lines under it.
func goldenSection(golden, id string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(golden, "\n") {
		switch {
		case strings.HasPrefix(line, id+" "):
			in = true
		case !strings.HasPrefix(line, "  "):
			in = false
		}
		if in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestCorpusChecksumThroughCLI runs `fwcheck run checksum --acpidump DUMP
// --json -` on every real dump: every one loads, every document satisfies
// the schema, and the checksum verdicts are the golden ones.
func TestCorpusChecksumThroughCLI(t *testing.T) {
	dumps := corpus.Glob(t, "acpi/linuxhw/core/*.acpidump.txt")
	full, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "acpi", "linuxhw", "full"), "*.acpidump.txt.gz"))
	failed := 0
	for _, p := range append(dumps, full...) {
		kind := filepath.Base(filepath.Dir(p))
		name := kind + "-" + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".gz"), ".acpidump.txt")
		code, stdout, stderr := fwcheck(t, "", "run", "checksum", "--acpidump", p, "--json", "-", "--quiet")
		require.Contains(t, []int{exitOK, exitFailing}, code, "%s: %s", name, stderr)
		d := reporttest.Check(t, []byte(stdout))
		require.Len(t, d.Results, 1, name)
		golden, err := os.ReadFile(filepath.Join(goldenDir, name+".txt"))
		require.NoError(t, err, name)
		assert.Equal(t, goldenSection(string(golden), "checksum"), tests.Render([]tests.Result{d.Results[0].Result}), name)
		if d.Results[0].Status == tests.StatusFailed {
			failed++
		}
	}
	t.Logf("%d dumps, %d with a checksum failure", len(dumps)+len(full), failed)
	assert.Positive(t, failed, "the corpus has real tables with wrong checksums")
}

// TestCorpusDocumentsValidateInPython: the results of every check on every
// real dump, and of the kernel-log checks on every real log, satisfy the
// schema under Python's jsonschema too (Draft 2020-12), the validator lab
// tooling uses.
func TestCorpusDocumentsValidateInPython(t *testing.T) {
	if err := reporttest.ValidatePython(); errors.Is(err, reporttest.ErrNoPython) {
		t.Skip(err)
	}
	var docs [][]byte
	for _, p := range corpus.Glob(t, "acpi/linuxhw/core/*.acpidump.txt") {
		_, stdout, stderr := fwcheck(t, "", "run", "--acpidump", p, "--json", "-", "--quiet")
		require.NotEmpty(t, stdout, "%s: %s", p, stderr)
		docs = append(docs, []byte(stdout))
	}
	logs, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "klog"), "*", "*.dmesg.txt"))
	top, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "klog"), "*.txt"))
	for _, p := range append(logs, top...) {
		_, stdout, stderr := fwcheck(t, "", "klog", p, "--json", "-", "--quiet")
		require.NotEmpty(t, stdout, "%s: %s", p, stderr)
		docs = append(docs, []byte(stdout))
	}
	reporttest.CheckPython(t, docs...)
	t.Logf("%d documents valid under Python jsonschema", len(docs))
}
