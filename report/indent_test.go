package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// encoderIndent is what WriteJSON wrote before indentJSON: a json.Encoder
// with SetIndent("", "  ").
func encoderIndent(t testing.TB, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	return b.Bytes()
}

func TestIndentJSONIsEncoderIndent(t *testing.T) {
	values := []any{
		map[string]any{},
		[]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{map[string]any{}, []any{[]any{}}}},
		[]any{1, -2.5e-7, true, false, nil, "x"},
		map[string]any{`quote " and \ backslash`: `{"not": [an, object]}`, "html": "<a href='x'>&</a>", "ctl": "\x00\x1f\t\n", "utf8": "µs — ü \u2028"},
		map[string]any{"deep": []any{[]any{[]any{map[string]any{"k": []any{1, 2, map[string]any{"z": "\\\""}}}}}}},
		"just a string, with: colons, and {braces}",
		42,
	}
	for _, v := range values {
		want := encoderIndent(t, v)
		b, err := json.Marshal(v)
		require.NoError(t, err)
		got := append(indentJSON(nil, b), '\n')
		require.Equal(t, string(want), string(got))
	}
}

// FuzzIndentJSON holds indentJSON to json.Indent on every valid JSON text,
// compacted as json.Marshal would write it.
func FuzzIndentJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{"b":""}],"c":{}}`, `"x\"y\\"`, `[[[]],{},[{}]]`, `{"k":"<\u003e&"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			return
		}
		var want bytes.Buffer
		require.NoError(t, json.Indent(&want, compact.Bytes(), "", "  "))
		require.Equal(t, want.String(), string(indentJSON(nil, compact.Bytes())))
	})
}
