package aml

import (
	"io"
	"testing"
	"time"
)

// FuzzLoad feeds arbitrary bytes to the parser as a DSDT, and as an SSDT
// loaded after the fixture DSDT (so references and Externals meet a
// populated namespace). Loading must not panic, every problem must lie
// inside the table, and the namespace must walk and dump.
func FuzzLoad(f *testing.F) {
	dsdt, ssdt := fixture(f, "dsdt.aml"), fixture(f, "ssdt.aml")
	f.Add(dsdt.AML)
	f.Add(ssdt.AML)
	f.Add([]byte{0x10, 0x20, '\\', 0x00, 0x08, 'X', 'Y', 'Z', 'W', 0x01})
	f.Add([]byte{0x14, 0x0C, 'M', 'T', 'H', '0', 0x02, 0x72, 0x68, 0x69, 0x60, 0xA4, 0x60})
	f.Add([]byte{0x5B, 0x81, 0x0E, 'G', 'N', 'V', 'S', 0x01, 0x00, 0x08, 'F', 'L', 'D', '0', 0x08})
	f.Add([]byte{0x12, 0x0A, 0x03, 0x01, 0x0D, 'a', 0x00, 0x11, 0x03, 0x0A, 0x02})
	// a method that loads a table at run time: LoadTable ("SSDT", "", "", "", "", 0)
	f.Add([]byte{0x14, 0x16, 'L', 'D', 'T', '0', 0x00, 0x5B, 0x1F, 0x0D, 'S', 'S', 'D', 'T', 0x00,
		0x0D, 0x00, 0x0D, 0x00, 0x0D, 0x00, 0x0D, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, aml []byte) {
		for _, tabs := range [][]Table{
			{{Name: "DSDT", Signature: "DSDT", AML: aml}},
			{dsdt, {Name: "SSDT", Signature: "SSDT", AML: aml}},
		} {
			ns, probs := Load(tabs...)
			for _, p := range probs {
				if p.Offset < HeaderSize || p.Offset > HeaderSize+len(aml)+len(dsdt.AML) {
					t.Fatalf("problem outside the table: %v", p)
				}
			}
			n := 0
			ns.Walk(func(*Node) bool { n++; return true })
			if n != ns.Nodes() {
				t.Fatalf("walked %d nodes, namespace has %d", n, ns.Nodes())
			}
			if err := ns.DumpAll(io.Discard); err != nil {
				t.Fatal(err)
			}
			for _, tab := range ns.Tables {
				WalkTerms(tab.Code, func(tm *Term) bool { _ = tm.String(); return true })
			}
		}
	})
}

// FuzzEval loads arbitrary bytes as a DSDT and evaluates every object in
// it (methods with integer arguments): evaluation must end within its
// step limit with a value or an EvalError, never an evaluator bug
// (Internal) or a panic.
func FuzzEval(f *testing.F) {
	f.Add(fixture(f, "eval.aml").AML)
	f.Add(fixture(f, "dsdt.aml").AML)
	f.Add([]byte{0x14, 0x0C, 'M', 'T', 'H', '0', 0x02, 0x72, 0x68, 0x69, 0x60, 0xA4, 0x60})
	f.Add([]byte{0x14, 0x09, 'L', 'O', 'O', 'P', 0x00, 0xA2, 0x02, 0x01})
	f.Fuzz(func(t *testing.T, aml []byte) {
		// a watchdog: an input that keeps the evaluator busy for
		// seconds is a bug the fuzzer must report with the input
		w := time.AfterFunc(10*time.Second, func() { panic("evaluation runs longer than 10 s") })
		defer w.Stop()
		ns, _ := Load(Table{Name: "DSDT", Signature: "DSDT", Revision: 2, AML: aml})
		e := NewEvaluator(ns, Options{MaxSteps: 2000})
		ns.Walk(func(n *Node) bool {
			if n.Predefined {
				return true
			}
			var args []*Object
			if n.Method != nil {
				for i := 0; i < n.Method.Args; i++ {
					args = append(args, Integer(uint64(i+1)))
				}
			}
			v, err := e.Evaluate(n, args...)
			if ErrorKind(err) == EvalInternal {
				t.Fatalf("%s: %v", n.Path(), err)
			}
			if v != nil {
				_ = v.String()
				if v.Type == TypeBuffer {
					DecodeResources(v.Buf)
				}
			}
			return true
		})
	})
}

// FuzzDecodeResources decodes arbitrary bytes as a resource template:
// no panic, and every descriptor lies inside the buffer.
func FuzzDecodeResources(f *testing.F) {
	f.Add([]byte{0x22, 0x01, 0x00, 0x79, 0x00})
	f.Add([]byte{0x86, 0x09, 0x00, 0x00, 0x00, 0x00, 0xD0, 0xFE, 0x00, 0x04, 0x00, 0x00, 0x79, 0x00})
	f.Add([]byte{0x8C, 0x20, 0x00, 0x01, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x19, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x00, 'G', 'P', '0', 0x00, 0, 0, 0, 0, 0, 0, 0x79, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, _ := DecodeResources(b)
		for _, r := range rs {
			if r.Offset+len(r.Raw) > len(b) {
				t.Fatalf("descriptor %v beyond the %d-byte buffer", r, len(b))
			}
			_ = r.String()
		}
	})
}
