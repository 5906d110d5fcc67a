// Package bgrt checks the Boot Graphics Resource Table (ACPI 6.5 §5.2.23):
// length, revision, version, status, image type and image address, and,
// when the run has the firmware memory map, that the image lies in memory
// the map describes. Linux ignores a BGRT whose version, reserved status
// bits or image type is wrong, or whose image address is 0
// (drivers/firmware/efi/efi-bgrt.c), so those are medium.
//
// Left out on purpose: the Displayed bit being clear (an OS loader may
// clear it after it drew over the logo, and ACPI 6.5 allows it), and the
// image offsets, which need the screen's resolution.
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	BGRTLength            none
//	BGRTRevision          6: core/524B6B1AD490 core/97B1546443AA core/CB64EEDF666A core/CD7AC76D8251 …
//	BGRTVersion           none
//	BGRTStatusReserved    none
//	BGRTImageType         none
//	BGRTNullImage         none
//	BGRTImageNotInMemory  none
package bgrt

import (
	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "ACPI 6.5 §5.2.23"

var (
	labelLength = tests.NewLabel("BGRTLength", tests.Medium, "ACPI 6.5 §5.2.23 Table 5.103",
		"The BGRT is not the 56 bytes the specification defines, so its fields are cut off or the "+
			"table was built from another definition. Publish the 56-byte table.")
	labelRevision = tests.NewLabel("BGRTRevision", tests.Low, "ACPI 6.5 §5.2.23 Table 5.103",
		"The BGRT revision is not 1, the only one defined. Set Revision to 1.")
	labelVersion = tests.NewLabel("BGRTVersion", tests.Medium, "ACPI 6.5 §5.2.23 Table 5.103",
		"The BGRT Version field is not 1; Linux ignores the table then, and the OS cannot keep the "+
			"firmware logo on screen during boot. Set Version to 1.")
	labelStatus = tests.NewLabel("BGRTStatusReserved", tests.Medium, "ACPI 6.5 §5.2.23 Table 5.103",
		"Reserved bits 7:3 of the BGRT Status are set; Linux ignores the table then. Use only bit 0 "+
			"(Displayed) and bits 2:1 (orientation offset).")
	labelImageType = tests.NewLabel("BGRTImageType", tests.Medium, "ACPI 6.5 §5.2.23 Table 5.103",
		"The BGRT Image Type is not 0 (bitmap), the only type defined; OSes ignore the table. Give the "+
			"logo as a BMP and set Image Type to 0.")
	labelNullImage = tests.NewLabel("BGRTNullImage", tests.Medium, "ACPI 6.5 §5.2.23 Table 5.103",
		"The BGRT image address is 0, so there is no logo to read; Linux ignores the table. Give the "+
			"physical address of the BMP the firmware displayed, or do not publish a BGRT.")
	labelNotInMemory = tests.NewLabel("BGRTImageNotInMemory", tests.Medium, "ACPI 6.5 §5.2.23 Table 5.103",
		"The BGRT image address is not in any range of the firmware memory map, so the OS reads "+
			"something that is not the logo (or faults). Point at the buffer the image really is in, "+
			"in memory the map describes.")
)

var unconfirmed = map[*tests.Label]bool{
	labelLength: true, labelVersion: true, labelStatus: true, labelImageType: true,
	labelNullImage: true, labelNotInMemory: true,
}

// Check is the bgrt check.
var Check = &tests.Check{
	ID:       "bgrt",
	Title:    "BGRT version, status, image type and image address",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Optional: []input.Decl{input.MemoryMap},
	Spec:     spec,
	Labels:   []*tests.Label{labelLength, labelRevision, labelVersion, labelStatus, labelImageType, labelNullImage, labelNotInMemory},
	Run:      run,
}

func run(p *tests.Pass) error {
	for _, t := range tablecheck.Tables(p, acpi.SigBGRT, "no BGRT table (it is optional)") {
		r := tablecheck.New(p, t, unconfirmed)
		b, err := acpi.ParseBGRT(t)
		if err != nil {
			r.Fail(labelLength, "%v", err)
			continue
		}
		if t.Header.Length != acpi.BGRTSize {
			r.Fail(labelLength, "length %d, defined as %d", t.Header.Length, acpi.BGRTSize)
		}
		r.Revision(labelRevision, t, 1)
		if b.Version != 1 {
			r.Fail(labelVersion, "version %d", b.Version)
		}
		if b.Status&^7 != 0 {
			r.Fail(labelStatus, "status 0x%02x", b.Status)
		}
		if b.ImageType != 0 {
			r.Fail(labelImageType, "image type %d", b.ImageType)
		}
		if b.ImageAddress == 0 {
			r.Fail(labelNullImage, "image address 0")
		} else if mm := tablecheck.MemoryMap(p, t.Name()+": the image address against the memory map"); mm != nil {
			// The BMP file header is 14 bytes: that much must be there.
			if ok, what := tablecheck.Mapped(mm, b.ImageAddress, b.ImageAddress+13); !ok {
				r.Fail(labelNotInMemory, "image at 0x%x is covered by %s", b.ImageAddress, what)
			}
		}
		shown := "not displayed"
		if b.Displayed() {
			shown = "displayed"
		}
		r.Done("version %d, image type %d at 0x%x, offset (%d, %d), %s, orientation %d°", b.Version, b.ImageType, b.ImageAddress,
			b.OffsetX, b.OffsetY, shown, b.Orientation())
	}
	return nil
}
