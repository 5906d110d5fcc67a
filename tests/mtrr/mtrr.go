// Package mtrr checks the boot CPU's memory type range registers against
// the memory map: MTRRs enabled, valid variable ranges (contiguous masks,
// aligned bases, defined types), no overlaps the SDM leaves undefined,
// every RAM range write-back, every MMIO register block (PCI BARs, ECAM,
// HPET, I/O APICs) uncached — a prefetchable BAR may also be write-
// combining, never write-back.
//
// Sources, best first: the registers themselves (msrs input), /proc/mtrr
// (variable ranges only: the default type and fixed ranges are then not
// checked), or the MTRR dump the kernel printed at boot (kernel log).
// The memory map is the firmware map (/sys/firmware/memmap) or the e820 map
// the kernel printed; MMIO comes from the PCI BARs in sysfs or the boot
// log, and the ACPI MCFG, HPET and MADT tables, /proc/iomem's IOAPIC,
// HPET and MMCONFIG entries, or their boot-log lines.
// The memory types follow Intel SDM Vol. 3A §12.11.4.1 (overlaps) and
// AMD APM Vol. 2 §7.7.1 (TOM2, Tom2ForceMemTypeWB).
package mtrr

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/cpu/cpuinfo"
	"github.com/fwcheck/fwcheck/cpu/msr"
	lib "github.com/fwcheck/fwcheck/cpu/mtrr"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

const (
	sdm     = "Intel SDM Vol. 3A §12.11"
	sdmOver = "Intel SDM Vol. 3A §12.11.4.1"
	sdmVar  = "Intel SDM Vol. 3A §12.11.2.3"
)

var (
	labelDisabled = tests.NewLabel("MTRRDisabled", tests.Critical, sdm+" (IA32_MTRR_DEF_TYPE.E)",
		"MTRRs are switched off (IA32_MTRR_DEF_TYPE bit 11 clear), so all of memory is uncached and the machine "+
			"runs many times slower than it should. Set the enable bit after programming the ranges, on every CPU.")
	labelFixedDisabled = tests.NewLabel("MTRRFixedDisabled", tests.Medium, sdm+" (IA32_MTRR_DEF_TYPE.FE)",
		"The CPU has fixed-range MTRRs but they are not enabled (FE, bit 10), so the first megabyte takes its "+
			"type from the variable ranges: the legacy VGA window at 0xA0000 may end up cached. Program and enable the "+
			"fixed ranges.")
	labelReservedType = tests.NewLabel("MTRRReservedType", tests.High, sdm+" Table 12-8",
		"An MTRR (or the default type) holds a reserved memory type encoding (2, 3 or above 6). The behaviour "+
			"is undefined; use UC, WC, WT, WP or WB.")
	labelNonContiguous = tests.NewLabel("MTRRMaskNonContiguous", tests.Medium, sdmVar,
		"A variable MTRR's mask is not a single run of ones from the top of the physical address width, so it "+
			"describes a scattered set of addresses. Cover the region with naturally aligned power-of-two ranges.")
	labelMisaligned = tests.NewLabel("MTRRBaseMisaligned", tests.Medium, sdmVar,
		"A variable MTRR's base is not a multiple of its size: the CPU ignores the low base bits and the range "+
			"actually covered starts elsewhere. Align the base to the range size.")
	labelOverlap = tests.NewLabel("MTRRUndefinedOverlap", tests.High, sdmOver,
		"Variable MTRRs overlap with types the SDM gives no combined meaning (only identical types, UC with "+
			"anything, and WT with WB are defined). Rearrange the ranges so that no address is covered by such a pair.")
	labelRAMNotWB = tests.NewLabel("MTRRRAMNotWriteBack", tests.High, sdmOver,
		"System RAM in the firmware memory map is not write-back under the MTRRs, so the OS either runs from "+
			"slow uncached memory or drops it (Linux trims RAM that MTRRs leave uncached). Cover all usable RAM with "+
			"write-back ranges; it often takes one more variable MTRR or a write-back default type with UC holes.")
	labelMMIOCached = tests.NewLabel("MTRRMMIOCached", tests.High, sdmOver,
		"A device's register block (a PCI BAR, the ECAM window, the HPET or an I/O APIC) is cacheable under the "+
			"MTRRs: reads may be served from cache and writes delayed or merged, which corrupts device state. An OS "+
			"that maps MMIO uncached through PAT is shielded; firmware, SMM code and OSes without PAT are not. Make "+
			"MMIO uncached in the MTRRs; only prefetchable BARs may be write-combining.")
	labelPrefetchWB = tests.NewLabel("MTRRPrefetchableBARWriteBack", tests.Medium, sdmOver,
		"A prefetchable PCI BAR is write-back (or write-through / write-protect) under the MTRRs. Prefetchable "+
			"memory tolerates write-combining, but caching it makes the CPU and the device disagree about its "+
			"contents. Leave such BARs UC (the OS adds WC through PAT) or make them WC.")
	labelAMDFixDramMod = tests.NewLabel("AMDMtrrFixDramModEnabled", tests.Low, "AMD APM Vol. 2 §7.9.1 (SYSCFG[MtrrFixDramModEn])",
		"SYSCFG.MtrrFixDramModEn (bit 19) is still set after boot. It only lets firmware change the fixed "+
			"MTRRs' RdMem/WrMem bits and should be cleared before handing over to the OS.")
)

