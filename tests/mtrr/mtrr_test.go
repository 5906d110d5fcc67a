package mtrr

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// machine is a snapshot with MSRs (one CPU), cpuinfo, a firmware memory
// map and PCI BARs.
type machine struct {
	vendor  string
	def     uint64
	vars    [][2]uint64
	memmap  []memmap.Range
	pci     string // recorded pci-bars lines
	syscfg  uint64
	tom2    uint64
	hasTOM2 bool
}

func (m machine) build() *input.Machine {
	fs := fstest.MapFS{}
	var b strings.Builder
	b.WriteString("# fwcheck msr dump 1\n")
	fmt.Fprintf(&b, "cpu 0 0xfe 0x%x\ncpu 0 0x2ff 0x%x\n", 0x500|len(m.vars), m.def)
	fixed := []uint64{0x0606060606060606, 0x0606060606060606, 0, 0x0505050505050505, 0x0505050505050505,
		0x0505050505050505, 0x0505050505050505, 0x0505050505050505, 0x0505050505050505, 0x0505050505050505, 0x0505050505050505}
	for i, a := range []uint32{0x250, 0x258, 0x259, 0x268, 0x269, 0x26a, 0x26b, 0x26c, 0x26d, 0x26e, 0x26f} {
		fmt.Fprintf(&b, "cpu 0 0x%x 0x%x\n", a, fixed[i])
	}
	for i, v := range m.vars {
		fmt.Fprintf(&b, "cpu 0 0x%x 0x%x\ncpu 0 0x%x 0x%x\n", 0x200+2*i, v[0], 0x201+2*i, v[1])
	}
	if m.hasTOM2 {
		fmt.Fprintf(&b, "cpu 0 0xc0010010 0x%x\ncpu 0 0xc001001d 0x%x\n", m.syscfg, m.tom2)
	}
	fs["fwcheck/msr.txt"] = &fstest.MapFile{Data: []byte(b.String())}
	vendor := m.vendor
	if vendor == "" {
		vendor = "GenuineIntel"
	}
	fs["proc/cpuinfo"] = &fstest.MapFile{Data: []byte("processor : 0\nvendor_id : " + vendor + "\naddress sizes : 36 bits physical, 48 bits virtual\n")}
	for i, r := range m.memmap {
		d := fmt.Sprintf("sys/firmware/memmap/%d/", i)
		fs[d+"start"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("0x%x\n", r.Start))}
		fs[d+"end"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("0x%x\n", r.End))}
		fs[d+"type"] = &fstest.MapFile{Data: []byte(r.Type + "\n")}
	}
	if m.pci != "" {
		fs["fwcheck/pci-bars.txt"] = &fstest.MapFile{Data: []byte(m.pci)}
	}
	return input.New(checktest.Snapshot{FS: fs}, input.Options{})
}

var (
	ram2G = []memmap.Range{{Start: 0, End: 0x9FBFF, Type: "System RAM"}, {Start: 0x100000, End: 0x7FFFFFFF, Type: "System RAM"},
		{Start: 0xFEC00000, End: 0xFEC00FFF, Type: "Reserved"}}
	// 0-2 GiB WB, default UC.
	wb2G = [][2]uint64{{0x6, 0xF80000800}}
	gpu  = "0000:00:02.0 0x00000000c0000000 0x00000000cfffffff 0x0000000000042208\n" +
		"0000:00:02.0 0x00000000d0000000 0x00000000d0003fff 0x0000000000040200\n"
)

