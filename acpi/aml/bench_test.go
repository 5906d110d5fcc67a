package aml

import (
	"testing"
)

// BenchmarkLoadCorpus loads the DSDT and SSDTs of all 36 full linuxhw
// dumps (36 DSDTs, 431 SSDTs) once per iteration; the MB/s figure counts
// AML bytes.
func BenchmarkLoadCorpus(b *testing.B) {
	ms := loadMachines(b)
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
	ms := loadMachines(b)
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
