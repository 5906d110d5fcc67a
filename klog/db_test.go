package klog

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func defaultDB(t testing.TB) []Entry {
	t.Helper()
	es, err := DefaultDB()
	require.NoError(t, err)
	return es
}

func TestDBSize(t *testing.T) {
	assert.GreaterOrEqual(t, len(defaultDB(t)), 400, "the advice database must hold at least 400 entries")
}

var camel = regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`)

func TestDBEntriesWellFormed(t *testing.T) {
	labels := map[string]bool{}
	patterns := map[string]string{} // pattern and scope → label
	for _, e := range defaultDB(t) {
		assert.Regexp(t, camel, e.Label, "label must be CamelCase")
		assert.False(t, labels[e.Label], "duplicate label %s", e.Label)
		labels[e.Label] = true
		assert.True(t, e.Severity.Valid(), "%s: severity %q", e.Label, e.Severity)
		assert.NotEmpty(t, e.Category, "%s: category", e.Label)
		assert.NotEmpty(t, e.Source, "%s: kernel source file", e.Label)
		assert.NotEmpty(t, e.Examples, "%s: examples", e.Label)
		key := e.Pattern()
		if e.Scope != nil {
			key += fmt.Sprintf(" %+v", *e.Scope)
		}
		if prev, dup := patterns[key]; dup {
			t.Errorf("%s and %s share the pattern %q and scope", prev, e.Label, e.Pattern())
		}
		patterns[key] = e.Label
		// Advice must say more than the message: long enough, and not
		// made of the message's words.
		assert.GreaterOrEqual(t, len(e.Advice), 60, "%s: advice too short", e.Label)
		for _, ex := range e.Examples {
			assert.False(t, strings.Contains(normWords(e.Advice), normWords(ex)), "%s: advice repeats the message", e.Label)
			assert.Less(t, overlap(e.Advice, ex), 0.8, "%s: advice mostly repeats the message", e.Label)
		}
		assert.False(t, unicode.IsLower(rune(e.Advice[0])), "%s: advice should be a sentence", e.Label)
		assert.False(t, strings.HasPrefix(e.Regex, ".*"), "%s: a leading .* only slows matching", e.Label)
		assert.False(t, strings.HasPrefix(e.Pattern(), ": "), "%s: pattern starts with a stray prefix fragment", e.Label)
		lits, _ := requiredLiterals(&e)
		assert.NotNil(t, lits, "%s: pattern %q has no literal for the prefilter", e.Label, e.Pattern())
	}
}

// normWords lowercases s and keeps only letters, digits and single spaces.
func normWords(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(f, " ")
}

// overlap is the share of the advice's words that also occur in msg.
func overlap(advice, msg string) float64 {
	mw := map[string]bool{}
	for _, w := range strings.Fields(normWords(msg)) {
		mw[w] = true
	}
	aw := strings.Fields(normWords(advice))
	n := 0
	for _, w := range aw {
		if mw[w] {
			n++
		}
	}
	if len(aw) == 0 {
		return 1
	}
	return float64(n) / float64(len(aw))
}

// genericEnv is a machine no vendor- or product-scoped entry applies to.
var genericEnv = Env{Vendor: "fwcheck generic test vendor", Product: "fwcheck generic test product"}

// TestDBExamplesMatchAndAreNotShadowed: scoped entries are checked on a
// machine of unknown identity (every scope applies), unscoped ones on a
// machine outside every vendor/product scope.
func TestDBExamplesMatchAndAreNotShadowed(t *testing.T) {
	es := defaultDB(t)
	// Every entry applies to a virtual machine of unknown make.
	scoped, err := NewMatcher(es, Env{VM: "test"})
	require.NoError(t, err)
	generic, err := NewMatcher(es, genericEnv)
	require.NoError(t, err)
	for i := range es {
		e := &es[i]
		m := generic
		if e.Scope != nil {
			m = scoped
		}
		for _, ex := range e.Examples {
			assert.True(t, e.Matches(ex), "%s: example %q does not match %q", e.Label, ex, e.Pattern())
			got := m.Match(ex)
			if assert.NotNil(t, got, "%s: matcher finds nothing for %q", e.Label, ex) {
				assert.Equal(t, e.Label, got.Label, "example %q of %s is shadowed by %s", ex, e.Label, got.Label)
			}
		}
	}
}

// TestDBIgnoresNormalLines: lines that look alarming but do not show a
// firmware fault must not match any entry (on real hardware). Each was a
// false positive on a real log once.
func TestDBIgnoresNormalLines(t *testing.T) {
	m, err := NewMatcher(defaultDB(t), genericEnv)
	require.NoError(t, err)
	for _, line := range []string{
		"tsc: Marking TSC unstable due to boot parameter",          // tsc=unstable on the command line
		"secureboot: Secure boot could not be determined (mode 0)", // the boot loader bypassed the EFI stub
		"PM: Device 1-1 failed to resume async: error -13",         // a USB device
		"PM: Device 1-1.4 failed to resume async: error -71",       // a USB device behind a hub
		"PM: Device usb1 failed to resume async: error -110",       // a USB root hub
		"PM: Device 2-1.3 failed to suspend async: error -16",      // a USB device
		"ima: No TPM chip found, activating TPM-bypass!",           // no TPM is not a fault
		"i8042: PNP: No PS/2 controller found.",                    // most machines have none
		"i8042: PNP: PS/2 appears to have AUX port disabled, if this is incorrect please boot with i8042.nopnp",
		"apm: BIOS not found.",                                                 // ACPI machines have no APM
		"Calgary: Unable to locate Rio Grande table in EBDA - bailing!",        // only IBM Calgary systems have it
		"efifb: No BGRT, not showing boot graphics",                            // BGRT is optional
		"ov2722 i2c-INT33FB:00: Failed to find EFI variable INT33FB:00_ClkSrc", // atomisp falls back to defaults
		"acpi_cpufreq: overriding BIOS provided _PSD data",                     // done for every AMD CPU before family 19h
		"pci 0000:01:00.0: disabling ASPM on pre-1.1 PCIe device.  You can enable it with 'pcie_aspm=force'",
		"intel_rapl_common: RAPL package-0 domain dram locked by BIOS",
		"amd_nb: Cannot enumerate AMD northbridges",                                                 // printed on Intel machines by old kernels
		"DMAR: IOMMU disabled",                                                                      // intel_iommu=off on the command line
		"DMAR: Intel-IOMMU force enabled due to platform opt in",                                    // the firmware asks for DMA protection
		"ACPI: BIOS _OSI(Darwin) query honored via DMI",                                             // every Mac
		"ERST: Could not register with persistent store.",                                           // another pstore backend came first
		"acpi PNP0A08:00: _OSC: platform does not support [PCIeHotplug LTR]",                        // _OSC negotiation
		"ipmi_si: Unable to find any System Interface(s)",                                           // no BMC
		"x2apic: enabled by BIOS, switching to x2apic ops",                                          // normal on servers
		"x86/tme: not enabled by BIOS",                                                              // a setup option
		"invalid mtrr_gran_size or mtrr_chunk_size, will find optimal one",                          // boot parameters
		"EFI capsule is pending, forcing EFI reboot.",                                               // a firmware update in progress
		"ACPI: PM: Low-power S0 idle used by default for system suspend",                            // S0ix platforms
		"DMAR: Intel-IOMMU: not forcing on after tboot. This could expose security risk for tboot",  // intel_iommu=tboot_noforce
		`ACPI Exception: AE_NOT_FOUND, While evaluating Sleep State [\_S1_] (20131218/hwxface-580)`, // _S1 is optional
		`ACPI Warning: \_SB.PCI0.PEG3.VID._DSM: Argument #4 type mismatch - Found [Buffer], ACPI requires [Package] (20200528/nsarguments-59)`, // the OS caller's arguments
	} {
		// An entry with a cause reports its match as information.
		if e := m.Match(line); e != nil && e.Cause == "" {
			t.Errorf("%q matches %s, but it is no firmware fault", line, e.Label)
		}
	}
}