// Check is the mtrr check.
var Check = &tests.Check{
	ID: "mtrr", Title: "MTRRs enabled, well-formed and matching the memory map (RAM write-back, MMIO uncached)",
	Category: tests.CPU,
	Arch:     tests.X86,
	Optional: []input.Decl{input.MSRs, input.ProcMTRR, input.CPUInfo, input.MemoryMap, input.PCIBARs,
		input.ACPITables, input.IOMem, input.KernelLog, input.DMI},
	Spec: "Intel SDM Vol. 3A §12.11; AMD APM Vol. 2 §7.7",
	Labels: []*tests.Label{labelDisabled, labelFixedDisabled, labelReservedType, labelNonContiguous,
		labelMisaligned, labelOverlap, labelRAMNotWB, labelMMIOCached, labelPrefetchWB, labelAMDFixDramMod},
	Run: run,
}

// logTexts returns the kernel log's texts, or nil.
func logTexts(p *tests.Pass) []string {
	recs, err := tests.KernelRecords(p)
	if err != nil {
		return nil
	}
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Text
	}
	return out
}

// state returns the boot CPU's MTRR state and where it came from.
func state(p *tests.Pass, texts []string) (*lib.State, string, string) {
	var why []string
	cpus, _ := tests.Load(p, input.CPUInfo)
	if d, err := tests.Load(p, input.MSRs); err == nil {
		if s, amd, err := FromDump(d, cpus, cpuNum(d)); err == nil {
			return s, "MSRs of CPU " + fmt.Sprint(cpuNum(d)), amd
		} else {
			why = append(why, err.Error())
		}
	} else {
		why = append(why, err.Error())
	}
	if s, err := tests.Load(p, input.ProcMTRR); err == nil {
		return s, "/proc/mtrr", ""
	} else {
		why = append(why, err.Error())
	}
	if s := lib.FromLog(texts); s != nil {
		amd := ""
		if v := lib.VendorFromLog(texts); v == "AMD" || v == "Hygon" {
			amd = "unknown" // SYSCFG and TOP_MEM2 are not in the log
		}
		return s, "the kernel log's MTRR dump", amd
	}
	if texts != nil {
		why = append(why, "the kernel log holds no MTRR dump (Linux 6.5 and later print it only with mtrr=debug)")
	}
	return nil, strings.Join(why, "; "), ""
}

