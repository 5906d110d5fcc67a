package main

import (
	"flag"
	"io"

	"github.com/fwcheck/fwcheck/tests"
)

// klogChecks are the checks `fwcheck klog` runs.
var klogChecks = []string{"klog", "oops"}

// addKlogDBFlag exposes the klog check's "db" setting as --klog-db, the
// name fwts users know.
func addKlogDBFlag(fs *flag.FlagSet) {
	if c := tests.Lookup("klog"); c != nil {
		if f := c.Settings.Lookup("db"); f != nil {
			fs.Var(f.Value, "klog-db", f.Usage)
		}
	}
}

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
		addKlogDBFlag(fs)
		addCheckSettings(fs)
		pos, code, ok := parseFlags(e, c, fs, args)
		if !ok {
			return code
		}
		if err := out.validate(); err != nil {
			return fail(e, c, err)
		}
		cfg := runConfig{Root: "/", Selection: tests.Selection{IDs: klogChecks}}
		switch len(pos) {
		case 0:
		case 1:
			cfg.Files.KernelLog = pos[0]
			if pos[0] == "-" {
				b, err := io.ReadAll(e.stdin)
				if err != nil {
					return fail(e, c, err)
				}
				cfg.Files.Stdin = b
			}
		default:
			return fail(e, c, errTooManyArgs)
		}
		d, err := execute(cfg)
		if err != nil {
			return fail(e, c, err)
		}
		return out.emit(e, c, d)
	}
	addCommand(c)
}