// TestDBVirtualMachineEntries: in a guest the hypervisor's quirks get the
// low-severity virtual-machine entries, on real hardware the firmware ones.
func TestDBVirtualMachineEntries(t *testing.T) {
	es := defaultDB(t)
	cases := []struct {
		line     string
		vm, real string
	}{
		{"mtrr: your CPUs had inconsistent fixed MTRR settings", "VMMTRRInconsistent", "MTRRInconsistentFixed"},
		{"mtrr: probably your BIOS does not setup all CPUs.", "VMMTRRInconsistent", "MTRRBIOSNotAllCPUs"},
		{"[Firmware Bug]: TSC doesn't count with P0 frequency!", "VMAMDTSCNotP0", "AMDTSCNotP0"},
		{"acpi PNP0A08:00: _OSC: platform retains control of PCIe features (AE_NOT_FOUND)", "VMOSCNotFound", "OSCPlatformRetainsControl"},
		{"amd_pstate: the _CPC object is not present in SBIOS or ACPI disabled", "VMAMDPStateNoCPPC", "AMDPStateNoCPC"},
	}
	qemu, err := NewMatcher(es, Env{Vendor: "QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.0-1 04/01/2014", Product: "QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.0-1 04/01/2014", VM: "DMI: QEMU"})
	require.NoError(t, err)
	real, err := NewMatcher(es, genericEnv)
	require.NoError(t, err)
	for _, c := range cases {
		if e := qemu.Match(c.line); assert.NotNil(t, e, c.line) {
			assert.Equal(t, c.vm, e.Label, c.line)
			assert.Equal(t, Low, e.Severity, c.line)
		}
		if e := real.Match(c.line); assert.NotNil(t, e, c.line) {
			assert.Equal(t, c.real, e.Label, c.line)
		}
	}
	// Firecracker has no DMI data; its "Hypervisor detected" line marks it
	// as a guest. The MTRR entry is for QEMU's emulation only.
	fc := EnvFromLog(ParseString("[    0.000000] DMI not present or invalid.\n[    0.000000] Hypervisor detected: KVM\n"))
	assert.Equal(t, "DMI not present or invalid. Hypervisor detected: KVM", fc.Vendor)
	assert.Equal(t, "Hypervisor detected: KVM", fc.VM)
	m, err := NewMatcher(es, fc)
	require.NoError(t, err)
	assert.Equal(t, "VMAMDTSCNotP0", m.Match(cases[2].line).Label)
	kvm := EnvFromLog(ParseString("DMI: Optimized Hosting KVM, BIOS 1.15.0 04/01/2014\nHypervisor detected: KVM\n"))
	m, err = NewMatcher(es, kvm)
	require.NoError(t, err)
	assert.Equal(t, "MTRRInconsistentFixed", m.Match(cases[0].line).Label)
}

