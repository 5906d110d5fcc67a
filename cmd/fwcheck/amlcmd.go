package main

import (
	"bufio"
	"errors"
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
)

// The aml command prints the ACPI namespace the DSDT and SSDTs build: the
// view a firmware engineer keeps beside iasl's disassembly.
// amlCommands defines the aml command(s): see commandTable.
func amlCommands(add func(*command)) {
	c := &command{
		name:  "aml",
		args:  "[--from SNAPSHOT | --acpidump FILE] [--all] [--problems] [--eval PATH]…",
		short: "print the ACPI namespace (path, type, Name values) the DSDT and SSDTs build",
	}
	c.run = func(e *env, args []string) (code int) {
		fs := newFlags(c)
		var cfg runConfig
		var acpidump string
		var all, problems bool
		var evals listFlag
		fs.StringVar(&cfg.From, "from", "", "read the tables from a `SNAPSHOT` (.tar.gz or directory) made by 'fwcheck snapshot'")
		fs.StringVar(&acpidump, "acpidump", "", "read ACPI tables from an acpidump text `FILE` or a directory of raw tables")
		fs.BoolVar(&all, "all", false, "include the objects declared inside method bodies")
		fs.BoolVar(&problems, "problems", false, "print the problems found loading the tables instead of the namespace")
		fs.Var(&evals, "eval", "evaluate the object at `PATH` (e.g. \\_SB.PCI0._CRS) and print its value instead; repeatable (exit 1 when one is missing or fails)")
		pos, code, ok := parseFlags(e, c, fs, args)
		if !ok {
			return code
		}
		if len(pos) > 0 {
			return fail(e, c, errTooManyArgs)
		}
		cfg.Root = "/"
		if err := fileInputs(&cfg, e, acpidump, ""); err != nil {
			return fail(e, c, err)
		}
		m, _, err := cfg.Machine()
		if err != nil {
			return fail(e, c, err)
		}
		ts, err := input.ACPITables.Get(m)
		if err != nil {
			return fail(e, c, err)
		}
		defs := aml.Definitions(ts)
		if len(ts.Get(acpi.SigDSDT)) == 0 {
			return fail(e, c, errors.New("no DSDT among the ACPI tables"))
		}
		ns, probs := aml.Load(defs...)
		w := bufio.NewWriter(e.stdout)
		defer w.Flush()
		switch {
		case len(evals) > 0:
			ev := aml.NewEvaluator(ns, aml.Options{Run: aml.NewRunBudget()})
			failed := 0
			defer func() {
				if failed > 0 && code == exitOK {
					code = exitFailing
				}
			}()
			for _, p := range evals {
				v, err := ev.EvaluatePath(p)
				switch {
				case err != nil:
					// a missing object or a failed evaluation: exit 1
					fmt.Fprintf(w, "%s: %v\n", p, err)
					failed++
					continue
				case v == nil:
					fmt.Fprintf(w, "%s: no value\n", p)
					continue
				}
				note := ""
				if ev.FieldReads() > 0 {
					note = fmt.Sprintf("  (read %d OperationRegion fields as zero)", ev.FieldReads())
				}
				fmt.Fprintf(w, "%s = %s%s\n", p, v, note)
				if v.Type == aml.TypeBuffer {
					if rs, err := aml.DecodeResources(v.Buf); err == nil {
						for _, r := range rs {
							fmt.Fprintf(w, "  %s\n", r)
						}
					}
				}
			}
		case problems:
			for _, p := range probs {
				fmt.Fprintln(w, p)
			}
			if len(probs) == 0 {
				fmt.Fprintf(w, "no problems loading %d tables (%d objects)\n", len(ns.Tables), ns.Nodes())
			}
		default:
			if all {
				err = ns.DumpAll(w)
			} else {
				err = ns.Dump(w)
			}
			if err != nil {
				return fail(e, c, err)
			}
			defined, devices, ext := ns.Counts()
			fmt.Fprintf(e.stderr, "%d tables, %d objects (%d devices) the OS loads; %d External only, listed apart; %d problems (--problems lists them)\n",
				len(ns.Tables), defined, devices, ext, len(probs))
		}
		return exitOK
	}
	add(c)
}
