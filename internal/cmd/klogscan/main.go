// Command klogscan lists the firmware-related kernel messages printed in a
// Linux source tree (printk/pr_*/dev_*/pci_*/acpi_handle_* format strings
// and ACPI_ERROR/ACPI_WARNING/ACPI_BIOS_ERROR/ACPI_EXCEPTION calls) and
// reports those the klog advice database does not cover yet.
//
//	klogscan [-all] [-json] [-blame] [-dirs d1,d2|.] KERNEL-TREE|linux-source.tar.xz
//
// By default only uncovered messages are printed, one per line as
// "file:line: macro: format". -all prints covered ones too (marked with the
// covering entry's label); -json prints candidate database entries for the
// uncovered messages, a starting point for new advice entries. -blame keeps
// only the messages that blame the platform firmware (see Blames) and
// reports the share the database covers. A tree may be a directory or a
// tar archive (.tar, .tar.gz, or .tar.xz through the xz command), read as
// a stream; files are scanned in parallel. Literal search finds the
// printing calls (the regular expression runs only where one starts), and
// the database's own prefilter matcher decides coverage.
package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/klog"
)

// defaultDirs are scanned for every message when no -dirs are given.
var defaultDirs = []string{
	"drivers/acpi", "arch/x86/kernel", "drivers/firmware/efi", "drivers/pci",
	"drivers/iommu", "kernel/power",
}

// blameDirs are what -blame scans by default: the kernel's platform code
// and the drivers of platform devices, where the messages about the
// machine's firmware are (not those about a device's own firmware file).
var blameDirs = []string{
	"arch/x86", "arch/arm64/kernel", "drivers/acpi", "drivers/firmware", "drivers/pci", "drivers/iommu",
	"drivers/platform/x86", "drivers/cpufreq", "drivers/idle", "drivers/thermal", "drivers/edac",
	"drivers/char/tpm", "drivers/char/agp", "drivers/pnp", "drivers/clocksource", "drivers/ata",
	"drivers/i2c/busses", "drivers/gpu/drm/i915", "drivers/hwmon", "drivers/mfd", "drivers/watchdog",
	"drivers/usb/core", "drivers/usb/host", "drivers/base", "drivers/rtc", "drivers/perf", "drivers/ras",
	"drivers/mailbox", "drivers/powercap", "drivers/xen", "drivers/hv", "drivers/virt",
	"kernel", "mm", "init",
}

// skipTop are the top-level directories a whole-tree scan (-dirs .) leaves
// out: no kernel code, or architectures other than x86 and arm64, which the
// database does not target.
var skipTop = map[string]bool{"Documentation": true, "tools": true, "samples": true, "scripts": true, "usr": true, "LICENSES": true}

func main() {
	all := flag.Bool("all", false, "print covered messages too")
	asJSON := flag.Bool("json", false, "print candidate database entries for uncovered messages")
	blame := flag.Bool("blame", false, "only messages that blame the platform firmware (FW_BUG/FW_WARN/FW_INFO, ACPI_BIOS_*, ACPI_EXCEPTION, BIOS or platform-firmware wording with a complaint), in the platform code and drivers unless -dirs is given; prints the share the database covers")
	dirs := flag.String("dirs", "", "comma-separated directories to scan, relative to the tree, or . for the whole tree (default: "+strings.Join(defaultDirs, ",")+"; with -blame, "+strings.Join(blameDirs, ",")+")")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: klogscan [-all] [-json] [-blame] [-dirs d1,d2] KERNEL-TREE|linux-source.tar.xz\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	var ds []string
	switch {
	case *dirs == ".":
	case *dirs != "":
		ds = strings.Split(*dirs, ",")
	case *blame:
		ds = blameDirs
	default:
		ds = defaultDirs
	}
	if err := run(flag.Arg(0), ds, *all, *asJSON, *blame); err != nil {
		fmt.Fprintln(os.Stderr, "klogscan:", err)
		os.Exit(1)
	}
}

