// Package sysdev reads sysfs device classes (/sys/class/thermal,
// /sys/class/power_supply) into typed values: thermal zones with their
// trip points and bound cooling devices, and power supplies (batteries,
// AC adapters). The attributes and units are those of the kernel's ABI
// documentation (Documentation/ABI/testing/sysfs-class-thermal and
// sysfs-class-power).
//
// A class directory holds symbolic links to its devices, and a thermal
// zone links to its cooling devices (cdevN); a snapshot of plain files
// cannot hold links, so a class is carried as a Dump: each attribute's
// value by its path below the class directory, and each link's target.
// ReadTree makes one from a directory tree (live sysfs, or a fixture tree
// of plain directories), Marshal and Unmarshal carry it in a snapshot.
//
// github.com/prometheus/procfs has sysfs readers for these classes, but it
// drops the cdev links and unreadable attributes (which are what a firmware
// check reports: a _TMP that fails reads as EIO) and would add a large
// dependency for a few dozen lines; so this package reads them itself.
package sysdev

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Bounds on what a dump keeps.
const (
	MaxDevices = 256
	MaxAttrs   = 64 * MaxDevices
	MaxValue   = 4096
)

// Dump is a sysfs class: attribute values and link targets by their path
// below the class directory ("thermal_zone0/temp", "thermal_zone0/cdev0").
// An attribute that exists but cannot be read has its error in Errors.
type Dump struct {
	Attrs  map[string]string
	Errors map[string]string
	Links  map[string]string
}

// NewDump returns an empty dump.
func NewDump() *Dump {
	return &Dump{Attrs: map[string]string{}, Errors: map[string]string{}, Links: map[string]string{}}
}

// Devices returns the device names in the dump, sorted.
func (d *Dump) Devices() []string {
	seen := map[string]bool{}
	for _, m := range []map[string]string{d.Attrs, d.Errors, d.Links} {
		for k := range m {
			dev, _, _ := strings.Cut(k, "/")
			seen[dev] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Get returns the attribute dev/name and whether it was read.
func (d *Dump) Get(dev, name string) (string, bool) {
	v, ok := d.Attrs[dev+"/"+name]
	return v, ok
}

// Int returns the attribute dev/name as an integer; ok is false when it is
// absent, unreadable or not a number.
func (d *Dump) Int(dev, name string) (int64, bool) {
	v, ok := d.Get(dev, name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// Err returns the read error of dev/name, or "".
func (d *Dump) Err(dev, name string) string { return d.Errors[dev+"/"+name] }

// Want says whether ReadTree reads a device's attribute or link.
type Want func(dev, name string) bool

// ReadTree reads the class directory dir of fsys: each entry is a device
// (a directory, or a link to one); within it the attributes want accepts
// are read, and links (when fsys can read them, fs.ReadLinkFS) are
// recorded by their target's base name.
func ReadTree(fsys fs.FS, dir string, want Want) (*Dump, error) {
	devs, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	d := NewDump()
	n := 0
	for i, dev := range devs {
		if i >= MaxDevices {
			break
		}
		p := path.Join(dir, dev.Name())
		ents, err := fs.ReadDir(fsys, p)
		if err != nil {
			continue // not a device directory
		}
		for _, e := range ents {
			if !want(dev.Name(), e.Name()) || n >= MaxAttrs {
				continue
			}
			n++
			key := dev.Name() + "/" + e.Name()
			q := path.Join(p, e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				if t, err := fs.ReadLink(fsys, q); err == nil {
					d.Links[key] = path.Base(t)
				}
				continue
			}
			if e.IsDir() {
				continue
			}
			v, err := readValue(fsys, q)
			if err != nil {
				d.Errors[key] = errText(err)
				continue
			}
			d.Attrs[key] = v
		}
	}
	return d, nil
}

// errText is an error's cause without the path ("input/output error",
// "no such device"), which is what a report needs and stable across
// machines.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func readValue(fsys fs.FS, p string) (string, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxValue+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxValue {
		return "", fmt.Errorf("longer than %d bytes", MaxValue)
	}
	return strings.TrimSpace(string(b)), nil
}

// Marshal writes the dump as text, one entry a line, sorted:
// "a PATH VALUE", "e PATH ERROR", "l PATH TARGET", with values quoted.
func (d *Dump) Marshal() []byte {
	var lines []string
	for _, x := range []struct {
		kind string
		m    map[string]string
	}{{"a", d.Attrs}, {"e", d.Errors}, {"l", d.Links}} {
		for k, v := range x.m {
			lines = append(lines, x.kind+" "+strconv.Quote(k)+" "+strconv.Quote(v))
		}
	}
	sort.Strings(lines)
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.Bytes()
}

// Unmarshal reads what Marshal wrote.
func Unmarshal(b []byte) (*Dump, error) {
	d := NewDump()
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 4*MaxValue+1024)
	n := 0
	for sc.Scan() {
		n++
		if n > 3*MaxAttrs {
			return nil, fmt.Errorf("more than %d entries", 3*MaxAttrs)
		}
		line := sc.Text()
		if line == "" {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		k, rest, err := unquoteField(rest)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		v, rest, err := unquoteField(rest)
		if err != nil || rest != "" {
			return nil, fmt.Errorf("line %d: bad value", n)
		}
		if dev, name, ok := strings.Cut(k, "/"); !ok || dev == "" || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("line %d: path %.60q is not DEVICE/ATTRIBUTE", n, k)
		}
		switch kind {
		case "a":
			d.Attrs[k] = v
		case "e":
			d.Errors[k] = v
		case "l":
			d.Links[k] = v
		default:
			return nil, fmt.Errorf("line %d: unknown kind %.10q", n, kind)
		}
	}
	return d, sc.Err()
}

func unquoteField(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", fmt.Errorf("not a quoted string: %.40q", s)
	}
	v, _ := strconv.Unquote(q)
	return v, strings.TrimPrefix(s[len(q):], " "), nil
}
