// Package iort checks the IO Remapping Table (Arm DEN 0049E.f), which
// tells the OS how a device's requester or stream ID reaches an SMMU and
// an ITS: every node inside the table and of a defined type, the node
// count, each ID mapping inside its node and pointing at a node that can
// take it (an ITS group, an SMMU), the input ranges of one node not
// overlapping, ITS group IDs that the MADT's GIC ITS structures have,
// SMMUv3 nodes with a base and PMCG nodes naming a real node, and RMR
// nodes with 64 KiB aligned ranges.
//
// Every label is a warning: no machine of the shared corpus is an Arm one
// (tests/all TestTableLabelMachines), so none is confirmed on a real
// occurrence yet.
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	IORTMalformed       none
//	IORTRevision        none
//	IORTNodeType        none
//	IORTMappingTarget   none
//	IORTMappingOverlap  none
//	IORTITSUnknown      none
//	IORTSMMUBase        none
//	IORTPMCGReference   none
//	IORTRMRRange        none
package iort

import (
	"fmt"
	"sort"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "Arm DEN 0049E.f"

var (
	labelMalformed = tests.NewLabel("IORTMalformed", tests.High, "Arm DEN 0049E.f §3.1 Table 2",
		"The IORT's node list breaks off (a node offset outside the table, a node running past the end, "+
			"a node count that disagrees with the nodes), or a node's ID array does not fit in it. The OS "+
			"loses the mappings after the fault and with them the devices' DMA and MSIs. Publish correct "+
			"offsets, lengths and counts.")
	labelRevision = tests.NewLabel("IORTRevision", tests.Low, "Arm DEN 0049E.f §3.1 Table 2",
		"The IORT revision is not one Arm defines (0 to 6 so far). Set the revision of the layout used.")
	labelNodeType = tests.NewLabel("IORTNodeType", tests.Medium, "Arm DEN 0049E.f §3.1 Table 4",
		"A node uses a reserved type; the OS skips it and every mapping that points at it. Use a defined "+
			"node type.")
	labelTarget = tests.NewLabel("IORTMappingTarget", tests.High, "Arm DEN 0049E.f §3.1.1.5",
		"An ID mapping's output reference is not the offset of a node, or points at a node that cannot "+
			"receive IDs (only ITS groups and SMMUs translate them further). The OS then cannot work out a "+
			"device's stream ID or MSI target. Point each mapping at the SMMU or ITS group it is wired to.")
	labelOverlap = tests.NewLabel("IORTMappingOverlap", tests.High, "Arm DEN 0049E.f §3.1.1.5",
		"Two ID mappings of one node cover overlapping input IDs, so an ID maps to two outputs and the OS "+
			"picks one of them. Split the ranges so each input ID is mapped once.")
	labelITS = tests.NewLabel("IORTITSUnknown", tests.High, "Arm DEN 0049E.f §3.1.1.1; ACPI 6.5 §5.2.12.18",
		"An ITS group names an ITS identifier no MADT GIC ITS structure has, so MSIs routed to it go "+
			"nowhere. Use the identifiers of the MADT's GIC ITS structures.")
	labelSMMU = tests.NewLabel("IORTSMMUBase", tests.High, "Arm DEN 0049E.f §3.1.1.2, §3.1.1.3",
		"An SMMU node has base address 0, so the OS cannot program the SMMU that translates its devices' "+
			"DMA. Give the SMMU's register base.")
	labelPMCG = tests.NewLabel("IORTPMCGReference", tests.Medium, "Arm DEN 0049E.f §3.1.1.6",
		"A PMCG node's node reference is not the offset of a node (the SMMU or root complex whose events "+
			"it counts), or its page 0 base is 0. Name the node the counter group belongs to.")
	labelRMR = tests.NewLabel("IORTRMRRange", tests.Medium, "Arm DEN 0049E.f §3.1.1.7",
		"An RMR node's memory range is empty or not aligned to 64 KiB, or the node has no ID mapping "+
			"(which streams the range is reserved for). The OS cannot keep the range mapped for the device "+
			"then. Give 64 KiB aligned ranges and the stream IDs that use them.")
)

var labels = []*tests.Label{labelMalformed, labelRevision, labelNodeType, labelTarget, labelOverlap, labelITS, labelSMMU, labelPMCG, labelRMR}

// Check is the iort check.
var Check = &tests.Check{
	ID:       "iort",
	Title:    "IORT nodes, ID mappings, ITS groups, SMMUv3, PMCG and RMR nodes",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   labels,
	Run:      run,
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	unconfirmed := tablecheck.Unconfirmed(labels, nil)
	for _, t := range tablecheck.Tables(p, acpi.SigIORT, "no IORT table (an Arm machine without an SMMU or ITS may omit it)") {
		r := tablecheck.New(p, t, unconfirmed)
		io, err := acpi.ParseIORT(t)
		if io == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		if err != nil && !r.Walk(labelMalformed, err) {
			r.Fail(labelMalformed, "%v", err)
		}
		r.NotRead(io.NotRead)
		if io.Beyond > 0 {
			r.Info("%d bytes after its %d counted nodes are not read as nodes", io.Beyond, io.NodeCount)
		}
		if t.Header.Revision > 6 {
			r.Fail(labelRevision, "revision %d, Arm defines 0 to 6", t.Header.Revision)
		}
		if err == nil && uint32(len(io.Nodes)) != io.NodeCount && io.NotRead == 0 {
			r.Fail(labelMalformed, "node count %d, but %d nodes follow the offset", io.NodeCount, len(io.Nodes))
		}
		its := madtITS(ts)
		counts := map[string]int{}
		for _, n := range io.Nodes {
			counts[acpi.IORTNodeName(n.Type)]++
			checkNode(r, io, &n, its)
		}
		var parts []string
		for k, v := range counts {
			parts = append(parts, fmt.Sprintf("%d %s", v, k))
		}
		sort.Strings(parts)
		r.Done("revision %d, %d nodes: %v", t.Header.Revision, len(io.Nodes), parts)
	}
	return nil
}

// madtITS returns the MADT's GIC ITS IDs, nil when there is no MADT.
func madtITS(ts *acpi.Tables) map[uint32]bool {
	m, _ := ts.MADT()
	if m == nil {
		return nil
	}
	out := map[uint32]bool{}
	for _, i := range m.GICITSs {
		out[i.ID] = true
	}
	return out
}

func checkNode(r *tablecheck.T, io *acpi.IORT, n *acpi.IORTNode, its map[uint32]bool) {
	where := fmt.Sprintf("%s node at offset %d", acpi.IORTNodeName(n.Type), n.Offset)
	if n.Type >= acpi.IORTFirstReserved {
		r.Fail(labelNodeType, "%s (length %d)", where, n.Length)
		return
	}
	if n.MappingsShort {
		r.Fail(labelMalformed, "%s: %d ID mappings at offset %d do not fit in its %d bytes", where, n.MappingCount, n.MappingOffset, n.Length)
	}
	type span struct{ lo, hi uint64 }
	var spans []span
	for i, m := range n.Mappings {
		tgt := io.Node(m.OutputRef)
		switch {
		case tgt == nil:
			r.Fail(labelTarget, "%s: mapping %d points at offset %d, where no node starts", where, i, m.OutputRef)
		case tgt.Type != acpi.IORTITSGroup && tgt.Type != acpi.IORTSMMUv1v2 && tgt.Type != acpi.IORTSMMUv3:
			r.Fail(labelTarget, "%s: mapping %d points at a %s node (offset %d), which cannot take IDs", where, i, acpi.IORTNodeName(tgt.Type), m.OutputRef)
		case uint32(tgt.Offset) == uint32(n.Offset):
			r.Fail(labelTarget, "%s: mapping %d points at the node itself", where, i)
		}
		if m.Flags&acpi.IORTSingleMapping == 0 {
			spans = append(spans, span{uint64(m.InputBase), uint64(m.InputBase) + uint64(m.Count)})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo <= spans[i-1].hi {
			r.Fail(labelOverlap, "%s: input IDs 0x%x-0x%x and 0x%x-0x%x overlap", where, spans[i-1].lo, spans[i-1].hi, spans[i].lo, spans[i].hi)
		}
	}
	switch n.Type {
	case acpi.IORTITSGroup:
		if its == nil {
			r.P.NotChecked(r.Name+": "+where+": its ITS IDs against the MADT", "there is no readable MADT", "")
			break
		}
		for _, id := range n.ITSIDs {
			if !its[id] {
				r.Fail(labelITS, "%s: ITS ID %d is not among the MADT's %d GIC ITS structures", where, id, len(its))
			}
		}
	case acpi.IORTSMMUv1v2, acpi.IORTSMMUv3:
		if n.Base == 0 {
			r.Fail(labelSMMU, "%s: base address 0", where)
		}
	case acpi.IORTPMCG:
		if io.Node(n.NodeRef) == nil {
			r.Fail(labelPMCG, "%s: node reference %d is not a node's offset", where, n.NodeRef)
		}
		if n.Base == 0 {
			r.Fail(labelPMCG, "%s: page 0 base 0", where)
		}
	case acpi.IORTRMR:
		if len(n.Mappings) == 0 {
			r.Fail(labelRMR, "%s: no ID mapping says which streams use its ranges", where)
		}
		for _, rg := range n.Ranges {
			if rg.Length == 0 || rg.Base%0x10000 != 0 || rg.Length%0x10000 != 0 {
				r.Fail(labelRMR, "%s: range 0x%x length 0x%x", where, rg.Base, rg.Length)
			}
		}
	}
}
