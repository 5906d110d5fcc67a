package cpulocks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func procCPUInfo(flags string, ucode ...string) []byte {
	var b strings.Builder
	for i, u := range ucode {
		fmt.Fprintf(&b, "processor\t: %d\nvendor_id\t: GenuineIntel\nflags\t\t: %s\nmicrocode\t: %s\n\n", i, flags, u)
	}
	return []byte(b.String())
}

func msrs(vals ...string) []byte {
	var b strings.Builder
	for i, v := range vals {
		fmt.Fprintf(&b, "cpu %d 0xc80 %s\ncpu %d 0x3a 0x5\n", i, v, i)
	}
	return []byte(b.String())
}

func TestCPULocks(t *testing.T) {
	cases := []checktest.Case{
		// IA32_DEBUG_INTERFACE = 0x40000000: locked, disabled, as shipped.
		{Name: "locked", Files: map[string][]byte{"proc/cpuinfo": procCPUInfo("fpu sdbg", "0xf0", "0xf0"), "fwcheck/msr.txt": msrs("0x40000000", "0x40000000")},
			Warns: nil, Status: tests.StatusPassed, Says: "disabled and locked on all 2 CPUs"},
		// 0x1: enabled and unlocked, as a development BIOS leaves it.
		{Name: "debug open", Files: map[string][]byte{"proc/cpuinfo": procCPUInfo("fpu sdbg", "0xf0", "0xf0"), "fwcheck/msr.txt": msrs("0x1", "0x40000000")},
			Warns: []string{"DebugInterfaceEnabled", "DebugInterfaceUnlocked"}, Status: tests.StatusWarning, Says: "ENABLE set on CPUs [0]"},
		{Name: "no SDBG", Files: map[string][]byte{"proc/cpuinfo": procCPUInfo("fpu", "0xf0"), "fwcheck/msr.txt": msrs("error: input/output error")},
			Warns: nil, Status: tests.StatusPassed, Says: "no IA32_DEBUG_INTERFACE"},
		{Name: "unreadable", Files: map[string][]byte{"proc/cpuinfo": procCPUInfo("fpu sdbg", "0xf0"), "fwcheck/msr.txt": msrs("error: input/output error")},
			Warns: nil, Status: tests.StatusIncomplete, Says: "could not be read although CPUID lists it"},
		{Name: "no microcode", Files: map[string][]byte{"proc/cpuinfo": procCPUInfo("fpu", "0x0", "0x0")},
			Warns: []string{"MicrocodeRevisionZero"}, Status: tests.StatusWarning, Says: "revision 0 on CPUs [0 1]"},
	}
	checktest.RunCases(t, Check, cases)
	// On a VM, microcode 0 is the hypervisor's.
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
		"proc/cpuinfo": procCPUInfo("fpu hypervisor", "0x0"), "sys/class/dmi/id/sys_vendor": []byte("QEMU\n"),
	}))
	f := checktest.FindingWith(r, "MicrocodeRevisionZero")
	if assert.NotNil(t, f) {
		assert.Contains(t, f.Explained, "virtual machine")
	}
	assert.NotEqual(t, tests.StatusFailed, r.Status, "an explained finding does not fail the check")
}
