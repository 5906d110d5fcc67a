// Package all lists fwcheck's checks. It is the one place a new check is
// added; drivers (the fwcheck command, the live image, the suspend loop)
// take this list, or a part of it, and hand it to the runner.
package all

import (
	"slices"
	"sync"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/acpistruct"
	"github.com/fwcheck/fwcheck/tests/acpitables"
	"github.com/fwcheck/fwcheck/tests/amlparse"
	"github.com/fwcheck/fwcheck/tests/apicedge"
	"github.com/fwcheck/fwcheck/tests/bert"
	"github.com/fwcheck/fwcheck/tests/bgrt"
	"github.com/fwcheck/fwcheck/tests/biosprotect"
	"github.com/fwcheck/fwcheck/tests/bootguard"
	"github.com/fwcheck/fwcheck/tests/checksum"
	"github.com/fwcheck/fwcheck/tests/cpufeatures"
	"github.com/fwcheck/fwcheck/tests/cpufreq"
	"github.com/fwcheck/fwcheck/tests/cpulocks"
	"github.com/fwcheck/fwcheck/tests/crat"
	"github.com/fwcheck/fwcheck/tests/dbg2"
	"github.com/fwcheck/fwcheck/tests/deviceids"
	"github.com/fwcheck/fwcheck/tests/devicetree"
	"github.com/fwcheck/fwcheck/tests/dmaprotection"
	"github.com/fwcheck/fwcheck/tests/dmar"
	"github.com/fwcheck/fwcheck/tests/e820"
	"github.com/fwcheck/fwcheck/tests/ecdt"
	"github.com/fwcheck/fwcheck/tests/erst"
	"github.com/fwcheck/fwcheck/tests/esrt"
	"github.com/fwcheck/fwcheck/tests/fadt"
	"github.com/fwcheck/fwcheck/tests/fan"
	"github.com/fwcheck/fwcheck/tests/fpdt"
	"github.com/fwcheck/fwcheck/tests/hest"
	"github.com/fwcheck/fwcheck/tests/hpet"
	"github.com/fwcheck/fwcheck/tests/hpetcrs"
	"github.com/fwcheck/fwcheck/tests/ivrs"
	"github.com/fwcheck/fwcheck/tests/klog"
	"github.com/fwcheck/fwcheck/tests/legacybios"
	"github.com/fwcheck/fwcheck/tests/lpit"
	"github.com/fwcheck/fwcheck/tests/madt"
	"github.com/fwcheck/fwcheck/tests/mcfg"
	"github.com/fwcheck/fwcheck/tests/me"
	"github.com/fwcheck/fwcheck/tests/methods"
	"github.com/fwcheck/fwcheck/tests/mpst"
	"github.com/fwcheck/fwcheck/tests/msrconsistency"
	"github.com/fwcheck/fwcheck/tests/mtrr"
	"github.com/fwcheck/fwcheck/tests/oops"
	"github.com/fwcheck/fwcheck/tests/osi"
	"github.com/fwcheck/fwcheck/tests/powersupply"
	"github.com/fwcheck/fwcheck/tests/prw"
	"github.com/fwcheck/fwcheck/tests/reboot"
	"github.com/fwcheck/fwcheck/tests/reset"
	"github.com/fwcheck/fwcheck/tests/resources"
	"github.com/fwcheck/fwcheck/tests/s3"
	"github.com/fwcheck/fwcheck/tests/sdev"
	"github.com/fwcheck/fwcheck/tests/secureboot"
	"github.com/fwcheck/fwcheck/tests/securitysummary"
	"github.com/fwcheck/fwcheck/tests/sleepstates"
	"github.com/fwcheck/fwcheck/tests/smbios"
	"github.com/fwcheck/fwcheck/tests/smm"
	"github.com/fwcheck/fwcheck/tests/spcr"
	"github.com/fwcheck/fwcheck/tests/srat"
	"github.com/fwcheck/fwcheck/tests/thermal"
	"github.com/fwcheck/fwcheck/tests/tpm2table"
	"github.com/fwcheck/fwcheck/tests/tpmeventlog"
	"github.com/fwcheck/fwcheck/tests/uefiboot"
	"github.com/fwcheck/fwcheck/tests/uefivars"
	"github.com/fwcheck/fwcheck/tests/uniqueid"
	"github.com/fwcheck/fwcheck/tests/wsmt"

	"github.com/fwcheck/fwcheck/tests/cstates"
	"github.com/fwcheck/fwcheck/tests/pcie"
	"github.com/fwcheck/fwcheck/tests/wakealarm"

	"github.com/fwcheck/fwcheck/tests/armnamespace"
	"github.com/fwcheck/fwcheck/tests/gtdt"
	"github.com/fwcheck/fwcheck/tests/iort"
	"github.com/fwcheck/fwcheck/tests/nfit"
	"github.com/fwcheck/fwcheck/tests/pcct"
	"github.com/fwcheck/fwcheck/tests/phat"
	"github.com/fwcheck/fwcheck/tests/pptt"
	"github.com/fwcheck/fwcheck/tests/sbbr"
)

