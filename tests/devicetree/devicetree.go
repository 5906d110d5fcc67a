// Package devicetree is the devicetree check: on a machine its firmware
// describes with a flattened devicetree (most Arm and RISC-V boards, and
// QEMU's virt board booted without ACPI) it verifies the blob the kernel
// booted with (/sys/firmware/fdt): its structure, /chosen, the memory
// nodes, the compatible strings, and the PSCI node against the PSCI and
// SMC Calling Convention versions the kernel found in the firmware (its
// log's "psci:" lines).
//
// Under UEFI the kernel's EFI stub edits the firmware's tree before the
// kernel sees it: it adds /chosen's linux,uefi-* properties and drops the
// memory reservation block, and the kernel then takes RAM from the UEFI
// memory map rather than the memory nodes (which a firmware may leave
// out). On an ACPI machine the stub makes a placeholder tree holding
// /chosen alone. The check knows both.
//
// Its labels are warnings: no blob in the shared corpus shows any of these
// faults yet (QEMU's virt trees, the fixtures, have none), so none fails a
// run until a real occurrence confirms it.
package devicetree

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	dtb "github.com/fwcheck/fwcheck/devicetree"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/u-root/u-root/pkg/dt"
)

const (
	specFDT    = "Devicetree Specification v0.4 §5 (flattened devicetree format)"
	specChosen = "Devicetree Specification v0.4 §3.6 (/chosen)"
	specMemory = "Devicetree Specification v0.4 §3.4 (/memory), §2.3.6 (reg)"
	specCompat = "Devicetree Specification v0.4 §2.3.1 (compatible)"
	specPSCI   = "Arm DEN0022 PSCI; Linux Documentation/devicetree/bindings/arm/psci.yaml"
)

var (
	labelMalformed = tests.NewLabel("DevicetreeMalformed", tests.High, specFDT,
		"The flattened devicetree is not well formed: a block outside the blob, a misaligned block, or a token "+
			"sequence the format does not allow. The kernel may stop reading it part way or refuse it. Rebuild the "+
			"blob with dtc, and check what the firmware changes in it at boot.")
	labelNoChosen = tests.NewLabel("DevicetreeNoChosen", tests.Medium, specChosen,
		"The tree has no /chosen node, where the boot loader puts the command line, the initrd and the console. "+
			"Add an empty /chosen node for the loader to fill in.")
	labelStdoutPath = tests.NewLabel("DevicetreeStdoutPath", tests.Low, specChosen,
		"/chosen's stdout-path names a node (or alias) the tree does not have, so the kernel cannot find its "+
			"console from the tree. Point it at the console UART's node or alias.")
	labelNoMemory = tests.NewLabel("DevicetreeNoMemory", tests.High, specMemory,
		"No memory node describes RAM, and the machine was not booted through UEFI (whose memory map would). "+
			"Give at least one node with device_type = \"memory\" and a reg covering the RAM.")
	labelMemoryReg = tests.NewLabel("DevicetreeMemoryReg", tests.Medium, specMemory,
		"A memory node's reg cannot be decoded with the root's #address-cells and #size-cells, has a zero size, "+
			"or overlaps another memory node's range. Describe each RAM range once, in whole cells.")
	labelCompatible = tests.NewLabel("DevicetreeCompatible", tests.Low, specCompat,
		"A compatible property is not a list of non-empty, NUL-terminated printable strings, or the root node has "+
			"none, so drivers (and the kernel's machine match) cannot bind by it. Write each as \"vendor,model\" strings.")
	labelPSCI = tests.NewLabel("DevicetreePSCI", tests.High, specPSCI,
		"CPUs are brought up through PSCI (enable-method = \"psci\") but the tree's PSCI node is missing, "+
			"claims no PSCI version, or has no valid conduit (method = \"smc\" or \"hvc\"). Secondary CPUs, "+
			"reset and power-off then fail. Describe the firmware's PSCI with compatible \"arm,psci-1.0\" "+
			"(or the version it implements) and its conduit.")
	labelPSCIVersion = tests.NewLabel("DevicetreePSCIVersion", tests.Medium, specPSCI,
		"The PSCI node claims a newer PSCI version than the firmware reports to the kernel (PSCI_VERSION). Make "+
			"the compatible list start at the version the firmware implements.")
)

