package aml

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
)

// fixture reads a compiled testdata table.
func fixture(tb testing.TB, name string) Table {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(tb, err)
	ts := &acpi.Tables{}
	ts.Add(&acpi.Table{Signature: string(b[:4]), Raw: b})
	return FromACPI(ts.List[0])
}

func loadFixtures(tb testing.TB) (*Namespace, []Problem) {
	tb.Helper()
	return Load(fixture(tb, "dsdt.aml"), fixture(tb, "ssdt.aml"))
}

func TestFixtureNamespace(t *testing.T) {
	ns, probs := loadFixtures(t)

	var got []string
	for _, p := range probs {
		got = append(got, p.Kind.String()+" "+p.Msg)
	}
	assert.Equal(t, []string{
		`unresolved MISS not found (in scope \_PTS)`,
		`duplicate Name \STR1 is already declared (String, at DSDT+0x41)`,
	}, got)

	pci := ns.Lookup(`\_SB.PCI0`)
	require.NotNil(t, pci)
	assert.Equal(t, TypeDevice, pci.Type)
	assert.Equal(t, `\_SB_.PCI0`, pci.Path())
	assert.Equal(t, pci, ns.Lookup(`\_SB_.PCI0`))
	hid := ns.Lookup(`\_SB.PCI0._HID`)
	require.NotNil(t, hid)
	v, ok := hid.Value.IntegerValue()
	require.True(t, ok)
	id, _ := EISAID(v)
	assert.Equal(t, "PNP0A08", id)

	uid := ns.Lookup(`\_SB.LNKA._UID`)
	s, ok := uid.Value.StringValue()
	assert.True(t, ok)
	assert.Equal(t, "A", s)

	buf := ns.Lookup(`\BUF1`)
	data, size, ok := buf.Value.BufferValue()
	assert.True(t, ok)
	assert.Equal(t, []byte{1, 2, 3}, data)
	assert.EqualValues(t, 6, size)

	pkg := ns.Lookup(`\PKG1`)
	assert.Equal(t, TypePackage, pkg.Type)
	assert.Len(t, pkg.Value.Body(), 3)
	assert.Equal(t, `Package (0x03) {One, "two", Package (0x01) {0x03}}`, pkg.Value.String())

	// The _PRT names LNKA, declared after it: resolved late.
	prt := ns.Lookup(`\_SB.PCI0._PRT`)
	lnk := prt.Value.Body()[0].Body()[2]
	assert.Equal(t, OpNamePath, lnk.Op)
	assert.Equal(t, ns.Lookup(`\_SB.LNKA`), lnk.Node)

	help := ns.Lookup(`\_SB.PCI0.HELP`)
	require.NotNil(t, help.Method)
	assert.Equal(t, Method{Args: 2, Serialized: true, SyncLevel: 5, Body: help.Method.Body}, *help.Method)

	// _STA calls HELP, declared after it, with its two arguments.
	sta := ns.Lookup(`\_SB.PCI0._STA`)
	ret := sta.Method.Body[0]
	require.Equal(t, OpReturn, ret.Op)
	call := ret.Args()[0]
	assert.Equal(t, OpCall, call.Op)
	assert.Equal(t, help, call.Node)
	assert.Len(t, call.Args(), 2)

	// _OSC calls SSDM, which only the SSDT defines; the External's
	// placeholder became the real method.
	ssdm := ns.Lookup(`\_SB.PCI0.SSDM`)
	assert.False(t, ssdm.External)
	assert.Equal(t, "SSDT", ssdm.Table)
	osc := ns.Lookup(`\_SB.PCI0._OSC`)
	var calls []string
	WalkTerms(osc.Method.Body, func(t *Term) bool {
		if t.Op == OpCall {
			calls = append(calls, t.String())
		}
		return true
	})
	assert.Equal(t, []string{"SSDM (Arg0, Arg1)"}, calls)
	cdw1 := ns.Lookup(`\_SB.PCI0._OSC.CDW1`)
	require.NotNil(t, cdw1)
	assert.True(t, cdw1.InMethod)
	assert.Equal(t, TypeBufferField, cdw1.Type)

	// ^^HELP in LPCB._INI: two levels up from the method.
	ini := ns.Lookup(`\_SB.PCI0.LPCB._INI`)
	assert.Equal(t, "^^HELP (One, 0x02)", ini.Method.Body[0].String())
	assert.Equal(t, help, ini.Method.Body[0].Node)
	assert.Equal(t, ns.Lookup(`\_SB.LNKA`), ini.Method.Body[1].Args()[0].Node)

	// NEWO is declared in both branches of a load-time If: no problem,
	// the first declaration is kept.
	assert.Equal(t, "DSDT", ns.Lookup(`\NEWO`).Table)

	f := ns.Lookup(`\FLG1`).Field
	assert.Equal(t, FieldUnit{Kind: OpField, Region: f.Region, Flags: f.Flags, BitOffset: 41, BitLength: 1, AccessType: 1}, *f)
	assert.Equal(t, ns.Lookup(`\GNVS`), f.Region.Node)
	assert.Equal(t, OpIndexField, ns.Lookup(`\CM40`).Field.Kind)
	assert.Equal(t, 0x40*8, ns.Lookup(`\CM40`).Field.BitOffset)
	assert.Equal(t, OpBankField, ns.Lookup(`\BNK0`).Field.Kind)
	assert.Equal(t, ns.Lookup(`\OSYS`), ns.Lookup(`\OSY2`).Target)
	assert.Equal(t, &Processor{ID: 1, PblkAddr: 0x410, PblkLen: 6}, ns.Lookup(`\_PR.CPU0`).Processor)
	assert.Equal(t, TypePowerResource, ns.Lookup(`\_SB.PUB0`).Type)
	assert.Equal(t, TypeThermalZone, ns.Lookup(`\_TZ.TZ00`).Type)
	assert.EqualValues(t, 3, ns.Lookup(`\MUT0`).SyncLevel)
	assert.Equal(t, TypeEvent, ns.Lookup(`\EVT0`).Type)
	r := ns.Lookup(`\GNVS`).Region
	assert.EqualValues(t, 0, r.Space)
	assert.Equal(t, "0x7FFF0000", r.Offset.String())
}

