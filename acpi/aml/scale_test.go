package aml

import (
	"bytes"
	"math/rand"
	"runtime"
	"testing"
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