// A real machine whose log says it has no DMI data is not an unknown
// machine: the firmware entry applies, not the virtual-machine one.
func TestDBNoDMI(t *testing.T) {
	es := defaultDB(t)
	for _, c := range []struct {
		log, want string
	}{
		{"DMI not present or invalid.\n", "SMBIOSMissing"},
		{"DMI not present or invalid.\nHypervisor detected: KVM\n", "VMNoSMBIOS"},
	} {
		env := EnvFromLog(ParseString(c.log))
		m, err := NewMatcher(es, env)
		require.NoError(t, err)
		if e := m.Match("DMI not present or invalid."); assert.NotNil(t, e, c.log) {
			assert.Equal(t, c.want, e.Label, c.log)
		}
		assert.Equal(t, "MTRRInconsistentFixed", m.Match("mtrr: your CPUs had inconsistent fixed MTRR settings").Label, c.log)
	}
}

// placeholder finds the values a format-string scanner fills in ("foo"
// for %s, "1f" for %x, a fixed [mem] range for %p) instead of values a
// real kernel prints.
var placeholder = regexp.MustCompile(`\bfoo\b|\[mem 0x00001000-0x00001fff\]|\b(?:0x)?1f1f\b|\b0x1f\b|MSR1F=`)

// Examples are real log lines or lines built from the kernel's format
// string with plausible values, never scanner placeholders.
func TestDBExamplesAreRealistic(t *testing.T) {
	for _, e := range defaultDB(t) {
		for _, ex := range e.Examples {
			assert.NotRegexp(t, placeholder, ex, "%s: example has a placeholder value", e.Label)
		}
	}
}

