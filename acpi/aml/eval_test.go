package aml

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/eval.asl, compiled with iasl 20200925 into eval.aml, exercises
// each part of the evaluator.
func evalFixture(t *testing.T, opt Options) (*Namespace, *Evaluator) {
	t.Helper()
	ns, probs := Load(fixture(t, "eval.aml"))
	require.Empty(t, probs)
	return ns, NewEvaluator(ns, opt)
}

func evalPath(t *testing.T, e *Evaluator, path string, args ...*Object) *Object {
	t.Helper()
	v, err := e.EvaluatePath(path, args...)
	require.NoError(t, err, path)
	require.NotNil(t, v, path)
	return v
}

func TestEvalValues(t *testing.T) {
	_, e := evalFixture(t, Options{})
	assert.Equal(t, Integer(0x0301D041), evalPath(t, e, `\HPET._HID`))
	assert.Equal(t, String("ACPI0003"), evalPath(t, e, `\DEV1._HID`))
	assert.Equal(t, Integer(0x1F), evalPath(t, e, `\DEV1._UID`), "ToInteger of a 0x string")
	assert.Equal(t, Integer(0x0F), evalPath(t, e, `\HPET._STA`), "_OSI (\"Windows 2009\") is true on Linux")
	assert.Equal(t, Integer(0x0B), evalPath(t, e, `\DEV1._STA`), "a region field reads as zero")
	assert.Equal(t, 1, e.FieldReads())
	// (1+2)*3-1 = 8; 8/4 = 2 rem 0 → 0x20
	assert.Equal(t, Integer(0x20), evalPath(t, e, `\ARIT`, Integer(1), Integer(2)))
	// 1+2+4+…+10 without 3
	assert.Equal(t, Integer(52), evalPath(t, e, `\LOOP`, Integer(100)))
	assert.Equal(t, Integer(12), evalPath(t, e, `\LOOP`, Integer(5)))
	// iasl folds ToHexString (0x1A) at compile time with ACPICA's own
	// interpreter: its result is what ours gives at run time
	assert.Equal(t, String("abcdef42000000000000001A"), evalPath(t, e, `\STRS`))
	assert.Equal(t, PackageOf(String("two"), Integer(4), Integer(0x10), Integer(4), Integer(0)), evalPath(t, e, `\PKGS`))
	assert.Equal(t, Buffer([]byte{1, 0xEF, 0xBE, 0x80, 2, 1}), evalPath(t, e, `\BUFS`))
	assert.Equal(t, PackageOf(Integer(0x1235), Integer(0x11), Integer(123), Integer(1234), Integer(0x99),
		Integer(2), Integer(^uint64(0)), Integer(0)), evalPath(t, e, `\CONV`))
	assert.Equal(t, Integer(0), evalPath(t, e, `\LNXO`), "Linux answers _OSI (\"Linux\") false")
	assert.Equal(t, Integer(0), evalPath(t, e, `\RDHW`))

	crs := evalPath(t, e, `\HPET._CRS`)
	rs, err := DecodeResources(crs.Buf)
	require.NoError(t, err)
	require.Len(t, rs, 4)
	assert.Equal(t, "Memory32Fixed", rs[2].Kind)
	assert.Equal(t, uint64(0xFED00000), rs[2].Min, "the method stored HPTB through a CreateDWordField")
	assert.Equal(t, uint64(0x400), rs[2].Length)
	assert.Equal(t, []uint32{8}, rs[1].IRQs)
}

func TestEvalOptions(t *testing.T) {
	var asked []string
	_, e := evalFixture(t, Options{
		OSI:   func(s string) bool { return s == "Linux" },
		OnOSI: func(s string, _ bool) { asked = append(asked, s) },
		ReadField: func(n *Node) (*Object, error) {
			if n.Name == "FLG0" {
				return Integer(1), nil
			}
			return Integer(0x7DF), nil
		},
		WriteField: func(*Node, *Object) error { return nil },
	})
	assert.Equal(t, Integer(1), evalPath(t, e, `\LNXO`))
	assert.Equal(t, Integer(0), evalPath(t, e, `\HPET._STA`))
	assert.Equal(t, []string{"Linux", "Windows 2009"}, asked)
	assert.Equal(t, Integer(0x0F), evalPath(t, e, `\DEV1._STA`))
	assert.Equal(t, Integer(0x7DF), evalPath(t, e, `\RDHW`))
	assert.Equal(t, Integer(1), evalPath(t, e, `\WRHW`))
}