func TestMTRR(t *testing.T) {
	cases := []struct {
		name string
		m    machine
		want []string
	}{
		{"clean", machine{def: 0xC00, vars: wb2G, memmap: ram2G, pci: gpu}, nil},
		{"disabled", machine{def: 0x406, vars: wb2G, memmap: ram2G}, []string{"MTRRDisabled"}},
		{"fixed disabled", machine{def: 0x800, vars: wb2G, memmap: ram2G}, []string{"MTRRFixedDisabled"}},
		{"RAM beyond the WB range", machine{def: 0xC00, vars: [][2]uint64{{0x6, 0xFC0000800}}, memmap: ram2G}, []string{"MTRRRAMNotWriteBack"}},
		{"default WB covers the GPU BARs", machine{def: 0xC06, vars: nil, memmap: ram2G, pci: gpu}, []string{"MTRRPrefetchableBARWriteBack", "MTRRMMIOCached"}},
		{"prefetchable BAR WC is fine", machine{def: 0xC00, vars: [][2]uint64{{0x6, 0xF80000800}, {0xC0000001, 0xFF0000800}}, memmap: ram2G, pci: gpu}, nil},
		{"WC over a non-prefetchable BAR", machine{def: 0xC00, vars: [][2]uint64{{0x6, 0xF80000800}, {0xD0000001, 0xFFFFFF800}}, memmap: ram2G, pci: gpu}, []string{"MTRRMMIOCached"}},
		{"WC over WB RAM is undefined", machine{def: 0xC00, vars: [][2]uint64{{0x6, 0xF80000800}, {0x10000001, 0xFFFF00800}}, memmap: ram2G},
			[]string{"MTRRUndefinedOverlap"}},
		{"UC carve-out in RAM", machine{def: 0xC00, vars: [][2]uint64{{0x6, 0xF80000800}, {0x10000000, 0xFFFF00800}}, memmap: ram2G},
			[]string{"MTRRRAMNotWriteBack"}},
		{"non-contiguous mask", machine{def: 0xC00, vars: [][2]uint64{{0x6, 0xF80000800}, {0xC0000000, 0xF7F000800}}, memmap: ram2G},
			[]string{"MTRRMaskNonContiguous"}},
		{"misaligned base", machine{def: 0xC00, vars: [][2]uint64{{0x6, 0xF80000800}, {0xFFF60000, 0xFFFC00800}}, memmap: ram2G},
			[]string{"MTRRBaseMisaligned"}},
		{"reserved type", machine{def: 0xC00, vars: [][2]uint64{{0x6, 0xF80000800}, {0xC0000002, 0xFF0000800}}, memmap: ram2G},
			[]string{"MTRRReservedType"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, c.m.build())
			assert.Equal(t, c.want, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
			if c.want == nil {
				assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))
			}
		})
	}
}