func run(tree string, dirs []string, all, asJSON, blame bool) error {
	entries, err := klog.DefaultDB()
	if err != nil {
		return err
	}
	msgs, err := Scan(tree, dirs)
	if err != nil {
		return err
	}
	if blame {
		msgs = slices.DeleteFunc(msgs, func(m Message) bool { return !Blames(m) })
	}
	cov, err := newCoverage(entries)
	if err != nil {
		return err
	}
	covered, general := 0, 0
	var cands []candidate
	for _, m := range msgs {
		e := cov.by(m)
		if e != nil {
			covered++
			if catchAll(e) {
				general++
			}
			if all && !asJSON {
				fmt.Printf("%s:%d: %s: %q [%s]\n", m.File, m.Line, m.Macro, m.Format, e.Label)
			}
			continue
		}
		if asJSON {
			cands = append(cands, candidateFor(m))
			continue
		}
		fmt.Printf("%s:%d: %s: %q\n", m.File, m.Line, m.Macro, m.Format)
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(cands); err != nil {
			return err
		}
	}
	what := "messages"
	if blame {
		what = "firmware-blaming messages"
	}
	fmt.Fprintf(os.Stderr, "klogscan: %d %s, %d covered (%.1f%%; %d of them only by a catch-all entry), %d not covered\n",
		len(msgs), what, covered, percent(covered, len(msgs)), general, len(msgs)-covered)
	return nil
}

func percent(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// Scan returns the messages printed in the C files of a kernel tree (a
// directory, or a .tar, .tar.xz or .tar.gz of one, read as a stream) below
// dirs, or below the whole tree but skipTop and architectures other than
// x86 and arm64 when dirs is empty; in file and line order.
func Scan(tree string, dirs []string) ([]Message, error) {
	type file struct {
		rel string
		src []byte
	}
	files := make(chan file, 64)
	results := make(chan []Message, 64)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range files {
				results <- ScanSource(f.rel, string(f.src))
			}
		}()
	}
	var out []Message
	done := make(chan struct{})
	go func() {
		for ms := range results {
			out = append(out, ms...)
		}
		close(done)
	}()
	err := walkSources(tree, dirs, func(rel string, src []byte) { files <- file{rel, src} })
	close(files)
	wg.Wait()
	close(results)
	<-done
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Message) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return out, nil
}

// wanted reports whether the C file rel (relative to the tree's top) is
// scanned.
func wanted(rel string, dirs []string) bool {
	if !strings.HasSuffix(rel, ".c") {
		return false
	}
	if len(dirs) > 0 {
		for _, d := range dirs {
			if d = strings.Trim(d, "/"); strings.HasPrefix(rel, d+"/") {
				return true
			}
		}
		return false
	}
	top, rest, _ := strings.Cut(rel, "/")
	if skipTop[top] {
		return false
	}
	if top == "arch" {
		a, _, _ := strings.Cut(rest, "/")
		return a == "x86" || a == "arm64"
	}
	return true
}

// walkSources calls fn with every wanted C file of the tree.
func walkSources(tree string, dirs []string, fn func(rel string, src []byte)) error {
	if st, err := os.Stat(tree); err != nil {
		return err
	} else if !st.IsDir() {
		return walkTar(tree, dirs, fn)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(tree, d)); err != nil {
			return err
		}
	}
	return filepath.WalkDir(tree, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tree, p)
		rel = filepath.ToSlash(rel)
		if de.IsDir() {
			if top, _, _ := strings.Cut(rel, "/"); len(dirs) == 0 && skipTop[top] {
				return filepath.SkipDir
			}
			return nil
		}
		if !wanted(rel, dirs) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fn(rel, src)
		return nil
	})
}

// walkTar reads a tar archive of a tree (its first path component, e.g.
// "linux-source-6.1/", is the tree's top), decompressing .xz through the
// xz command and .gz in process.
func walkTar(name string, dirs []string, fn func(rel string, src []byte)) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	switch {
	case strings.HasSuffix(name, ".xz"):
		cmd := exec.Command("xz", "-dc", "-T0")
		cmd.Stdin = f
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("%s: %w (the xz command reads .xz archives)", name, err)
		}
		defer cmd.Wait()
		defer pipe.Close()
		r = pipe
	case strings.HasSuffix(name, ".gz"):
		zr, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		r = zr
	}
	tr := tar.NewReader(bufio.NewReaderSize(r, 1<<20))
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, ok := strings.Cut(h.Name, "/")
		if !ok || !wanted(rel, dirs) {
			continue
		}
		src, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", name, h.Name, err)
		}
		n++
		fn(rel, src)
	}
	if n == 0 {
		return fmt.Errorf("%s: no C files below %v", name, dirs)
	}
	return nil
}