// Check is the devicetree check.
var Check = &tests.Check{
	ID:       "devicetree",
	Title:    "Devicetree: blob structure, /chosen, memory nodes, compatible strings, PSCI and SMCCC versions",
	Category: tests.BIOS,
	Inputs:   []input.Decl{input.Devicetree},
	Optional: []input.Decl{input.KernelLog},
	Spec:     specFDT,
	Labels:   []*tests.Label{labelMalformed, labelNoChosen, labelStdoutPath, labelNoMemory, labelMemoryReg, labelCompatible, labelPSCI, labelPSCIVersion},
	Run:      run,
}

func run(p *tests.Pass) error {
	bl := tests.Input(p, input.Devicetree)
	if len(bl.Problems) > 0 {
		for _, pr := range bl.Problems {
			p.Warn(labelMalformed, "devicetree (%d bytes, version %d): %s", bl.Size, bl.Header.Version, pr)
		}
		p.NotChecked("the tree's nodes", "the blob's structure is broken", "")
		return nil
	}
	p.Passed("devicetree blob well formed: version %d, %d bytes, %d nodes, %d memory reservations", bl.Header.Version, bl.Header.TotalSize, bl.Nodes, len(bl.Reserved))
	uefi := checkChosen(p, bl)
	if placeholder(bl) {
		p.NotApplicable("the devicetree is the EFI stub's placeholder (/chosen only): the machine is described by ACPI")
		return nil
	}
	checkCompatible(p, bl)
	checkMemory(p, bl, uefi)
	checkPSCI(p, bl)
	return nil
}

// placeholder reports whether the tree is the one the EFI stub makes on an
// ACPI machine: a root with no compatible and /chosen as its only child.
func placeholder(bl *dtb.Blob) bool {
	_, compat := dtb.Prop(bl.Root, "compatible")
	return !compat && len(bl.Root.Children) <= 1 && (len(bl.Root.Children) == 0 || bl.Root.Children[0].Name == "chosen")
}

// checkChosen checks /chosen and returns whether the kernel was booted
// through UEFI (the stub's linux,uefi-mmap-start is there).
func checkChosen(p *tests.Pass, bl *dtb.Blob) bool {
	ch := bl.Node("/chosen")
	if ch == nil {
		p.Warn(labelNoChosen, "no /chosen node")
		return false
	}
	_, uefi := dtb.Prop(ch, "linux,uefi-mmap-start")
	var have []string
	for _, pr := range ch.Properties {
		have = append(have, pr.Name)
	}
	sort.Strings(have)
	p.Passed("/chosen present (%s)", strings.Join(have, ", "))
	if v, ok := dtb.Prop(ch, "stdout-path"); ok {
		s := strings.TrimRight(string(v), "\x00")
		target, _, _ := strings.Cut(s, ":")
		if resolve(bl, target) == nil {
			p.Warn(labelStdoutPath, "/chosen stdout-path %q: no node %q", clean(s), clean(target))
		} else {
			p.Passed("/chosen stdout-path %q names a node", clean(s))
		}
	}
	return uefi
}

// resolve finds a node by path or by an alias in /aliases.
func resolve(bl *dtb.Blob, target string) *dt.Node {
	if strings.HasPrefix(target, "/") {
		return bl.Node(target)
	}
	if al := bl.Node("/aliases"); al != nil {
		if v, ok := dtb.Prop(al, target); ok {
			return bl.Node(strings.TrimRight(string(v), "\x00"))
		}
	}
	return nil
}

