package report_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/report"
)

// WriteJSON writes byte for byte what a json.Encoder with SetIndent("",
// "  ") wrote before it indented the text itself: on the tests' documents
// (findings, hostile strings, floods of results, S3 cycles).
func TestWriteJSONIsEncoderIndent(t *testing.T) {
	for _, d := range []*report.Document{sample(), manyFindings(), hostileDoc(), s3Doc(t), floodDoc(t)} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		require.NoError(t, enc.Encode(d))
		var got bytes.Buffer
		require.NoError(t, report.WriteJSON(&got, d))
		require.Equal(t, want.String(), got.String())
	}
}
