// Package reporttest validates fwcheck results documents against the
// published JSON Schema, for the tests of every package that produces one.
package reporttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fwcheck/fwcheck/report"
)

var (
	once   sync.Once
	schema *jsonschema.Schema
	errSch error
)

func compiled() (*jsonschema.Schema, error) {
	once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(report.Schema))
		if err != nil {
			errSch = err
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("results.schema.json", doc); err != nil {
			errSch = err
			return
		}
		schema, errSch = c.Compile("results.schema.json")
	})
	return schema, errSch
}

// Validate returns an error unless b is a results document that satisfies
// the schema.
func Validate(b []byte) error {
	s, err := compiled()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// Check fails t unless b is a valid results document, and returns it decoded.
func Check(t testing.TB, b []byte) *report.Document {
	t.Helper()
	if err := Validate(b); err != nil {
		t.Fatalf("results document does not satisfy the schema: %v\n%s", err, b)
	}
	var d report.Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("results document: %v", err)
	}
	return &d
}

// pythonCheck validates documents with Python's jsonschema (Draft 2020-12
// and its format checker), the validator most lab tooling uses: one
// document per line on standard input, one line of errors per document.
const pythonCheck = `
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
bad = 0
for i, line in enumerate(sys.stdin):
    errs = ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message) for e in v.iter_errors(json.loads(line))]
    if errs:
        bad += 1
        print("document %d: %s" % (i, "; ".join(errs)))
sys.exit(1 if bad else 0)
`

// ErrNoPython is ValidatePython's error when python3 or its jsonschema
// module is missing.
var ErrNoPython = errors.New("python3 with jsonschema not installed ('make deps-image' installs Debian's python3-jsonschema)")

// ValidatePython validates documents with Python's jsonschema, returning
// its complaints as the error.
func ValidatePython(docs ...[]byte) error {
	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-c", "import jsonschema").Run() != nil {
		return ErrNoPython
	}
	dir, err := os.MkdirTemp("", "fwcheck-schema")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sp := filepath.Join(dir, "results.schema.json")
	if err := os.WriteFile(sp, report.Schema, 0o644); err != nil {
		return err
	}
	var in bytes.Buffer
	for _, d := range docs {
		if err := json.Compact(&in, d); err != nil {
			return fmt.Errorf("not JSON: %w", err)
		}
		in.WriteByte('\n')
	}
	cmd := exec.Command(py, "-c", pythonCheck, sp)
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("python jsonschema: %v: %s", err, out)
	}
	return nil
}

// CheckPython fails t unless Python's jsonschema accepts every document;
// it skips when python3-jsonschema is missing.
func CheckPython(t testing.TB, docs ...[]byte) {
	t.Helper()
	err := ValidatePython(docs...)
	if errors.Is(err, ErrNoPython) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("Python jsonschema rejects the results: %v", err)
	}
}