func cpuNum(d *msr.Dump) int {
	if cs := d.CPUs(); len(cs) > 0 {
		return cs[0]
	}
	return 0
}

// FromDump builds CPU cpu's MTRR state from an MSR dump; amd, when not
// empty, describes SYSCFG as read.
func FromDump(d *msr.Dump, cpus []cpuinfo.CPU, cpu int) (s *lib.State, amd string, err error) {
	capReg, ok1 := d.Get(cpu, lib.MSRCap)
	def, ok2 := d.Get(cpu, lib.MSRDefType)
	if !ok1 || !ok2 {
		return nil, "", fmt.Errorf("CPU %d: IA32_MTRRCAP or IA32_MTRR_DEF_TYPE not read (%s)", cpu, d.Errors[cpu][lib.MSRCap])
	}
	var fixed []uint64
	for _, a := range lib.FixedMSRs {
		v, ok := d.Get(cpu, a)
		if !ok {
			fixed = nil
			break
		}
		fixed = append(fixed, v)
	}
	var vars [][2]uint64
	for i := uint32(0); i < uint32(capReg&0xFF); i++ {
		b, ok1 := d.Get(cpu, lib.MSRPhysBase0+2*i)
		m, ok2 := d.Get(cpu, lib.MSRPhysBase0+2*i+1)
		if !ok1 || !ok2 {
			return nil, "", fmt.Errorf("CPU %d: variable MTRR %d not read", cpu, i)
		}
		vars = append(vars, [2]uint64{b, m})
	}
	bits := 0
	for _, c := range cpus {
		if c.Processor == cpu {
			bits = c.PhysBits
		}
	}
	s = lib.FromMSRs(capReg, def, fixed, vars, bits)
	if sys, ok := d.Get(cpu, lib.MSRSysCfg); ok && isAMD(cpus) {
		tom2, _ := d.Get(cpu, lib.MSRTOM2)
		s.TOM2 = tom2 & s.PhysMask() &^ 0x7FFFFF
		s.TOM2WB = sys&(1<<21) != 0 && sys&(1<<22) != 0
		amd = fmt.Sprintf("SYSCFG 0x%x (MtrrTom2En %d, Tom2ForceMemTypeWB %d, MtrrFixDramModEn %d), TOP_MEM2 0x%x",
			sys, sys>>21&1, sys>>22&1, sys>>19&1, s.TOM2)
	}
	return s, amd, nil
}

func isAMD(cpus []cpuinfo.CPU) bool {
	for _, c := range cpus {
		if c.AMD() {
			return true
		}
	}
	return false
}

