// Command fwcheck runs firmware checks on the live machine, on a snapshot
// captured from another machine, or on dumps given as files, and reports
// findings with labels, severities, advice and spec references.
//
// Usage:
//
//	fwcheck run [IDs…] [flags]   run checks (default: every safe check)
//	fwcheck list [--json]        list the checks
//	fwcheck snapshot -o FILE     capture every input the checks read
//	fwcheck version              print the version
//
// Exit status: 0 when no failure is at or above --fail-on, 1 when one is
// (or a check aborted), 2 for usage errors, input that is not what its flag
// expects, and internal errors, 3 when no check evaluated anything.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/report"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit statuses.
const (
	exitOK      = 0
	exitFailing = 1
	exitUsage   = 2
	// exitNothing: no check evaluated anything (all skipped, not
	// applicable or filtered out). CI must not read it as success.
	exitNothing = 3
)

// command is one subcommand; commandTable lists them all.
type command struct {
	name  string
	args  string // usage synopsis after the name
	short string // one line for the command list
	// hidden commands are not listed (the live image's init mode).
	hidden bool
	run    func(env *env, args []string) int
}

// commandTable is every subcommand, by name: each file that defines
// commands is listed here, and nothing registers itself. A name defined
// twice is a bug and panics (a test runs the table).
func commandTable() map[string]*command {
	t := map[string]*command{}
	add := func(c *command) {
		if t[c.name] != nil {
			panic("fwcheck: command " + c.name + " defined twice")
		}
		t[c.name] = c
	}
	for _, define := range []func(add func(*command)){
		runCommands,    // run, list, snapshot (run.go)
		cycleCommands,  // s3, reboot (s3cmd.go)
		klogCommands,   // klog (klogcmd.go)
		amlCommands,    // aml (amlcmd.go)
		reportCommands, // report, html (reportcmd.go)
		bootCommands,   // boot, the live image's mode (boot.go)
		versionCommands,
	} {
		define(add)
	}
	return t
}

// env is what a command may touch: its streams, and the process's.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// runMemory is the garbage collector's soft memory limit for every command
// (unless GOMEMLIMIT says otherwise; report and diff raise it to
// reportMemory). The README promises that a run at the input limits stays
// within 128 MiB, and the collector's default pace (collect when the heap
// has doubled) let a load that allocates and drops much (the AML loader's
// term lists for a 31 MiB DSDT) reach 140 MB with 88 MB live. Below the
// limit nothing changes: a run's live heap is usually tens of MB.
const runMemory = 100 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(runMemory)
	}
	os.Exit(runMain(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

func runMain(e *env, args []string) int {
	commands := commandTable()
	if len(args) == 0 {
		usage(e.stderr, commands)
		return exitUsage
	}
	switch args[0] {
	case "-version", "--version", "-V":
		fmt.Fprintf(e.stdout, "fwcheck %s\n", version)
		return exitOK
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && commands[args[1]] != nil {
			return commands[args[1]].run(e, []string{"-h"})
		}
		usage(e.stdout, commands)
		return exitOK
	}
	c := commands[args[0]]
	if c == nil {
		fmt.Fprintf(e.stderr, "fwcheck: unknown command %q (run 'fwcheck help')\n", report.Sanitize(args[0], false))
		return exitUsage
	}
	return c.run(e, args[1:])
}

func usage(w io.Writer, commands map[string]*command) {
	fmt.Fprintf(w, "fwcheck checks a machine's firmware: ACPI tables, kernel log, and more.\n\nUsage:\n")
	var names []string
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "  fwcheck %-10s %s\n", n, c.short)
	}
	fmt.Fprintf(w, "\nRun 'fwcheck help COMMAND' for a command's flags.\n")
}

// newFlags returns a silent flag set for command c: parseFlags prints its
// help and its one-line errors.
func newFlags(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args into fs, allowing positional arguments between
// flags, and returns the positionals. It prints help for -h and a one-line
// error otherwise; ok is false when the command should exit with code.
func parseFlags(e *env, c *command, fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			printHelp(e.stdout, c, fs)
			return nil, exitOK, false
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "fwcheck %s: %s (run 'fwcheck help %s')\n", c.name, report.Sanitize(err.Error(), false), c.name)
			return nil, exitUsage, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// hiddenUsage marks a flag the help leaves out: test-only flags (-root),
// and a second name for a setting the help shows under its first.
const hiddenUsage = "(hidden)"

func printHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: fwcheck %s %s\n\n%s\n", c.name, c.args, c.short)
	shown := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage != hiddenUsage {
			shown.Var(f.Value, f.Name, f.Usage)
			if f.DefValue == "[]" { // an empty list setting: no default to show
				shown.Lookup(f.Name).DefValue = ""
			}
		}
	})
	var b strings.Builder
	shown.SetOutput(&b)
	shown.PrintDefaults()
	if b.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", b.String())
	}
}

// fail prints a one-line error for command c and returns exitUsage. The
// error may quote a file's content or a snapshot's entry names: it is
// sanitised like everything else that reaches the terminal.
func fail(e *env, c *command, err error) int {
	fmt.Fprintf(e.stderr, "fwcheck %s: %s\n", c.name, report.Sanitize(err.Error(), false))
	return exitUsage
}

// versionCommands defines the main command(s): see commandTable.
func versionCommands(add func(*command)) {
	v := &command{name: "version", short: "print fwcheck's version"}
	v.run = func(e *env, args []string) int {
		if _, code, ok := parseFlags(e, v, newFlags(v), args); !ok {
			return code
		}
		fmt.Fprintf(e.stdout, "fwcheck %s\n", version)
		return exitOK
	}
	add(v)
}
