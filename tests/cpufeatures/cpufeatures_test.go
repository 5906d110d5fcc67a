package cpufeatures

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func procCPUInfo(vendor, flags string, ucode ...string) string {
	var b strings.Builder
	for i, u := range ucode {
		b.WriteString("processor : " + string(rune('0'+i)) + "\nvendor_id : " + vendor + "\nflags : " + flags + "\nmicrocode : " + u + "\n\n")
	}
	return b.String()
}

func machine(files map[string]string) *input.Machine {
	fs := fstest.MapFS{}
	for k, v := range files {
		fs[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return input.New(checktest.Snapshot{FS: fs}, input.Options{})
}

func TestCPUFeatures(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"clean Intel", map[string]string{
			"proc/cpuinfo":    procCPUInfo("GenuineIntel", "lm nx vmx", "0xd2", "0xd2"),
			"fwcheck/msr.txt": "cpu 0 0x3a 0x5\ncpu 0 0x1a0 0x850089\n",
			"sys/devices/system/cpu/vulnerabilities/mds": "Mitigation: Clear CPU buffers; SMT vulnerable\n",
		}, nil},
		{"VMX locked off", map[string]string{
			"proc/cpuinfo":     procCPUInfo("GenuineIntel", "lm nx", "0xd2", "0xd2"),
			"fwcheck/msr.txt":  "cpu 0 0x3a 0x1\n",
			"fwcheck/klog.txt": "[    0.1] x86/cpu: VMX (outside TXT) disabled by BIOS\n",
		}, []string{"VMXLockedOff"}},
		{"XD disabled, mixed microcode, no microcode for MDS", map[string]string{
			"proc/cpuinfo":    procCPUInfo("GenuineIntel", "lm nx vmx", "0xd2", "0xd1", "0xd2"),
			"fwcheck/msr.txt": "cpu 0 0x3a 0x5\ncpu 0 0x1a0 0x400850089\n",
			"sys/devices/system/cpu/vulnerabilities/mds": "Vulnerable: Clear CPU buffers attempted, no microcode\n",
		}, []string{"NXDisabled", "MicrocodeMismatch", "MitigationNeedsMicrocode"}},
		{"VMX locked off, seen in CPUID after the kernel cleared the flag", map[string]string{
			"proc/cpuinfo":      procCPUInfo("GenuineIntel", "lm nx", "0xd2"),
			"fwcheck/cpuid.txt": "cpu 0 0x1 0x0 0x000806a1 0x00100800 0x00000020 0x1f8bfbff\ncpu 0 0x80000001 0x0 0x0 0x0 0x121 0x2c100800\n",
			"fwcheck/msr.txt":   "cpu 0 0x3a 0x1\n",
		}, []string{"VMXLockedOff"}},
		{"NX hidden in CPUID", map[string]string{
			"fwcheck/cpuid.txt": "cpu 0 0x0 0x0 0x1b 0x756e6547 0x6c65746e 0x49656e69\ncpu 0 0x80000001 0x0 0x0 0x0 0x121 0x2c000800\n",
		}, []string{"NXDisabled"}},
		{"SVM locked off", map[string]string{
			"proc/cpuinfo":    procCPUInfo("AuthenticAMD", "lm nx svm", "0x8701021"),
			"fwcheck/msr.txt": "cpu 0 0xc0010114 0x18\n",
		}, []string{"SVMLockedOff"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, machine(c.files))
			assert.Equal(t, c.want, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
		})
	}
	r := checktest.Run(t, Check, machine(map[string]string{
		"proc/cpuinfo":                procCPUInfo("GenuineIntel", "lm nx hypervisor", "0x1", "0x2"),
		"sys/class/dmi/id/sys_vendor": "QEMU\n",
	}))
	assert.Equal(t, []string{"MicrocodeMismatch"}, checktest.FailLabels(r))
	assert.Contains(t, r.Findings[1].Explained, "virtual machine")
}

// TestGolden runs the check on the corpus boot logs alone: the kernel's
// "kvm: disabled by bios" and "VMX (outside TXT) disabled by BIOS" lines,
// per-CPU microcode revisions and vulnerability verdicts.
func TestGolden(t *testing.T) { checktest.LogGoldens(t, Check) }
