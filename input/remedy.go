package input

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Remedy says what would let an input that could not be had (err, from
// Get) be read, fitted to where fwcheck runs, for a check's NotChecked:
//
//   - from a snapshot (--from), the snapshot is named: it was taken
//     without the input, so the remedy is a new snapshot, not root;
//   - with only files given (--acpidump, --klog), or on the live machine
//     without root, fallback (the check's own words,
//     typically "run as root with the msr module");
//   - on the live machine as root, what is actually missing: a kernel
//     without /dev/mem, a module modprobe could not find, the kernel
//     option, the lockdown, a missing capability. Never "run as root" to
//     root: when the cause is not known, the remedy is empty and the
//     reason stands alone.
//
// A nil m or err gives fallback.
func (m *Machine) Remedy(err error, fallback string) string {
	if m == nil || err == nil {
		return fallback
	}
	name := ""
	var u *Unavailable
	if errors.As(err, &u) {
		name = u.Input
	}
	return remedyFor(m.Src, name, err.Error(), fallback)
}

// remedyFor fits a remedy to src for input name (may be "") unavailable
// for reason. A snapshot's own record of what it could not read
// (NotCapturedFile) gives the cause where the snapshot was taken.
func remedyFor(src Source, name, reason, fallback string) string {
	if !src.Live() {
		snap := strings.TrimPrefix(src.String(), "snapshot:")
		if snap == "none" {
			return fallback // only files given: the reason already says where more is had
		}
		for _, why := range notCaptured(src, name) {
			if strings.Contains(why, lockdownRefused) {
				return fmt.Sprintf("the snapshot %s was taken under kernel lockdown (%s): take it again with Secure Boot off in the firmware setup", snap, why)
			}
			if r := rootCause(src, why); r != "" {
				return fmt.Sprintf("the snapshot %s could not read this where it was taken (%s): %s; then take the snapshot again", snap, why, r)
			}
		}
		return fmt.Sprintf("the snapshot %s was taken without it: take the snapshot again on the machine "+
			"(fwcheck snapshot --verbose there lists what it could not read, and why)", snap)
	}
	if !src.Privileged() {
		return fallback
	}
	if r := rootCause(src, reason); r != "" {
		return r
	}
	if strings.Contains(fallback, "root") {
		return ""
	}
	return fallback
}

var modprobeFatal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`modprobe: FATAL: Module (\S+) not found[^;]*`) })

// arm64DevMem is the reason an arm64 kernel gives no /dev/mem read of the
// RSDP.
const arm64DevMem = "an arm64 kernel refuses /dev/mem reads of RAM, where UEFI puts the RSDP, whatever iomem= says"

// rootCause names, from a reason, what keeps root from reading an input.
func rootCause(src Source, reason string) string {
	lower := strings.ToLower(reason)
	notFound := strings.Contains(lower, "no such file") || strings.Contains(lower, "file does not exist")
	denied := strings.Contains(lower, "operation not permitted") || strings.Contains(lower, "permission denied")
	switch {
	case strings.Contains(reason, lockdownRefused):
		return LockdownRemedy
	case strings.Contains(reason, withoutRoot):
		return "take the snapshot as root (sudo fwcheck snapshot)"
	case strings.Contains(reason, "/dev/mem"):
		switch {
		case strings.Contains(reason, arm64DevMem):
			return "none on this machine: no boot option lets an arm64 kernel read RAM through /dev/mem; the tables themselves come from /sys/firmware/acpi/tables, and the RSDP's revision and root table from the kernel log"
		case notFound:
			return "this kernel has no /dev/mem: boot a kernel built with CONFIG_DEVMEM (fwcheck's live image has it), or capture a snapshot on one"
		case denied:
			if st := readLockdown(src); st.Locked() {
				return "/dev/mem " + lockdownRefused + " (" + st.Words() + "): " + LockdownRemedy
			}
			return "the kernel restricts /dev/mem (CONFIG_STRICT_DEVMEM, or a missing CAP_SYS_RAWIO in a container): boot with iomem=relaxed, outside a container"
		case strings.Contains(lower, "bad address") || strings.Contains(reason, "iomem=relaxed"):
			return "the kernel restricts /dev/mem (CONFIG_STRICT_DEVMEM): boot with iomem=relaxed"
		}
	case strings.Contains(reason, "/msr") || strings.Contains(reason, "msr module") || strings.Contains(reason, "Module msr"):
		return moduleCause(src, reason, lower, notFound, denied, "msr", "CONFIG_X86_MSR", "MSRs")
	case strings.Contains(reason, "/cpuid") || strings.Contains(reason, "cpuid module") || strings.Contains(reason, "Module cpuid"):
		return moduleCause(src, reason, lower, notFound, denied, "cpuid", "CONFIG_X86_CPUID", "raw CPUID")
	}
	return ""
}

func moduleCause(src Source, reason, lower string, notFound, denied bool, mod, option, what string) string {
	switch {
	case modprobeFatal().MatchString(reason):
		return fmt.Sprintf("this kernel has no %s driver (%s): boot a kernel with %s, or install this kernel's modules",
			mod, modprobeFatal().FindString(reason), option)
	case notFound || strings.Contains(lower, "module available"):
		return fmt.Sprintf("load the %s module (modprobe %s); the kernel needs %s", mod, mod, option)
	case denied:
		return "reading " + what + " needs CAP_SYS_RAWIO: run outside a container, or give it that capability"
	case strings.Contains(lower, "input/output error"):
		return "the CPU (or the hypervisor) refused the register read: nothing to change on this machine"
	}
	return ""
}