func checkCompatible(p *tests.Pass, bl *dtb.Blob) {
	if v, ok := dtb.Prop(bl.Root, "compatible"); !ok {
		p.Warn(labelCompatible, "the root node has no compatible")
	} else if l, err := dtb.StringList(v); err == nil {
		p.Passed("root compatible %s", quoteAll(l))
	}
	bad, n := 0, 0
	bl.Walk(func(path string, nd *dt.Node) {
		v, ok := dtb.Prop(nd, "compatible")
		if !ok {
			return
		}
		n++
		if _, err := dtb.StringList(v); err != nil {
			bad++
			if bad <= 10 {
				p.Warn(labelCompatible, "%s: compatible %q is not a string list: %v", clean(path), clean(string(v)), err)
			}
		}
	})
	if bad == 0 {
		p.Passed("%d compatible properties, each a list of printable strings", n)
	}
}

func checkMemory(p *tests.Pass, bl *dtb.Blob, uefi bool) {
	ac, sc := dtb.Cells(bl.Root)
	var ranges []dtb.Range
	var names []string
	bad := false
	for _, c := range bl.Root.Children {
		if v, ok := dtb.Prop(c, "device_type"); !ok || strings.TrimRight(string(v), "\x00") != "memory" {
			continue
		}
		reg, ok := dtb.Prop(c, "reg")
		if !ok {
			p.Warn(labelMemoryReg, "/%s: memory node without reg", clean(c.Name))
			bad = true
			continue
		}
		rs, err := dtb.Reg(reg, ac, sc)
		if err != nil {
			p.Warn(labelMemoryReg, "/%s: reg: %v", clean(c.Name), err)
			bad = true
			continue
		}
		for _, r := range rs {
			if r.Size == 0 {
				p.Warn(labelMemoryReg, "/%s: range at 0x%x has size 0", clean(c.Name), r.Addr)
				bad = true
				continue
			}
			ranges = append(ranges, r)
			names = append(names, c.Name)
		}
	}
	if len(ranges) == 0 && !bad {
		if uefi {
			p.Info(nil, "no memory node: booted through UEFI, whose memory map describes RAM (the kernel takes it from there)")
			p.Passed("memory described (by the UEFI memory map)")
			return
		}
		p.Warn(labelNoMemory, "no node with device_type \"memory\" and a reg, and no UEFI memory map in /chosen")
		return
	}
	idx := make([]int, len(ranges))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ranges[idx[a]].Addr < ranges[idx[b]].Addr })
	var total uint64
	for k, i := range idx {
		total += ranges[i].Size
		if k > 0 {
			prev := ranges[idx[k-1]]
			if prev.Addr+prev.Size > ranges[i].Addr {
				p.Warn(labelMemoryReg, "/%s 0x%x+0x%x overlaps /%s 0x%x+0x%x", clean(names[i]), ranges[i].Addr, ranges[i].Size, clean(names[idx[k-1]]), prev.Addr, prev.Size)
				bad = true
			}
		}
	}
	if !bad {
		p.Passed("%d memory ranges, %d MiB in all, none overlapping", len(ranges), total>>20)
	}
}

// The kernel's PSCI and SMCCC lines (drivers/firmware/psci/psci.c):
// "psci: PSCIv1.1 detected in firmware.", "psci: SMC Calling Convention v1.2".
// Compiled on first use: nothing at package init (issue 24).
var (
	rePSCI  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^psci: PSCIv(\d+)\.(\d+) detected in firmware`) })
	reSMCCC = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^psci: SMC Calling Convention v(\d+)\.(\d+)`) })
)

