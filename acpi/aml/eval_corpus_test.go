package aml

import (
	"sort"
	"strings"
	"testing"
)

// evalNames are the objects TestCorpusEval evaluates on every device.
var evalNames = map[string]bool{"_HID": true, "_CID": true, "_UID": true, "_ADR": true, "_STA": true,
	"_CRS": true, "_PRS": true, "_PRW": true, "_S0_": true, "_S3_": true, "_S4_": true, "_S5_": true}

// TestCorpusEval evaluates the identification, status, resource and sleep
// objects of the 36 machines, and every method that takes no argument:
// none may hit an evaluator bug (Internal) or a construct it lacks
// (Unsupported), and every _CRS that gives a buffer without reading a
// region field must decode. Run with -v for the counts by outcome.
func TestCorpusEval(t *testing.T) {
	counts := map[string]int{}
	for _, m := range loadMachines(t) {
		e := NewEvaluator(m.ns, Options{})
		m.ns.Walk(func(n *Node) bool {
			if n.InMethod {
				return false
			}
			all := n.Type == TypeMethod && n.Method != nil && n.Method.Args == 0 && !n.Predefined
			if !evalNames[n.Name] && !all {
				return true
			}
			v, err := e.Evaluate(n)
			k := "ok"
			if err != nil {
				k = ErrorKind(err).String()
				if ErrorKind(err) == EvalInternal || ErrorKind(err) == EvalUnsupported {
					t.Errorf("%s %s: %v", m.id, n.Path(), err)
				}
			}
			name := n.Name
			if !evalNames[name] {
				name = "other methods"
			}
			counts[name+": "+k]++
			if n.Name == "_CRS" && err == nil && v != nil && v.Type == TypeBuffer && e.FieldReads() == 0 {
				if _, err := DecodeResources(v.Buf); err != nil {
					t.Errorf("%s %s: %v", m.id, n.Path(), err)
				}
			}
			return true
		})
	}
	var ks []string
	for k := range counts {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	t.Logf("outcomes:\n%s", strings.Join(func() []string {
		var out []string
		for _, k := range ks {
			out = append(out, "  "+k+": "+itoa(counts[k]))
		}
		return out
	}(), "\n"))
}
