// Package mtrr models x86 memory type range registers (MTRRs) and computes
// the memory type they give each physical address, by the rules of the
// Intel SDM (Vol. 3A §12.11, "Memory Type Range Registers") and the AMD
// APM (Vol. 2 §7.7, with SYSCFG's TOM2 extension).
//
// A State comes from the registers themselves (FromMSRs, read through
// /dev/cpu/N/msr), from /proc/mtrr (ParseProc: variable ranges only), or
// from the dump the kernel prints at boot (FromLog). It knows nothing of
// checks or reports.
//
// Considered: u-root's pkg/msr reads and writes MSRs but has no notion of
// MTRR layout or memory types, and the kernel's own decoding is GPL C; the
// SDM's rules are short enough to state here directly.
package mtrr

import (
	"fmt"
	"math/bits"
	"sort"
)

// Type is a memory type as encoded in MTRRs and PAT.
type Type uint8

// Memory types (SDM Vol. 3A Table 12-8).
const (
	UC Type = 0
	WC Type = 1
	WT Type = 4
	WP Type = 5
	WB Type = 6
)

var typeNames = map[Type]string{UC: "UC", WC: "WC", WT: "WT", WP: "WP", WB: "WB"}

// Valid reports whether t is a defined MTRR memory type.
func (t Type) Valid() bool { _, ok := typeNames[t]; return ok }

func (t Type) String() string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("reserved(%d)", uint8(t))
}

// MSR addresses of the MTRRs and of the registers that bear on them.
const (
	MSRCap        = 0xFE
	MSRDefType    = 0x2FF
	MSRPhysBase0  = 0x200 // PHYSBASEn = 0x200+2n, PHYSMASKn = 0x201+2n
	MSRFix64K     = 0x250
	MSRFix16K8000 = 0x258
	MSRFix16KA000 = 0x259
	MSRFix4KC000  = 0x268 // through 0x26F
	MSRPAT        = 0x277
	// AMD.
	MSRSysCfg = 0xC0010010
	MSRTOM    = 0xC001001A
	MSRTOM2   = 0xC001001D
)

// FixedMSRs lists the eleven fixed-range MTRRs in address order.
var FixedMSRs = []uint32{MSRFix64K, MSRFix16K8000, MSRFix16KA000,
	0x268, 0x269, 0x26A, 0x26B, 0x26C, 0x26D, 0x26E, 0x26F}

// Var is one variable-range MTRR.
type Var struct {
	Index int
	// Base and Mask are physical addresses (the registers' bits M-1:12).
	Base, Mask uint64
	Type       Type
	// Valid is the mask register's V bit; an invalid pair is unused.
	Valid bool
	// Size0 is the size /proc/mtrr stated, when that is the source.
	Size0 uint64
}

// Fixed is one fixed range (below 1 MiB).
type Fixed struct {
	Start, End uint64 // inclusive
	Type       Type
	// AMD RdMem/WrMem attribute bits (4 and 3 of the type byte), kept
	// apart from Type.
	RdWrMem uint8
}

// State is the MTRR configuration of one CPU, or what a source tells of it.
type State struct {
	// Known fields: /proc/mtrr gives variable ranges only.
	HaveDefault, HaveFixed bool
	Enabled                bool // IA32_MTRR_DEF_TYPE.E
	FixedEnabled           bool // IA32_MTRR_DEF_TYPE.FE
	FixedSupported         bool // IA32_MTRRCAP.FIX
	Default                Type
	Fixed                  []Fixed
	Var                    []Var
	// PhysBits is the CPU's physical address width (MAXPHYADDR); 0 is
	// unknown and taken as 36 where a width is needed.
	PhysBits int
	// AMD: SYSCFG's Tom2ForceMemTypeWB with MtrrTom2En makes memory from
	// 4 GiB up to TOM2 write-back when no variable range covers it.
	TOM2WB bool
	TOM2   uint64
}

