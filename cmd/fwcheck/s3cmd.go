package main

import (
	"flag"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/reboot"
	"github.com/fwcheck/fwcheck/tests/s3"
)

// cycleCommands defines the s3 command(s): see commandTable.
func cycleCommands(add func(*command)) {
	add(checkCommand(&command{
		name:  "s3",
		args:  "[--cycles N] [--sleep 10s] [--awake 5s | --awake-random 1s..30s] [--mode deep|s2idle] [--journal FILE] [--resume JOURNAL] [--max-failures N] [--max-resume 5s] [--pm-test PHASE] [--pm-trace] [--json FILE|-]",
		short: "cycle this machine through suspend and resume (the s3 check; suspends the machine)",
	}, s3.Check, func(fs *flag.FlagSet, set *tests.Settings) {
		fs.Var(set.Flag(s3.Check, s3.JournalPath), "resume", "go on with the unfinished run in `JOURNAL` (the same as --journal)")
	}))
	add(checkCommand(&command{
		name:  "reboot",
		args:  "--journal FILE [--cycles N] [--method acpi|kbd|pci|efi|triple|bios|default] [--max-failures N] [--hang-after 10m] [--json FILE|-]",
		short: "reset this machine again and again through one method (the reboot check; REBOOTS the machine); run the same command after every boot",
	}, reboot.Check, nil))
}

// checkCommand completes c, a command that runs one check on this machine with
// the check's settings as its own flags (--cycles for --s3.cycles), and
// shows its progress: the s3 and reboot commands. extra adds flags of the
// command's own.
func checkCommand(c *command, ch *tests.Check, extra func(*flag.FlagSet, *tests.Settings)) *command {
	c.run = func(e *env, args []string) int {
		fs := newFlags(c)
		var out outputFlags
		out.register(fs)
		cfg := runConfig{Root: "/", Selection: tests.Selection{IDs: []string{ch.ID}}}
		for _, st := range ch.Settings {
			fs.Var(cfg.Settings.Flag(ch, st), st.Name(), st.Usage())
		}
		if extra != nil {
			extra(fs, &cfg.Settings)
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
		return out.run(e, c, &cfg)
	}
	return c
}