func run(p *tests.Pass) error {
	texts := logTexts(p)
	s, src, amd := state(p, texts)
	if s == nil {
		p.Skip("no MTRR state: %s", src)
		return nil
	}
	p.Info(nil, "MTRRs from %s: %s", src, describe(s))
	if lib.CleanedUp(texts) && src != "the kernel log's MTRR dump" {
		p.Info(nil, "the kernel rewrote the variable MTRRs at boot (mtrr_cleanup): they show its layout; the boot log's MTRR dump shows the firmware's")
	}
	tom2Unknown := amd == "unknown"
	if amd != "" && !tom2Unknown {
		p.Info(nil, "AMD: %s", amd)
		if d, err := tests.Load(p, input.MSRs); err == nil {
			if sys, ok := d.Get(cpuNum(d), lib.MSRSysCfg); ok && sys&(1<<19) != 0 {
				p.Fail(labelAMDFixDramMod, "SYSCFG 0x%x has MtrrFixDramModEn set", sys)
			}
		}
	}
	if s.HaveDefault {
		if !s.Enabled {
			p.Fail(labelDisabled, "IA32_MTRR_DEF_TYPE.E is clear (from %s)", src)
			return nil // every address is UC: the rest would only repeat it
		}
		p.Passed("MTRRs are enabled")
		if !s.Default.Valid() {
			p.Fail(labelReservedType, "default memory type %s", s.Default)
		}
		switch {
		case !s.HaveFixed:
			p.NotChecked("fixed-range MTRRs", "not readable from "+src, "")
		case s.FixedSupported && !s.FixedEnabled:
			p.Fail(labelFixedDisabled, "fixed ranges supported but IA32_MTRR_DEF_TYPE.FE is clear")
		default:
			p.Passed("fixed-range MTRRs are enabled")
		}
	} else {
		p.NotChecked("MTRR enable bits, default type and fixed ranges", src+" shows only variable ranges",
			msrRemedy(p, "run as root with the msr module"))
	}
	for _, f := range s.Fixed {
		if !f.Type.Valid() {
			p.Fail(labelReservedType, "fixed range 0x%05x-0x%05x has type %s", f.Start, f.End, f.Type)
		}
	}
	pm := s.PhysMask()
	good := 0
	for _, v := range s.Var {
		if !v.Valid {
			continue
		}
		ok := true
		if !v.Type.Valid() {
			p.Fail(labelReservedType, "%s", v)
			ok = false
		}
		if !v.Contiguous(pm) {
			p.Fail(labelNonContiguous, "%s (physical address width %d bits)", v, bitsOf(s))
			ok = false
		} else if !v.Aligned(pm) {
			p.Fail(labelMisaligned, "%s: base not a multiple of size 0x%x", v, v.Size(pm))
			ok = false
		}
		if ok {
			good++
		}
	}
	if good > 0 {
		p.Passed("%d variable MTRRs are well-formed", good)
	}
	// Undefined overlaps anywhere in the address space.
	overlaps := 0
	for _, seg := range s.Segments(0, pm) {
		if seg.Conflict {
			overlaps++
			p.Fail(labelOverlap, "[mem 0x%x-0x%x] is covered by variable MTRRs of types %v", seg.Start, seg.End, seg.Types)
		}
	}
	if overlaps == 0 {
		p.Passed("no variable MTRRs overlap with an undefined combination of types")
	}
	checkRAM(p, s, texts, tom2Unknown)
	checkMMIO(p, s, texts, tom2Unknown)
	return nil
}

func bitsOf(s *lib.State) int {
	if s.PhysBits > 0 {
		return s.PhysBits
	}
	return 36
}

func describe(s *lib.State) string {
	var b strings.Builder
	if s.HaveDefault {
		fmt.Fprintf(&b, "E=%t FE=%t default %s; ", s.Enabled, s.FixedEnabled, s.Default)
	}
	n := 0
	for _, v := range s.Var {
		if v.Valid {
			if n > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d: 0x%x/0x%x %s", v.Index, v.Base, v.Mask, v.Type)
			n++
		}
	}
	if n == 0 {
		b.WriteString("no variable ranges in use")
	}
	return b.String()
}

// known reports whether the type of every address in r is known from s:
// without the default type, only addresses some variable range covers.
func known(s *lib.State, seg lib.Segment) bool {
	return s.HaveDefault || seg.Source == "variable"
}

// tom2Hidden reports whether seg's type could have been decided by AMD's
// SYSCFG.Tom2ForceMemTypeWB, which the source does not show: memory above
// 4 GiB that no variable range covers.
func tom2Hidden(tom2Unknown bool, seg lib.Segment) bool {
	return tom2Unknown && seg.Source == "default" && seg.End >= 1<<32
}

const tom2Reason = "AMD CPU: memory from 4 GiB up to TOP_MEM2 is write-back through SYSCFG.Tom2ForceMemTypeWB, which the kernel log does not show"

