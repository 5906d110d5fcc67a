package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/fwcheck/fwcheck/driver"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/atomicfile"
	"github.com/fwcheck/fwcheck/internal/regfile"
	"github.com/fwcheck/fwcheck/post"
	"github.com/fwcheck/fwcheck/report"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
	klogcheck "github.com/fwcheck/fwcheck/tests/klog"
)

// runConfig is everything a driver decides about one run (see package
// driver).
type runConfig = driver.Config

// execute runs the selected checks and returns the results document: the
// one way every command (run, klog, s3, reboot, the live image) runs
// checks.
func execute(cfg *runConfig) (*report.Document, error) {
	cfg.Version = version
	return driver.Run(cfg)
}

// defaultFailOn is the severity at which a run fails unless --fail-on says
// otherwise: medium and above are spec violations worth a BIOS change;
// low findings are reported but do not fail the machine.
const defaultFailOn = tests.Medium

var errTooManyArgs = errors.New("too many arguments")

// listFlag is a flag that takes comma-separated values and may repeat.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// outputFlags are the report options shared by run and klog.
type outputFlags struct {
	json, junit    string
	quiet, verbose bool
	color, failOn  string
	waivers        string
	post           string       // --post URL
	sender         *post.Sender // posting the run's journals, from run
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.json, "json", "", "write the JSON results document to `FILE` (- for standard output)")
	fs.StringVar(&o.junit, "junit", "", "write JUnit XML results to `FILE` (- for standard output)")
	fs.StringVar(&o.waivers, "waivers", "", "accept the known failures a waivers `FILE` lists (JSON; see docs/results.md)")
	fs.BoolVar(&o.quiet, "quiet", false, "print only failures and the summary")
	fs.BoolVar(&o.verbose, "verbose", false, "print passes, infos and skip reasons too")
	fs.StringVar(&o.color, "color", "auto", "colour the report: auto (only on a terminal), always or never")
	fs.StringVar(&o.post, "post", "", "send the results document, and each s3/reboot journal record as it is written, to this `URL` by HTTP POST (retried until the server takes it)")
	fs.StringVar(&o.failOn, "fail-on", defaultFailOn.String(), "exit 1 when a failure is at or above this `severity` (critical, high, medium, low)")
}

// run runs cfg's checks, showing their progress on standard error, and
// writes the results as o asks; it returns the exit status.
func (o *outputFlags) run(e *env, c *command, cfg *runConfig) int {
	var done func()
	cfg.Progress, done = progressWriter(e.stderr)
	if o.post != "" {
		raw := cfg.Settings.Raw()
		s, err := startPost(o.post, postSpool(raw), raw, func(f string, a ...any) { fmt.Fprintf(e.stderr, "fwcheck: "+f+"\n", a...) })
		if err != nil {
			done()
			return fail(e, c, err)
		}
		o.sender = s
	}
	d, err := execute(cfg)
	done()
	if err != nil {
		return fail(e, c, err)
	}
	profileNotice(e.stderr, cfg.Profile, d)
	return o.emit(e, c, d)
}

// profileNotice says on w, before the report, when the profile's own
// checks found it does not apply to the machine (an x86 machine under
// the Arm sbbr profile): a reader must not take the run for a
// certification result.
func profileNotice(w io.Writer, pr *tests.Profile, d *report.Document) {
	if pr == nil {
		return
	}
	for _, r := range d.Results {
		if r.Status == tests.StatusNotApplicable && slices.ContainsFunc(pr.Checks, func(c *tests.Check) bool { return c.ID == r.ID }) {
			fmt.Fprintf(w, "fwcheck: profile %s: %s\n", pr.Name, report.Sanitize(r.Reason, false))
		}
	}
}

