package pm

// The fwcheck cycle markers: the s3 check's protocol with this package (see
// the package doc).

import (
	"fmt"
	"strconv"
	"strings"
)

// MarkerPrefix starts every fwcheck cycle marker: the line the s3 check
// writes to /dev/kmsg before suspending ("fwcheck: s3 cycle 3 begin") and
// after resuming ("fwcheck: s3 cycle 3 end slept=5.012s").
const MarkerPrefix = "fwcheck: s3 cycle "

// MarkerEdge says which side of a cycle a marker stands on.
type MarkerEdge string

// The two marker edges.
const (
	MarkerBegin MarkerEdge = "begin"
	MarkerEnd   MarkerEdge = "end"
)

// Marker formats a cycle marker: MarkerPrefix, the cycle number, the edge,
// then each field (which should be "key=value" without spaces) separated
// by spaces.
func Marker(cycle int, edge MarkerEdge, fields ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d %s", MarkerPrefix, cycle, edge)
	for _, f := range fields {
		b.WriteByte(' ')
		b.WriteString(f)
	}
	return b.String()
}

// ParseMarker reads a marker written by Marker. Fields without "=" are
// kept with an empty value.
func ParseMarker(text string) (cycle int, edge MarkerEdge, fields map[string]string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(text), MarkerPrefix)
	if !found {
		return 0, "", nil, false
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return 0, "", nil, false
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 0 {
		return 0, "", nil, false
	}
	edge = MarkerEdge(f[1])
	if edge != MarkerBegin && edge != MarkerEnd {
		return 0, "", nil, false
	}
	return n, edge, kvFields(f[2:]), true
}

func kvFields(f []string) map[string]string {
	if len(f) == 0 {
		return nil
	}
	m := make(map[string]string, len(f))
	for _, kv := range f {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}
