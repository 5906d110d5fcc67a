// Package bert checks the Boot Error Record Table (ACPI 6.5 §18.3.1): its
// length and revision, the boot error region (present, and in reserved
// memory when the run has the firmware memory map), and, when Linux
// exposes the region's bytes (sysfs tables/data/BERT), decodes the
// Generic Error Status Block: a recorded boot error is reported as
// information with its severity and sections, since it describes the last
// boot, not a defect of the table.
//
// Left out on purpose: judging the recorded errors themselves (they are
// the hardware's, and the kernel log's advice covers what Linux makes of
// them), and a region larger than its status block needs (the
// specification lets firmware reserve room for more).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	BERTMalformed    none
//	BERTRevision     none
//	BERTRegion       none
//	BERTNotReserved  none
//	BERTStatusBlock  none
package bert

import (
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §18.3.1"

var (
	labelMalformed = tests.NewLabel("BERTMalformed", tests.Medium, "ACPI 6.5 §18.3.1 Table 18.2",
		"The BERT is shorter than its 48 bytes or its Length disagrees with its bytes. Publish the whole table.")
	labelRevision = tests.NewLabel("BERTRevision", tests.Low, "ACPI 6.5 §18.3.1 Table 18.2",
		"The BERT revision is not 1, the only one defined. Set Revision to 1.")
	labelRegion = tests.NewLabel("BERTRegion", tests.Medium, "ACPI 6.5 §18.3.1 Table 18.2",
		"The boot error region has address 0, or a length shorter than the 20-byte Generic Error Status "+
			"Block it must hold, so the OS cannot read the previous boot's errors. Point at the region "+
			"and give its length.")
	labelNotReserved = tests.NewLabel("BERTNotReserved", tests.Medium, "ACPI 6.5 §18.3.1; §15 (memory map)",
		"The boot error region is not reserved in the firmware memory map, so the OS may reuse it "+
			"before reading the errors it holds. Report the region as reserved (or ACPI NVS).")
	labelBlock = tests.NewLabel("BERTStatusBlock", tests.Low, "ACPI 6.5 §18.3.2.7.1 Table 18.11",
		"The Generic Error Status Block in the boot error region is inconsistent: its data length runs "+
			"past the region, an error data entry runs past the data length, or the entry count in "+
			"Block Status disagrees with the entries. Write the block as the specification lays it out.")
)

var unconfirmed = map[*tests.Label]bool{
	labelMalformed: true, labelRevision: true, labelRegion: true, labelNotReserved: true, labelBlock: true,
}

// Check is the bert check.
var Check = &tests.Check{
	ID:       "bert",
	Title:    "BERT boot error region, and the previous boot's errors decoded",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Optional: []input.Decl{input.MemoryMap, input.BERTRegion},
	Spec:     spec,
	Labels:   []*tests.Label{labelMalformed, labelRevision, labelRegion, labelNotReserved, labelBlock},
	Run:      run,
}

func run(p *tests.Pass) error {
	for _, t := range tablecheck.Tables(p, acpi.SigBERT, "no BERT table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		b, err := acpi.ParseBERT(t)
		if err != nil {
			r.Fail(labelMalformed, "%v", err)
			continue
		}
		r.Revision(labelRevision, t, 1)
		if b.Region == 0 || b.RegionLength < acpi.ErrorStatusBlockSize {
			r.Fail(labelRegion, "region 0x%x, length %d", b.Region, b.RegionLength)
		} else if mm := tablecheck.MemoryMap(p, t.Name()+": the boot error region against the memory map"); mm != nil {
			if ok, what := tablecheck.Reserved(mm, b.Region, b.Region+uint64(b.RegionLength)-1); !ok {
				r.Fail(labelNotReserved, "region 0x%x-0x%x is covered by %s", b.Region, b.Region+uint64(b.RegionLength)-1, what)
			}
		}
		decode(p, r)
		r.Done("boot error region 0x%x, %d bytes", b.Region, b.RegionLength)
	}
	return nil
}

// Section types of the UEFI CPER (UEFI 2.10 §N.2.2) that boot errors
// commonly carry.
var sectionNames = map[string]string{
	"9876ccad-47b4-4bdb-b65e-16f193c4f3db": "generic processor",
	"dc3ea0b0-a144-4797-b95b-53fa242b6e1d": "IA32/X64 processor",
	"a5bc1114-6f64-4ede-b863-3e83ed7c83b1": "platform memory",
	"d995e954-bbc1-430f-ad91-b44dcb3c6f35": "PCI Express",
	"c5753963-3b84-4095-bf78-eddad3f9c9dd": "PCI/PCI-X bus",
	"81212a96-09ed-4996-9471-8d729c8e69ed": "firmware error record reference",
}

func decode(p *tests.Pass, r *tablecheck.T) {
	region, err := tests.Load(p, input.BERTRegion)
	if err != nil || len(region) == 0 {
		r.Info("the boot error region's contents are not in this run (Linux exposes them as %s)", acpi.BERTDataPath)
		return
	}
	s, err := acpi.ParseErrorStatusBlock(region)
	if s == nil {
		r.Fail(labelBlock, "%v", err)
		return
	}
	if err != nil {
		r.Fail(labelBlock, "%v", err)
	}
	if s.BlockStatus == 0 && len(s.Entries) == 0 {
		r.Info("no boot error is recorded")
		return
	}
	if s.EntryCount() != len(s.Entries) && err == nil {
		r.Fail(labelBlock, "block status 0x%08x counts %d entries, the data holds %d", s.BlockStatus, s.EntryCount(), len(s.Entries))
	}
	var secs []string
	for _, e := range s.Entries {
		name := sectionNames[e.SectionType.String()]
		if name == "" {
			name = e.SectionType.String()
		}
		sec := fmt.Sprintf("%s (%s, %d bytes)", name, acpi.ErrorSeverityName(e.Severity), e.Length)
		if e.FRUText != "" {
			sec += fmt.Sprintf(" FRU %q", e.FRUText)
		}
		secs = append(secs, sec)
	}
	r.Info("the previous boot recorded an error: severity %s, block status 0x%08x, %d sections: %s",
		acpi.ErrorSeverityName(s.Severity), s.BlockStatus, len(s.Entries), strings.Join(secs, "; "))
}
