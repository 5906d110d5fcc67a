// Package crat checks AMD's two topology tables: the Component Resource
// Attribute Table (check crat), which lists the compute units, memory,
// caches, TLBs and I/O links of each HSA proximity domain, and the
// Component Locality Distance Information Table (check cdit), the
// distances between those domains in the SLIT's layout (a 4-byte domain
// count instead of 8). AMD publishes their layouts with its HSA topology
// (Linux reads them as drivers/gpu/drm/amd/amdkfd/kfd_crat.h defines);
// there is no ACPI section. crat: revision, every structure walked by its
// own length with at least the length its type has, the total entry
// count against the structures present. cdit: the matrix against the
// table's length, a diagonal of 10, no reserved distance (0-9) between
// two domains, and every CRAT proximity domain inside the matrix.
//
// Left out on purpose: the CRAT's Number of Domains field, which 16 of
// the 26 corpus machines set to 0 while their structures name domain 0
// (the layout does not say whether it counts domains or gives the highest
// one, so a disagreement is reported as information); disabled structures (reported by count); the cache, TLB
// and compute unit sizes (no specification gives bounds).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	CRATMalformed         none
//	CRATRevision          none
//	CRATStructureLength   none
//	CRATStructureSize     none
//	CRATEntryCount        none
//	CDITMalformed         none
//	CDITRevision          none
//	CDITLength            none
//	CDITSelfDistance      none
//	CDITReservedDistance  none
//	CDITDomainOutside     none
package crat

import (
	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const (
	specCRAT = "AMD CRAT (HSA topology; Linux amdkfd kfd_crat.h)"
	specCDIT = "AMD CDIT (HSA topology; layout of ACPI 6.5 §5.2.17)"
)

var (
	labelMalformed = tests.NewLabel("CRATMalformed", tests.Medium, specCRAT,
		"The CRAT is shorter than its 48-byte header or its Length disagrees with its bytes. Publish the "+
			"whole table with a correct Length.")
	labelRevision = tests.NewLabel("CRATRevision", tests.Low, specCRAT,
		"The CRAT revision is not 1, the one AMD defines. Set Revision to 1.")
	labelStructLength = tests.NewLabel("CRATStructureLength", tests.Medium, specCRAT,
		"A CRAT structure has a length shorter than its Type and Length fields or runs past the end of "+
			"the table, so the reader stops there (a length of 0 makes a naive reader loop forever). Give "+
			"each structure its real length.")
	labelStructSize = tests.NewLabel("CRATStructureSize", tests.Medium, specCRAT,
		"A CRAT structure is shorter than its type's fields (40 bytes for compute, memory and I/O link "+
			"structures, 64 for cache and TLB ones), so they are read from the next structure. Use the "+
			"type's length.")
	labelCount = tests.NewLabel("CRATEntryCount", tests.Low, specCRAT,
		"The CRAT's Total Entries field disagrees with the structures the table holds. Set it to their number.")

	labelCDITMalformed = tests.NewLabel("CDITMalformed", tests.Medium, specCDIT,
		"The CDIT is shorter than its header and domain count or its Length disagrees with its bytes. "+
			"Publish the whole table with a correct Length.")
	labelCDITRevision = tests.NewLabel("CDITRevision", tests.Low, specCDIT,
		"The CDIT revision is not 1, the one AMD defines. Set Revision to 1.")
	cditLabels = tablecheck.DistanceLabels{
		Length: tests.NewLabel("CDITLength", tests.Medium, specCDIT,
			"The CDIT's length does not hold exactly Number of Domains squared distance bytes, so distances "+
				"are read from beyond the table or missed. Make the count and Length agree."),
		Self: tests.NewLabel("CDITSelfDistance", tests.Medium, specCDIT,
			"A domain's distance to itself is not 10, the value the distances are normalised to. Put 10 on "+
				"the diagonal and scale the other distances to it."),
		Reserved: tests.NewLabel("CDITReservedDistance", tests.Medium, specCDIT,
			"A distance between two domains is one of the reserved values 0-9. Give distances above 10."),
		Outside: tests.NewLabel("CDITDomainOutside", tests.Medium, specCDIT+"; "+specCRAT,
			"The CRAT names a proximity domain at or above the CDIT's Number of Domains, so that domain has "+
				"no distances. Give the CDIT a row and column for every CRAT domain."),
	}
)

var (
	cratLabels = []*tests.Label{labelMalformed, labelRevision, labelStructLength, labelStructSize, labelCount}
	cditAll    = []*tests.Label{labelCDITMalformed, labelCDITRevision, cditLabels.Length, cditLabels.Self,
		cditLabels.Reserved, cditLabels.Outside}
)

// confirmed are the labels whose corpus occurrences were read against the
// layout: none yet (the corpus CRATs and CDITs are clean).
var confirmed []*tests.Label

// Check is the crat check.
var Check = &tests.Check{
	ID:       "crat",
	Title:    "CRAT (AMD) component resource structures",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     specCRAT,
	Labels:   cratLabels,
	Run:      runCRAT,
}

// CDIT is the cdit check.
var CDIT = &tests.Check{
	ID:       "cdit",
	Title:    "CDIT (AMD) domain distances against the CRAT's domains",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     specCDIT,
	Labels:   cditAll,
	Run:      runCDIT,
}

func runCRAT(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(cratLabels, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigCRAT, "no CRAT table (an AMD table, optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		c, err := acpi.ParseCRAT(t)
		if c == nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1)
		r.Walk(labelStructLength, err)
		r.NotRead(c.NotRead)
		if err == nil && uint64(c.TotalEntries) != uint64(len(c.Entries)) {
			r.Fail(labelCount, "Total Entries %d, the table holds %d structures", c.TotalEntries, len(c.Entries))
		}
		disabled := 0
		for _, e := range c.Entries {
			want := acpi.CRATStructSize(e.Type)
			if want == 0 {
				r.Info("structure type %d at offset %d (length %d) is not defined: not interpreted", e.Type, e.Offset, e.Length)
				continue
			}
			if e.Length < want {
				r.Fail(labelStructSize, "%s structure at offset %d has length %d, needs %d", acpi.CRATTypeName(e.Type), e.Offset, e.Length, want)
			}
			if e.Flags&acpi.CRATEnabled == 0 {
				disabled++
			}
		}
		doms := cratDomains(c)
		if len(doms) > 0 && int(c.NumDomains) < len(doms) {
			r.Info("Number of Domains is %d while the structures name %d domains", c.NumDomains, len(doms))
		}
		r.Done("revision %d, %d structures (%d disabled), %d proximity domains", t.Header.Revision, len(c.Entries), disabled, len(doms))
	}
	return nil
}