// emit writes d as o asks and returns the exit status.
func (o *outputFlags) emit(e *env, c *command, d *report.Document) int {
	threshold, err := tests.ParseSeverity(o.failOn)
	if err != nil {
		return fail(e, c, err)
	}
	var ws []report.Waiver
	if o.waivers != "" {
		if ws, err = readWaivers(o.waivers); err != nil {
			return fail(e, c, err)
		}
	}
	outcome := driver.Judge(d, ws, threshold)
	text := e.stdout
	switch {
	case o.json == "-":
		if err := report.WriteJSON(e.stdout, d); err != nil {
			return fail(e, c, err)
		}
		text = e.stderr // keep stdout pure JSON
	case o.junit == "-":
		if err := report.WriteJUnit(e.stdout, d, threshold); err != nil {
			return fail(e, c, err)
		}
		text = e.stderr
	}
	color := o.color == "always" || o.color == "auto" && isTerminal(text) && os.Getenv("NO_COLOR") == ""
	if err := report.WriteText(text, d, report.TextOptions{Color: color, Quiet: o.quiet, Verbose: o.verbose, FailOn: threshold, Width: termWidth(text)}); err != nil {
		return fail(e, c, err)
	}
	// Files last: a file that cannot be written costs the file, not the
	// report already shown.
	var errs []error
	if o.json != "" && o.json != "-" {
		errs = append(errs, writeFile(o.json, func(w io.Writer) error { return report.WriteJSON(w, d) }))
	}
	if o.junit != "" && o.junit != "-" {
		errs = append(errs, writeFile(o.junit, func(w io.Writer) error { return report.WriteJUnit(w, d, threshold) }))
	}
	if o.post != "" {
		errs = append(errs, o.postResults(e, d))
	}
	if err := errors.Join(errs...); err != nil {
		return fail(e, c, err)
	}
	switch outcome {
	case driver.Failing:
		return exitFailing
	case driver.NothingChecked:
		return exitNothing
	}
	return exitOK
}

// postResults sends d to the --post server, with what is left of the
// run's journal records, and says on standard error what went.
func (o *outputFlags) postResults(e *env, d *report.Document) error {
	raw := d.Settings
	if o.sender == nil {
		s, err := startPost(o.post, postSpool(raw), nil, func(f string, a ...any) { fmt.Fprintf(e.stderr, "fwcheck: "+f+"\n", a...) })
		if err != nil {
			return err
		}
		o.sender = s
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, d); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fwcheck: %s\n", finishPost(o.sender, o.post, js.Bytes(), postSpool(raw)))
	o.sender = nil
	return nil
}