// PhysMask returns the mask of implemented physical address bits.
func (s *State) PhysMask() uint64 {
	b := s.PhysBits
	if b <= 0 || b > 64 {
		b = 36
	}
	if b == 64 {
		return ^uint64(0)
	}
	return 1<<b - 1
}

// Contiguous reports whether v's mask is of the form 1…10…0 over the
// implemented bits: only then does it describe one aligned range.
func (v Var) Contiguous(physMask uint64) bool {
	m := v.Mask & physMask &^ 0xFFF
	if m == 0 {
		return false
	}
	// The ones must run from the lowest set bit up to the top of physMask.
	low := m & -m
	return m|(low-1) == physMask|0xFFF
}

// Size returns the size of a contiguous range (the lowest set mask bit).
func (v Var) Size(physMask uint64) uint64 {
	m := v.Mask & physMask &^ 0xFFF
	return m & -m
}

// Aligned reports whether v's base has no bits below its size (the SDM
// requires the base to be a multiple of the size).
func (v Var) Aligned(physMask uint64) bool {
	sz := v.Size(physMask)
	return sz != 0 && v.Base&(sz-1) == 0
}

// Contains reports whether addr falls in v by the SDM's rule
// (PhysMask & addr == PhysMask & PhysBase).
func (v Var) Contains(addr, physMask uint64) bool {
	m := v.Mask & physMask &^ 0xFFF
	return addr&m == v.Base&m
}

// FromMSRs decodes the MTRR registers: cap (IA32_MTRRCAP), def
// (IA32_MTRR_DEF_TYPE), fixed (the eleven fixed-range MSRs in FixedMSRs
// order; nil when not read) and vars (PHYSBASEn, PHYSMASKn pairs).
func FromMSRs(capReg, def uint64, fixed []uint64, vars [][2]uint64, physBits int) *State {
	s := &State{
		HaveDefault: true, PhysBits: physBits,
		Enabled: def&(1<<11) != 0, FixedEnabled: def&(1<<10) != 0,
		FixedSupported: capReg&(1<<8) != 0, Default: Type(def & 0xFF),
	}
	pm := s.PhysMask()
	for i, p := range vars {
		s.Var = append(s.Var, Var{Index: i, Base: p[0] & pm &^ 0xFFF, Mask: p[1] & pm &^ 0xFFF,
			Type: Type(p[0] & 0xFF), Valid: p[1]&(1<<11) != 0})
	}
	if len(fixed) == len(FixedMSRs) {
		s.HaveFixed = true
		for i, v := range fixed {
			start, size := fixedLayout(i)
			for b := 0; b < 8; b++ {
				t := uint8(v >> (8 * b))
				s.Fixed = append(s.Fixed, Fixed{Start: start + uint64(b)*size, End: start + uint64(b+1)*size - 1,
					Type: Type(t &^ 0x18), RdWrMem: t & 0x18})
			}
		}
	}
	return s
}

// fixedLayout gives the start and sub-range size of the i-th fixed MSR.
func fixedLayout(i int) (start, size uint64) {
	switch {
	case i == 0:
		return 0, 64 << 10
	case i <= 2:
		return 0x80000 + uint64(i-1)*0x20000, 16 << 10
	default:
		return 0xC0000 + uint64(i-3)*0x8000, 4 << 10
	}
}

// Segment is a run of addresses with one effective memory type.
type Segment struct {
	Start, End uint64 // inclusive
	Type       Type
	// Conflict is set when overlapping variable ranges combine in a way
	// the SDM leaves undefined; Types then lists them and Type is UC.
	Conflict bool
	Types    []Type
	// Source says what decided the type: "fixed", "variable", "default",
	// "disabled", "tom2".
	Source string
}

