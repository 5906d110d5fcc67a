package bootguard

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

const intel = "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu msr smx\n\n"

func TestBootGuardTXT(t *testing.T) {
	files := func(msr, txt string) map[string][]byte {
		m := map[string][]byte{"proc/cpuinfo": []byte(intel), "fwcheck/msr.txt": []byte("# fwcheck msr dump 1\n" + msr)}
		if txt != "" {
			m["fwcheck/txt.txt"] = []byte(txt)
		}
		return m
	}
	const txtOn = "reg 0x000 0x00000092\nreg 0x008 0x00000000\nreg 0x030 0x00000000\nreg 0x110 0xb0018086\nreg 0x328 0x00008000\nreg 0x330 0xbff00031\n"
	cases := []checktest.Case{
		// Capable, verified and measured, NEM: a Boot Guard profile 5 machine.
		{Name: "verified", Files: files("cpu 0 0x13a 0x0000000100000061\n", txtOn), Status: tests.StatusPassed, Says: "verified boot on, measured boot on"},
		{Name: "measured only", Files: files("cpu 0 0x13a 0x0000000100000021\n", txtOn), Warns: []string{"BootGuardNotVerifying"}, Status: tests.StatusWarning, Says: "verified boot off, measured boot on"},
		{Name: "not capable", Files: files("cpu 0 0x13a 0x0000000000000000\n", "absent the CPU has no SMX (cpuinfo flag smx): no TXT\n"), Status: tests.StatusNotApplicable, Says: "not Boot Guard capable"},
		{Name: "not capable, TXT", Files: files("cpu 0 0x13a 0x0000000000000000\n", txtOn), Status: tests.StatusPassed, Says: "not Boot Guard capable"},
		{Name: "refused", Files: files("cpu 0 0xfe 0xd0a\ncpu 0 0x13a error: input/output error\n", txtOn), Status: tests.StatusIncomplete, Says: "could not be read: input/output error"},
		{Name: "txt", Files: files("cpu 0 0x13a 0x0000000100000061\n", txtOn), Status: tests.StatusPassed, Says: "TXT.DPR=0xbff00031 (locked true, 3 MiB below 0xbff00000)"},
		{Name: "txt not decoded", Files: files("cpu 0 0x13a 0x0000000100000061\n", "reg 0x110 0xffffffff\n"), Status: tests.StatusPassed, Says: "does not decode the TXT public space"},
		{Name: "no txt record", Files: files("cpu 0 0x13a 0x0000000100000061\n", ""), Status: tests.StatusIncomplete, Says: "TXT status (public space FED30000h)"},
		{Name: "amd", Files: map[string][]byte{"proc/cpuinfo": []byte("processor\t: 0\nvendor_id\t: AuthenticAMD\n\n")}, Status: tests.StatusNotApplicable, Says: "not an Intel CPU"},
	}
	checktest.RunCases(t, Check, cases)
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{
		"proc/cpuinfo":    []byte("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu hypervisor\n\n"),
		"fwcheck/msr.txt": []byte("# fwcheck msr dump 1\ncpu 0 0xfe 0x508\ncpu 0 0x13a error: input/output error\n"),
		"fwcheck/txt.txt": []byte("absent the CPU has no SMX (cpuinfo flag smx): no TXT\n"),
	}))
	assert.Equal(t, tests.StatusNotApplicable, r.Status, "a VM's missing Boot Guard is said, not left unchecked: %s", tests.Render([]tests.Result{r}))
	assert.Contains(t, r.Reason, "a virtual CPU has no Boot Guard")
}
