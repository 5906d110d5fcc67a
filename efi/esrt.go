package efi

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// ESRTDir is where Linux shows the EFI System Resource Table.
const ESRTDir = "sys/firmware/efi/esrt"

// ESRT is the EFI System Resource Table as /sys/firmware/efi/esrt shows it
// (UEFI 2.10 §23.4).
type ESRT struct {
	Count, CountMax, Version uint64
	Entries                  []ESRTEntry
	// Problems are files that could not be read or parsed.
	Problems []string
}

// ESRTEntry is one EFI_SYSTEM_RESOURCE_ENTRY.
type ESRTEntry struct {
	Name                   string // entryN
	Class                  GUID
	Type                   uint32
	Version                uint32
	LowestSupportedVersion uint32
	CapsuleFlags           uint32
	LastAttemptVersion     uint32
	LastAttemptStatus      uint32
}

// Last attempt status values (UEFI 2.10 §23.4, Table 23.16).
var lastAttemptStatus = map[uint32]string{
	0: "success", 1: "unsuccessful", 2: "insufficient resources", 3: "incorrect version",
	4: "invalid format", 5: "authentication error", 6: "power event (AC)", 7: "power event (battery)",
	8: "unsatisfied dependencies",
}

// LastAttemptStatusText names a last attempt status.
func LastAttemptStatusText(s uint32) string {
	if t, ok := lastAttemptStatus[s]; ok {
		return t
	}
	if s >= 0x1000 && s <= 0x4000 {
		return fmt.Sprintf("vendor-specific error 0x%x", s)
	}
	return fmt.Sprintf("reserved value 0x%x", s)
}

// ErrNoESRT says the machine shows no ESRT.
var ErrNoESRT = errors.New("no ESRT at /" + ESRTDir)

// ReadESRT reads the ESRT from dir (ESRTDir on a machine) of fsys.
func ReadESRT(fsys fs.FS, dir string) (*ESRT, error) {
	if _, err := fs.Stat(fsys, dir); errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoESRT
	}
	e := &ESRT{}
	num := func(p string, v *uint64) {
		b, err := fs.ReadFile(fsys, path.Join(dir, p))
		if err != nil {
			e.Problems = append(e.Problems, err.Error())
			return
		}
		x, err := strconv.ParseUint(strings.TrimSpace(string(b)), 0, 64)
		if err != nil {
			e.Problems = append(e.Problems, fmt.Sprintf("%s: %v", p, err))
			return
		}
		*v = x
	}
	num("fw_resource_count", &e.Count)
	num("fw_resource_count_max", &e.CountMax)
	num("fw_resource_version", &e.Version)
	ents, err := fs.ReadDir(fsys, path.Join(dir, "entries"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, d := range ents {
		if !strings.HasPrefix(d.Name(), "entry") {
			continue
		}
		en := ESRTEntry{Name: d.Name()}
		p := path.Join("entries", d.Name())
		b, err := fs.ReadFile(fsys, path.Join(dir, p, "fw_class"))
		if err == nil {
			en.Class, err = ParseGUID(strings.TrimSpace(string(b)))
		}
		if err != nil {
			e.Problems = append(e.Problems, fmt.Sprintf("%s/fw_class: %v", p, err))
		}
		for _, f := range []struct {
			name string
			v    *uint32
		}{{"fw_type", &en.Type}, {"fw_version", &en.Version}, {"lowest_supported_fw_version", &en.LowestSupportedVersion},
			{"capsule_flags", &en.CapsuleFlags}, {"last_attempt_version", &en.LastAttemptVersion}, {"last_attempt_status", &en.LastAttemptStatus}} {
			var x uint64
			num(path.Join(p, f.name), &x)
			*f.v = uint32(x)
		}
		e.Entries = append(e.Entries, en)
	}
	sort.Slice(e.Entries, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(e.Entries[i].Name, "entry"))
		b, _ := strconv.Atoi(strings.TrimPrefix(e.Entries[j].Name, "entry"))
		return a < b
	})
	return e, nil
}
