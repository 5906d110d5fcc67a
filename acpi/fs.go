package acpi

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// SysfsDir is where Linux exposes the ACPI tables, relative to "/".
const SysfsDir = "sys/firmware/acpi/tables"

// LoadFS reads a directory of raw tables from fsys: the sysfs layout
// (FACP, SSDT1, dynamic/SSDT3), acpixtract output (facp.dat) or QEMU's test
// tables (APIC.ioapic2). The signature is taken from the table bytes where
// they hold one.
func LoadFS(fsys fs.FS, dir string) (*Tables, error) {
	ts := &Tables{Source: dir}
	var names []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("acpi tables: %w", err)
	}
	sort.Strings(names)
	for _, p := range names {
		base := path.Base(p)
		if base == "data" || strings.HasPrefix(path.Dir(p), path.Join(dir, "data")) {
			continue // sysfs BERT/BOOT data blobs, not tables
		}
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("acpi tables: %w", err)
		}
		sig := tableSignature(base, raw)
		ts.add(&Table{Signature: sig, Raw: raw, Origin: strings.TrimPrefix(p, dir+"/")})
	}
	if len(ts.List) == 0 {
		return nil, fmt.Errorf("acpi tables: none in %s", dir)
	}
	return ts, nil
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
