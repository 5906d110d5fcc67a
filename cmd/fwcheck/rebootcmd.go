package main

import (
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/reboot"
)

func init() {
	c := &command{
		name:  "reboot",
		args:  "--journal FILE [--cycles N] [--method acpi|kbd|pci|efi|triple|bios|default] [--max-failures N] [--hang-after 10m] [--json FILE|-]",
		short: "reset this machine again and again through one method (the reboot check; REBOOTS the machine); run the same command after every boot",
	}
	c.run = func(e *env, args []string) int {
		fs := newFlags(c)
		var out outputFlags
		out.register(fs)
		cfg := runConfig{Root: "/", Selection: tests.Selection{IDs: []string{reboot.Check.ID}}}
		for _, st := range reboot.Check.Settings {
			fs.Var(cfg.Settings.Flag(reboot.Check, st), st.Name(), st.Usage())
		}
		fs.StringVar(&cfg.Root, "root", "/", hiddenUsage)
		pos, code, ok := parseFlags(e, c, fs, args)
		if !ok {
			return code
		}
		if len(pos) > 0 {
			return fail(e, c, errTooManyArgs)
		}
		if err := out.validate(); err != nil {
			return fail(e, c, err)
		}
		var done func()
		cfg.Progress, done = progressWriter(e.stderr)
		d, err := execute(&cfg)
		done()
		if err != nil {
			return fail(e, c, err)
		}
		return out.emit(e, c, d)
	}
	addCommand(c)
}