func (o *outputFlags) validate() error {
	if o.post != "" {
		if _, err := post.ParseURL(o.post); err != nil {
			return err
		}
	}
	switch o.color {
	case "auto", "always", "never":
	default:
		return fmt.Errorf("-color: want auto, always or never, not %q", o.color)
	}
	if o.quiet && o.verbose {
		return fmt.Errorf("-quiet and -verbose exclude each other")
	}
	if o.json == "-" && o.junit == "-" {
		return fmt.Errorf("-json - and -junit - both want standard output: write one of them to a file")
	}
	if _, err := tests.ParseSeverity(o.failOn); err != nil {
		return err
	}
	// The output files before any check or cycle runs: a directory, a
	// read-only file or a directory this user may not write was found
	// only after every cycle of a long run.
	for _, p := range []string{o.json, o.junit} {
		if p != "" && p != "-" {
			if err := atomicfile.Check(p); err != nil {
				return err
			}
		}
	}
	if o.waivers != "" {
		if _, err := readWaivers(o.waivers); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes a results file atomically: a failed write never
// destroys what was at p (see internal/atomicfile).
func writeFile(p string, write func(io.Writer) error) error {
	return atomicfile.Write(p, 0, write)
}

func readWaivers(p string) ([]report.Waiver, error) {
	f, err := regfile.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ws, err := report.ReadWaivers(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	driver.CanonicalWaivers(ws, all.Checks())
	return ws, nil
}

// termWidth is the width the report wraps at: the terminal's, else
// $COLUMNS, else 80.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return report.DefaultWidth
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runCommands defines the run command(s): see commandTable.
func runCommands(add func(*command)) {
	c := &command{
		name:  "run",
		args:  "[ID…] [--category C] [--skip IDs] [--json FILE|-] [--junit FILE] [--from SNAPSHOT] [--acpidump FILE] [--klog FILE] [--profile sbbr]",
		short: "run checks on this machine, a snapshot, or dumps",
	}
	c.run = func(e *env, args []string) int {
		fs := newFlags(c)
		var cfg runConfig
		var cats, skip listFlag
		var out outputFlags
		out.register(fs)
		fs.Var(&cats, "category", "run only checks of these `categories` (acpi, bios, cpu, security, uefi, tpm, log, power)")
		fs.Var(&skip, "skip", "skip these check `IDs` (comma-separated)")
		fs.StringVar(&cfg.From, "from", "", "read inputs from a `SNAPSHOT` (.tar.gz or directory) made by 'fwcheck snapshot'")
		var acpidump, klogFile string
		fs.StringVar(&acpidump, "acpidump", "", "read ACPI tables from an acpidump text `FILE` or a directory of raw tables")
		fs.StringVar(&klogFile, "klog", "", "read the kernel log from a dmesg/journalctl text `FILE` (- for standard input)")
		fs.StringVar(&cfg.Root, "root", "/", hiddenUsage)
		profile := fs.String("profile", "", "apply a certification `PROFILE`: its own checks and severities (sbbr: Arm SBBR)")
		addCheckSettings(fs, &cfg.Settings)
		ids, code, ok := parseFlags(e, c, fs, args)
		if !ok {
			return code
		}
		var err error
		if cfg.Profile, err = all.Profile(*profile); err != nil {
			return fail(e, c, err)
		}
		if err := out.validate(); err != nil {
			return fail(e, c, err)
		}
		if err := fileInputs(&cfg, e, acpidump, klogFile); err != nil {
			return fail(e, c, err)
		}
		var named listFlag
		for _, id := range ids {
			named.Set(id) // "run fadt,hpet" as "run fadt hpet"
		}
		cfg.Selection = tests.Selection{IDs: named, Skip: skip}
		for _, cat := range cats {
			cfg.Selection.Categories = append(cfg.Selection.Categories, tests.Category(cat))
		}
		return out.run(e, c, &cfg)
	}
	add(c)

	l := &command{name: "list", args: "[--json] [--labels] [--profile NAME]", short: "list the checks"}
	l.run = func(e *env, args []string) int {
		fs := newFlags(l)
		asJSON := fs.Bool("json", false, "list as JSON")
		labels := fs.Bool("labels", false, "list the failure labels instead of the checks")
		profile := fs.String("profile", "", "include a certification `PROFILE`'s own checks, and list its label overrides")
		if _, code, ok := parseFlags(e, l, fs, args); !ok {
			return code
		}
		checks := all.Checks()
		pr, err := all.Profile(*profile)
		if err != nil {
			return fail(e, l, err)
		}
		if pr != nil {
			checks = tests.Sorted(append(checks, pr.Checks...))
		}
		if *labels {
			ls, err := tests.Labels(checks)
			if err != nil {
				return fail(e, l, err)
			}
			if *asJSON {
				return encodeJSON(e, l, ls)
			}
			for _, lb := range ls {
				fmt.Fprintf(e.stdout, "%-36s %-8s %-14s %s\n", lb.Name, lb.Severity, lb.Check, lb.Spec)
			}
			return exitOK
		}
		type entry struct {
			ID string `json:"id"`
			// Aliases are the check's former IDs, still accepted.
			Aliases  []string       `json:"aliases,omitempty"`
			Title    string         `json:"title"`
			Category tests.Category `json:"category"`
			Flags    []string       `json:"flags"`
			Inputs   []string       `json:"inputs"`
			Spec     string         `json:"spec"`
			Labels   int            `json:"labels"`
			Settings []string       `json:"settings,omitempty"`
			// FWTS names the fwts tests covering the same ground.
			FWTS []string `json:"fwts,omitempty"`
		}
		list := []entry{}
		for _, ch := range checks {
			en := entry{ID: ch.ID, Aliases: ch.Aliases, Title: ch.Title, Category: ch.Category, Flags: ch.Flags.Strings(), Spec: ch.Spec, Labels: len(ch.Labels), Inputs: []string{}}
			if ch.NeedsRoot() {
				en.Flags = append([]string{"needs-root"}, en.Flags...)
			}
			for _, in := range ch.Inputs {
				en.Inputs = append(en.Inputs, in.Name())
			}
			if ch.DataLabels != nil {
				if ls, err := ch.DataLabels(); err == nil {
					en.Labels += len(ls)
				}
			}
			for _, st := range ch.Settings {
				en.Settings = append(en.Settings, ch.ID+"."+st.Name())
			}
			en.FWTS = all.FWTS(ch.ID)
			list = append(list, en)
		}
		if *asJSON {
			return encodeJSON(e, l, list)
		}
		for i, en := range list {
			fmt.Fprintf(e.stdout, "%-14s %-6s %s", en.ID, en.Category, en.Title)
			if len(en.Flags) > 0 {
				fmt.Fprintf(e.stdout, " [%s]", strings.Join(en.Flags, ","))
			}
			if checks[i].Flags.RunsOnlyWhenNamed() {
				fmt.Fprint(e.stdout, " (runs only when named)")
			}
			if len(en.Aliases) > 0 {
				fmt.Fprintf(e.stdout, " (formerly %s)", strings.Join(en.Aliases, ", "))
			}
			if len(en.FWTS) > 0 {
				fmt.Fprintf(e.stdout, "  fwts: %s", strings.Join(en.FWTS, ","))
			}
			fmt.Fprintln(e.stdout)
		}
		if pr != nil {
			fmt.Fprintf(e.stdout, "\nprofile %s: %s (%s); under it:\n", pr.Name, pr.Title, pr.Spec)
			for _, o := range pr.Overrides {
				what := "a warning"
				if o.Severity != tests.None {
					what = o.Severity.String()
					if o.Warn {
						what = "a warning, " + what
					}
				}
				fmt.Fprintf(e.stdout, "  %-28s %s: %s\n", o.Label, what, o.Why)
			}
		}
		return exitOK
	}
	add(l)

	s := &command{name: "snapshot", args: "-o FILE.tar.gz [--redact] [--include-msdm] [--verbose]", short: "capture every input the checks read, to analyse elsewhere with --from"}
	s.run = func(e *env, args []string) int {
		fs := newFlags(s)
		outp := fs.String("o", "", "write the snapshot to `FILE` (.tar.gz; - for standard output)")
		root := fs.String("root", "/", hiddenUsage)
		var opts input.CaptureOptions
		fs.BoolVar(&opts.IncludeMSDM, "include-msdm", false, "keep the MSDM table, which holds the Windows product key (left out by default)")
		fs.BoolVar(&opts.Redact, "redact", false, "drop serial numbers, UUIDs and MAC addresses (DMI, SMBIOS, kernel log), to share the snapshot")
		verbose := fs.Bool("verbose", false, "list every path this machine lacks, not just the inputs they belong to")
		if _, code, ok := parseFlags(e, s, fs, args); !ok {
			return code
		}
		if *outp == "" {
			return fail(e, s, fmt.Errorf("-o FILE is required"))
		}
		if *outp != "-" {
			if err := atomicfile.Check(*outp); err != nil {
				return fail(e, s, err)
			}
		}
		order := snapshotInputs()
		var got input.Captured
		capture := func(w io.Writer) error {
			var err error
			got, err = input.CaptureReport(w, input.Live(*root), order, opts)
			return err
		}
		var err error
		if *outp == "-" {
			err = capture(e.stdout) // the archive on standard output
		} else {
			// Snapshots hold the kernel log and firmware tables: 0600.
			err = atomicfile.Write(*outp, 0o600, capture)
		}
		for _, n := range got.Notes {
			fmt.Fprintf(e.stderr, "fwcheck snapshot: %s\n", report.Sanitize(n, false))
		}
		snapshotSummary(e.stderr, got.Missing, *verbose)
		if err != nil {
			return fail(e, s, err)
		}
		if *outp != "-" {
			fmt.Fprintf(e.stdout, "snapshot written to %s\n", *outp)
		}
		return exitOK
	}
	add(s)
}

// snapshotInputs are the inputs a snapshot captures: the report's machine
// identity, then every input of every check.
func snapshotInputs() []input.Decl {
	seen := map[input.Decl]bool{}
	var order []input.Decl
	ins := []input.Decl{input.DMI, input.Kernel, input.Lockdown}
	for _, ch := range all.Checks() {
		ins = append(ins, ch.AllInputs()...)
	}
	for _, in := range ins {
		if !seen[in] {
			seen[in] = true
			order = append(order, in)
		}
	}
	return order
}

// addCheckSettings exposes the own settings of every check (or of the
// checks ids names) as --ID.NAME, and the klog check's database also as
// --klog-db (the name fwts users know), writing their values into set.
func addCheckSettings(fs *flag.FlagSet, set *tests.Settings, ids ...string) {
	for _, ch := range all.Checks() {
		if len(ids) > 0 && !slices.Contains(ids, ch.ID) {
			continue
		}
		for _, st := range ch.Settings {
			fs.Var(set.Flag(ch, st), ch.ID+"."+st.Name(), st.Usage())
		}
	}
	fs.Var(set.Flag(klogcheck.Check, klogcheck.DB), "klog-db", klogcheck.DB.Usage())
	// One name in the help: --klog-db, the one fwts users know.
	if f := fs.Lookup("klog.db"); f != nil {
		f.Usage = hiddenUsage
	}
}

// fileInputs records the inputs the user gave as files; "-" for the
// kernel log reads standard input.
func fileInputs(cfg *runConfig, e *env, acpidump, klogFile string) error {
	if cfg.Files.Files == nil {
		cfg.Files.Files = map[input.Decl]string{}
	}
	if acpidump != "" {
		// checked now, not when a check first needs the tables: a FIFO
		// or a device is a one-line error before any work
		if st, err := os.Stat(acpidump); err != nil || !st.IsDir() {
			f, err := regfile.Open(acpidump)
			if err != nil {
				return err
			}
			f.Close()
		}
		cfg.Files.Files[input.ACPITables] = acpidump
	}
	if klogFile != "" && klogFile != "-" {
		if st, err := os.Stat(klogFile); err == nil && !st.Mode().IsRegular() && st.Mode()&fs.ModeNamedPipe == 0 {
			return fmt.Errorf("%s: not a regular file or a pipe but %s", klogFile, regfile.Kind(st.Mode()))
		}
	}
	if klogFile != "" {
		cfg.Files.Files[input.KernelLog] = klogFile
		if klogFile == "-" {
			b, err := io.ReadAll(io.LimitReader(e.stdin, maxStdin+1))
			if err != nil {
				return err
			}
			if len(b) > maxStdin {
				return fmt.Errorf("standard input: larger than %d MiB, more than a kernel log holds", maxStdin>>20)
			}
			cfg.Files.Stdin = b
		}
	}
	return nil
}

// maxStdin bounds what standard input may bring (a kernel log): as much
// as a kernel-log file may hold.
const maxStdin = input.MaxSnapshotFile

func encodeJSON(e *env, c *command, v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(e, c, err)
	}
	return exitOK
}