func checkRAM(p *tests.Pass, s *lib.State, texts []string, tom2Unknown bool) {
	var ram []memmap.Range
	src := ""
	if mm, err := tests.Load(p, input.MemoryMap); err == nil && len(mm) > 0 {
		src, ram = "the firmware memory map", mm
	} else if e := memmap.E820FromLog(texts); len(e) > 0 {
		src, ram = "the e820 map in the kernel log", e
	} else {
		reason := "neither /sys/firmware/memmap nor a kernel log with the e820 map"
		if err != nil {
			reason = err.Error()
		}
		p.NotChecked("system RAM is write-back", reason, "run as root, or give the boot log with --klog")
		return
	}
	n, unknown, hidden, before := 0, 0, 0, p.Failures()
	for _, r := range ram {
		if !memmap.Usable(r.Type) {
			continue
		}
		n++
		for _, seg := range s.Segments(r.Start, r.End) {
			if !known(s, seg) {
				unknown++
				continue
			}
			if tom2Hidden(tom2Unknown, seg) {
				hidden++
				continue
			}
			if seg.Type != lib.WB && !seg.Conflict {
				p.Fail(labelRAMNotWB, "RAM [mem 0x%x-0x%x] (%s) is %s (%s), in e820 range [mem 0x%x-0x%x]",
					seg.Start, seg.End, size(seg.End-seg.Start+1), seg.Type, seg.Source, r.Start, r.End)
			}
		}
	}
	switch {
	case n == 0:
		p.NotChecked("system RAM is write-back", src+" lists no usable RAM", "")
	case unknown > 0:
		p.NotChecked("system RAM not covered by a variable MTRR is write-back", "the default type is unknown from /proc/mtrr", msrRemedy(p, "run as root with the msr module"))
	case hidden > 0:
		p.NotChecked("system RAM above 4 GiB is write-back", tom2Reason, msrRemedy(p, "run fwcheck on the machine, as root, so that SYSCFG and TOP_MEM2 are read"))
	case p.Failures() == before:
		p.Passed("%d usable RAM ranges of %s are write-back", n, src)
	}
}

type mmio struct {
	memmap.Range
	what         string
	prefetchable bool
}

func mmioRanges(p *tests.Pass, texts []string) (out []mmio, srcs []string) {
	bars, err := tests.Load(p, input.PCIBARs)
	if err != nil || len(bars) == 0 {
		bars = memmap.BARsFromLog(texts)
		if len(bars) > 0 {
			srcs = append(srcs, "PCI BARs from the kernel log")
		}
	} else {
		srcs = append(srcs, "PCI BARs from sysfs")
	}
	for _, b := range bars {
		if b.Index > 5 {
			continue // expansion ROMs (read once, may be cached), SR-IOV and bridge windows
		}
		out = append(out, mmio{b.Range, b.Device + " BAR " + fmt.Sprint(b.Index), b.Prefetchable})
	}
	if ts, err := tests.Load(p, input.ACPITables); err == nil && ts != nil {
		srcs = append(srcs, "ACPI tables")
		for _, t := range ts.Get(acpi.SigMCFG) {
			if m, err := acpi.ParseMCFG(t); err == nil {
				for _, e := range m.Entries {
					if e.Base != 0 && e.Size() > 0 {
						out = append(out, mmio{memmap.Range{Start: e.Base + uint64(e.StartBus)<<20, End: e.Base + uint64(e.EndBus)<<20 + 1<<20 - 1},
							fmt.Sprintf("ECAM segment %d buses %02x-%02x", e.Segment, e.StartBus, e.EndBus), false})
					}
				}
			}
		}
		for _, t := range ts.Get(acpi.SigHPET) {
			if h, err := acpi.ParseHPET(t); err == nil && h.BaseAddress.Space == acpi.SpaceSystemMemory && h.BaseAddress.Address != 0 {
				a := h.BaseAddress.Address
				out = append(out, mmio{memmap.Range{Start: a, End: a + 0x3FF}, "HPET", false})
			}
		}
		for _, t := range ts.Get(acpi.SigMADT) {
			if m, err := acpi.ParseMADT(t); err == nil {
				for _, io := range m.IOAPICs {
					if io.Address != 0 {
						out = append(out, mmio{memmap.Range{Start: uint64(io.Address), End: uint64(io.Address) + 0x3FF}, fmt.Sprintf("IOAPIC %d", io.ID), false})
					}
				}
			}
		}
	} else if res, err := tests.Load(p, input.IOMem); err == nil && len(iomemMMIO(res)) > 0 {
		srcs = append(srcs, "/proc/iomem's IOAPIC, HPET and MMCONFIG entries")
		for _, m := range iomemMMIO(res) {
			out = append(out, mmio{m.Range, m.What, false})
		}
	} else if ms := memmap.MMIOFromLog(texts); len(ms) > 0 {
		srcs = append(srcs, "the kernel log's IOAPIC, HPET and ECAM lines")
		for _, m := range ms {
			out = append(out, mmio{m.Range, m.What, false})
		}
	}
	return out, srcs
}

