package image

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// After is what the live image does once the results are published.
type After string

// The after-actions accepted by fwcheck.after=.
const (
	AfterShell    After = "shell"
	AfterPoweroff After = "poweroff"
	AfterReboot   After = "reboot"
)

// Config is what the kernel command line asks the live image to do.
type Config struct {
	// Run lists the check IDs to run; nil means all checks
	// (fwcheck.run=all or no fwcheck.run at all).
	Run []string
	// S3 is the number of suspend/resume cycles requested with
	// fwcheck.s3=N; 0 means none.
	S3 int
	// Reboot is the number of reboot cycles requested with
	// fwcheck.reboot=N; 0 means none.
	Reboot int
	// After is the after-action; the default is AfterShell.
	After After
	// FailOn is the severity at or above which a failure fails the run
	// (fwcheck.fail-on=critical|high|medium|low); empty means the
	// driver's default.
	FailOn string
	// ESP is the FAT volume serial number ("1A2B-3C4D") of the partition
	// the boot loader started from, passed by the USB stick's GRUB as
	// fwcheck.esp; empty when the image was booted some other way. It
	// tells the live image which disk is the boot stick.
	ESP string
	// DiskWait, when not zero, is the longest wait for the results disk
	// (fwcheck.disk-wait=90s), instead of the image's default (a minute
	// for runs that keep a journal there, 15 s otherwise).
	DiskWait time.Duration
	// Profile is the certification profile to apply (fwcheck.profile=sbbr);
	// empty means none. The live image checks the name against the
	// profiles it has.
	Profile string
	// Post, when set, is the lab server's URL (fwcheck.post=URL): the
	// journal records and the results document go there by HTTP POST as
	// they are written (package post), and the image brings up its
	// network for it.
	Post string
	// Settings are check settings given as fwcheck.ID.NAME=VALUE
	// ("s3.sleep" → "10s"), in command-line order; the driver checks them
	// against the checks it has.
	Settings []Setting
}

// Setting is one fwcheck.ID.NAME=VALUE option.
type Setting struct{ Check, Name, Value string }

// DefaultConfig is the configuration of a boot whose command line names no
// fwcheck options.
func DefaultConfig() Config { return Config{After: AfterShell} }

// maxS3 bounds fwcheck.s3 and fwcheck.reboot so that a typo cannot keep a
// machine cycling for days.
const maxS3 = 1000

// maxDiskWait bounds fwcheck.disk-wait.
const maxDiskWait = 10 * time.Minute

// ParseCmdline reads the fwcheck.* options from a kernel command line (the
// contents of /proc/cmdline). Options it does not own are ignored. A bad
// value leaves that setting at its default and is reported in the returned
// error, which joins one error per problem; the Config is always usable.
func ParseCmdline(cmdline string) (Config, error) {
	c := DefaultConfig()
	err := c.applyCmdline(cmdline)
	return c, err
}