// cratDomains returns the proximity domains of a CRAT's enabled compute
// and memory structures.
func cratDomains(c *acpi.CRAT) map[uint32]bool {
	d := map[uint32]bool{}
	for _, e := range c.Entries {
		if (e.Type == acpi.CRATCompute || e.Type == acpi.CRATMemory) && e.Length >= acpi.CRATStructSize(e.Type) && e.Flags&acpi.CRATEnabled != 0 {
			d[e.Domain] = true
		}
	}
	return d
}

func runCDIT(p *tests.Pass) error {
	unconfirmed := tablecheck.Unconfirmed(cditAll, confirmed)
	for _, t := range tablecheck.Tables(p, acpi.SigCDIT, "no CDIT table (an AMD table, optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		d, err := acpi.ParseCDIT(t)
		if d == nil {
			r.Fail(labelCDITMalformed, "%v", err)
			continue
		}
		r.Revision(labelCDITRevision, t, 1)
		var domains map[uint32]bool
		for _, ct := range tests.Input(p, input.ACPITables).Get(acpi.SigCRAT) {
			if c, _ := acpi.ParseCRAT(ct); c != nil {
				if domains == nil {
					domains = map[uint32]bool{}
				}
				for dom := range cratDomains(c) {
					domains[dom] = true
				}
			}
		}
		if domains == nil {
			p.NotChecked(r.Name+": domains against the CRAT's", "the machine has no CRAT", "")
		}
		tablecheck.Distances(r, d, cditLabels, domains, "CRAT")
		r.Done("revision %d, %d domains", t.Header.Revision, d.N)
	}
	return nil
}
