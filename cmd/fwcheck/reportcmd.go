package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fwcheck/fwcheck/driver"
	"github.com/fwcheck/fwcheck/internal/atomicfile"
	"github.com/fwcheck/fwcheck/internal/regfile"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// readDoc reads a results document a user named, a renamed check's former
// ID read as its current one.
func readDoc(p string) (*report.Document, error) {
	f, err := regfile.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := report.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	driver.CanonicalIDs(d, all.Checks())
	return d, nil
}

// reportCommands defines the report command(s): see commandTable.
func reportCommands(add func(*command)) {
	c := &command{
		name:  "diff",
		args:  "OLD.json NEW.json [--fail-on SEV] [--color auto|always|never]",
		short: "compare two results documents by check and label; exit 1 when something new fails",
	}
	c.run = func(e *env, args []string) int {
		fs := newFlags(c)
		failOn := fs.String("fail-on", defaultFailOn.String(), "exit 1 when a new failure is at or above this `severity`")
		color := fs.String("color", "auto", "colour: auto (only on a terminal), always or never")
		pos, code, ok := parseFlags(e, c, fs, args)
		if !ok {
			return code
		}
		if len(pos) != 2 {
			return fail(e, c, errors.New("want two results documents: OLD.json NEW.json"))
		}
		threshold, err := tests.ParseSeverity(*failOn)
		if err != nil {
			return fail(e, c, err)
		}
		old, err := readDoc(pos[0])
		if err != nil {
			return fail(e, c, err)
		}
		cur, err := readDoc(pos[1])
		if err != nil {
			return fail(e, c, err)
		}
		d := report.Compare(old, cur)
		col := *color == "always" || *color == "auto" && isTerminal(e.stdout) && os.Getenv("NO_COLOR") == ""
		if err := report.WriteDiff(e.stdout, old, cur, d, report.TextOptions{Color: col, FailOn: threshold, Width: termWidth(e.stdout)}); err != nil {
			return fail(e, c, err)
		}
		if d.Regressed(threshold) {
			return exitFailing
		}
		return exitOK
	}
	add(c)

	h := &command{
		name:  "report",
		args:  "RESULTS.json -o REPORT.html",
		short: "write a results document as one self-contained HTML page (filterable findings, per-cycle plots)",
	}
	h.run = func(e *env, args []string) int {
		fs := newFlags(h)
		out := fs.String("o", "", "write the HTML page to `FILE` (- for standard output)")
		failOn := fs.String("fail-on", defaultFailOn.String(), "judge a document that carries no verdict against this `severity`")
		pos, code, ok := parseFlags(e, h, fs, args)
		if !ok {
			return code
		}
		if len(pos) != 1 || *out == "" {
			return fail(e, h, errors.New("want one results document and -o FILE"))
		}
		threshold, err := tests.ParseSeverity(*failOn)
		if err != nil {
			return fail(e, h, err)
		}
		if *out != "-" {
			if err := atomicfile.Check(*out); err != nil {
				return fail(e, h, err)
			}
		}
		d, err := readDoc(pos[0])
		if err != nil {
			return fail(e, h, err)
		}
		if *out == "-" {
			err = report.WriteHTML(e.stdout, d, threshold)
		} else {
			err = writeFile(*out, func(w io.Writer) error { return report.WriteHTML(w, d, threshold) })
		}
		if err != nil {
			return fail(e, h, err)
		}
		return exitOK
	}
	add(h)
}
