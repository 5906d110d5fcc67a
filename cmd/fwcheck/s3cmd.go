package main

import (
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/s3"
)

func init() {
	c := &command{
		name:  "s3",
		args:  "[--cycles N] [--sleep 10s] [--awake 5s] [--mode deep|s2idle] [--journal FILE] [--resume JOURNAL] [--max-failures N] [--max-resume 5s] [--pm-test PHASE] [--pm-trace] [--json FILE|-]",
		short: "cycle this machine through suspend and resume (the s3 check; suspends the machine)",
	}
	c.run = func(e *env, args []string) int {
		fs := newFlags(c)
		var out outputFlags
		out.register(fs)
		cfg := runConfig{Root: "/", Selection: tests.Selection{IDs: []string{s3.Check.ID}}}
		// The s3 check's settings, under their own names.
		for _, st := range s3.Check.Settings {
			fs.Var(cfg.Settings.Flag(s3.Check, st), st.Name(), st.Usage())
		}
		fs.Var(cfg.Settings.Flag(s3.Check, s3.JournalPath), "resume", "go on with the unfinished run in `JOURNAL` (the same as --journal)")
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
