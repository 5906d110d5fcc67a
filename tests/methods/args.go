package methods

import (
	"encoding/hex"
	"strings"

	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

// Standard UUIDs (ACPI 6.5 §6.2.11.1-.4, PCI Firmware Specification 3.3
// §4.5.1 and §4.6, the processor _OSC of Intel's processor-vendor
// specific ACPI document).
const (
	uuidPCIHost  = "33DB4D5B-1FF7-401C-9657-7441C03DD766"
	uuidPlatform = "0811B06E-4A27-44F9-8D60-3CBBC22E7B48"
	uuidCPU      = "4077A616-290C-47BE-9EBD-D87058713953"
	uuidPCIDSM   = "E5C937D0-3553-4D7A-9117-EA4D19C3434D"
)

// toUUID encodes a UUID as ASL's ToUUID does: the first three fields
// little-endian, the rest as written.
func toUUID(s string) []byte {
	h, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(h) != 16 {
		panic("methods: bad UUID " + s)
	}
	return []byte{h[3], h[2], h[1], h[0], h[5], h[4], h[7], h[6],
		h[8], h[9], h[10], h[11], h[12], h[13], h[14], h[15]}
}

func dwords(v ...uint32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	return b
}

func i(v uint64) *aml.Object { return aml.Integer(v) }

// args are the arguments the OS passes to the object n (nil for a data
// object or a method without arguments). Values are those a query or a
// harmless request would use; the region space is emulated, so nothing
// reaches the machine.
func (c *run1) args(n *aml.Node, r *rule) []*aml.Object {
	m := n.Resolved()
	if m == nil || m.Type != aml.TypeMethod || m.Method == nil || m.Method.Args == 0 {
		return nil
	}
	var a []*aml.Object
	switch r.name {
	case "_OSC":
		// as Linux: three dwords for the platform and PCI host bridge
		// _OSC (query flag, support, control), two for processors
		uuid, caps := uuidPlatform, dwords(1, 0, 0)
		switch {
		case isHostBridge(c, n.Parent):
			uuid, caps = uuidPCIHost, dwords(1, 0, 0)
		case n.Parent != nil && (n.Parent.Type == aml.TypeProcessor || hidIs(c, n.Parent, "ACPI0007")):
			uuid, caps = uuidCPU, dwords(1, 0)
		}
		a = []*aml.Object{aml.Buffer(toUUID(uuid)), i(1), i(uint64(len(caps) / 4)), aml.Buffer(caps)}
	case "_DSM":
		a = []*aml.Object{aml.Buffer(dsmUUID(m)), i(1), i(0), aml.PackageOf()}
	case "_SRS":
		if res := c.results[n.Parent]["_CRS"]; res != nil && res.v != nil && res.v.Type == aml.TypeBuffer {
			a = []*aml.Object{aml.Buffer(append([]byte(nil), res.v.Buf...))}
		} else {
			a = []*aml.Object{aml.Buffer([]byte{0x79, 0})}
		}
	case "_BCM":
		a = []*aml.Object{i(c.bcmLevel(n.Parent))}
	case "_DSW":
		a = []*aml.Object{i(1), i(0), i(3)}
	case "_OST":
		a = []*aml.Object{i(0x80), i(0), aml.Buffer(nil)}
	case "_PTS", "_WAK", "_TTS":
		a = []*aml.Object{i(3)}
	case "_PDC":
		a = []*aml.Object{aml.Buffer(dwords(1, 1, 0))}
	case "_SRT":
		a = []*aml.Object{aml.Buffer(make([]byte, 16))}
	case "_DTI", "_TPT":
		a = []*aml.Object{i(3000)}
	case "_FSL":
		a = []*aml.Object{i(50)}
	case "_ROM":
		a = []*aml.Object{i(0), i(0x1000)}
	case "_DDC", "_PIC", "_EJ0", "_EJ1", "_EJ2", "_EJ3", "_EJ4", "_LCK", "_DCK", "_PSW", "_PSE", "_SST", "_MSG", "_BTP":
		a = []*aml.Object{i(1)}
	}
	// whatever else: zeros, as many as the spec (or, beyond it, the
	// method) wants
	want := r.args
	if want < 0 || m.Method.Args > want {
		want = m.Method.Args
	}
	for len(a) < want {
		a = append(a, i(0))
	}
	if len(a) > m.Method.Args {
		a = a[:m.Method.Args]
	}
	return a
}

// dsmUUID is the UUID a _DSM's body compares Arg0 with (the first 16-byte
// buffer constant in it), or the PCI firmware UUID.
func dsmUUID(m *aml.Node) []byte {
	var found []byte
	aml.WalkTerms(m.Method.Body, func(t *aml.Term) bool {
		if found != nil {
			return false
		}
		if t.Op == aml.OpBuffer && len(t.Name) == 16 { // Name: the initializer
			if sz, ok := t.Args()[0].IntegerValue(); ok && sz == 16 {
				found = []byte(t.Name)
				return false
			}
		}
		return true
	})
	if found == nil {
		return toUUID(uuidPCIDSM)
	}
	return found
}

func hidIs(c *run1, dev *aml.Node, ids ...string) bool {
	if dev == nil {
		return false
	}
	for _, name := range []string{"_HID", "_CID"} {
		r := amlcheck.Eval(c.e, dev, name)
		if r == nil || r.Err != nil {
			continue
		}
		vals := []*aml.Object{r.V}
		if r.V != nil && r.V.Type == aml.TypePackage {
			vals = r.V.Pkg
		}
		for _, v := range vals {
			s, ok := amlcheck.ID(v)
			if !ok {
				continue
			}
			for _, id := range ids {
				if s == id {
					return true
				}
			}
		}
	}
	return false
}

func isHostBridge(c *run1, dev *aml.Node) bool {
	return hidIs(c, dev, "PNP0A03", "PNP0A08", "ACPI0016")
}

// bcmLevel is a level the display's _BCL lists (its first level entry),
// or 100.
func (c *run1) bcmLevel(dev *aml.Node) uint64 {
	if res := c.results[dev]["_BCL"]; res != nil && res.v != nil && res.v.Type == aml.TypePackage && len(res.v.Pkg) > 2 {
		if el := res.v.Pkg[2]; el != nil && el.Type == aml.TypeInteger {
			return el.Int
		}
	}
	return 100
}
