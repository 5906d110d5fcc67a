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