// TypeAt returns the effective memory type at addr.
func (s *State) TypeAt(addr uint64) Segment {
	if s.HaveDefault && !s.Enabled {
		return Segment{Start: addr, End: addr, Type: UC, Source: "disabled"}
	}
	if addr < 1<<20 && s.HaveFixed && s.FixedEnabled {
		for _, f := range s.Fixed {
			if addr >= f.Start && addr <= f.End {
				return Segment{Start: addr, End: addr, Type: f.Type, Source: "fixed"}
			}
		}
	}
	pm := s.PhysMask()
	var ts []Type
	for _, v := range s.Var {
		if v.Valid && v.Contains(addr, pm) {
			ts = append(ts, v.Type)
		}
	}
	seg := Segment{Start: addr, End: addr}
	if len(ts) == 0 {
		if s.TOM2WB && addr >= 1<<32 && addr < s.TOM2 {
			seg.Type, seg.Source = WB, "tom2"
			return seg
		}
		seg.Type, seg.Source = s.Default, "default"
		return seg
	}
	seg.Source = "variable"
	seg.Type, seg.Conflict = Combine(ts)
	if seg.Conflict {
		seg.Types = uniq(ts)
	}
	return seg
}

// Combine applies the SDM's overlap rules to the types of the variable
// ranges that match one address: identical types give that type, UC wins
// over anything, WT and WB give WT; any other mix is undefined (conflict,
// reported as UC).
func Combine(ts []Type) (t Type, conflict bool) {
	u := uniq(ts)
	switch {
	case len(u) == 1:
		return u[0], false
	case contains(u, UC):
		return UC, false
	case len(u) == 2 && contains(u, WT) && contains(u, WB):
		return WT, false
	}
	return UC, true
}

func contains(ts []Type, t Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func uniq(ts []Type) []Type {
	var out []Type
	for _, t := range ts {
		if !contains(out, t) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Segments returns the effective types over [start, end] as maximal runs.
// Variable ranges with a non-contiguous mask are left out of the
// boundaries (they are a failure of their own; see Var.Contiguous), so the
// result is exact only where every valid mask is contiguous.
func (s *State) Segments(start, end uint64) []Segment {
	if end < start {
		return nil
	}
	pts := []uint64{start}
	add := func(a uint64) {
		if a > start && a <= end {
			pts = append(pts, a)
		}
	}
	if s.HaveFixed && s.FixedEnabled {
		for _, f := range s.Fixed {
			add(f.Start)
			if f.End != ^uint64(0) {
				add(f.End + 1)
			}
		}
	}
	add(1 << 20)
	pm := s.PhysMask()
	for _, v := range s.Var {
		if !v.Valid || !v.Contiguous(pm) {
			continue
		}
		b := v.Base &^ (v.Size(pm) - 1)
		add(b)
		if e := b + v.Size(pm); e > b {
			add(e)
		}
	}
	if s.TOM2WB {
		add(1 << 32)
		add(s.TOM2)
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i] < pts[j] })
	u := pts[:1]
	for _, p := range pts[1:] {
		if p != u[len(u)-1] {
			u = append(u, p)
		}
	}
	pts = u
	var out []Segment
	for i, p := range pts {
		seg := s.TypeAt(p)
		seg.End = end
		if i+1 < len(pts) {
			seg.End = pts[i+1] - 1
		}
		if n := len(out); n > 0 && out[n-1].Type == seg.Type && out[n-1].Conflict == seg.Conflict &&
			out[n-1].Source == seg.Source && out[n-1].End+1 == seg.Start {
			out[n-1].End = seg.End
			continue
		}
		out = append(out, seg)
	}
	return out
}

// String describes v for messages: index, base, mask and type.
func (v Var) String() string {
	return fmt.Sprintf("variable MTRR %d: base 0x%x mask 0x%x %s", v.Index, v.Base, v.Mask, v.Type)
}

// maskFromSize is the mask of a contiguous range of the given size.
func maskFromSize(size, physMask uint64) uint64 {
	if size == 0 || bits.OnesCount64(size) != 1 {
		// Not a power of two: the closest honest mask covers the lowest
		// set bit; callers check contiguity separately.
		size = size & -size
	}
	return ^(size - 1) & physMask &^ 0xFFF
}
