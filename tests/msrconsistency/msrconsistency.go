// Package msrconsistency checks that firmware programmed every CPU alike:
// the MTRRs (capabilities, default type, fixed and variable ranges) and
// the architectural registers firmware sets once per CPU
// (IA32_FEATURE_CONTROL, IA32_MISC_ENABLE, IA32_PAT, and on AMD SYSCFG,
// TOP_MEM, TOP_MEM2 and VM_CR), as fwts' msr test does. Each difference
// names the register and the CPUs, against the boot CPU's value.
//
// Linux copies the boot CPU's MTRRs onto every other CPU as it brings it
// up, and says so ("mtrr: your CPUs had inconsistent variable MTRR
// settings"): after boot the registers may agree again. The kernel log's
// account of what it corrected is therefore reported too. Under QEMU's TCG
// the virtual firmware leaves the application processors' MTRRs unset;
// with positive evidence of a virtual machine such findings are reported
// as explained.
package msrconsistency

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/cpu/msr"
	"github.com/fwcheck/fwcheck/cpu/mtrr"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
)

const (
	sdmMTRR = "Intel SDM Vol. 3A §12.11.8 (MTRR considerations in MP systems)"
	sdmMSR  = "Intel SDM Vol. 4 (architectural MSRs); AMD APM Vol. 2"
)

var (
	labelMTRR = tests.NewLabel("MTRRInconsistent", tests.High, sdmMTRR,
		"CPUs hold different MTRR values. The SDM requires identical MTRRs on every processor; where they "+
			"differ, the same memory is cached on one CPU and not on another, which loses coherency. Program the "+
			"MTRRs on every processor (application processors included, and again on resume from S3) from one "+
			"table.")
	labelMTRRBoot = tests.NewLabel("MTRRInconsistentAtBoot", tests.Medium, sdmMTRR,
		"The kernel found the CPUs' MTRRs different at boot and copied the boot CPU's onto the others. An OS "+
			"without that fix-up (or code running before it) sees incoherent caching. Program identical MTRRs on "+
			"every processor before handing over.")
	labelMSR = tests.NewLabel("MSRInconsistent", tests.Medium, sdmMSR,
		"An architectural register firmware sets once per processor differs between CPUs (for example a "+
			"feature-control lock, a MISC_ENABLE feature bit or AMD's SYSCFG). The OS assumes symmetric processors: "+
			"set the register identically on every processor.")
)

// Check is the msr-consistency check.
var Check = &tests.Check{
	ID: "msr-consistency", Title: "every CPU has the same MTRRs and firmware-programmed MSRs",
	Category: tests.CPU,
	Arch:     tests.X86,
	Optional: []input.Decl{input.MSRs, input.KernelLog, input.DMI, input.CPUInfo},
	Spec:     sdmMTRR,
	Labels:   []*tests.Label{labelMTRR, labelMTRRBoot, labelMSR},
	Run:      run,
}

// isMTRR reports whether a register is an MTRR.
func isMTRR(a uint32) bool {
	switch {
	case a == mtrr.MSRCap || a == mtrr.MSRDefType:
		return true
	case a >= 0x200 && a < 0x200+2*256:
		return true
	}
	for _, f := range mtrr.FixedMSRs {
		if a == f {
			return true
		}
	}
	return false
}

var brought = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^smp: Brought up \d+ nodes?, (\d+) CPUs?$`) })

func run(p *tests.Pass) error {
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	cpus, _ := tests.Load(p, input.CPUInfo)
	why := vm.Evidence(dmi, recs, cpus)
	if why != "" {
		why += ": the virtual firmware leaves the other vCPUs' registers as the hypervisor reset them"
	}
	var texts []string
	n := 0
	for _, r := range recs {
		texts = append(texts, r.Text)
		if m := brought().FindStringSubmatch(r.Text); m != nil && n == 0 {
			n, _ = strconv.Atoi(m[1])
		}
	}
	// What the kernel corrected at boot.
	inc := mtrr.Inconsistent(texts)
	if len(inc) > 0 {
		p.Explained(labelMTRRBoot, why, "the kernel found inconsistent %s MTRR settings across CPUs at boot and corrected them", strings.Join(inc, ", "))
	}
	d, err := tests.Load(p, input.MSRs)
	if err != nil {
		switch {
		case len(inc) == 0 && n > 1:
			p.Passed("the kernel found the MTRRs consistent when it brought up %d CPUs", n)
		case len(inc) == 0 && recs == nil:
			p.Skip("%v; no kernel log either", err)
			return nil
		}
		p.NotChecked("registers of every CPU compared", err.Error(), p.Machine().Remedy(err, "run as root with the msr module"))
		return nil
	}
	ids := d.CPUs()
	if len(ids) < 2 {
		p.NotApplicable("only one CPU (%v) could be read: nothing to compare", ids)
		return nil
	}
	ref := ids[0]
	var addrs []uint32
	for a := range d.Values[ref] {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	compared, mtrrDiff, msrDiff := 0, 0, 0
	unread := map[int]int{}
	for _, a := range addrs {
		want := d.Values[ref][a]
		// CPUs grouped by the value they hold, when it differs.
		diff := map[uint64][]int{}
		for _, c := range ids[1:] {
			v, ok := d.Get(c, a)
			if !ok {
				unread[c]++
				continue
			}
			if v != want {
				diff[v] = append(diff[v], c)
			}
		}
		compared++
		if len(diff) == 0 {
			continue
		}
		var parts []string
		var vals []uint64
		for v := range diff {
			vals = append(vals, v)
		}
		sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
		for _, v := range vals {
			parts = append(parts, fmt.Sprintf("%s 0x%x", cpuList(diff[v]), v))
		}
		msg := fmt.Sprintf("%s (0x%x): CPU %d has 0x%x; %s", msr.Name(a), a, ref, want, strings.Join(parts, "; "))
		if isMTRR(a) {
			mtrrDiff++
			p.Explained(labelMTRR, why, "%s", msg)
		} else {
			msrDiff++
			p.Explained(labelMSR, why, "%s", msg)
		}
	}
	for c, n := range unread {
		p.NotChecked(fmt.Sprintf("%d registers of CPU %d", n, c), "read on CPU "+fmt.Sprint(ref)+" but not on CPU "+fmt.Sprint(c), "")
	}
	if mtrrDiff == 0 {
		p.Passed("MTRRs identical on %d CPUs", len(ids))
	}
	if msrDiff == 0 {
		p.Passed("%d registers compared on %d CPUs: no other differences", compared, len(ids))
	}
	return nil
}

// cpuList writes CPU numbers compactly: "CPUs 1-3, 5" or "CPU 1".
func cpuList(cs []int) string {
	sort.Ints(cs)
	var parts []string
	for i := 0; i < len(cs); {
		j := i
		for j+1 < len(cs) && cs[j+1] == cs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cs[i], cs[j]))
		} else {
			parts = append(parts, fmt.Sprint(cs[i]))
		}
		i = j + 1
	}
	if len(cs) == 1 {
		return "CPU " + parts[0]
	}
	return "CPUs " + strings.Join(parts, ", ")
}
