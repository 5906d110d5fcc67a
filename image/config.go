package image

import (
	"errors"
	"fmt"
	"strings"
)

// StickConfigName is the USB stick's configuration file, at the root of
// its boot partition, editable on any computer. The live image reads it
// from there at boot (Live.StickConfig), before the checks.
const StickConfigName = "fwcheck.cfg"

// maxConfigFile bounds what is read of a configuration file: it is a
// handful of lines, and anything larger is not one.
const maxConfigFile = 64 << 10

// LoadConfig returns the configuration of a boot: the defaults, then the
// options of the stick's configuration file (file, nil when there is
// none), then the kernel command line, so that the command line overrides
// the file. Every bad line of the file is in fileErr and every bad option
// of the command line in cmdlineErr (one error per problem, joined); the
// rest applies and the Config is always usable.
func LoadConfig(file []byte, cmdline string) (c Config, fileErr, cmdlineErr error) {
	c = DefaultConfig()
	fileErr = c.ApplyFile(file)
	cmdlineErr = c.applyCmdline(cmdline)
	return c, fileErr, cmdlineErr
}

// ApplyFile applies the options of a fwcheck.cfg file to c. The file holds
// one option per line, NAME = VALUE, with the names of the kernel command
// line options with or without their "fwcheck." prefix (run, s3, reboot,
// after, fail-on, ID.SETTING); '#' starts a comment. A malformed line is
// reported in the returned error with its line number, and the others
// apply.
func (c *Config) ApplyFile(b []byte) error {
	var errs []error
	if len(b) > maxConfigFile {
		errs = append(errs, fmt.Errorf("%s: %d bytes, only the first %d read", StickConfigName, len(b), maxConfigFile))
		b = b[:maxConfigFile]
	}
	for n, line := range strings.Split(string(b), "\n") {
		if err := c.applyLine(line); err != nil {
			errs = append(errs, fmt.Errorf("%s line %d: %w", StickConfigName, n+1, err))
		}
	}
	return errors.Join(errs...)
}

func (c *Config) applyLine(line string) error {
	line, _, _ = strings.Cut(line, "#")
	line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff")) // a BOM some editors add
	if line == "" {
		return nil
	}
	key, val, ok := strings.Cut(line, "=")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if !ok || key == "" {
		return fmt.Errorf("%q: want NAME = VALUE", clip(line))
	}
	if strings.ContainsAny(key, " \t") || len(strings.Fields(val)) > 1 && strings.Contains(val, "=") {
		return fmt.Errorf("%q: one option per line, NAME = VALUE", clip(line))
	}
	if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
		val = val[1 : len(val)-1]
	}
	if !strings.HasPrefix(key, "fwcheck.") {
		key = "fwcheck." + key
	}
	if key == "fwcheck.esp" {
		return errors.New("esp is set by the stick's boot loader, not in this file")
	}
	return c.Set(key, val)
}

// clip shortens a line quoted in an error message.
func clip(s string) string {
	const n = 80
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// DefaultStickConfig is the fwcheck.cfg the image builder puts on a new
// stick: every option at its default, with a line on what it does.
const DefaultStickConfig = `# fwcheck.cfg: what fwcheck does when this stick boots a machine.
# Edit it on any computer. One option per line, NAME = VALUE; '#' starts a
# comment. Options on the kernel command line (fwcheck.NAME=VALUE, e.g. typed
# at the boot menu with 'e') override the ones here. A line fwcheck cannot
# use is reported in the results and the others still apply.

# Checks to run: all (every check that is safe to run unattended), or a
# comma-separated list of check IDs, e.g. run = fadt,hpet,madt.
run = all

# Suspend/resume (S3) cycles to run after the checks; 0 runs none.
# s3.sleep and s3.awake set how long each cycle sleeps and stays awake.
s3 = 0
# s3.sleep = 10s
# s3.awake = 5s

# Reboot cycles; 0 runs none.
reboot = 0

# What to do when the results are written: shell (stay at a prompt),
# poweroff or reboot.
after = shell

# The run fails when a failure is at or above this severity:
# critical, high, medium or low.
fail-on = medium
`
