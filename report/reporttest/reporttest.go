// Package reporttest validates fwcheck results documents against the
// published JSON Schema, for the tests of every package that produces one.
package reporttest

import (
	"bytes"
	"encoding/json"
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
