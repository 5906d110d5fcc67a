// Package resources is the resources check: every device's _CRS resource
// template decodes, and no memory range a device consumes lies in RAM of
// the firmware memory map.
package resources

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

const spec = "ACPI 6.5 §6.4 (resource data types), §6.2.2 (_CRS), §15 (memory map)"

var (
	labelMalformed = tests.NewLabel("ResourceTemplateMalformed", tests.High, "ACPI 6.5 §6.4",
		"A _CRS does not return a valid resource template (a descriptor runs past the buffer or is too "+
			"short for its type, or the End Tag is missing). The OS rejects the device's resources and "+
			"its driver cannot claim them. Build the template with ResourceTemplate () and keep the "+
			"descriptors whole when changing them at run time.")
	labelInRAM = tests.NewLabel("ResourceInRAM", tests.High, "ACPI 6.5 §6.4, §15",
		"A device claims a memory range that the firmware memory map gives the OS as usable RAM. The OS "+
			"may put its own data there and the device's registers (or the data) get overwritten. Mark "+
			"the range reserved in the memory map, or correct the _CRS.")
)

// Check is the resources check.
var Check = &tests.Check{
	ID:       "resources",
	Title:    "Device _CRS resource templates decode and stay out of RAM",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Optional: []input.Decl{input.MemoryMap},
	Spec:     spec,
	Labels:   []*tests.Label{labelMalformed, labelInRAM},
	Run:      run,
}

type memRange struct {
	dev        string
	start, end uint64
}

func run(p *tests.Pass) error {
	l := amlcheck.Load(p)
	if l == nil {
		return nil
	}
	e := l.NewEvaluator()
	defer l.ReportBudget(p, e)
	decoded, unknown := 0, 0
	kinds := map[string]int{}
	var mems []memRange
	for _, n := range amlcheck.Devices(l.NS) {
		r := amlcheck.Eval(e, n, "_CRS")
		if r == nil {
			continue
		}
		if r.Err != nil || r.Faked {
			unknown++
			continue
		}
		pr, _ := amlcheck.PresenceOf(e, n)
		if pr == amlcheck.Absent {
			continue
		}
		path := amlcheck.Path(n) + "._CRS"
		if r.V == nil || r.V.Type != aml.TypeBuffer {
			// not seen in the corpus yet: reported, not failed
			p.Warn(labelMalformed, "%s gives %s, not a buffer", path, r.V)
			continue
		}
		rs, err := aml.DecodeResources(r.V.Buf)
		if err != nil {
			// not seen in the corpus yet: reported, not failed
			p.Warn(labelMalformed, "%s: %v", path, err)
			continue
		}
		decoded++
		for _, res := range rs {
			kinds[res.Kind]++
			if start, end, ok := res.Range(); ok && res.Space == "Memory" && !res.Producer && pr == amlcheck.Present {
				mems = append(mems, memRange{amlcheck.Path(n), start, end})
			}
		}
	}
	if unknown > 0 {
		p.NotChecked(fmt.Sprintf("the _CRS of %d devices", unknown), "it depends on hardware state or cannot be evaluated without the machine", "")
	}
	if decoded == 0 {
		if unknown == 0 {
			p.NotApplicable("no device has a _CRS")
		}
		return nil
	}
	var ks []string
	for k, c := range kinds {
		ks = append(ks, fmt.Sprintf("%s ×%d", k, c))
	}
	sort.Strings(ks)
	p.Info(nil, "%d _CRS templates decoded: %s", decoded, strings.Join(ks, ", "))
	mm, err := tests.Load(p, input.MemoryMap)
	switch {
	case err != nil:
		p.NotChecked("device memory ranges against RAM", "no firmware memory map: "+err.Error(), "run on the machine as root, or from a snapshot")
	case len(mm) == 0:
		p.NotChecked("device memory ranges against RAM", "the firmware memory map is empty", "")
	case len(mems) == 0:
		p.Info(nil, "no present device consumes a memory range that could be evaluated: nothing to compare with the memory map")
	default:
		inRAM := 0
		for _, m := range mems {
			for _, r := range mm {
				if r.Type == "System RAM" && r.Start <= m.end && m.start <= r.End {
					inRAM++
					// not seen on a real machine yet: reported, not failed
					p.Warn(labelInRAM, "%s: memory 0x%X-0x%X overlaps RAM 0x%X-0x%X", m.dev, m.start, m.end, r.Start, r.End)
				}
			}
		}
		if inRAM == 0 {
			p.Passed("%d device memory ranges, none in RAM", len(mems))
		}
	}
	if p.Failures() == 0 {
		p.Passed("%d _CRS resource templates decode", decoded)
	}
	return nil
}
