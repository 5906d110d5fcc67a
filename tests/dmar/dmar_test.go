package dmar

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// scope builds a device scope with the given path (device, function …).
func scope(typ, id, bus byte, path ...byte) []byte {
	return cat([]byte{typ, byte(6 + len(path)), 0, 0, id, bus}, path)
}

func structure(typ uint16, fixed []byte, scopes ...[]byte) []byte {
	body := cat(fixed, cat(scopes...))
	return cat(le16(typ), le16(uint16(4+len(body))), body)
}

func drhd(flags byte, seg uint16, base uint64, scopes ...[]byte) []byte {
	return structure(0, cat([]byte{flags, 0}, le16(seg), le64(base)), scopes...)
}

func rmrr(seg uint16, base, limit uint64, scopes ...[]byte) []byte {
	return structure(1, cat([]byte{0, 0}, le16(seg), le64(base), le64(limit)), scopes...)
}

func dmar(flags byte, structs ...[]byte) []byte {
	return checktest.SDT("DMAR", 1, cat([]byte{38, flags}, make([]byte, 10), cat(structs...)))
}

func TestDMAR(t *testing.T) {
	gfx := drhd(0, 0, 0xFED90000, scope(1, 0, 0, 2, 0))
	all := drhd(1, 0, 0xFED91000, scope(3, 2, 0xF0, 0x1F, 0), scope(4, 0, 0xF0, 0x1F, 0))
	usb := rmrr(0, 0x8D0CD000, 0x8D0ECFFF, scope(1, 0, 0, 0x14, 0))
	madt := checktest.MADT(3, checktest.LAPIC(0, 0, 1), checktest.IOAPIC(2, 0xFEC00000))
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", dmar(1, gfx, all, usb), nil},
		{"revision 2", checktest.SDT("DMAR", 2, dmar(1, gfx, all)[36:]), nil},
		{"revision 3", checktest.SDT("DMAR", 3, dmar(1, gfx, all)[36:]), []string{"DMARRevision"}},
		{"include-all not last", dmar(1, all, gfx), []string{"DMARIncludeAllOrder"}},
		{"include-all last per segment", dmar(1, all, drhd(0, 1, 0xFED92000, scope(1, 0, 0, 2, 0)), drhd(1, 1, 0xFED93000)), nil},
		{"two include-all in a segment", dmar(1, all, drhd(1, 0, 0xFED92000)), []string{"DMARIncludeAllOrder"}},
		{"null register base", dmar(1, drhd(0, 0, 0, scope(1, 0, 0, 2, 0)), all), []string{"DMARRegisterBase"}},
		{"unaligned register base", dmar(1, drhd(0, 0, 0xFED90800, scope(1, 0, 0, 2, 0)), all), []string{"DMARRegisterBase"}},
		{"duplicate base", dmar(1, drhd(0, 0, 0xFED91000, scope(1, 0, 0, 2, 0)), all), []string{"DMARDuplicateRegisterBase"}},
		{"unit with no scope", dmar(1, drhd(0, 0, 0xFED90000), all), []string{"DMARNoDeviceScope"}},
		{"include-all with PCI scope", dmar(1, drhd(1, 0, 0xFED91000, scope(3, 2, 0xF0, 0x1F, 0), scope(1, 0, 0, 2, 0))), []string{"DMARIncludeAllPCIScope"}},
		{"no DRHD", dmar(0, usb), []string{"DMARNoDRHD"}},
		{"RMRR unaligned", dmar(1, all, rmrr(0, 0x8D0CD000, 0x8D0ECFFE, scope(1, 0, 0, 0x14, 0))), []string{"DMARRMRRRange"}},
		{"RMRR upside down", dmar(1, all, rmrr(0, 0x8D0CD000, 0x8C0CCFFF, scope(1, 0, 0, 0x14, 0))), []string{"DMARRMRRRange"}},
		{"RMRR without scope", dmar(1, all, rmrr(0, 0x8D0CD000, 0x8D0ECFFF)), []string{"DMARNoDeviceScope"}},
		{"RMRR bridge scope", dmar(1, all, rmrr(0, 0x8D0CD000, 0x8D0ECFFF, scope(2, 0, 0, 0x1C, 0))), []string{"DMARScopeTypeMismatch"}},
		{"RMRR on a segment without unit", dmar(1, all, rmrr(3, 0x8D0CD000, 0x8D0ECFFF, scope(1, 0, 0, 0x14, 0))), []string{"DMARSegmentWithoutUnit"}},
		{"ATSR without ports", dmar(1, all, structure(2, []byte{0, 0, 0, 0})), []string{"DMARATSRNoScope"}},
		{"ATSR all ports", dmar(1, all, structure(2, []byte{1, 0, 0, 0})), nil},
		{"ATSR endpoint", dmar(1, all, structure(2, []byte{0, 0, 0, 0}, scope(1, 0, 0, 3, 0))), []string{"DMARScopeTypeMismatch"}},
		{"RHSA of a unit", dmar(1, all, structure(3, cat(make([]byte, 4), le64(0xFED91000), []byte{0, 0, 0, 0}))), nil},
		{"RHSA of no unit", dmar(1, all, structure(3, cat(make([]byte, 4), le64(0xFED95000), []byte{0, 0, 0, 0}))), []string{"DMARRHSAUnknownUnit"}},
		{"ANDD and its scope", dmar(1, drhd(1, 0, 0xFED91000, scope(3, 2, 0xF0, 0x1F, 0), scope(5, 1, 0, 0x15, 0)), structure(4, cat([]byte{0, 0, 0, 1}, []byte("\\_SB.PCI0.I2C0\x00")))), nil},
		{"namespace scope without ANDD", dmar(1, drhd(1, 0, 0xFED91000, scope(3, 2, 0xF0, 0x1F, 0), scope(5, 1, 0, 0x15, 0))), []string{"DMARNamespaceScopeUnknown"}},
		{"ANDD name unterminated", dmar(1, all, structure(4, cat([]byte{0, 0, 0, 1}, []byte("\\_SB.I2C0")))), []string{"DMARANDDName"}},
		{"scope of 6 bytes", dmar(1, drhd(0, 0, 0xFED90000, scope(1, 0, 0)), all), []string{"DMARDeviceScopeLength"}},
		{"scope odd path", dmar(1, drhd(0, 0, 0xFED90000, scope(1, 0, 0, 2, 0, 1)), all), []string{"DMARDeviceScopeLength"}},
		{"scope path device 32", dmar(1, drhd(0, 0, 0xFED90000, scope(1, 0, 0, 32, 0)), all), []string{"DMARDeviceScopePath"}},
		{"scope zero length", dmar(1, drhd(0, 0, 0xFED90000, []byte{1, 0, 0, 0, 0, 0, 2, 0}), all), []string{"DMARDeviceScopeLength"}},
		{"I/O APIC not in MADT", dmar(1, gfx, drhd(1, 0, 0xFED91000, scope(3, 0, 0xF0, 0x1F, 0))), []string{"DMARIOAPICNotInMADT", "DMARIOAPICNotCovered"}},
		{"no interrupt remapping, no coverage needed", dmar(0, gfx, drhd(1, 0, 0xFED91000)), nil},
		{"HPET scope of no HPET", dmar(1, gfx, drhd(1, 0, 0xFED91000, scope(3, 2, 0xF0, 0x1F, 0), scope(4, 7, 0xF0, 0x1F, 0))), []string{"DMARHPETNotInHPET"}},
		{"host address width", checktest.SDT("DMAR", 1, cat([]byte{5, 1}, make([]byte, 10), all)), []string{"DMARHostAddressWidth"}},
		{"reserved flags", dmar(0x09, gfx, all), []string{"DMARReservedBits"}},
		{"zero-length structure", dmar(1, gfx, all, []byte{1, 0, 0, 0}), []string{"DMARStructureLength"}},
		{"structure past the end", dmar(1, gfx, all, []byte{1, 0, 40, 0}), []string{"DMARStructureLength"}},
		{"short RMRR", dmar(1, gfx, all, structure(1, make([]byte, 8))), []string{"DMARStructureShort"}},
		{"reserved type is info", dmar(1, gfx, all, structure(9, make([]byte, 4))), nil},
		{"truncated", checktest.SDT("DMAR", 1, make([]byte, 4)), []string{"DMARMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, madt, checktest.HPET(nil), c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, madt).Status)
}

func TestDMARRMRRInMemoryMap(t *testing.T) {
	raw := dmar(1, drhd(1, 0, 0xFED91000), rmrr(0, 0x8D0CD000, 0x8D0ECFFF, scope(1, 0, 0, 0x14, 0)))
	mm := []memmap.Range{{Start: 0x100000, End: 0x8D0CCFFF, Type: "System RAM"}, {Start: 0x8D0CD000, End: 0x8FFFFFFF, Type: "Reserved"}}
	r := checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: raw}))
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r)
	mm[0].End, mm[1].Start = 0x8D0DFFFF, 0x8D0E0000
	r = checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: raw}))
	assert.Equal(t, []string{"DMARRMRRNotReserved"}, tablecheck.Labels(r))
}

