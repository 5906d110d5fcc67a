package image

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Where the image builder puts the kernel modules, and the file that lists
// them in load order. Paths are relative to the initramfs root.
const (
	ModulesDir       = "lib/fwcheck/modules"
	ModuleOrderFile  = ModulesDir + "/order"
	moduleFileSuffix = ".ko"
)

// Module groups: GroupChecks modules are loaded before the checks run
// (efivarfs, msr, cpuid); GroupStorage modules (disk controllers, FAT) are
// only needed to find the results partition and load in the background.
const (
	GroupChecks  = "checks"
	GroupStorage = "storage"
	// GroupNet modules (network cards) are loaded only when the run
	// posts its results to a server (fwcheck.post=): see Live.NetUp.
	GroupNet = "net"
)

// ModuleEntry is one line of the module order file.
type ModuleEntry struct {
	Group string
	Name  string
}

// ParseModuleOrder reads a module order file: one "GROUP NAME" pair per
// line, in load order; '#' starts a comment.
func ParseModuleOrder(r io.Reader) ([]ModuleEntry, error) {
	var out []ModuleEntry
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || strings.ContainsAny(f[1], "/.") {
			return nil, fmt.Errorf("module order line %d: want GROUP NAME, got %q", n, sc.Text())
		}
		out = append(out, ModuleEntry{Group: f[0], Name: f[1]})
	}
	return out, sc.Err()
}

// FormatModuleOrder writes entries in the format ParseModuleOrder reads.
func FormatModuleOrder(w io.Writer, entries []ModuleEntry) error {
	if _, err := fmt.Fprintln(w, "# fwcheck live image: kernel modules in load order (GROUP NAME)"); err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := fmt.Fprintf(w, "%s %s\n", e.Group, e.Name); err != nil {
			return err
		}
	}
	return nil
}

// ModuleFile is the path of module name's object in the image.
func ModuleFile(name string) string { return ModulesDir + "/" + name + moduleFileSuffix }
