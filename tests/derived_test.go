package tests_test

// This file is the whole of adding an input derived from another: the
// declaration (kernelRelease, computed from input.Kernel) and the checks
// that read it. Nothing else in the tree changes.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

// derivations counts how often kernelRelease was computed.
var derivations int

// kernelRelease is the release field of the kernel's version string
// ("6.1.0-28-amd64"), derived from input.Kernel.
var kernelRelease = input.Declare(input.Def[string]{
	Name: "kernel-release", Doc: "the running kernel's release",
	Requires: []input.Decl{input.Kernel},
	Derive: func(d input.Deps) (string, error) {
		derivations++
		f := strings.Fields(input.Dep(d, input.Kernel))
		if len(f) < 3 {
			return "", os.ErrNotExist
		}
		return f[2], nil
	},
})

var releaseLabel = tests.NewLabel("DerivedTestOldKernel", tests.Low, "none", "Fixture label of the derived-input test.")

func releaseCheck(id string, declare input.Decl) *tests.Check {
	return &tests.Check{ID: id, Title: "kernel release", Category: tests.Log, Inputs: []input.Decl{declare}, Labels: []*tests.Label{releaseLabel},
		Run: func(p *tests.Pass) error {
			if r := tests.Input(p, kernelRelease); strings.HasPrefix(r, "4.") {
				p.Fail(releaseLabel, "kernel %s", r)
			} else {
				p.Passed("kernel %s", r)
			}
			return nil
		}}
}

func versionDir(t *testing.T, version string) input.Source {
	t.Helper()
	dir := t.TempDir()
	if version != "" {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "proc"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "proc", "version"), []byte(version), 0o644))
	}
	src, err := input.Open(dir)
	require.NoError(t, err)
	return src
}

func TestDerivedInputIsComputedOncePerPhase(t *testing.T) {
	derivations = 0
	// One check declares the derived input, one only what it is derived
	// from: both read it, and it is computed once.
	checks := []*tests.Check{releaseCheck("declares-derived", kernelRelease), releaseCheck("declares-source", input.Kernel)}
	require.NoError(t, tests.Validate(checks[:1]))
	m := input.New(versionDir(t, "Linux version 4.19.0-27-amd64 (gcc)"), input.Options{})
	rs := tests.Run(&tests.Env{Machine: m}, checks)
	for _, r := range rs {
		assert.Equal(t, tests.StatusFailed, r.Status, r.ID)
		assert.Equal(t, "kernel 4.19.0-27-amd64", r.Findings[0].Message)
	}
	assert.Equal(t, 1, derivations)

	// A new phase (after an action on the machine) computes it afresh.
	m.NewPhase()
	tests.Run(&tests.Env{Machine: m}, checks)
	assert.Equal(t, 2, derivations)

	// The derived input reads as root when what it comes from does, and
	// snapshots capture what it comes from.
	assert.Equal(t, input.Kernel.NeedsRoot(), kernelRelease.NeedsRoot())
	assert.Equal(t, input.Kernel.Capture(), kernelRelease.Capture())
}

func TestDerivedInputUnavailableWithItsSource(t *testing.T) {
	derivations = 0
	rs := tests.Run(&tests.Env{Machine: input.New(versionDir(t, ""), input.Options{})}, []*tests.Check{releaseCheck("declares-derived", kernelRelease)})
	assert.Equal(t, tests.StatusSkipped, rs[0].Status)
	assert.Contains(t, rs[0].Reason, "kernel unavailable", "the reason names the input it is derived from")
	assert.Zero(t, derivations, "not computed without its source")
}

func TestDerivedInputNotDeclaredAborts(t *testing.T) {
	c := releaseCheck("declares-nothing", input.DMI)
	r := tests.RunOne(&tests.Env{Machine: input.New(versionDir(t, "Linux version 6.1.0 x"), input.Options{})}, c)
	assert.Equal(t, tests.StatusSkipped, r.Status, "dmi is missing here")
	c.Inputs = nil
	r = tests.RunOne(&tests.Env{Machine: input.New(versionDir(t, "Linux version 6.1.0 x"), input.Options{})}, c)
	assert.Equal(t, tests.StatusAborted, r.Status)
	assert.Contains(t, r.Reason, "without declaring it")
}

func TestDuplicateInputNamesAreRefused(t *testing.T) {
	twin := input.Declare(input.Def[string]{Name: "kernel", Doc: "a second kernel input", Load: func(input.Source) (string, error) { return "", nil }})
	a, b := releaseCheck("one", input.Kernel), releaseCheck("two", twin)
	b.Labels = nil
	assert.ErrorContains(t, tests.Validate([]*tests.Check{a, b}), `two inputs are named "kernel"`)
	// A derived input's requirements count too.
	twinRelease := input.Declare(input.Def[string]{Name: "kernel-release", Doc: "again", Requires: []input.Decl{input.Kernel},
		Derive: func(input.Deps) (string, error) { return "", nil }})
	assert.ErrorContains(t, tests.Validate([]*tests.Check{releaseCheck("three", kernelRelease), noLabels(releaseCheck("four", twinRelease))}), `two inputs are named "kernel-release"`)
}

func noLabels(c *tests.Check) *tests.Check { c.Labels = nil; return c }
