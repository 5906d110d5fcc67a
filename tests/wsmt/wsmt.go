// Package wsmt checks the Windows SMM Security Mitigations Table
// (Microsoft, WSMT specification version 1.0): its length, revision and
// protection flags, and says which protections the firmware does not
// claim. Windows' virtualization-based security relies on all three; a
// clear flag is the firmware saying its SMI handlers do not protect that
// much, so the advice is to implement the protection and then set it.
//
// Left out on purpose: an absent WSMT is reported as not applicable (no
// ACPI or UEFI specification requires it; Windows' security features do).
//
// Labels and the corpus machines that have them (linuxhw core/ and full/
// dumps, tests/all TestTableLabelMachines):
//
//	WSMTLength                none
//	WSMTRevision              none
//	WSMTReservedFlags         none
//	WSMTNestedWithoutFixed    none
//	WSMTProtectionNotClaimed  14: core/336D5712545D core/4365F3695489 core/4F893DF2FBAF core/564CE2E4142A …
package wsmt

import (
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const spec = "Windows SMM Security Mitigations Table 1.0 §3.2"

var (
	labelLength = tests.NewLabel("WSMTLength", tests.Medium, spec,
		"The WSMT is not the 40 bytes its specification defines, so the protection flags are cut off "+
			"or misplaced. Publish the 40-byte table.")
	labelRevision = tests.NewLabel("WSMTRevision", tests.Low, spec,
		"The WSMT revision is not 1, the only one defined. Set Revision to 1.")
	labelReserved = tests.NewLabel("WSMTReservedFlags", tests.Low, spec,
		"Reserved protection flag bits (31:3) are set. Clear them: they claim protections no "+
			"specification defines.")
	labelNested = tests.NewLabel("WSMTNestedWithoutFixed", tests.Medium, spec,
		"COMM_BUFFER_NESTED_PTR_PROTECTION is set without FIXED_COMM_BUFFERS; the flag is valid only "+
			"together with it, so the claim means nothing. Make the SMI handlers use fixed communication "+
			"buffers and set both, or clear both.")
	labelNotClaimed = tests.NewLabel("WSMTProtectionNotClaimed", tests.Low, spec,
		"The WSMT does not claim every SMM protection: FIXED_COMM_BUFFERS (SMI handlers only use "+
			"communication buffers in fixed, firmware-reserved memory and check them), "+
			"COMM_BUFFER_NESTED_PTR_PROTECTION (they check the pointers inside those buffers) and "+
			"SYSTEM_RESOURCE_PROTECTION (the SMM configuration, IOMMU and other critical registers are "+
			"locked before the OS runs). A clear flag leaves SMM open to attacks from the OS and turns "+
			"off Windows features that rely on it. Implement the missing protections in the SMI "+
			"handlers, then set their flags.")
)

var unconfirmed = map[*tests.Label]bool{labelLength: true, labelRevision: true, labelReserved: true, labelNested: true}

// Check is the wsmt check.
var Check = &tests.Check{
	ID:       "wsmt",
	Title:    "WSMT protection flags",
	Category: tests.ACPI,
	Arch:     tests.X86,
	Inputs:   []input.Decl{input.ACPITables},
	Spec:     spec,
	Labels:   []*tests.Label{labelLength, labelRevision, labelReserved, labelNested, labelNotClaimed},
	Run:      run,
}

func run(p *tests.Pass) error {
	for _, t := range tablecheck.Tables(p, acpi.SigWSMT, "no WSMT table (no ACPI specification requires one)") {
		r := tablecheck.New(p, t, unconfirmed)
		w, err := acpi.ParseWSMT(t)
		if err != nil {
			r.Fail(labelLength, "%v", err)
			continue
		}
		if t.Header.Length != acpi.WSMTSize {
			r.Fail(labelLength, "length %d, defined as %d", t.Header.Length, acpi.WSMTSize)
		}
		r.Revision(labelRevision, t, 1)
		f := w.ProtectionFlags
		if f&^acpi.WSMTDefinedFlags != 0 {
			r.Fail(labelReserved, "protection flags 0x%08x", f)
		}
		if f&acpi.WSMTCommBufferNestedPtrProtec != 0 && f&acpi.WSMTFixedCommBuffers == 0 {
			r.Fail(labelNested, "protection flags 0x%08x", f)
		}
		if missing := acpi.WSMTFlagNames(^f & acpi.WSMTDefinedFlags); len(missing) > 0 {
			r.Fail(labelNotClaimed, "protection flags 0x%08x: not claimed: %s", f, strings.Join(missing, ", "))
		}
		set := acpi.WSMTFlagNames(f)
		if len(set) == 0 {
			set = []string{"none"}
		}
		r.Done("protection flags 0x%08x: %s", f, strings.Join(set, ", "))
	}
	return nil
}
