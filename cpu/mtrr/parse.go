package mtrr

import (
	"bufio"
	"bytes"
	"fmt"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// typeByName maps the kernel's names for memory types to types.
var typeByName = map[string]Type{
	"uncachable": UC, "write-combining": WC, "write-through": WT, "write-protect": WP, "write-back": WB,
}

// TypeByName returns the type the kernel calls name ("write-back").
func TypeByName(name string) (Type, bool) { t, ok := typeByName[name]; return t, ok }

// maxLines bounds what the parsers read from hostile input.
const maxLines = 1 << 16

var procLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^reg(\d+): base=0x([0-9a-fA-F]+) \(\s*\d+MB\), size=\s*(\d+)([KMG])B, count=\d+: (\S+)$`)
})

// ParseProc reads /proc/mtrr: the enabled variable ranges only (no default
// type, no fixed ranges, no disabled registers). Sizes are what the kernel
// derived from each mask; a non-contiguous mask cannot be told apart here.
func ParseProc(b []byte) (*State, error) {
	s := &State{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 0; sc.Scan(); n++ {
		if n >= maxLines {
			return nil, fmt.Errorf("/proc/mtrr: more than %d lines", maxLines)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		m := procLine().FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("/proc/mtrr: unrecognised line %q", trunc(line))
		}
		if len(s.Var) >= 256 {
			return nil, fmt.Errorf("/proc/mtrr: more than 256 ranges")
		}
		idx, err1 := strconv.Atoi(m[1])
		base, err2 := strconv.ParseUint(m[2], 16, 64)
		size, err3 := strconv.ParseUint(m[3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || idx > 255 || size == 0 || size > 1<<40 {
			return nil, fmt.Errorf("/proc/mtrr: bad values in %q", trunc(line))
		}
		size <<= map[string]uint{"K": 10, "M": 20, "G": 30}[m[4]]
		t, ok := typeByName[m[5]]
		if !ok {
			return nil, fmt.Errorf("/proc/mtrr: unknown memory type %q", trunc(m[5]))
		}
		s.Var = append(s.Var, Var{Index: idx, Base: base, Size0: size, Type: t, Valid: true})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("/proc/mtrr: %w", err)
	}
	s.fixProcMasks()
	return s, nil
}

// fixProcMasks turns the sizes /proc/mtrr gives into masks over a physical
// width wide enough for every range.
func (s *State) fixProcMasks() {
	if s.PhysBits == 0 {
		s.PhysBits = 36
		for _, v := range s.Var {
			if w := bits.Len64(v.Base + v.Size0 - 1); w > s.PhysBits {
				s.PhysBits = w
			}
		}
	}
	pm := s.PhysMask()
	for i := range s.Var {
		s.Var[i].Mask = maskFromSize(s.Var[i].Size0, pm)
	}
}

var (
	logDefault  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^MTRR default type: (\S+)$`) })
	logFixedHdr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^MTRR fixed ranges (en|dis)abled:$`) })
	logVarHdr   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^MTRR variable ranges (en|dis)abled:$`) })
	logFixed    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9A-Fa-f]{5})-([0-9A-Fa-f]{5}) (\S+)$`) })
	logVar      = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+) base ([0-9A-Fa-f]+) mask ([0-9A-Fa-f]+) (\S+)$`)
	})
	logVarOff = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+) disabled$`) })
	logIncons = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^mtrr: your CPUs had inconsistent (\S+) (?:MTRR )?settings$`)
	})
)

