package aml

import (
	"runtime"
	"testing"
)

// benchMachines loads the corpus and drops the namespaces the loading
// built, so the benchmark's live heap is only the tables.
func benchMachines(b *testing.B) []*machine {
	ms := loadMachines(b)
	for _, m := range ms {
		m.ns, m.probs, m.tables = nil, nil, nil
	}
	runtime.GC()
	return ms
}

// BenchmarkLoadCorpus loads the DSDT and SSDTs of all 36 full linuxhw
// dumps (36 DSDTs, 431 SSDTs) once per iteration; the MB/s figure counts
// AML bytes.
func BenchmarkLoadCorpus(b *testing.B) {
	ms := benchMachines(b)
	total := 0
	for _, m := range ms {
		for _, d := range m.defs {
			total += len(d.AML)
		}
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range ms {
			Load(m.defs...)
		}
	}
}

// BenchmarkLoadLargest loads the machine with the most AML.
func BenchmarkLoadLargest(b *testing.B) {
	ms := benchMachines(b)
	var big *machine
	size := func(m *machine) (n int) {
		for _, d := range m.defs {
			n += len(d.AML)
		}
		return n
	}
	for _, m := range ms {
		if big == nil || size(m) > size(big) {
			big = m
		}
	}
	b.SetBytes(int64(size(big)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Load(big.defs...)
	}
}

// BenchmarkEvalCorpus evaluates the _HID, _CID, _UID, _STA, _CRS and _PRW
// of every device of the 36 machines (after running their _REG methods),
// with a fresh evaluator per machine and per iteration; evals/s counts
// objects evaluated, with or without a value.
func BenchmarkEvalCorpus(b *testing.B) {
	ms := loadMachines(b)
	type obj struct {
		m *machine
		n *Node
	}
	var objs []obj
	for _, m := range ms {
		m.ns.Walk(func(n *Node) bool {
			if n.InMethod {
				return false
			}
			switch n.Name {
			case "_HID", "_CID", "_UID", "_STA", "_CRS", "_PRW":
				objs = append(objs, obj{m, n})
			}
			return true
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var e *Evaluator
		var cur *machine
		for _, o := range objs {
			if o.m != cur {
				cur = o.m
				e = NewEvaluator(cur.ns, Options{})
				e.RunREG()
			}
			e.Evaluate(o.n)
		}
	}
	b.ReportMetric(float64(b.N*len(objs))/b.Elapsed().Seconds(), "evals/s")
}
