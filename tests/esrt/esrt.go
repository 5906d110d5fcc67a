// Package esrt checks the EFI System Resource Table, through which the OS
// learns which firmware components it can update with capsules: unique
// class GUIDs, a count that matches the entries, versions that make sense,
// and the outcome of the last update attempt.
package esrt

import (
	"fmt"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const esrtSpec = "UEFI 2.10 §23.4 (EFI System Resource Table)"

var (
	labelDupClass = tests.NewLabel("ESRTDuplicateClass", tests.High, esrtSpec,
		"Two ESRT entries have the same firmware class GUID. The class identifies one updatable "+
			"component; with duplicates, update tools (fwupd, Windows Update) cannot tell which "+
			"entry a capsule is for and may refuse or misapply updates. Give each component its own GUID.")
	labelLastAttempt = tests.NewLabel("ESRTLastAttemptFailed", tests.Medium, esrtSpec,
		"The last firmware update of this component did not succeed (its last attempt status is "+
			"not success). The machine may run older firmware than expected. Check the capsule "+
			"update path, and reset the status once an update succeeds.")
	labelLowest = tests.NewLabel("ESRTLowestAboveCurrent", tests.Medium, esrtSpec,
		"The lowest supported firmware version is above the version installed, so by the "+
			"table's own rule the installed firmware could not have been installed, and tools "+
			"refuse to reinstall it. Set LowestSupportedFwVersion to at most FwVersion.")
	labelCount = tests.NewLabel("ESRTCountMismatch", tests.Medium, esrtSpec,
		"The ESRT's resource count does not match its entries, or exceeds the maximum count. OS "+
			"parsers trust the count; keep FwResourceCount equal to the entries present and at "+
			"most FwResourceCountMax.")
	labelUnreadable = tests.NewLabel("ESRTMalformed", tests.Medium, esrtSpec,
		"An ESRT field the kernel exposes does not parse (a class that is not a GUID, a number "+
			"that is not one). Check the table the firmware installs.")
)

// Check is the esrt check.
var Check = &tests.Check{
	ID:       "esrt",
	Title:    "EFI System Resource Table: classes, versions, last update status",
	Category: tests.UEFI,
	Inputs:   []input.Decl{input.ESRT},
	Spec:     esrtSpec,
	Labels:   []*tests.Label{labelDupClass, labelLastAttempt, labelLowest, labelCount, labelUnreadable},
	Run:      run,
}

func run(p *tests.Pass) error {
	st := tests.Input(p, input.ESRT)
	switch {
	case !st.UEFI:
		p.NotApplicable("the machine did not boot through UEFI (no /sys/firmware/efi)")
		return nil
	case st.ESRT == nil:
		p.NotApplicable("the firmware publishes no ESRT (it is optional: needed only for firmware updates by capsule)")
		return nil
	}
	e := st.ESRT
	for _, pr := range e.Problems {
		p.Fail(labelUnreadable, "%s", pr)
	}
	before := p.Failures()
	if e.Count != uint64(len(e.Entries)) {
		p.Fail(labelCount, "fw_resource_count is %d, but the kernel shows %d entries", e.Count, len(e.Entries))
	}
	if e.Count > e.CountMax {
		p.Fail(labelCount, "fw_resource_count %d exceeds fw_resource_count_max %d", e.Count, e.CountMax)
	}
	if p.Failures() == before {
		p.Passed("%d entries, as the resource count says (maximum %d, table version %d)", len(e.Entries), e.CountMax, e.Version)
	}
	first := map[efi.GUID]string{}
	for _, en := range e.Entries {
		eb := p.Failures()
		if prev, dup := first[en.Class]; dup {
			p.Fail(labelDupClass, "%s and %s both have class %s", prev, en.Name, en.Class)
		} else {
			first[en.Class] = en.Name
		}
		if en.LastAttemptStatus != 0 {
			p.Fail(labelLastAttempt, "%s (class %s): last attempt to install version %d: %s", en.Name, en.Class,
				en.LastAttemptVersion, efi.LastAttemptStatusText(en.LastAttemptStatus))
		}
		if en.LowestSupportedVersion > en.Version {
			p.Fail(labelLowest, "%s (class %s): lowest supported version %d is above the installed %d", en.Name, en.Class,
				en.LowestSupportedVersion, en.Version)
		}
		text := fmt.Sprintf("%s: class %s, type %s, version %d (lowest supported %d), capsule flags 0x%x, last attempt %s",
			en.Name, en.Class, fwType(en.Type), en.Version, en.LowestSupportedVersion, en.CapsuleFlags,
			efi.LastAttemptStatusText(en.LastAttemptStatus))
		if p.Failures() == eb {
			p.Passed("%s", text)
		} else {
			p.Info(nil, "%s", text)
		}
	}
	return nil
}

func fwType(t uint32) string {
	switch t {
	case 0:
		return "unknown"
	case 1:
		return "system firmware"
	case 2:
		return "device firmware"
	case 3:
		return "UEFI driver"
	}
	return fmt.Sprintf("%d", t)
}
