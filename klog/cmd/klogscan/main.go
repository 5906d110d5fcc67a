// Command klogscan lists the firmware-related kernel messages printed in a
// Linux source tree (printk/pr_*/dev_*/pci_*/acpi_handle_* format strings
// and ACPI_ERROR/ACPI_WARNING/ACPI_BIOS_ERROR/ACPI_EXCEPTION calls) and
// reports those the klog advice database does not cover yet.
//
//	klogscan [-all] [-json] [-dirs d1,d2] KERNEL-TREE
//
// By default only uncovered messages are printed, one per line as
// "file:line: macro: format". -all prints covered ones too (marked with the
// covering entry's label); -json prints candidate database entries for the
// uncovered messages, a starting point for new advice entries.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwcheck/fwcheck/klog"
)

var defaultDirs = []string{
	"drivers/acpi", "arch/x86/kernel", "drivers/firmware/efi", "drivers/pci",
	"drivers/iommu", "kernel/power",
}

func main() {
	all := flag.Bool("all", false, "print covered messages too")
	asJSON := flag.Bool("json", false, "print candidate database entries for uncovered messages")
	dirs := flag.String("dirs", strings.Join(defaultDirs, ","), "comma-separated directories to scan, relative to the tree")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: klogscan [-all] [-json] [-dirs d1,d2] KERNEL-TREE\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), strings.Split(*dirs, ","), *all, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "klogscan:", err)
		os.Exit(1)
	}
}

func run(tree string, dirs []string, all, asJSON bool) error {
	entries, err := klog.DefaultDB()
	if err != nil {
		return err
	}
	msgs, err := scanTree(tree, dirs)
	if err != nil {
		return err
	}
	covered := 0
	var cands []candidate
	for _, m := range msgs {
		e := coveredBy(entries, m)
		if e != nil {
			covered++
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
	fmt.Fprintf(os.Stderr, "klogscan: %d messages, %d covered, %d not covered\n", len(msgs), covered, len(msgs)-covered)
	return nil
}

// scanTree scans the .c files under tree/dir for each dir.
func scanTree(tree string, dirs []string) ([]Message, error) {
	var out []Message
	for _, d := range dirs {
		root := filepath.Join(tree, d)
		err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() || !strings.HasSuffix(p, ".c") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(tree, p)
			out = append(out, ScanSource(filepath.ToSlash(rel), string(src))...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// coveredBy returns the entry that covers m: one that matches a sample
// message built from the format, or whose literal text appears in it.
func coveredBy(entries []klog.Entry, m Message) *klog.Entry {
	sample := Sample(m.Format)
	for i := range entries {
		e := &entries[i]
		if e.Matches(sample) {
			return e
		}
		if e.Source != "" && e.Source == m.File && e.Literal != "" && strings.Contains(m.Format, e.Literal) {
			return e
		}
	}
	return nil
}

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
