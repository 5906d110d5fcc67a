package aml

import (
	"os"
	"testing"
)

// methodObjects are the predefined objects without arguments that the
// methods check (tests/methods) evaluates on devices, beyond
// deviceObjects.
var methodObjects = []string{"_ADR", "_CID", "_CLS", "_DDN", "_HRV", "_PLD", "_SUB", "_SUN", "_STR", "_CCA",
	"_CDM", "_DMA", "_DSD", "_PRS", "_PRT", "_PXM", "_RMV", "_BBN", "_SEG", "_PRW", "_PR0", "_PR3", "_PSC",
	"_S0W", "_S3D", "_S3W", "_S4D", "_S4W", "_BIF", "_BIX", "_BST", "_PSR", "_PCL", "_LID", "_GCP", "_BCL",
	"_DOD", "_BQC", "_UPC", "_FIF", "_FPS", "_FST", "_GPE", "_PSS", "_PCT", "_PPC", "_CST", "_TSD", "_TSS",
	"_PSD", "_CPC", "_WDG", "_DEP", "_EDL", "_EJD", "_HPP", "_MLS", "_PRE", "_GLK"}

// TestMethodsAgainstAcpiexec is TestAgainstAcpiexec over the objects the
// methods check evaluates: every value that depends on no region read
// and no _OSI answer must agree with acpiexec's. FWCHECK_ACPIEXEC_METHODS=1
// runs it (the default sample: 4 machines and QEMU's base DSDTs).
func TestMethodsAgainstAcpiexec(t *testing.T) {
	if os.Getenv("FWCHECK_ACPIEXEC_METHODS") != "1" {
		t.Skip("FWCHECK_ACPIEXEC_METHODS=1 runs it")
	}
	againstAcpiexec(t, methodObjects)
}