func (c *Config) applyCmdline(cmdline string) error {
	var errs []error
	for _, word := range splitCmdline(cmdline) {
		key, val, _ := strings.Cut(word, "=")
		if !strings.HasPrefix(key, "fwcheck.") {
			continue
		}
		if err := c.Set(key, val); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Set applies one fwcheck.* option (key with its "fwcheck." prefix) to c.
// A bad value leaves c as it was and is returned as the error.
func (c *Config) Set(key, val string) error {
	switch key {
	case "fwcheck.run":
		ids, err := parseRun(val)
		if err != nil {
			return err
		}
		c.Run = ids
	case "fwcheck.s3":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > maxS3 {
			return fmt.Errorf("fwcheck.s3=%q: want a number of cycles from 0 to %d", val, maxS3)
		}
		c.S3 = n
	case "fwcheck.reboot":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > maxS3 {
			return fmt.Errorf("fwcheck.reboot=%q: want a number of reboots from 0 to %d", val, maxS3)
		}
		c.Reboot = n
	case "fwcheck.profile":
		if !profileName(val) {
			return fmt.Errorf("fwcheck.profile=%q: want a profile name (lowercase letters, digits and hyphens)", val)
		}
		c.Profile = val
	case "fwcheck.fail-on":
		switch val {
		case "critical", "high", "medium", "low":
			c.FailOn = val
		default:
			return fmt.Errorf("fwcheck.fail-on=%q: want critical, high, medium or low", val)
		}
	case "fwcheck.after":
		switch a := After(val); a {
		case AfterShell, AfterPoweroff, AfterReboot:
			c.After = a
		default:
			return fmt.Errorf("fwcheck.after=%q: want shell, poweroff or reboot", val)
		}
	case "fwcheck.disk-wait":
		d, err := time.ParseDuration(val)
		if err != nil || d < time.Second || d > maxDiskWait {
			return fmt.Errorf("fwcheck.disk-wait=%q: want a duration from 1s to %v, e.g. 90s", val, maxDiskWait)
		}
		c.DiskWait = d
	case "fwcheck.esp":
		if !validSerial(val) {
			return fmt.Errorf("fwcheck.esp=%q: want a FAT volume serial number such as 1A2B-3C4D", val)
		}
		c.ESP = strings.ToUpper(val)
	case "fwcheck.post":
		u, err := url.Parse(val)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("fwcheck.post=%q: want the server's URL, http://HOST[:PORT]/PATH or https://…", val)
		}
		c.Post = val
	default:
		id, name, ok := strings.Cut(strings.TrimPrefix(key, "fwcheck."), ".")
		if !ok || !validID(id) || name == "" {
			return fmt.Errorf("unknown option %s (known: fwcheck.run, fwcheck.s3, fwcheck.reboot, fwcheck.after, fwcheck.fail-on, fwcheck.disk-wait, fwcheck.post, fwcheck.ID.SETTING)", key)
		}
		c.Settings = append(c.Settings, Setting{Check: id, Name: name, Value: val})
	}
	return nil
}

func parseRun(val string) ([]string, error) {
	if val == "" {
		return nil, errors.New("fwcheck.run= is empty: want all or a comma-separated list of check IDs")
	}
	if val == "all" {
		return nil, nil
	}
	var ids []string
	for _, id := range strings.Split(val, ",") {
		if id == "" {
			continue
		}
		if !validID(id) {
			return nil, fmt.Errorf("fwcheck.run: %q is not a check ID (lowercase letters, digits, '-' and '_')", id)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("fwcheck.run=%q names no check", val)
	}
	return ids, nil
}

func validID(id string) bool {
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return id != ""
}

// validSerial reports whether s is a FAT volume serial number as GRUB
// prints it: two groups of four hex digits joined by '-'.
func validSerial(s string) bool {
	if len(s) != 9 || s[4] != '-' {
		return false
	}
	for i, r := range s {
		if i != 4 && !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// splitCmdline splits a kernel command line into words the way the kernel
// does: on spaces, with double quotes grouping a value that holds spaces.
func splitCmdline(s string) []string {
	var words []string
	var cur strings.Builder
	inQuote, any := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			any = true
		case !inQuote && (r == ' ' || r == '\t' || r == '\n'):
			if any {
				words = append(words, cur.String())
				cur.Reset()
				any = false
			}
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		words = append(words, cur.String())
	}
	return words
}

// KernelArgs are the kernel arguments the live image needs besides its
// own fwcheck.* options. iomem=relaxed lets fwcheck read the ACPI root
// tables (RSDP, XSDT, RSDT) through /dev/mem: distribution kernels built
// with CONFIG_IO_STRICT_DEVMEM refuse reads of the busy "ACPI Tables"
// ranges otherwise, and sysfs does not expose those tables.
// cryptomgr.notests skips the kernel's self-tests of its crypto
// algorithms at boot, which the live image does not use before its
// verdicts: about 0.3 s of a q35/OVMF boot under TCG (kernel start to
// /init 2.88 -> 2.56 s, measured 2026-12-06); a kernel in FIPS mode runs
// them anyway. initcall_blacklist=crypto_kdf108_init skips the one
// self-test cryptomgr.notests does not cover: the SP800-108 key derivation
// function's, run by its built-in init alone (the functions stay usable);
// under TCG it took 0.45 s of a q35/OVMF boot (initcall_debug, kernel 6.1),
// and with it left out the kernel reached /init 0.57 s sooner. A kernel
// without that initcall (before 5.19) ignores the name.
const KernelArgs = "iomem=relaxed cryptomgr.notests initcall_blacklist=crypto_kdf108_init"

// profileName reports whether s can be a profile's name: 1 to 32
// lowercase letters, digits and hyphens.
func profileName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
