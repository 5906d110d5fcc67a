//go:build linux

package hostile

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests/checktest"
)

// pkg is an AML object: op, a PkgLength (always 4 bytes long, which every
// length allows) and body.
func pkg(op []byte, body ...[]byte) []byte {
	n := 4
	for _, b := range body {
		n += len(b)
	}
	out := append([]byte(nil), op...)
	out = append(out, 0xC0|byte(n&0xF), byte(n>>4), byte(n>>12), byte(n>>20))
	for _, b := range body {
		out = append(out, b...)
	}
	return out
}

// method is Method (name, args) { body }.
func method(name string, args byte, body ...[]byte) []byte {
	return pkg([]byte{0x14}, append([][]byte{[]byte(name), {args}}, body...)...)
}

var (
	loopForever = pkg([]byte{0xA2}, []byte{0x01})                                 // While (One) {}
	loopAlloc   = pkg([]byte{0xA2}, []byte{0x01}, []byte{0x70}, pkg([]byte{0x11}, // While (One) { Local0 = Buffer (0x100000) {} }
		[]byte{0x0C, 0x00, 0x00, 0x10, 0x00}), []byte{0x60})
)

// nameSeg is a distinct 4-character name for i < 36³.
func nameSeg(c byte, i int) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	return string([]byte{c, digits[i/1296%36], digits[i/36%36], digits[i%36]})
}

// 4,000 devices whose _STA, _CRS and _HID loop, each allocating a
// megabyte a step, and whose scope's _REG loops: before the budget, looping
// devices kept `run --category acpi` busy for 289 s and looping _REG
// methods for 136 s; one such method alone ran 41 s. The run's budget ends
// them all: the AML checks end incomplete, saying so, and the run goes on.
func TestAMLLoopsEndByTheBudget(t *testing.T) {
	skipShort(t)
	var body []byte
	for i := range 4000 {
		region := append([]byte{0x5B, 0x80}, nameSeg('R', i)...)
		region = append(region, 0x03, 0x00, 0x0A, 0x10) // EmbeddedControl, 0, 16
		body = append(body, pkg([]byte{0x5B, 0x82}, []byte(nameSeg('D', i)),
			region,
			method("_REG", 2, loopForever),
			method("_STA", 0, loopForever),
			method("_HID", 0, loopAlloc),
			method("_CRS", 0, loopAlloc))...)
	}
	in := file(t, "loops.dump", dumpOf(t, checktest.FADT(nil), checktest.SDT("DSDT", 2, body)))
	out := file(t, "out.json", nil)
	r := run(t, "run", "--category", "acpi", "--acpidump", in, "--json", out, "--verbose", "--color", "never")
	assert.Contains(t, []int{0, 1}, r.code, "%.300s", r.stderr)
	assert.Contains(t, strings.Join(strings.Fields(r.stdout), " "), "AML evaluation budget: 100000 steps, 16 MiB allocated and 2s an evaluation; the run's: 20000000 of 20000000 steps", "--verbose shows the budget")
	d := readDoc(t, out)
	for _, id := range []string{"aml-parse", "resources"} {
		status, _, unchecked, _ := d.result(t, id)
		assert.NotEqual(t, "passed", status, id)
		assert.Contains(t, strings.Join(unchecked, "\n"), "exceeded the evaluation budget", id)
	}
}

// A dense DSDT of 31 MiB (one term a byte) took 6 GB and 77 s to load,
// then 229 MB: Load keeps a bounded number of slim terms and says the rest
// is not parsed, and the whole run stays within the 128 MiB a snapshot may
// hold.
func TestAMLDenseHugeDSDT(t *testing.T) {
	skipShort(t)
	var body []byte
	for i := range 31 {
		noops := make([]byte, 1<<20-16)
		for j := range noops {
			noops[j] = 0xA3
		}
		body = append(body, method(nameSeg('M', i), 0, noops)...)
	}
	dsdt := checktest.SDT("DSDT", 2, body)
	dir := t.TempDir()
	writeRaw(t, dir, "FACP", checktest.FADT(nil))
	writeRaw(t, dir, "DSDT", dsdt)
	out := file(t, "out.json", nil)
	r := run(t, "run", "aml-parse", "--acpidump", dir, "--json", out, "--color", "never")
	assert.Contains(t, []int{0, 1}, r.code, "%.300s", r.stderr)
	status, _, unchecked, _ := readDoc(t, out).result(t, "aml-parse")
	assert.NotEqual(t, "passed", status)
	assert.Contains(t, strings.Join(unchecked, "\n"), "more than 524288 terms, the load budget")
	t.Logf("%d bytes of AML: %.1f bytes of peak RSS per AML byte", len(body), float64(r.rss)/float64(len(body)))
	assert.Less(t, r.rss, int64(128<<20), "within the 128 MiB a snapshot may hold")
}

// A DSDT whose length field says 0xFFFFFFFF was dropped without a word:
// every AML check said "no DSDT" and the run exited 0. It is kept, and
// the checks say that what its length field claims was not checked.
func TestDSDTLengthAllOnes(t *testing.T) {
	skipShort(t)
	dsdt := checktest.SDT("DSDT", 2, method("FAST", 0, []byte{0xA4, 0x0A, 0x2A}))
	binary.LittleEndian.PutUint32(dsdt[4:], 0xFFFFFFFF)
	out := file(t, "out.json", nil)
	r := run(t, "run", "aml-parse", "--acpidump", file(t, "dsdt.dump", dumpOf(t, checktest.FADT(nil), dsdt)), "--json", out, "--color", "never")
	assert.Contains(t, []int{0, 1}, r.code, "%.300s", r.stderr)
	assert.Contains(t, r.stdout, "its length field says 4294967295 bytes")
	status, _, unchecked, _ := readDoc(t, out).result(t, "aml-parse")
	assert.Equal(t, "incomplete", status, "%v", unchecked)
}

// writeRaw writes one table of a raw-table directory.
func writeRaw(t *testing.T, dir, name string, raw []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), raw, 0o644))
}

// Single evaluations through `fwcheck aml --eval` (acpi/aml's
// testdata/budget.asl): `While (One) { Buffer (0x100000) }` ran 41 s, a
// ToHexString/Concatenate loop over 300 s, 1 MiB copies into a 64k-element
// package reached 7.9 GB, a loop polling an emulated EC field never
// ended; each ends by the evaluation budget, saying so, exit 1. A missing
// object exited 0; it exits 1.
func TestAMLEvalOfHostileMethods(t *testing.T) {
	skipShort(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "acpi", "aml", "testdata", "budget.aml"))
	require.NoError(t, err)
	dir := t.TempDir()
	writeRaw(t, dir, "DSDT", raw)
	for _, c := range []struct{ path, want string }{
		{`\BUFL`, "exceeded the evaluation budget"},
		{`\HEXL`, "exceeded the evaluation budget"},
		{`\PKGL`, "exceeded the evaluation budget"},
		{`\POLL`, "polling a region field the evaluator emulates"},
		{`\SPIN`, "a loop that does not end"},
		{`\NOPE`, "does not exist"},
	} {
		r := run(t, "aml", "--acpidump", dir, "--eval", c.path)
		assert.Equal(t, 1, r.code, "%s: %.300s", c.path, r.stderr)
		assert.Contains(t, r.stdout+r.stderr, c.want, c.path)
	}
	r := run(t, "aml", "--acpidump", dir, "--eval", `\FAST`)
	assert.Equal(t, 0, r.code, "%.300s", r.stderr)
	assert.Contains(t, r.stdout, `\FAST = 0x2A`)
}
