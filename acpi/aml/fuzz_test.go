package aml

import (
	"io"
	"testing"
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
