package all

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWritingACheckRecipe follows README's "Writing a check" in a module of
// its own: a new check package built from the template, its test using
// checktest, and the list validated with the new check in it. If the
// recipe stops compiling or passing, this fails.
func TestWritingACheckRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in a temporary module")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/mycheck\n\ngo 1.26\n\nrequire github.com/fwcheck/fwcheck v0.0.0\n\nreplace github.com/fwcheck/fwcheck => " + root + "\n",
		"go.sum": string(sum),
		"mycheck.go": `// Package mycheck checks that a FADT is there.
package mycheck

import (
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

var labelNoFADT = tests.NewLabel("MyCheckNoFADT", tests.High, "ACPI 6.5 §5.2.9",
	"There is no FADT. Publish one.")

// Check is the mycheck check.
var Check = &tests.Check{
	ID: "mycheck", Title: "a FADT is present", Category: tests.ACPI,
	Inputs: []input.Decl{input.ACPITables}, Spec: "ACPI 6.5 §5.2.9",
	Labels: []*tests.Label{labelNoFADT},
	Run: func(p *tests.Pass) error {
		ts := tests.Input(p, input.ACPITables)
		if ts.First("FACP") == nil {
			p.Fail(labelNoFADT, "no FACP among %d tables", len(ts.List))
			return nil
		}
		p.Passed("FACP present")
		return nil
	},
}
`,
		"mycheck_test.go": `package mycheck

import (
	"testing"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func TestMyCheck(t *testing.T) {
	if err := tests.Validate(append(all.Checks(), Check)); err != nil {
		t.Fatal(err)
	}
	if r := checktest.RunTables(t, Check, checktest.FADT(nil)); r.Status != tests.StatusPassed {
		t.Fatalf("with a FADT: %s", r.Status)
	}
	r := checktest.RunTables(t, Check, checktest.MADT(3))
	if got := checktest.FailLabels(r); len(got) != 1 || got[0] != "MyCheckNoFADT" {
		t.Fatalf("without a FADT: %v", got)
	}
}
`,
	}
	for n, c := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644))
	}
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, strings.Contains(string(out), "ok  \texample.com/mycheck"), "%s", out)
}