var iomemName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:IOAPIC \d+|HPET \d+|PCI MMCONFIG [0-9a-fA-F]{4} \[bus [0-9a-fA-F]{2}-[0-9a-fA-F]{2}\])$`)
})

// iomemMMIO picks the register blocks the kernel names in /proc/iomem.
func iomemMMIO(res []memmap.Resource) []memmap.MMIO {
	var out []memmap.MMIO
	for _, r := range res {
		if iomemName().MatchString(r.Type) {
			out = append(out, memmap.MMIO{Range: r.Range, What: r.Type})
		}
	}
	return out
}

func checkMMIO(p *tests.Pass, s *lib.State, texts []string, tom2Unknown bool) {
	why := ""
	if w := vmWhy(p); w != "" {
		why = w + ": the hypervisor maps device memory uncached whatever the guest's MTRRs say"
	}
	regions, srcs := mmioRanges(p, texts)
	if len(regions) == 0 {
		p.NotChecked("MMIO is uncached", "no PCI BARs, ACPI tables or kernel log to find the register blocks in",
			"run as root, or give the boot log with --klog")
		return
	}
	unknown, before := 0, p.Failures()
	for _, r := range regions {
		if r.End < r.Start {
			continue
		}
		for _, seg := range s.Segments(r.Start, r.End) {
			if !known(s, seg) || tom2Hidden(tom2Unknown, seg) {
				unknown++
				continue
			}
			switch {
			case seg.Type == lib.UC || seg.Conflict:
			case r.prefetchable && seg.Type == lib.WC:
			case r.prefetchable:
				p.Explained(labelPrefetchWB, why, "%s [mem 0x%x-0x%x] (prefetchable) is %s (%s) at [mem 0x%x-0x%x]",
					r.what, r.Start, r.End, seg.Type, seg.Source, seg.Start, seg.End)
			default:
				p.Explained(labelMMIOCached, why, "%s [mem 0x%x-0x%x] is %s (%s) at [mem 0x%x-0x%x]",
					r.what, r.Start, r.End, seg.Type, seg.Source, seg.Start, seg.End)
			}
		}
	}
	if unknown > 0 {
		reason := "the default type is unknown from /proc/mtrr"
		if tom2Unknown {
			reason = tom2Reason
		}
		p.NotChecked("MMIO not covered by a variable MTRR is uncached", reason, msrRemedy(p, "run as root with the msr module"))
		return
	}
	if p.Failures() == before {
		p.Passed("%d MMIO regions (%s) are uncached (prefetchable BARs: uncached or write-combining)", len(regions), strings.Join(srcs, ", "))
	}
}

// vmWhy is the evidence that the machine is virtual, or "".
func vmWhy(p *tests.Pass) string {
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	cpus, _ := tests.Load(p, input.CPUInfo)
	return vm.Evidence(dmi, recs, cpus)
}

func size(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) != 0:
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// msrRemedy says what would let the registers be read here.
func msrRemedy(p *tests.Pass, fallback string) string {
	_, err := tests.Load(p, input.MSRs)
	return p.Machine().Remedy(err, fallback)
}
