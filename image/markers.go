package image

import (
	"errors"
	"strings"
)

// The lines that frame the JSON results document on the serial console.
const (
	BeginMarker = "-----BEGIN FWCHECK RESULTS-----"
	EndMarker   = "-----END FWCHECK RESULTS-----"
)

// ErrNoResults means a console transcript holds no complete results block.
var ErrNoResults = errors.New("no complete " + BeginMarker + " block in the console output")

// ExtractResults returns the JSON document framed by a BeginMarker line and
// an EndMarker line in a serial console transcript. Carriage returns added
// by the tty layer are removed. When several complete blocks are present,
// the last one is returned.
func ExtractResults(console []byte) ([]byte, error) {
	lines := strings.Split(strings.ReplaceAll(string(console), "\r", ""), "\n")
	var last []string
	found := false
	start := -1
	for i, l := range lines {
		switch l {
		case BeginMarker:
			start = i + 1
		case EndMarker:
			if start >= 0 {
				last, found = lines[start:i], true
				start = -1
			}
		}
	}
	if !found {
		return nil, ErrNoResults
	}
	return []byte(strings.Join(last, "\n")), nil
}
