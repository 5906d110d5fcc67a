// Package pptt checks the Processor Properties Topology Table (ACPI 6.5
// §5.2.30): its processor hierarchy is a tree (every parent a processor
// node, no cycle), its leaves are the processors of the MADT (each leaf
// has a valid ACPI processor ID that is the UID of a GICC structure, and
// each usable GICC has one leaf), private resources and next-level
// references name cache structures, and cache structures set only defined
// flag and attribute bits.
//
// Left out on purpose: comparing the caches with what a running kernel
// reports under /sys/devices/system/cpu/cpu*/cache (Linux builds those
// directories from this very table on Arm, so they can only agree; no
// fwcheck input reads them), and x86 machines' PPTTs, whose leaves are
// compared with the MADT's local APIC UIDs only as information.
//
// Every label is a warning: no machine of the shared corpus is an Arm one
// (tests/all TestTableLabelMachines), so none is confirmed on a real
// occurrence yet.
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	PPTTMalformed       none
//	PPTTRevision        none
//	PPTTHierarchy       none
//	PPTTLeafProcessor   none
//	PPTTCacheReference  none
//	PPTTCacheFlags      none
package pptt

import (
	"fmt"
	"sort"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.30"

var (
	labelMalformed = tests.NewLabel("PPTTMalformed", tests.High, "ACPI 6.5 §5.2.30",
		"The PPTT's structure list breaks off (a zero length, a structure running past the end) or a "+
			"processor node claims more private resources than fit in it. The OS loses the topology after "+
			"the fault. Give each structure its real length.")
	labelRevision = tests.NewLabel("PPTTRevision", tests.Low, "ACPI 6.5 §5.2.30 Table 5.156",
		"The PPTT revision is not 1, 2 or 3, the ones ACPI defines. Set the revision of the layout used "+
			"(3 when cache structures carry a cache ID).")
	labelHierarchy = tests.NewLabel("PPTTHierarchy", tests.High, "ACPI 6.5 §5.2.30.1 Table 5.157",
		"A processor hierarchy node's parent is not the offset of another processor node, or following "+
			"the parents comes back to a node already passed. The OS builds its scheduling domains (cluster, "+
			"package) from this tree and gets them wrong. Give each node its parent's offset, 0 at the root.")
	labelLeaf = tests.NewLabel("PPTTLeafProcessor", tests.High, "ACPI 6.5 §5.2.30.1 Table 5.158; §5.2.12.14",
		"A leaf of the processor hierarchy has no valid ACPI processor ID, an ID no GICC structure of "+
			"the MADT has as its UID, or the same ID as another leaf, or a usable GICC has no leaf. The OS "+
			"matches processors to the tree by that ID: those processors get no topology. Give each leaf "+
			"the UID of its GICC and set the ACPI Processor ID valid flag.")
	labelCacheRef = tests.NewLabel("PPTTCacheReference", tests.Medium, "ACPI 6.5 §5.2.30.1, §5.2.30.2",
		"A private resource of a processor node, or a cache's next level of cache, is not the offset of "+
			"a cache structure (or the next-level chain loops). The OS then misses those caches. Point at "+
			"the cache structures by their offsets.")
	labelCacheFlags = tests.NewLabel("PPTTCacheFlags", tests.Low, "ACPI 6.5 §5.2.30.2 Tables 5.160, 5.161",
		"A cache structure sets reserved flag or attribute bits, says a size or line size is valid and "+
			"gives 0, or gives a line size that is not a power of two. Clear the reserved bits and give the "+
			"values the valid flags announce.")
)

var labels = []*tests.Label{labelMalformed, labelRevision, labelHierarchy, labelLeaf, labelCacheRef, labelCacheFlags}

// Check is the pptt check.
var Check = &tests.Check{
	ID:       "pptt",
	Title:    "PPTT processor hierarchy against the MADT's GICCs, and its caches",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   labels,
	Run:      run,
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	unconfirmed := tablecheck.Unconfirmed(labels, nil)
	for _, t := range tablecheck.Tables(p, acpi.SigPPTT, "no PPTT table (it is optional; SBBR requires it on Arm)") {
		r := tablecheck.New(p, t, unconfirmed)
		pt, err := acpi.ParsePPTT(t)
		if pt == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		if err != nil && !r.Walk(labelMalformed, err) {
			r.Fail(labelMalformed, "%v", err)
		}
		r.NotRead(pt.NotRead)
		r.Revision(labelRevision, t, 1, 2, 3)
		checkHierarchy(r, pt)
		checkLeaves(r, pt, ts)
		checkCaches(r, pt)
		r.Done("revision %d, %d processor nodes (%d leaves), %d caches", t.Header.Revision, len(pt.Processors), len(pt.Leaves()), len(pt.Caches))
	}
	return nil
}

func checkHierarchy(r *tablecheck.T, pt *acpi.PPTT) {
	for _, n := range pt.Processors {
		if n.PrivateShort {
			r.Fail(labelMalformed, "processor node at offset %d claims more private resources than fit in it", n.Offset)
		}
		if n.Parent != 0 && pt.Processor(n.Parent) == nil {
			r.Fail(labelHierarchy, "processor node at offset %d has parent %d, not a processor node's offset", n.Offset, n.Parent)
			continue
		}
		seen := map[uint32]bool{uint32(n.Offset): true}
		for at := n.Parent; at != 0; {
			if seen[at] {
				r.Fail(labelHierarchy, "processor node at offset %d: its parents loop back to offset %d", n.Offset, at)
				break
			}
			seen[at] = true
			next := pt.Processor(at)
			if next == nil {
				break
			}
			at = next.Parent
		}
		for _, ref := range n.Private {
			if pt.Cache(ref) == nil && !isType(pt, ref, acpi.PPTTID) {
				r.Fail(labelCacheRef, "processor node at offset %d: private resource %d is not a cache structure's offset", n.Offset, ref)
			}
		}
	}
}

func isType(pt *acpi.PPTT, off uint32, typ uint32) bool {
	for _, o := range pt.Others {
		if uint32(o.Offset) == off && o.Type == typ {
			return true
		}
	}
	return false
}

func checkLeaves(r *tablecheck.T, pt *acpi.PPTT, ts *acpi.Tables) {
	m, _ := ts.MADT()
	uids := map[uint32]bool{}
	x86 := false
	if m != nil {
		for _, g := range m.GICCs {
			if g.Flags&(acpi.GICCEnabled|acpi.GICCOnlineCapable) != 0 {
				uids[g.ProcessorUID] = true
			}
		}
		x86 = len(m.GICCs) == 0 && (len(m.LocalAPICs) > 0 || len(m.X2APICs) > 0)
	}
	leaves := map[uint32]int{}
	for _, l := range pt.Leaves() {
		if l.Flags&acpi.PPTTIDValid == 0 {
			r.Fail(labelLeaf, "leaf at offset %d has no valid ACPI processor ID (flags 0x%x)", l.Offset, l.Flags)
			continue
		}
		leaves[l.ProcessorID]++
	}
	var ids []uint32
	for id := range leaves {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if leaves[id] > 1 {
			r.Fail(labelLeaf, "%d leaves have ACPI processor ID %d", leaves[id], id)
		}
	}
	switch {
	case m == nil:
		r.P.NotChecked(r.Name+": its leaves against the MADT", "there is no readable MADT", "")
		return
	case x86:
		r.Info("an x86 MADT (no GICC structures): the leaves are not compared with its processors")
		return
	}
	for _, id := range ids {
		if !uids[id] {
			r.Fail(labelLeaf, "leaf ACPI processor ID %d is not the UID of a usable GICC", id)
		}
	}
	var missing []uint32
	for uid := range uids {
		if leaves[uid] == 0 {
			missing = append(missing, uid)
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
	if len(missing) > 0 {
		r.Fail(labelLeaf, "%d usable GICCs have no leaf in the hierarchy: UIDs %s", len(missing), list(missing))
	}
}

func list(ids []uint32) string {
	s := ""
	for i, id := range ids {
		if i == 8 {
			return s + fmt.Sprintf(" … (%d more)", len(ids)-8)
		}
		if i > 0 {
			s += " "
		}
		s += fmt.Sprint(id)
	}
	return s
}

func checkCaches(r *tablecheck.T, pt *acpi.PPTT) {
	for _, c := range pt.Caches {
		where := fmt.Sprintf("cache at offset %d", c.Offset)
		if c.NextLevel != 0 {
			if pt.Cache(c.NextLevel) == nil {
				r.Fail(labelCacheRef, "%s: next level %d is not a cache structure's offset", where, c.NextLevel)
			} else {
				seen := map[uint32]bool{uint32(c.Offset): true}
				for at := c.NextLevel; at != 0; {
					if seen[at] {
						r.Fail(labelCacheRef, "%s: the next-level chain loops back to offset %d", where, at)
						break
					}
					seen[at] = true
					n := pt.Cache(at)
					if n == nil {
						break
					}
					at = n.NextLevel
				}
			}
		}
		valid := uint32(0x7F)
		if c.HasID {
			valid = 0xFF
		}
		if bad := c.Flags &^ valid; bad != 0 {
			r.Fail(labelCacheFlags, "%s: flags 0x%x set reserved bits 0x%x", where, c.Flags, bad)
		}
		if bad := c.Attributes &^ 0x1F; bad != 0 {
			r.Fail(labelCacheFlags, "%s: attributes 0x%x set reserved bits 0x%x", where, c.Attributes, bad)
		}
		if c.Flags&acpi.CacheSizeValid != 0 && c.Size == 0 {
			r.Fail(labelCacheFlags, "%s: size valid but 0", where)
		}
		if c.Flags&acpi.CacheLineValid != 0 && (c.LineSize == 0 || c.LineSize&(c.LineSize-1) != 0) {
			r.Fail(labelCacheFlags, "%s: line size %d", where, c.LineSize)
		}
	}
}