// A log with no DMI line and no hypervisor line is not taken for a virtual
// machine: the real-hardware entry applies.
func TestDBUnknownMachineIsNotVirtual(t *testing.T) {
	env := EnvFromLog(ParseString("[    0.000000] Linux version 6.1.0\n[    0.5] mtrr: your CPUs had inconsistent fixed MTRR settings\n"))
	assert.Empty(t, env.VM)
	m, err := NewMatcher(defaultDB(t), env)
	require.NoError(t, err)
	e := m.Match("mtrr: your CPUs had inconsistent fixed MTRR settings")
	require.NotNil(t, e)
	assert.Equal(t, "MTRRInconsistentFixed", e.Label)
	assert.Empty(t, e.Explanation(env))

	vm := EnvFromLog(ParseString("[    0.000000] DMI: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014\n"))
	assert.Equal(t, "DMI: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014", vm.VM)
	m, err = NewMatcher(defaultDB(t), vm)
	require.NoError(t, err)
	e = m.Match("mtrr: your CPUs had inconsistent fixed MTRR settings")
	require.NotNil(t, e)
	assert.Equal(t, "VMMTRRInconsistent", e.Label)
	assert.Contains(t, e.Explanation(vm), "virtual machine (DMI: QEMU")
}

// A message the user's own boot parameters cause is explained by them, and
// only when the log's command line holds one.
func TestDBBootParamsExplain(t *testing.T) {
	es := defaultDB(t)
	for _, e := range es {
		for _, p := range e.BootParams {
			assert.NotEmpty(t, p, e.Label)
			assert.NotContains(t, p, " ", e.Label)
		}
		assert.True(t, e.Cause == "" || causes[e.Cause], e.Label)
	}
	log := "[    0.000000] Linux version 6.1.0-9-amd64 (x) #1\n" +
		"[    0.000000] Command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1 processor.max_cstate=1 quiet\n" +
		"[    0.000000] DMI: Example Corp Board/Board, BIOS 1.0 01/01/2024\n" +
		"[    1.000000] ACPI: processor limited to max C-state 1\n"
	recs := ParseString(log)
	env := EnvFromLog(recs)
	assert.Equal(t, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 processor.max_cstate=1 quiet", env.CmdLine)
	m, err := NewMatcher(es, env)
	require.NoError(t, err)
	e := m.Match(recs[3].Text)
	require.NotNil(t, e)
	assert.Equal(t, "ProcessorMaxCstateLimited", e.Label)
	assert.Equal(t, "kernel command line: processor.max_cstate=1", e.Explanation(env))
	env.CmdLine = "root=/dev/sda1 quiet processor.max_cstatex=1"
	assert.Empty(t, e.Explanation(env))
	env.CmdLine = "intremap=on"
	x := Entry{BootParams: []string{"intremap=off"}}
	assert.Empty(t, x.Explanation(env))
	env.CmdLine = "intremap=off"
	assert.Equal(t, "kernel command line: intremap=off", x.Explanation(env))
}

// Older kernels' wordings match the same entries: ACPICA's pre-2009
// "ACPI Error (module-NNNN): " prefix and the listed older patterns.
func TestDBOlderWordings(t *testing.T) {
	m, err := NewMatcher(defaultDB(t), genericEnv)
	require.NoError(t, err)
	for line, label := range map[string]string{
		"ACPI Error (evregion-0427): No handler for Region [EC__] (ffff88012f8b5f20) [EmbeddedControl] [20080926]": "RegionNoHandler",
		"ACPI Warning (tbutils-0217): Incorrect checksum in table [TCPA] -  00, should be 0x7f [20080926]":         "ACPITableChecksumKernel",
		"ACPI Warning: Incorrect checksum in table [OEMB] - 07, should be 06 (20090903/tbutils-314)":               "ACPITableChecksumKernel",
		"ACPI Error: Region EmbeddedControl(3) has no handler (20090903/exfldio-292)":                              "ECNoHandlerRegion",
		"[Firmware Bug]: _BQC returned an invalid level":                                                           "VideoBQCInvalidLevel",
	} {
		e := m.Match(line)
		if assert.NotNil(t, e, line) {
			assert.Equal(t, label, e.Label, line)
		}
	}
}