// Checks returns every check, in run order (by category, then ID). The
// list is built once per process (commands ask for it several times); an
// invalid list (a duplicate ID or label) is the program's own error, which
// TestChecksAreValid catches.
func Checks() []*tests.Check { return slices.Clone(checks()) }

var checks = sync.OnceValue(func() []*tests.Check {
	cs := []*tests.Check{
		acpitables.Check,
		checksum.Check,
		cpufeatures.Check,
		e820.Check,
		fadt.Check,
		hpet.Check,
		madt.Check,
		mcfg.Check,
		mcfg.Reserved,
		mtrr.Check,
		msrconsistency.Check,
		klog.Check,
		oops.Check,
		s3.Check,
		amlparse.Check,
		deviceids.Check,
		esrt.Check,
		hpetcrs.Check,
		methods.Check,
		osi.Check,
		prw.Check,
		reboot.Check,
		reset.Check,
		resources.Check,
		secureboot.Check,
		sleepstates.Check,
		smbios.Check,
		tpm2table.Check,
		tpmeventlog.Check,
		uefiboot.Check,
		uniqueid.Check,
		apicedge.Check,
		bert.Check,
		bgrt.Check,
		cpufreq.Check,
		dbg2.Check,
		dbg2.DBGP,
		devicetree.Check,
		dmar.Check,
		ecdt.Check,
		fan.Check,
		fpdt.Check,
		ivrs.Check,
		legacybios.Check,
		lpit.Check,
		powersupply.Check,
		spcr.Check,
		thermal.Check,
		wsmt.Check,
		smm.Check,
		cpulocks.Check,
		dmaprotection.Check,
		me.Check,
		biosprotect.Check,
		bootguard.Check,
		securitysummary.Check,
		hest.Check,
		erst.Check,
		erst.EINJ,
		srat.Check,
		srat.SLIT,
		srat.MSCT,
		srat.HMAT,
		crat.Check,
		crat.CDIT,
		acpistruct.Check,
		cstates.Check,
		cpufreq.Steps,
		pcie.Check,
		wakealarm.Check,
		gtdt.Check,
		iort.Check,
		pptt.Check,
		phat.Check,
		nfit.Check,
		pcct.Check,
		sdev.Check,
		mpst.Check,
		armnamespace.Check,
		uefivars.Check,
	}
	// Not validated here: the list is fixed at build time, so
	// TestChecksAreValid validates it; doing it in every process was a
	// tenth of `fwcheck run --category acpi` on a small dump (issue 24).
	return tests.Sorted(cs)
})

// Profiles returns the certification profiles a run may apply (--profile,
// fwcheck.profile=): each adds its own checks to Checks() and gives
// labels its severities (see tests.Profile). Each is validated with
// Checks() once per process, and a bad one panics as a bad list does.
func Profiles() []*tests.Profile { return slices.Clone(profiles()) }

var profiles = sync.OnceValue(func() []*tests.Profile {
	ps := []*tests.Profile{sbbr.Profile}
	for _, p := range ps {
		if err := p.Validate(checks()); err != nil {
			panic(err)
		}
	}
	return ps
})

// Profile returns the profile named name ("" is none: nil, nil). A run
// without a profile does not build or validate them: that was a tenth of
// the CPU time of `fwcheck run --category acpi` on a core dump (a
// Validate of every check and label, 0.3-0.5 ms of the 5 ms goal of
// issue 24).
func Profile(name string) (*tests.Profile, error) {
	if name == "" {
		return nil, nil
	}
	return tests.FindProfile(profiles(), name)
}