func checkPSCI(p *tests.Pass, bl *dtb.Blob) {
	psciCPUs := 0
	if cpus := bl.Node("/cpus"); cpus != nil {
		for _, c := range cpus.Children {
			if v, ok := dtb.Prop(c, "enable-method"); ok && bytes.Equal(bytes.TrimRight(v, "\x00"), []byte("psci")) {
				psciCPUs++
			}
		}
	}
	node := bl.Node("/psci")
	var compat []string
	if node != nil {
		if v, ok := dtb.Prop(node, "compatible"); ok {
			compat, _ = dtb.StringList(v)
		}
	}
	claimed := ""
	for _, c := range compat {
		if v, ok := strings.CutPrefix(c, "arm,psci-"); ok && (claimed == "" || v > claimed) {
			claimed = v
		}
	}
	switch {
	case node == nil && psciCPUs > 0:
		p.Warn(labelPSCI, "%d CPUs have enable-method \"psci\" but there is no /psci node", psciCPUs)
		return
	case node == nil:
		p.NotChecked("the PSCI node", "the tree has no /psci node and no CPU is enabled through PSCI (spin-table or a single CPU)", "")
		return
	case len(compat) == 0:
		p.Warn(labelPSCI, "/psci has no compatible string list")
		return
	}
	if m, ok := dtb.Prop(node, "method"); ok {
		method := strings.TrimRight(string(m), "\x00")
		if method != "smc" && method != "hvc" {
			p.Warn(labelPSCI, "/psci method %q: neither \"smc\" nor \"hvc\"", clean(method))
		} else {
			p.Passed("/psci %s, conduit %s", quoteAll(compat), method)
		}
	} else if claimed != "" {
		p.Warn(labelPSCI, "/psci (%s) has no method property: the kernel cannot call the firmware", quoteAll(compat))
	}

	log, err := tests.Load(p, input.KernelLog)
	if err != nil || log == nil {
		p.NotChecked("the PSCI and SMCCC versions the firmware reports", "no kernel log", "run on the machine, or give --klog")
		return
	}
	fwPSCI, smccc := "", ""
	_ = log.Each(func(r klog.Record) bool {
		if m := rePSCI().FindStringSubmatch(r.Text); m != nil {
			fwPSCI = m[1] + "." + m[2]
		}
		if m := reSMCCC().FindStringSubmatch(r.Text); m != nil {
			smccc = m[1] + "." + m[2]
		}
		return fwPSCI == "" || smccc == ""
	})
	if fwPSCI == "" {
		p.NotChecked("the PSCI version the firmware reports", "the kernel log has no \"psci: PSCIvX.Y detected in firmware\" line (a PSCI 0.1 node, or the log's start was lost)", "")
	} else if claimed != "" && versionLess(fwPSCI, claimed) {
		p.Warn(labelPSCIVersion, "/psci claims arm,psci-%s but the firmware reports PSCI v%s", clean(claimed), fwPSCI)
	} else {
		p.Passed("the firmware reports PSCI v%s; the node claims at most %s", fwPSCI, orNone(claimed))
	}
	switch {
	case smccc == "":
		p.Info(nil, "the kernel reported no SMC Calling Convention version")
	case smccc == "1.0" && fwPSCI != "" && !versionLess(fwPSCI, "1.0"):
		p.Info(nil, "SMC Calling Convention v1.0 as the kernel reports it: the firmware does not answer SMCCC_VERSION (optional before SMCCC 1.1), so the kernel assumes v1.0")
	default:
		p.Info(nil, "SMC Calling Convention v%s as the kernel reports it", smccc)
	}
}

// versionLess compares "major.minor" versions.
func versionLess(a, b string) bool {
	var am, an, bm, bn int
	fmt.Sscanf(a, "%d.%d", &am, &an)
	fmt.Sscanf(b, "%d.%d", &bm, &bn)
	return am < bm || am == bm && an < bn
}

func orNone(s string) string {
	if s == "" {
		return "no version (arm,psci: 0.1)"
	}
	return s
}

func quoteAll(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", clean(s))
	}
	return strings.Join(q, ", ")
}

// clean bounds a string from the blob for a message and drops control
// characters.
func clean(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
