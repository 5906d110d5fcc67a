package e820

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func TestE820(t *testing.T) {
	fadt := checktest.Table{Raw: checktest.FADT(nil), Addr: 0x7FFE0000}
	cases := []struct {
		name string
		mm   []memmap.Range
		want []string
	}{
		{"clean", []memmap.Range{{Start: 0, End: 0x9FBFF, Type: "System RAM"}, {Start: 0x9FC00, End: 0xFFFFF, Type: "Reserved"},
			{Start: 0x100000, End: 0x7FFDFFFF, Type: "System RAM"}, {Start: 0x7FFE0000, End: 0x7FFFFFFF, Type: "ACPI Tables"}}, nil},
		{"legacy area usable", []memmap.Range{{Start: 0, End: 0xFFFFF, Type: "System RAM"},
			{Start: 0x100000, End: 0x7FFDFFFF, Type: "System RAM"}, {Start: 0x7FFE0000, End: 0x7FFFFFFF, Type: "ACPI Tables"}}, []string{"E820LegacyAreaUsable"}},
		{"overlap and table in RAM", []memmap.Range{{Start: 0, End: 0x9FBFF, Type: "System RAM"},
			{Start: 0x100000, End: 0x7FFFFFFF, Type: "System RAM"}, {Start: 0x7FFE0000, End: 0x7FFFFFFF, Type: "Reserved"}},
			[]string{"E820Overlap", "E820ACPITableInUsableRAM"}},
		{"empty entry", []memmap.Range{{Start: 0, End: 0x9FBFF, Type: "System RAM"}, {Start: 0x100000, End: 0xFFFFF, Type: "Reserved"},
			{Start: 0x7FFE0000, End: 0x7FFFFFFF, Type: "ACPI Tables"}}, []string{"E820EmptyEntry"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.Machine(t, c.mm, fadt))
			assert.Equal(t, c.want, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
		})
	}
}

func TestEBDA(t *testing.T) {
	bda := func(seg uint16) []byte {
		b := make([]byte, 256)
		b[0x0E], b[0x0F] = byte(seg), byte(seg>>8)
		return b
	}
	for _, c := range []struct {
		bda  []byte
		ram  uint64
		want []string
	}{{bda(0x9FC0), 0x9FBFF, nil}, {bda(0x9FC0), 0x9FFFF, []string{"E820EBDAUsable"}}, {bda(0), 0x9FFFF, nil}} {
		fs := fstest.MapFS{
			"fwcheck/bda.bin":             {Data: c.bda},
			"sys/firmware/memmap/0/start": {Data: []byte("0x0\n")},
			"sys/firmware/memmap/0/end":   {Data: []byte(fmt.Sprintf("0x%x\n", c.ram))},
			"sys/firmware/memmap/0/type":  {Data: []byte("System RAM\n")},
		}
		r := checktest.Run(t, Check, input.New(checktest.Snapshot{FS: fs}, input.Options{}))
		assert.Equal(t, c.want, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
	}
}

// TestGolden runs the check on the corpus boot logs: the e820 map and the
// ACPI table list the kernel printed.
func TestGolden(t *testing.T) { checktest.LogGoldens(t, Check) }