// coverage finds the database entry that covers a message.
type coverage struct {
	entries []klog.Entry
	m       *klog.Matcher
}

func newCoverage(entries []klog.Entry) (*coverage, error) {
	// Every entry counts, whatever machine or kernel it is scoped to.
	all := make([]klog.Entry, len(entries))
	for i, e := range entries {
		e.Scope = nil
		all[i] = e
	}
	m, err := klog.NewMatcher(all, klog.Env{})
	return &coverage{all, m}, err
}

// by returns the entry that covers m: one that matches a sample message
// built from the format, or whose literal text appears in it and which
// names m's file as its source.
func (c *coverage) by(m Message) *klog.Entry {
	sample := Sample(m.Format)
	if e := c.m.Match(sample); e != nil && !catchAll(e) {
		return e
	}
	// An ACPICA exception names its status first: entries may be written
	// for one status.
	if rest, ok := strings.CutPrefix(sample, "ACPI Error: foo, "); ok {
		for _, st := range acpiStatuses {
			if e := c.m.Match("ACPI Error: " + st + ", " + rest); e != nil && !catchAll(e) {
				return e
			}
		}
	}
	for i := range c.entries {
		e := &c.entries[i]
		if e.Source != "" && e.Source == m.File && e.Literal != "" && strings.Contains(m.Format, e.Literal) {
			return e
		}
	}
	if rest, ok := strings.CutPrefix(sample, "ACPI Error: foo, "); ok {
		sample = "ACPI Error: AE_ERROR, " + rest
	}
	return c.m.Match(sample)
}

// acpiStatuses are the ACPICA statuses tried for exception messages.
var acpiStatuses = []string{"AE_NOT_FOUND", "AE_ERROR", "AE_ALREADY_EXISTS", "AE_AML_OPERAND_TYPE", "AE_AML_BUFFER_LIMIT",
	"AE_AML_PACKAGE_LIMIT", "AE_TIME", "AE_NO_MEMORY", "AE_BAD_PARAMETER", "AE_NOT_EXIST", "AE_TYPE", "AE_LIMIT", "AE_SUPPORT"}

// catchAll reports whether e is one of the database's catch-all entries
// ("…Other"), which cover a message only when no specific entry does.
func catchAll(e *klog.Entry) bool { return strings.HasSuffix(e.Label, "Other") }

// candidate is a database entry skeleton for an uncovered message.
type candidate struct {
	Label    string   `json:"label"`
	Regex    string   `json:"regex,omitempty"`
	Literal  string   `json:"literal,omitempty"`
	Severity string   `json:"severity"`
	Category string   `json:"category"`
	Advice   string   `json:"advice"`
	Source   string   `json:"source"`
	Examples []string `json:"examples"`
}

func candidateFor(m Message) candidate {
	c := candidate{Source: m.File, Severity: "medium", Category: categoryOf(m.File), Examples: []string{Sample(m.Format)}}
	if r, lit := Regex(m.Format); lit {
		c.Literal = m.Format
	} else {
		c.Regex = r
	}
	return c
}

func categoryOf(file string) string {
	switch {
	case strings.Contains(file, "efi"):
		return "efi"
	case strings.Contains(file, "iommu") || strings.Contains(file, "dmar"):
		return "iommu"
	case strings.Contains(file, "pci"):
		return "pci"
	case strings.Contains(file, "hpet"):
		return "hpet"
	case strings.Contains(file, "mtrr"):
		return "mtrr"
	case strings.Contains(file, "power"):
		return "suspend"
	case strings.Contains(file, "acpi"):
		return "acpi"
	}
	return "cpu"
}