func TestEvalErrors(t *testing.T) {
	_, e := evalFixture(t, Options{MaxSteps: 5000})
	cases := []struct {
		path string
		args []*Object
		kind EvalKind
	}{
		{`\SPIN`, nil, EvalStepLimit},
		{`\RECU`, []*Object{Integer(1)}, EvalDepthLimit},
		{`\WRHW`, nil, EvalNotStatic},
		{`\TIMR`, nil, EvalNotStatic},
		{`\UNIN`, nil, EvalAMLError},
		{`\DIV0`, []*Object{Integer(0)}, EvalAMLError},
		{`\ARIT`, nil, EvalAMLError}, // arguments not passed
		{`\NONE`, nil, EvalUnresolved},
	}
	for _, c := range cases {
		_, err := e.EvaluatePath(c.path, c.args...)
		require.Error(t, err, c.path)
		assert.Equal(t, c.kind, ErrorKind(err), "%s: %v", c.path, err)
	}
	// the evaluator is usable after an error
	assert.Equal(t, Integer(1), evalPath(t, e, `\DIV0`, Integer(1)))
}

func TestEval32BitIntegers(t *testing.T) {
	tab := fixture(t, "eval.aml")
	tab.Revision = 1
	ns, _ := Load(tab)
	e := NewEvaluator(ns, Options{})
	assert.Equal(t, 4, e.IntegerWidth())
	v, err := e.EvaluatePath(`\CONV`)
	require.NoError(t, err)
	assert.Equal(t, Integer(0xFFFFFFFF), v.Pkg[6], "Ones is 32 bits wide in a revision 1 DSDT")
}

func TestDecodeResources(t *testing.T) {
	_, e := evalFixture(t, Options{})
	v := evalPath(t, e, `\RT2`)
	rs, err := DecodeResources(v.Buf)
	require.NoError(t, err)
	var got []string
	for _, r := range rs {
		got = append(got, r.String())
	}
	assert.Equal(t, []string{
		"+0x0 IO IO min 0x70 max 0x70 length 0x8",
		"+0x8 FixedIO IO min 0x80 max 0x80 length 0x10",
		"+0xC DMA [4]",
		"+0xF Memory32 Memory min 0x10000000 max 0x1FFFF000 length 0x2000",
		"+0x23 WordSpace BusNumber min 0x0 max 0xFF length 0x100",
		"+0x33 DWordSpace IO min 0xD00 max 0xFFFF length 0xF300",
		"+0x4D QWordSpace Memory min 0x100000000 max 0x1FFFFFFFF length 0x100000000",
		"+0x7B Interrupt [32] \\_SB.PCI0",
		"+0x8F GpioInt pins [18] \\_SB.GPO0",
		"+0xB2 GpioIo pins [5 6] \\_SB.GPO1",
		"+0xD7 I2cSerialBus address 0x15 speed 400000 \\_SB.I2C1",
		"+0xF3 SpiSerialBus address 0x1 speed 10000000 \\_SB.SPI0",
		"+0x112 UartSerialBus address 0x0 speed 115200 \\_SB.URT0",
		"+0x132 FixedDMA [4]",
		"+0x138 ExtendedSpace Memory min 0xFE000000 max 0xFE000FFF length 0x1000",
		"+0x170 EndTag",
	}, got)
	assert.True(t, rs[3].Writeable)
	assert.True(t, rs[4].Producer)
	assert.False(t, rs[7].Producer)

	crt := evalPath(t, e, `\CRT2`)
	rs, err = DecodeResources(crt.Buf)
	require.NoError(t, err)
	require.Len(t, rs, 3, "ConcatenateResTemplate keeps one End Tag")
	assert.Equal(t, []uint32{0x11, 0x12}, rs[1].IRQs)

	for _, bad := range [][]byte{
		{},
		{0x22, 0x01},                   // IRQ cut short
		{0x86, 0x09, 0x00, 1, 2, 3},    // Memory32Fixed past the end
		{0x86, 0x02, 0x00, 1, 2, 0x79}, // Memory32Fixed too short
		{0x47, 1, 0x70, 0, 0x70, 0, 1, 8},
		{0x70, 0x79, 0x00}, // reserved small item
	} {
		_, err := DecodeResources(bad)
		assert.Error(t, err, "% x", bad)
	}
}
