package ivrs

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// special is a special device entry: I/O APIC (variety 1) or HPET (2).
func special(handle byte, src uint16, variety byte) []byte {
	return []byte{72, 0, 0, 0xD7, handle, byte(src), byte(src >> 8), variety}
}

var (
	all      = []byte{1, 0, 0, 0}
	rangeSE  = []byte{3, 8, 0, 0, 4, 0xFE, 0xFF, 0}
	ioapic4  = special(4, 0xA0, 1)
	hpet0    = special(0, 0xA0, 2)
	hidEntry = cat([]byte{240, 0xA5, 0, 0x40}, []byte("AMDI0020"), make([]byte, 8), []byte{2, 9}, []byte("\\_SB.FUR0"))
)

// ivhd builds an IVHD of type typ (10h: 24-byte header, 11h/40h: 40).
func ivhd(typ byte, base uint64, entries ...[]byte) []byte {
	n := 24
	if typ != 0x10 {
		n = 40
	}
	h := make([]byte, n)
	h[0], h[1] = typ, 0xB0
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint64(h[8:], base)
	b := cat(h, cat(entries...))
	binary.LittleEndian.PutUint16(b[2:], uint16(len(b)))
	return b
}

func ivmd(start, size uint64) []byte {
	b := make([]byte, 32)
	b[0], b[1], b[2] = 0x20, 0x07, 32
	binary.LittleEndian.PutUint64(b[16:], start)
	binary.LittleEndian.PutUint64(b[24:], size)
	return b
}

func ivrs(rev byte, blocks ...[]byte) []byte {
	return checktest.SDT("IVRS", rev, cat([]byte{0x41, 0x30, 0x20, 0}, make([]byte, 8), cat(blocks...)))
}