// FromLog finds the MTRR dump the kernel prints at boot ("MTRR default
// type: …", the fixed and variable ranges) in the text of kernel-log
// records, and returns the boot CPU's state as it printed it, or nil when
// the log holds no dump (kernels since 6.5 print it only with mtrr=debug).
// The first dump wins. Fixed ranges "enabled" in the log means E and FE
// both set; variable ranges "enabled" means E.
func FromLog(texts []string) *State {
	var s *State
	section := ""
	for i, t := range texts {
		if i >= 4*maxLines {
			break
		}
		line := strings.TrimSpace(t)
		if m := logDefault().FindStringSubmatch(line); m != nil {
			if s != nil {
				break // a second boot's dump
			}
			s = &State{HaveDefault: true}
			t, ok := typeByName[m[1]]
			if !ok {
				t = 2 // reserved: the kernel printed "?"
			}
			s.Default = t
			section = ""
			continue
		}
		if s == nil {
			continue
		}
		if m := logFixedHdr().FindStringSubmatch(line); m != nil {
			s.HaveFixed, s.FixedSupported, section = true, true, "fixed"
			s.FixedEnabled = m[1] == "en"
			if s.FixedEnabled {
				s.Enabled = true
			}
			continue
		}
		if m := logVarHdr().FindStringSubmatch(line); m != nil {
			s.Enabled, section = m[1] == "en", "var"
			continue
		}
		switch {
		case section == "fixed":
			if m := logFixed().FindStringSubmatch(line); m != nil {
				a, _ := strconv.ParseUint(m[1], 16, 64)
				e, _ := strconv.ParseUint(m[2], 16, 64)
				t, ok := typeByName[m[3]]
				if ok && e >= a {
					s.Fixed = append(s.Fixed, Fixed{Start: a, End: e, Type: t})
				}
				continue
			}
		case section == "var":
			if m := logVar().FindStringSubmatch(line); m != nil {
				idx, _ := strconv.Atoi(m[1])
				b, err1 := strconv.ParseUint(m[2], 16, 64)
				k, err2 := strconv.ParseUint(m[3], 16, 64)
				t, ok := typeByName[m[4]]
				if err1 == nil && err2 == nil && idx < 256 && len(s.Var) < 256 {
					if !ok {
						t = 2
					}
					s.Var = append(s.Var, Var{Index: idx, Base: b, Mask: k, Type: t, Valid: true})
				}
				continue
			}
			if m := logVarOff().FindStringSubmatch(line); m != nil {
				idx, _ := strconv.Atoi(m[1])
				if idx < 256 && len(s.Var) < 256 {
					s.Var = append(s.Var, Var{Index: idx})
				}
				continue
			}
		}
		if section != "" && !strings.HasPrefix(line, "MTRR") {
			section = "" // the dump ended
		}
	}
	if s != nil {
		// The mask's top bit is the physical width's last bit.
		s.PhysBits = 0
		for _, v := range s.Var {
			if w := bits.Len64(v.Mask); v.Valid && w > s.PhysBits {
				s.PhysBits = w
			}
		}
	}
	return s
}

// Inconsistent returns what the kernel said it found inconsistent across
// CPUs ("fixed", "variable", "MTRRdefType"), in the order it said it, from
// the text of kernel-log records.
func Inconsistent(texts []string) []string {
	var out []string
	seen := map[string]bool{}
	for i, t := range texts {
		if i >= 4*maxLines {
			break
		}
		if m := logIncons().FindStringSubmatch(strings.TrimSpace(t)); m != nil && !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

var logCPU0 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^smpboot: CPU0: (AMD|Intel|Hygon)\b`) })

// VendorFromLog returns "AMD", "Intel" or "Hygon" from the boot CPU line the
// kernel prints ("smpboot: CPU0: AMD Opteron(tm) …"), or "".
func VendorFromLog(texts []string) string {
	for i, t := range texts {
		if i >= 4*maxLines {
			break
		}
		if m := logCPU0().FindStringSubmatch(strings.TrimSpace(t)); m != nil {
			return m[1]
		}
	}
	return ""
}

// CleanedUp reports whether the kernel rewrote the variable MTRRs at boot
// (mtrr_cleanup: "Found optimal setting for mtrr clean up"): the registers
// then show the kernel's layout, and the boot-time dump the firmware's.
func CleanedUp(texts []string) bool {
	for i, t := range texts {
		if i >= 4*maxLines {
			break
		}
		if strings.TrimSpace(t) == "Found optimal setting for mtrr clean up" {
			return true
		}
	}
	return false
}
