package mkimage

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// KernelRelease returns the release string ("6.1.0-57-amd64") of an x86
// bzImage, read from the kernel_version field of its boot protocol header,
// or of an arm64 Image, read from its Linux banner (see arm64Release).
func KernelRelease(vmlinuz string) (string, error) {
	f, err := os.Open(vmlinuz)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return kernelRelease(f)
}

func kernelRelease(r io.ReaderAt) (string, error) {
	hdr := make([]byte, 0x210)
	if _, err := r.ReadAt(hdr, 0); err != nil {
		return "", fmt.Errorf("kernel: reading boot header: %w", err)
	}
	if string(hdr[0x202:0x206]) != "HdrS" {
		if isArm64Image(hdr) {
			return arm64Release(r)
		}
		return "", errors.New("kernel: not a bzImage (no HdrS boot header), nor an arm64 Image")
	}
	off := int64(binary.LittleEndian.Uint16(hdr[0x20e:])) + 0x200
	if off == 0x200 {
		return "", errors.New("kernel: bzImage has no kernel_version string")
	}
	buf := make([]byte, 256)
	n, err := r.ReadAt(buf, off)
	if n == 0 && err != nil {
		return "", fmt.Errorf("kernel: reading version string: %w", err)
	}
	buf = buf[:n]
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	fields := strings.Fields(string(buf))
	if len(fields) == 0 {
		return "", errors.New("kernel: empty kernel_version string")
	}
	return fields[0], nil
}

// ModuleSet is the dependency information of one kernel's modules, read
// from modules.dep and modules.builtin in its /lib/modules/RELEASE directory.
type ModuleSet struct {
	Dir     string
	deps    map[string][]string // module name -> dependency names
	path    map[string]string   // module name -> path relative to Dir
	builtin map[string]bool
}

// ModuleName normalises a module file name or name: "usb-storage.ko.xz" and
// "usb_storage" both give "usb_storage".
func ModuleName(s string) string {
	s = filepath.Base(s)
	for _, ext := range []string{".xz", ".zst", ".gz"} {
		s = strings.TrimSuffix(s, ext)
	}
	s = strings.TrimSuffix(s, ".ko")
	return strings.ReplaceAll(s, "-", "_")
}

// ReadModuleSet reads modules.dep (required) and modules.builtin (optional)
// from dir.
func ReadModuleSet(dir string) (*ModuleSet, error) {
	m := &ModuleSet{Dir: dir, deps: map[string][]string{}, path: map[string]string{}, builtin: map[string]bool{}}
	dep, err := os.Open(filepath.Join(dir, "modules.dep"))
	if err != nil {
		return nil, fmt.Errorf("modules: %w", err)
	}
	defer dep.Close()
	if err := m.parseDep(dep); err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "modules.builtin")); err == nil {
		for _, line := range strings.Fields(string(b)) {
			m.builtin[ModuleName(line)] = true
		}
	}
	return m, nil
}

func (m *ModuleSet) parseDep(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		file, rest, ok := strings.Cut(line, ":")
		if !ok {
			return fmt.Errorf("modules.dep: malformed line %q", line)
		}
		name := ModuleName(file)
		m.path[name] = file
		var deps []string
		for _, d := range strings.Fields(rest) {
			deps = append(deps, ModuleName(d))
		}
		m.deps[name] = deps
	}
	return sc.Err()
}

// Resolve returns the modules to load for the given names, dependencies
// first, each once. Built-in modules are left out; names the kernel knows
// nothing about are returned in missing.
func (m *ModuleSet) Resolve(names ...string) (order []string, missing []string) {
	seen := map[string]bool{}
	var visit func(n string, stack map[string]bool)
	visit = func(n string, stack map[string]bool) {
		if seen[n] || stack[n] {
			return
		}
		stack[n] = true
		for _, d := range m.deps[n] {
			visit(d, stack)
		}
		delete(stack, n)
		seen[n] = true
		order = append(order, n)
	}
	for _, raw := range names {
		n := ModuleName(raw)
		switch {
		case m.builtin[n]:
		case m.path[n] == "":
			missing = append(missing, n)
		default:
			visit(n, map[string]bool{})
		}
	}
	return order, missing
}

// Path returns the file of module name relative to m.Dir.
func (m *ModuleSet) Path(name string) string { return m.path[ModuleName(name)] }

// ReadModule returns the uncompressed ELF object of a module file, which
// may be plain or compressed with xz, zstd or gzip.
func ReadModule(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	switch {
	case strings.HasSuffix(file, ".xz"):
		xr, err := xz.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		r = xr
	case strings.HasSuffix(file, ".zst"):
		zr, err := zstd.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		defer zr.Close()
		r = zr
	case strings.HasSuffix(file, ".gz"):
		gr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		r = gr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if !bytes.HasPrefix(b, []byte("\x7fELF")) {
		return nil, fmt.Errorf("%s: not an ELF kernel module", file)
	}
	return b, nil
}
