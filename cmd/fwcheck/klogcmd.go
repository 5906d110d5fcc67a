package main

import (
	"github.com/fwcheck/fwcheck/tests"
)

// klogChecks are the checks `fwcheck klog` runs.
var klogChecks = []string{"klog", "oops"}

func init() {
	c := &command{
		name:  "klog",
		args:  "[FILE|-] [--klog-db FILE] [--json FILE|-]",
		short: "read a kernel log (a file, - for standard input, or this machine's) for firmware trouble",
	}
	c.run = func(e *env, args []string) int {
		fs := newFlags(c)
		var out outputFlags
		out.register(fs)
		var cfg runConfig
		addCheckSettings(fs, &cfg.Settings, klogChecks...)
		pos, code, ok := parseFlags(e, c, fs, args)
		if !ok {
			return code
		}
		if err := out.validate(); err != nil {
			return fail(e, c, err)
		}
		cfg.Root, cfg.Selection = "/", tests.Selection{IDs: klogChecks}
		switch len(pos) {
		case 0:
		case 1:
			if err := cfg.fileInputs(e, "", pos[0]); err != nil {
				return fail(e, c, err)
			}
		default:
			return fail(e, c, errTooManyArgs)
		}
		d, err := execute(&cfg)
		if err != nil {
			return fail(e, c, err)
		}
		return out.emit(e, c, d)
	}
	addCommand(c)
}