// With the DSDT in the set, an ANDD's object name is looked up in the
// namespace; without it the lookup is said not done.
func TestDMARANDDNamespace(t *testing.T) {
	madt := checktest.MADT(3, checktest.LAPIC(0, 0, 1), checktest.IOAPIC(2, 0xFEC00000))
	dsdt := checktest.SDT("DSDT", 2, []byte{0x5B, 0x82, 0x05, 'D', 'E', 'V', '0'}) // Device (DEV0)
	andd := func(name string) []byte {
		return dmar(1, drhd(1, 0, 0xFED91000, scope(3, 2, 0xF0, 0x1F, 0), scope(5, 1, 0, 0x15, 0)),
			structure(4, cat([]byte{0, 0, 0, 1}, []byte(name+"\x00"))))
	}
	for _, c := range []struct {
		name string
		want []string
	}{
		{`\DEV0`, nil},
		{`DEV0`, nil},
		{`\_SB.I2C0`, []string{"DMARANDDNotInNamespace"}},
	} {
		r := checktest.RunTables(t, Check, madt, dsdt, andd(c.name))
		assert.Equal(t, c.want, tablecheck.Labels(r), "%s: %+v", c.name, r.Findings)
		if c.want != nil {
			f := checktest.FindingWith(r, "DMARANDDNotInNamespace")
			assert.Equal(t, tests.KindWarning, f.Kind, "a warning until a corpus machine shows one")
			assert.Contains(t, f.Message, `names \_SB.I2C0, which the namespace does not have`)
		}
	}
	r := checktest.RunTables(t, Check, madt, andd(`\_SB.I2C0`))
	assert.Nil(t, tablecheck.Labels(r))
	assert.Equal(t, tests.StatusIncomplete, r.Status, "without a DSDT the name is not looked up, and the verdict says so")
}
