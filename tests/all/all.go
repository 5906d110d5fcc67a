// Package all lists fwcheck's checks. It is the one place a new check is
// added; drivers (the fwcheck command, the live image, the suspend loop)
// take this list, or a part of it, and hand it to the runner.
package all

import (
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/acpitables"
	"github.com/fwcheck/fwcheck/tests/checksum"
	"github.com/fwcheck/fwcheck/tests/fadt"
	"github.com/fwcheck/fwcheck/tests/hpet"
	"github.com/fwcheck/fwcheck/tests/klog"
	"github.com/fwcheck/fwcheck/tests/madt"
	"github.com/fwcheck/fwcheck/tests/mcfg"
	"github.com/fwcheck/fwcheck/tests/oops"
	"github.com/fwcheck/fwcheck/tests/reboot"
	"github.com/fwcheck/fwcheck/tests/reset"
	"github.com/fwcheck/fwcheck/tests/s3"
)

// Checks returns every check, in run order (by category, then ID). It
// panics if the list is invalid (a duplicate ID or label): the program
// itself would be wrong, and a test catches it first.
func Checks() []*tests.Check {
	cs := []*tests.Check{
		acpitables.Check,
		checksum.Check,
		fadt.Check,
		hpet.Check,
		madt.Check,
		mcfg.Check,
		mcfg.Reserved,
		klog.Check,
		oops.Check,
		s3.Check,
		reboot.Check,
		reset.Check,
	}
	if err := tests.Validate(cs); err != nil {
		panic(err)
	}
	return tests.Sorted(cs)
}