func TestFixtureDump(t *testing.T) {
	ns, _ := loadFixtures(t)
	var b bytes.Buffer
	require.NoError(t, ns.Dump(&b))
	golden(t, "testdata/fixture.dump", b.String())
	assert.Contains(t, b.String(), `\_SB.PCI0._HID  Integer = 0x080AD041 (PNP0A08)  [DSDT+`)
	assert.NotContains(t, b.String(), "CDW1")
	b.Reset()
	require.NoError(t, ns.DumpAll(&b))
	assert.Contains(t, b.String(), "CDW1")
}

// TestFixturesCompiled checks testdata/*.aml were compiled from the
// current *.asl (when iasl is installed).
func TestFixturesCompiled(t *testing.T) {
	iasl, err := exec.LookPath("iasl")
	if err != nil {
		t.Skip("iasl not installed")
	}
	for _, name := range []string{"dsdt", "ssdt"} {
		dir := t.TempDir()
		cmd := exec.Command(iasl, "-f", "-oa", "-p", filepath.Join(dir, name), filepath.Join("testdata", name+".asl"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		fresh, err := os.ReadFile(filepath.Join(dir, name+".aml"))
		require.NoError(t, err)
		old, err := os.ReadFile(filepath.Join("testdata", name+".aml"))
		require.NoError(t, err)
		// bytes 28..35 hold the compiler ID and version
		if len(fresh) == len(old) && len(old) > 36 {
			copy(fresh[24:36], old[24:36])
			fresh[9] = old[9]
		}
		assert.True(t, bytes.Equal(old, fresh), "testdata/%s.aml is stale: iasl -f -oa -p testdata/%s testdata/%s.asl", name, name, name)
	}
}

// amlTable wraps hand-assembled AML bytes as a DSDT.
func amlTable(b ...byte) Table { return Table{Name: "DSDT", Signature: "DSDT", Revision: 2, AML: b} }

func kinds(probs []Problem) string {
	var s []string
	for _, p := range probs {
		s = append(s, p.Kind.String())
	}
	return strings.Join(s, ",")
}

// nameSeg returns the four bytes of s.
func seg(s string) []byte { return []byte(s) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestMalformed(t *testing.T) {
	method := func(name string, body ...byte) []byte {
		return cat([]byte{0x14, byte(len(body) + 6)}, seg(name), []byte{0x00}, body)
	}
	cases := []struct {
		name  string
		aml   []byte
		kinds string
		check func(*testing.T, *Namespace, []Problem)
	}{
		{"name string runs off the table", []byte{0x08, 'A', 'B'}, "malformed", nil},
		{"package length past the end of the table",
			cat([]byte{0x10, 0x20}, []byte{'\\', 0x00, 0x08}, seg("XYZW"), []byte{0x01}), "malformed",
			func(t *testing.T, ns *Namespace, _ []Problem) {
				assert.NotNil(t, ns.Lookup(`\XYZW`), "the cut scope still parses")
			}},
		{"unknown opcode in a method body, next method fine",
			cat(method("BAD0", 0x02, 0xA3), method("GOOD", 0xA4, 0x01)), "malformed",
			func(t *testing.T, ns *Namespace, probs []Problem) {
				assert.Equal(t, HeaderSize+7, probs[0].Offset)
				assert.Contains(t, probs[0].Msg, "unknown opcode Op(0x02)")
				require.NotNil(t, ns.Lookup(`\GOOD`))
				assert.Equal(t, "Return (One)", ns.Lookup(`\GOOD`).Method.Body[0].String())
			}},
		{"string without NUL", []byte{0x08, 'S', 'T', 'R', '0', 0x0D, 'a', 'b'}, "malformed", nil},
		{"duplicate", cat([]byte{0x08}, seg("DUP0"), []byte{0x00, 0x08}, seg("DUP0"), []byte{0x01}), "duplicate",
			func(t *testing.T, ns *Namespace, probs []Problem) {
				assert.Equal(t, HeaderSize+6, probs[0].Offset)
				v, _ := ns.Lookup(`\DUP0`).Value.IntegerValue()
				assert.EqualValues(t, 0, v, "the first declaration is kept")
			}},
		{"unresolved reference", method("REF0", 0x70, 'N', 'O', 'N', 'E', 0x60), "unresolved", nil},
		{"bad name characters", cat([]byte{0x08}, []byte("ab#1"), []byte{0x00}), "bad-name", nil},
		{"scope of a missing object", cat([]byte{0x10, 0x0B}, seg("MISS"), []byte{0x08}, seg("INNR"), []byte{0x01}), "unresolved",
			func(t *testing.T, ns *Namespace, _ []Problem) {
				assert.NotNil(t, ns.Lookup(`\MISS.INNR`))
			}},
		{"call before declaration at load time",
			cat([]byte{'L', 'A', 'T', 'E', 0x0A, 0x05}, method("LATE", 0xA3)[:2], seg("LATE"), []byte{0x01, 0xA3}),
			"forward-call", nil},
		{"External with the wrong argument count",
			cat([]byte{0x15}, seg("MTH0"), []byte{0x08, 0x01}, []byte{0x14, 0x06}, seg("MTH0"), []byte{0x02}),
			"conflict", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns, probs := Load(amlTable(c.aml...))
			assert.Equal(t, c.kinds, kinds(probs), "%v", probs)
			for _, p := range probs {
				assert.Equal(t, "DSDT", p.Table)
				assert.LessOrEqual(t, p.Offset, HeaderSize+len(c.aml))
			}
			if c.check != nil {
				c.check(t, ns, probs)
			}
		})
	}
}

// TestDeepNesting: nesting beyond maxDepth is a problem, not a stack
// overflow, and costs time linear in the input.
func TestDeepNesting(t *testing.T) {
	const n = 200000
	body := bytes.Repeat([]byte{0x92}, n) // LNot (LNot (…
	body = append(body, 0x01)
	aml := append([]byte{0x14, 0xC0 | 0x0F, 0xFF, 0xFF, 0xFF}, seg("DEEP")...)
	l := len(body) + 4 + 4 + 1
	aml[1], aml[2], aml[3], aml[4] = 0xC0|byte(l&0xF), byte(l>>4), byte(l>>12), byte(l>>20)
	aml = append(aml, 0x00)
	aml = append(aml, body...)
	_, probs := Load(amlTable(aml...))
	require.Len(t, probs, 1)
	assert.Contains(t, probs[0].Msg, "nested more than")
}

func TestResolveRules(t *testing.T) {
	ns, _ := loadFixtures(t)
	lpcb := ns.Lookup(`\_SB.PCI0.LPCB`)
	// single segment: searched upwards
	assert.Equal(t, ns.Lookup(`\_SB.PCI0.HELP`), ns.Resolve(lpcb, "HELP"))
	assert.Equal(t, ns.Lookup(`\OSYS`), ns.Resolve(lpcb, "OSYS"))
	// multi-segment relative: not searched
	assert.Nil(t, ns.Resolve(lpcb, "PCI0.HELP"))
	assert.Equal(t, ns.Lookup(`\_SB.PCI0.HELP`), ns.Resolve(ns.Lookup(`\_SB`), "PCI0.HELP"))
	// parent prefixes
	assert.Equal(t, ns.Lookup(`\_SB.PCI0`), ns.Resolve(lpcb, "^"))
	assert.Equal(t, ns.Lookup(`\_SB.LNKA`), ns.Resolve(lpcb, "^^LNKA"))
	assert.Nil(t, ns.Resolve(lpcb, "^^^^^LNKA"))
	// a prefixed single segment is not searched
	assert.Nil(t, ns.Resolve(lpcb, "^OSYS"))
	assert.Equal(t, ns.Lookup(`\OSYS`), ns.Resolve(lpcb, `\OSYS`))
	// through an alias
	assert.Equal(t, ns.Lookup(`\OSYS`), ns.Resolve(nil, "OSY2").Resolved())
}

func TestWalk(t *testing.T) {
	ns, _ := loadFixtures(t)
	n := 0
	ns.Walk(func(*Node) bool { n++; return true })
	assert.Equal(t, ns.Nodes(), n)
	var top []string
	ns.Walk(func(nd *Node) bool {
		if nd.Parent == ns.Root {
			top = append(top, nd.Name)
		}
		return nd == ns.Root
	})
	assert.Equal(t, []string{"_GPE", "_PR_", "_SB_", "_SI_", "_TZ_", "_OSI", "_OS_", "_REV", "_GL_"}, top[:9])
}

func TestEISAID(t *testing.T) {
	for v, want := range map[uint64]string{0x030AD041: "PNP0A03", 0x0C0CD041: "PNP0C0C", 0x0001D041: "PNP0100"} {
		got, ok := EISAID(v)
		assert.True(t, ok)
		assert.Equal(t, want, got)
	}
	_, ok := EISAID(0x1_0000_0000)
	assert.False(t, ok)
	_, ok = EISAID(0)
	assert.False(t, ok)
}