func TestIVRS(t *testing.T) {
	madt := checktest.MADT(3, checktest.LAPIC(0, 0, 1), checktest.IOAPIC(4, 0xFEC00000))
	const base = 0xFD400000
	shortIVMD := ivmd(0, 0x1000)[:24]
	shortIVMD[2] = 24
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", ivrs(2, ivhd(0x10, base, rangeSE, ioapic4, hpet0), ivhd(0x11, base, rangeSE, ioapic4, hpet0), ivhd(0x40, base, all, ioapic4, hidEntry), ivmd(0x9F000000, 0x10000)), nil},
		{"revision 1 with fixed blocks only", ivrs(1, ivhd(0x10, base, all, ioapic4)), nil},
		{"revision 1 with type 11h", ivrs(1, ivhd(0x10, base, all, ioapic4), ivhd(0x11, base, all, ioapic4)), []string{"IVRSRevision"}},
		{"revision 3", ivrs(3, ivhd(0x10, base, all, ioapic4)), []string{"IVRSRevision"}},
		{"null base", ivrs(2, ivhd(0x10, 0, all, ioapic4)), []string{"IVRSIOMMUBase"}},
		{"unaligned base", ivrs(2, ivhd(0x10, base+0x1000, all, ioapic4)), []string{"IVRSIOMMUBase"}},
		{"no IVHD", ivrs(2, ivmd(0x9F000000, 0x1000)), []string{"IVRSNoIVHD"}},
		{"range never closed", ivrs(2, ivhd(0x10, base, ioapic4, []byte{3, 8, 0, 0})), []string{"IVRSRangeUnterminated"}},
		{"two starts", ivrs(2, ivhd(0x10, base, ioapic4, []byte{3, 8, 0, 0}, rangeSE)), []string{"IVRSRangeUnterminated"}},
		{"end without start", ivrs(2, ivhd(0x10, base, ioapic4, []byte{4, 8, 0, 0})), []string{"IVRSRangeUnterminated"}},
		{"entry past the block", ivrs(2, ivhd(0x10, base, ioapic4, []byte{72, 0, 0, 0})), []string{"IVRSDeviceEntryLength"}},
		{"HID entry in type 10h", ivrs(2, ivhd(0x10, base, ioapic4, hidEntry)), []string{"IVRSACPIHIDInOldIVHD"}},
		{"variety 3", ivrs(2, ivhd(0x10, base, ioapic4, special(1, 0, 3))), []string{"IVRSSpecialVariety"}},
		{"I/O APIC not in MADT", ivrs(2, ivhd(0x10, base, all, ioapic4, special(33, 0xA0, 1))), []string{"IVRSIOAPICNotInMADT"}},
		{"MADT I/O APIC missing", ivrs(2, ivhd(0x10, base, all, ioapic4), ivhd(0x11, base, all)), []string{"IVRSIOAPICMissing"}},
		{"HPET not in HPET table", ivrs(2, ivhd(0x10, base, all, ioapic4, special(2, 0xA0, 2))), []string{"IVRSHPETNotInHPET"}},
		{"IVMD unaligned", ivrs(2, ivhd(0x10, base, all, ioapic4), ivmd(0x9F000800, 0x1000)), []string{"IVRSIVMDRange"}},
		{"IVMD empty", ivrs(2, ivhd(0x10, base, all, ioapic4), ivmd(0x9F000000, 0)), []string{"IVRSIVMDRange"}},
		{"IVMD short", ivrs(2, ivhd(0x10, base, all, ioapic4), shortIVMD), []string{"IVRSBlockShort"}},
		{"IVHD short", ivrs(2, ivhd(0x10, base, all, ioapic4), []byte{0x11, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), []string{"IVRSBlockShort"}},
		{"zero-length block", ivrs(2, ivhd(0x10, base, all, ioapic4), []byte{0x10, 0, 0, 0}), []string{"IVRSBlockLength"}},
		{"reserved block type is info", ivrs(2, ivhd(0x10, base, all, ioapic4), []byte{0x30, 0, 4, 0}), nil},
		{"reserved IVinfo", checktest.SDT("IVRS", 2, cat([]byte{0, 0, 0, 0x80}, make([]byte, 8), ivhd(0x10, base, all, ioapic4))), []string{"IVRSReservedBits"}},
		{"truncated", checktest.SDT("IVRS", 2, make([]byte, 6)), []string{"IVRSMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.RunTables(t, Check, madt, checktest.HPET(nil), c.raw)
			assert.Equal(t, c.want, tablecheck.Labels(r), "%+v", r.Findings)
		})
	}
	assert.Equal(t, tests.StatusNotApplicable, checktest.RunTables(t, Check, madt).Status)
}

// With the firmware memory map, every IVMD range must be reserved; a
// range in usable RAM is a warning until a corpus machine shows one.
func TestIVRSIVMDInMemoryMap(t *testing.T) {
	madt := checktest.MADT(3, checktest.LAPIC(0, 0, 1), checktest.IOAPIC(4, 0xFEC00000))
	raw := ivrs(2, ivhd(0x10, 0xFD400000, all, ioapic4), ivmd(0x9F000000, 0x10000))
	mm := []memmap.Range{{Start: 0x100000, End: 0x9EFFFFFF, Type: "System RAM"}, {Start: 0x9F000000, End: 0x9FFFFFFF, Type: "Reserved"}}
	run := func() tests.Result {
		return checktest.Run(t, Check, checktest.Machine(t, mm, checktest.Table{Raw: madt}, checktest.Table{Raw: raw}))
	}
	r := run()
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r)
	mm[0].End, mm[1].Start = 0x9F007FFF, 0x9F008000
	r = run()
	assert.Equal(t, []string{"IVRSIVMDNotReserved"}, tablecheck.Labels(r))
	f := checktest.FindingWith(r, "IVRSIVMDNotReserved")
	assert.Equal(t, tests.KindWarning, f.Kind)
	assert.Contains(t, f.Message, "0x9f000000-0x9f00ffff is covered by 0x100000-0x9f007fff System RAM")
	// Without a memory map the ranges are said not checked.
	r = checktest.RunTables(t, Check, madt, raw)
	assert.Equal(t, tests.StatusIncomplete, r.Status)
}
