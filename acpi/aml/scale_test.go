package aml

import (
	"bytes"
	"math/rand"
	"testing"
	"time"
)

// TestLinearTime loads 1 MiB inputs built to stress the parser (random
// bytes, thousands of unresolved names, deeply nested If blocks, a
// package of a million elements, thousands of duplicates in one scope)
// and checks each loads in time proportional to its size, with the
// problem count capped.
func TestLinearTime(t *testing.T) {
	const size = 1 << 20
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

	for name, aml := range map[string][]byte{"random": random, "unresolved": unresolved, "nested": nested,
		"package": pkg, "duplicates": dups} {
		start := time.Now()
		_, probs := Load(Table{Name: "DSDT", Signature: "DSDT", AML: aml})
		d := time.Since(start)
		t.Logf("%s: %d bytes in %v, %d problems", name, len(aml), d, len(probs))
		if d > 10*time.Second {
			t.Errorf("%s: %v for %d bytes", name, d, len(aml))
		}
		if len(probs) > maxProblemsPerTable+1 {
			t.Errorf("%s: %d problems, cap is %d", name, len(probs), maxProblemsPerTable)
		}
	}
}
