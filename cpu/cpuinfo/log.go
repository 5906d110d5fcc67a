package cpuinfo

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// LogFacts are what the kernel log says about the CPUs and the firmware's
// part in their features.
type LogFacts struct {
	// Microcode maps CPU numbers to the revision the kernel reported
	// ("microcode: CPU3 sig=0x306a9, pf=0x2, revision=0x21", AMD's
	// "microcode: CPU3: patch_level=0x0600111f").
	Microcode map[int]uint64
	// VMXOff is the kernel's "VMX (outside TXT) disabled by BIOS" line;
	// KVMOff its "kvm: disabled by bios" line (VMX or SVM).
	VMXOff, KVMOff string
	// NX is the kernel's NX line ("NX (Execute Disable) protection: active").
	NX string
	// NoMicrocode lists the vulnerability lines that blame missing
	// microcode ("MDS: Vulnerable: Clear CPU buffers attempted, no microcode").
	NoMicrocode []string
}

var (
	logUcode = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^microcode: CPU(\d+)(?::? sig=0x[0-9a-f]+, pf=0x[0-9a-f]+, revision=|: patch_level=)(0x[0-9a-f]+)`)
	})
	logNX     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:Notice: )?NX \(Execute Disable\) protection`) })
	logNoUcod = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9 _/-]+: Vulnerable.*\bno microcode\b`) })
)

// FromLog reads LogFacts from the text of kernel-log records.
func FromLog(texts []string) LogFacts {
	f := LogFacts{Microcode: map[int]uint64{}}
	for i, t := range texts {
		if i >= maxLines {
			break
		}
		t = strings.TrimSpace(t)
		switch {
		case t == "x86/cpu: VMX (outside TXT) disabled by BIOS" && f.VMXOff == "":
			f.VMXOff = t
		case strings.HasPrefix(t, "kvm: disabled by bios") && f.KVMOff == "":
			f.KVMOff = t
		case logNX().MatchString(t) && f.NX == "":
			f.NX = t
		case logNoUcod().MatchString(t):
			if len(f.NoMicrocode) < 64 {
				f.NoMicrocode = append(f.NoMicrocode, t)
			}
		}
		if m := logUcode().FindStringSubmatch(t); m != nil && len(f.Microcode) < maxCPUs {
			c, err1 := strconv.Atoi(m[1])
			v, err2 := strconv.ParseUint(m[2], 0, 64)
			if err1 == nil && err2 == nil {
				if _, seen := f.Microcode[c]; !seen {
					f.Microcode[c] = v
				}
			}
		}
	}
	return f
}
