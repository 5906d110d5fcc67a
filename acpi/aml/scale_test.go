package aml

import (
	"bytes"
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
)

// stressInputs are AML bodies of about size bytes built to stress the
// parser: random bytes, thousands of unresolved names, deeply nested If
// blocks, a package of size elements, thousands of duplicates in one
// scope.
func stressInputs(size int) map[string][]byte {
	rnd := rand.New(rand.NewSource(1))
	random := make([]byte, size)
	rnd.Read(random)

	var unresolved []byte
	for len(unresolved) < size {
		unresolved = append(unresolved, 'Q', 'Q', 'Q', 'Q') // a reference to QQQQ, as a statement
	}

	// If (One) { If (One) { … } } nested 200 deep, repeated
	nest := func(depth int) []byte {
		b := []byte{0xA3}
		for i := 0; i < depth; i++ {
			l := len(b) + 1 + 4
			b = append([]byte{0xA0, 0xC0 | byte(l&0xF), byte(l >> 4), byte(l >> 12), byte(l >> 20), 0x01}, b...)
		}
		return b
	}
	nested := bytes.Repeat(nest(200), size/len(nest(200)))

	pkgBody := bytes.Repeat([]byte{0x01}, size)
	l := len(pkgBody) + 1 + 4
	pkg := append([]byte{0x08, 'P', 'K', 'G', '0', 0x12, 0xC0 | byte(l&0xF), byte(l >> 4), byte(l >> 12), byte(l >> 20), 0xFF}, pkgBody...)

	var dups []byte
	for len(dups) < size {
		dups = append(dups, 0x08, 'D', 'U', 'P', '0', 0x00)
	}

	return map[string][]byte{"random": random, "unresolved": unresolved, "nested": nested,
		"package": pkg, "duplicates": dups}
}

// loadWork loads aml as a DSDT and returns the problems and the heap
// allocations the load made: a count of the work done that does not
// depend on how busy the machine is.
func loadWork(aml []byte) (probs []Problem, allocs uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, probs = Load(Table{Name: "DSDT", Signature: "DSDT", AML: aml})
	runtime.ReadMemStats(&after)
	return probs, after.Mallocs - before.Mallocs
}

// TestLinearGrowth loads each stress input at 256 KiB and at 1 MiB and
// checks that the work (heap allocations) grows at most about fourfold
// with the fourfold size, not with its square, and that the problems stay
// capped. Wall time is BenchmarkLoadStress's, not a test's.
func TestLinearGrowth(t *testing.T) {
	small, large := stressInputs(256<<10), stressInputs(1<<20)
	for name := range large {
		_, ws := loadWork(small[name])
		probs, wl := loadWork(large[name])
		ratio := float64(wl) / float64(max(ws, 1))
		t.Logf("%s: %d allocations for %d bytes, %d for %d (×%.2f), %d problems", name, ws, len(small[name]), wl, len(large[name]), ratio, len(probs))
		// Fourfold input: linear work is ×4; allow for fixed costs and
		// growth of slices by doubling, never ×16.
		if wl > 6*ws+10_000 {
			t.Errorf("%s: work grew ×%.1f for ×4 input (%d → %d allocations)", name, ratio, ws, wl)
		}
		if len(probs) > maxProblemsPerTable+1 {
			t.Errorf("%s: %d problems, cap is %d", name, len(probs), maxProblemsPerTable)
		}
	}
}

// BenchmarkLoadStress measures loading each 1 MiB stress input.
func BenchmarkLoadStress(b *testing.B) {
	for name, aml := range stressInputs(1 << 20) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(aml)))
			for range b.N {
				Load(Table{Name: "DSDT", Signature: "DSDT", AML: aml})
			}
		})
	}
}

// retained returns the heap that load's result keeps alive (measured after
// a collection on each side) and the terms it holds.
func retained(load func() *Namespace) (bytes uint64, ns *Namespace) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ns = load()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), ns
}

// TestMemoryPerAMLByte measures what a loaded namespace keeps per byte of
// AML: on every full corpus machine (the README's figure) and on a dense
// 31 MiB table of one term a byte, which the term budget (maxTerms) bounds
// whatever its size. The figures are logged; the asserted bound on the
// dense table is what keeps a 32 MiB DSDT within the snapshot's 128 MiB.
func TestMemoryPerAMLByte(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the corpus and a 31 MiB table")
	}
	var per []float64
	for _, f := range corpus.Glob(t, "acpi/linuxhw/full/*.acpidump.txt.gz") {
		ts, err := acpi.LoadDumpFile(f)
		require.NoError(t, err)
		defs := Definitions(ts)
		size := 0
		for _, d := range defs {
			size += len(d.AML)
		}
		b, ns := retained(func() *Namespace { ns, _ := Load(defs...); return ns })
		runtime.KeepAlive(ns)
		if size > 0 {
			per = append(per, float64(b)/float64(size))
		}
	}
	if len(per) > 0 {
		sort.Float64s(per)
		t.Logf("corpus: %d machines, %.0f / %.0f / %.0f bytes kept per AML byte (min / median / max)",
			len(per), per[0], per[len(per)/2], per[len(per)-1])
	}
	var dense []byte
	for i := range 31 {
		dense = append(dense, noopMethod(fmt.Sprintf("D%03d", i), 1<<20-16)...)
	}
	b, ns := retained(func() *Namespace {
		ns, _ := Load(Table{Name: "DSDT", Signature: "DSDT", Revision: 2, AML: dense})
		return ns
	})
	runtime.KeepAlive(ns)
	t.Logf("dense: %d bytes of AML, %d terms kept (the budget), %.1f MB: %.0f bytes a term, %.1f per AML byte",
		len(dense), maxTerms, float64(b)/1e6, float64(b)/maxTerms, float64(b)/float64(len(dense)))
	assert.Less(t, b, uint64(80<<20), "the term budget bounds the tree")
}
