package acpi

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// SysfsDir is where Linux exposes the ACPI tables, relative to "/".
const SysfsDir = "sys/firmware/acpi/tables"

// LoadFS reads every table in directory dir of fsys (and its
// subdirectories): the sysfs layout (FACP, SSDT1, dynamic/SSDT3), acpixtract
// output (facp.dat, ssdt2.dat), raw .bin files, the RSDP/XSDT/RSDT files
// that WriteFiles records, or one QEMU test-table file per signature. The
// signature is taken from the table bytes where they hold one, else from the
// file name. sysfs's data/ blobs (BERT, BOOT regions) are not tables and are
// skipped. A QEMU test-table directory holds several configurations at once:
// LoadFS reads its base configuration, skips the variant files
// ("APIC.ioapic2") and says so in Warnings; load a variant with LoadQEMU.
func LoadFS(fsys fs.FS, dir string) (*Tables, error) {
	ts := &Tables{Source: dir}
	var names, variants []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (d.Name() == "data" || strings.HasPrefix(d.Name(), ".")) {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if isQEMUVariant(d.Name()) {
			variants = append(variants, p)
			return nil
		}
		if names = append(names, p); len(names) > MaxTables {
			return fmt.Errorf("more than %d tables in %s (real machines have under 100)", MaxTables, dir)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("acpi tables: %w", err)
	}
	sortTableFiles(names)
	for _, p := range names {
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("acpi tables: %w", err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		ts.add(&Table{Signature: tableSignature(path.Base(p), raw), Raw: raw, Origin: rel})
	}
	if len(variants) > 0 {
		ts.warnf("skipped %d QEMU variant files (%s …): they are alternative tables from QEMU's test suite, not part of one machine; give a directory that holds one machine's tables", len(variants), path.Base(variants[0]))
	}
	if len(ts.List) == 0 {
		return nil, fmt.Errorf("acpi tables: none in %s", dir)
	}
	return ts, nil
}

// isQEMUVariant recognises QEMU's per-configuration test tables, named
// "SIG.variant" ("APIC.ioapic2", "DSDT.tis.tpm12"), as opposed to table
// files with an extension ("facp.dat", "SSDT1.bin", "dsdt.aml").
func isQEMUVariant(name string) bool {
	sig, rest, ok := strings.Cut(name, ".")
	if !ok || len(sig) != 4 || !isSig([]byte(sig)) {
		return false
	}
	switch strings.ToLower(rest) {
	case "dat", "bin", "aml", "raw", "tbl":
		return false
	}
	return true
}

// sortTableFiles orders files the way sysfs numbers them: by directory
// (static tables before dynamic/), then by name with numeric suffixes in
// numeric order (SSDT2 before SSDT10).
func sortTableFiles(names []string) {
	key := func(p string) (string, string, int) {
		d, b := path.Split(p)
		stem := b
		if i := strings.IndexByte(stem, '.'); i >= 0 {
			stem = stem[:i]
		}
		j := len(stem)
		for j > 0 && stem[j-1] >= '0' && stem[j-1] <= '9' {
			j--
		}
		n, _ := strconv.Atoi(stem[j:])
		return d, strings.ToUpper(stem[:j]), n
	}
	sort.SliceStable(names, func(a, b int) bool {
		da, sa, na := key(names[a])
		db, sb, nb := key(names[b])
		if da != db {
			return da < db
		}
		if sa != sb {
			return sa < sb
		}
		if na != nb {
			return na < nb
		}
		return names[a] < names[b]
	})
}

func tableSignature(name string, raw []byte) string {
	if len(raw) >= 8 && string(raw[:8]) == "RSD PTR " {
		return SigRSDP
	}
	if len(raw) >= 4 && isSig(raw[:4]) {
		return string(raw[:4])
	}
	n := strings.ToUpper(name)
	if i := strings.IndexByte(n, '.'); i >= 0 {
		n = n[:i]
	}
	if n == "RSDP" {
		return SigRSDP
	}
	if len(n) > 4 {
		n = n[:4]
	}
	return n
}

func isSig(b []byte) bool {
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '!' || c == ' ') {
			return false
		}
	}
	return true
}

// QEMUVariants lists the configuration variants in a QEMU test-table
// directory (tests/data/acpi/<machine>): the suffixes after the signature
// in file names such as "APIC.ioapic2" or "DSDT.tis.tpm12", sorted. The base
// configuration (files named by signature alone) is the variant "".
func QEMUVariants(fsys fs.FS, dir string) ([]string, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if sig, v, ok := strings.Cut(e.Name(), "."); ok && len(sig) == 4 && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out, nil
}

// LoadQEMU loads one configuration from a QEMU test-table directory: the
// base files (named by signature alone), with each "SIG.variant" file
// replacing the base table of that signature and adding tables the base
// lacks. variant "" loads the base configuration.
func LoadQEMU(fsys fs.FS, dir, variant string) (*Tables, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("qemu tables: %w", err)
	}
	files := map[string]string{} // signature → file name
	var sigs []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		name := e.Name()
		sig, v, hasV := strings.Cut(name, ".")
		if len(sig) != 4 || (hasV && v != variant) || (!hasV && files[sig] != "") {
			continue
		}
		if _, ok := files[sig]; !ok {
			sigs = append(sigs, sig)
		}
		files[sig] = name
	}
	if len(sigs) == 0 {
		return nil, fmt.Errorf("qemu tables: none for variant %q in %s", variant, dir)
	}
	if len(sigs) > MaxTables {
		return nil, fmt.Errorf("qemu tables: more than %d in %s", MaxTables, dir)
	}
	sort.Strings(sigs)
	ts := &Tables{Source: path.Join(dir, variant)}
	for _, sig := range sigs {
		p := path.Join(dir, files[sig])
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("qemu tables: %w", err)
		}
		ts.add(&Table{Signature: tableSignature(files[sig], raw), Raw: raw, Origin: files[sig]})
	}
	return ts, nil
}

// WriteFiles writes each table's raw bytes to dir as a file named by
// Table.Name ("RSDP", "XSDT", "SSDT2"), so that LoadFS reads them back. A
// snapshot uses it to carry the root tables read from /dev/mem.
func WriteFiles(dir string, tables []*Table) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, t := range tables {
		if err := os.WriteFile(filepath.Join(dir, t.Name()), t.Raw, 0o644); err != nil {
			return err
		}
	}
	return nil
}