// TestAMDTOM2: on AMD, RAM above 4 GiB that no variable MTRR covers is
// write-back when SYSCFG says so (MtrrTom2En and Tom2ForceMemTypeWB), and
// not otherwise.
func TestAMDTOM2(t *testing.T) {
	mm := append(append([]memmap.Range{}, ram2G...), memmap.Range{Start: 0x100000000, End: 0x17FFFFFFF, Type: "System RAM"})
	m := machine{vendor: "AuthenticAMD", def: 0xC00, vars: wb2G, memmap: mm, hasTOM2: true, syscfg: 1<<21 | 1<<22 | 1<<20 | 1<<18, tom2: 0x180000000}
	r := checktest.Run(t, Check, m.build())
	assert.Nil(t, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
	m.syscfg = 1<<20 | 1<<19
	r = checktest.Run(t, Check, m.build())
	assert.Equal(t, []string{"AMDMtrrFixDramModEnabled", "MTRRRAMNotWriteBack"}, checktest.FailLabels(r))
}

// TestIOMemMMIO: without ACPI tables, the register blocks come from
// /proc/iomem; a write-back default type over the I/O APIC is a failure.
func TestIOMemMMIO(t *testing.T) {
	m := machine{def: 0xC06, vars: [][2]uint64{{0xC0000000, 0xFC0000800}}, memmap: ram2G}.build()
	fs := m.Src.(checktest.Snapshot).FS.(fstest.MapFS)
	fs["proc/iomem"] = &fstest.MapFile{Data: []byte("00000000-0009fbff : System RAM\nfec00000-fec003ff : IOAPIC 0\nb0000000-bfffffff : PCI MMCONFIG 0000 [bus 00-ff]\n")}
	r := checktest.Run(t, Check, input.New(m.Src, input.Options{}))
	assert.Equal(t, []string{"MTRRMMIOCached"}, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
	assert.Contains(t, r.Findings[len(r.Findings)-1].Message, "MMCONFIG")
}

func TestNoSource(t *testing.T) {
	r := checktest.Run(t, Check, input.New(input.Empty(), input.Options{}))
	assert.Equal(t, tests.StatusSkipped, r.Status)
}

// TestProcMTRROnly: /proc/mtrr has no default type, so what no variable
// range covers is not checked, and the check cannot pass.
func TestProcMTRROnly(t *testing.T) {
	fs := fstest.MapFS{"proc/mtrr": {Data: []byte("reg00: base=0x000000000 (    0MB), size= 1024MB, count=1: write-back\n")}}
	r := checktest.Run(t, Check, input.New(checktest.Snapshot{FS: fs}, input.Options{}))
	assert.Equal(t, tests.StatusIncomplete, r.Status, tests.Render([]tests.Result{r}))
}

// TestGolden runs the check on every real boot log of the corpus (the
// kernel's MTRR dump, e820 map, PCI BARs, IOAPIC/HPET/ECAM lines) and
// compares with testdata/golden. Reviewed findings: 04FF5A51E4B0's
// variable MTRR 0 (base 0xfff60000, 4 MiB WP) is misaligned; the two AMD
// machines (57ED146F2C3C, 795503221AEA) have RAM above 4 GiB that only
// SYSCFG's TOM2 makes write-back, which a log cannot show (not checked);
// the KVM guest 9112EC3CC44C leaves its q35 ECAM window at 0xb0000000
// under the write-back default type (explained by the virtual machine).
func TestGolden(t *testing.T) { checktest.LogGoldens(t, Check) }

// BenchmarkCorpusLogs runs the check on every corpus boot log (parsing the
// log, the MTRR dump, the e820 map and the MMIO lines included).
func BenchmarkCorpusLogs(b *testing.B) {
	dir := corpus.Dir(b, "klog")
	paths, _ := filepath.Glob(filepath.Join(dir, "linuxhw", "*.dmesg.txt"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range paths {
			tests.RunOne(&tests.Env{Machine: checktest.LogMachine(p)}, Check)
		}
	}
	b.ReportMetric(float64(len(paths)*b.N)/b.Elapsed().Seconds(), "logs/s")
}

// FuzzCheck runs the check on hostile MSR dumps, cpuinfo and PCI
// resources: it must not abort.
func FuzzCheck(f *testing.F) {
	m := machine{def: 0xC00, vars: wb2G, memmap: ram2G, pci: gpu}.build()
	fs := m.Src.(checktest.Snapshot).FS.(fstest.MapFS)
	f.Add(fs["fwcheck/msr.txt"].Data, []byte("processor : 0\naddress sizes : 1 bits physical, 48 bits virtual\n"), []byte(gpu))
	f.Fuzz(func(t *testing.T, msrs, cpuinfo, pci []byte) {
		fs := fstest.MapFS{}
		for k, v := range m.Src.(checktest.Snapshot).FS.(fstest.MapFS) {
			fs[k] = v
		}
		fs["fwcheck/msr.txt"] = &fstest.MapFile{Data: msrs}
		fs["proc/cpuinfo"] = &fstest.MapFile{Data: cpuinfo}
		fs["fwcheck/pci-bars.txt"] = &fstest.MapFile{Data: pci}
		r := tests.RunOne(&tests.Env{Machine: input.New(checktest.Snapshot{FS: fs}, input.Options{})}, Check)
		if r.Status == tests.StatusAborted {
			t.Fatalf("aborted: %s", r.Reason)
		}
	})
}
