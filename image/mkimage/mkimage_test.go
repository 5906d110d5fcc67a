package mkimage

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"
	"golang.org/x/mod/modfile"
)

// bzImage returns the start of a bzImage whose kernel_version string is v.
func bzImage(v string) []byte {
	b := make([]byte, 0x400)
	copy(b[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(b[0x20e:], 0x100) // string at 0x300
	copy(b[0x300:], v+"\x00")
	return b
}

func TestKernelRelease(t *testing.T) {
	rel, err := kernelRelease(bytes.NewReader(bzImage("6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP")))
	require.NoError(t, err)
	assert.Equal(t, "6.1.0-57-amd64", rel)

	for name, b := range map[string][]byte{
		"short":      make([]byte, 100),
		"no HdrS":    make([]byte, 0x400),
		"no version": func() []byte { b := bzImage("x"); b[0x20e], b[0x20f] = 0, 0; return b }(),
		"empty":      bzImage(""),
	} {
		_, err := kernelRelease(bytes.NewReader(b))
		assert.Error(t, err, name)
	}
}

// TestKernelReleaseOfInstalledKernels reads the real kernels in /boot:
// each release must name a directory under /lib/modules.
func TestKernelReleaseOfInstalledKernels(t *testing.T) {
	ks, _ := filepath.Glob("/boot/vmlinuz-*")
	n := 0
	for _, k := range ks {
		rel, err := KernelRelease(k)
		if os.IsPermission(err) {
			continue
		}
		require.NoError(t, err, k)
		assert.Equal(t, strings.TrimPrefix(filepath.Base(k), "vmlinuz-"), rel, "Debian names the file after the release")
		n++
	}
	if n == 0 {
		t.Skip("no readable kernel in /boot")
	}
}

func FuzzKernelRelease(f *testing.F) {
	f.Add(bzImage("6.1.0-57-amd64 (x) #1"))
	f.Add(bzImage(""))
	f.Add([]byte("HdrS"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rel, err := kernelRelease(bytes.NewReader(b))
		if err == nil && (rel == "" || strings.ContainsAny(rel, " \x00")) {
			t.Fatalf("release %q", rel)
		}
	})
}

func TestResolve(t *testing.T) {
	set, err := ReadModuleSet("testdata/modules")
	require.NoError(t, err)
	order, missing := set.Resolve("uas", "sd_mod", "efivarfs", "ahci", "vfat", "nosuch", "usb-storage")
	assert.Equal(t, []string{"nosuch"}, missing, "built-in modules are not missing")
	assert.Equal(t, []string{
		"scsi_common", "scsi_mod", "usb_storage", "uas",
		"crct10dif_common", "crc_t10dif", "sd_mod",
		"fat", "vfat",
	}, order, "dependencies first, each once")
	assert.Equal(t, "kernel/fs/fat/fat.ko.gz", set.Path("fat"))
	assert.Equal(t, "kernel/drivers/usb/storage/usb-storage.ko", set.Path("usb-storage"))

	_, err = ReadModuleSet(t.TempDir())
	assert.Error(t, err, "no modules.dep")
}

func TestResolveCycleTerminates(t *testing.T) {
	m := &ModuleSet{deps: map[string][]string{}, path: map[string]string{}, builtin: map[string]bool{}}
	require.NoError(t, m.parseDep(strings.NewReader("a.ko: b.ko\nb.ko: a.ko\n")))
	order, _ := m.Resolve("a")
	assert.ElementsMatch(t, []string{"a", "b"}, order)
}

func TestModuleName(t *testing.T) {
	for in, want := range map[string]string{
		"kernel/drivers/usb/storage/usb-storage.ko.zst": "usb_storage",
		"msr.ko.xz": "msr", "fat.ko.gz": "fat", "nls_cp437": "nls_cp437", "crc-t10dif": "crc_t10dif",
	} {
		assert.Equal(t, want, ModuleName(in), in)
	}
}

func FuzzParseModulesDep(f *testing.F) {
	b, err := os.ReadFile("testdata/modules/modules.dep")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("a.ko: b.ko\nb.ko: a.ko\n")
	f.Add("no colon\n")
	f.Fuzz(func(t *testing.T, s string) {
		m := &ModuleSet{deps: map[string][]string{}, path: map[string]string{}, builtin: map[string]bool{}}
		if m.parseDep(strings.NewReader(s)) != nil {
			return
		}
		var names []string
		for n := range m.path {
			names = append(names, n)
		}
		order, missing := m.Resolve(names...)
		seen := map[string]bool{}
		for _, n := range order {
			if seen[n] {
				t.Fatalf("%s twice in %v", n, order)
			}
			seen[n] = true
		}
		_ = missing
	})
}

// TestReadModule decompresses each supported format.
func TestReadModule(t *testing.T) {
	obj := append([]byte("\x7fELF\x02\x01\x01"), bytes.Repeat([]byte{0xaa}, 1000)...)
	dir := t.TempDir()
	write := func(name string, compress func(w *bytes.Buffer)) string {
		var buf bytes.Buffer
		compress(&buf)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		return p
	}
	files := []string{
		write("plain.ko", func(w *bytes.Buffer) { w.Write(obj) }),
		write("x.ko.xz", func(w *bytes.Buffer) {
			xw, err := xz.NewWriter(w)
			require.NoError(t, err)
			xw.Write(obj)
			require.NoError(t, xw.Close())
		}),
		write("z.ko.zst", func(w *bytes.Buffer) {
			zw, err := zstd.NewWriter(w)
			require.NoError(t, err)
			zw.Write(obj)
			require.NoError(t, zw.Close())
		}),
		write("g.ko.gz", func(w *bytes.Buffer) {
			gw := gzip.NewWriter(w)
			gw.Write(obj)
			require.NoError(t, gw.Close())
		}),
	}
	for _, f := range files {
		got, err := ReadModule(f)
		require.NoError(t, err, f)
		assert.Equal(t, obj, got, f)
	}
	for name, content := range map[string][]byte{"notelf.ko": []byte("hello"), "bad.ko.xz": []byte("not xz"), "bad.ko.zst": []byte("not zstd"), "bad.ko.gz": []byte("nope")} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, content, 0o644))
		_, err := ReadModule(p)
		assert.Error(t, err, name)
	}
	_, err := ReadModule(filepath.Join(dir, "absent.ko"))
	assert.Error(t, err)
}

// TestInstalledKernelHasCheckModules checks, on a machine with a kernel's
// modules installed, that the modules fwcheck loads exist (or are built in)
// and read as ELF objects.
func TestInstalledKernelHasCheckModules(t *testing.T) {
	dirs, _ := filepath.Glob("/lib/modules/*/modules.dep")
	if len(dirs) == 0 {
		t.Skip("no kernel modules installed under /lib/modules")
	}
	set, err := ReadModuleSet(filepath.Dir(dirs[len(dirs)-1]))
	require.NoError(t, err)
	order, missing := set.Resolve(CheckModules...)
	assert.Empty(t, missing)
	for _, m := range order {
		_, err := ReadModule(filepath.Join(set.Dir, set.Path(m)))
		assert.NoError(t, err, m)
	}
}

// TestInstalledKernelHasStorageModules checks that the installed kernel
// has a driver for every bus the results disk may be on, and that the
// dependencies come before the drivers that need them (mmc_core before
// mmc_block and sdhci_pci, scsi_mod before virtio_scsi).
func TestInstalledKernelHasStorageModules(t *testing.T) {
	dirs, _ := filepath.Glob("/lib/modules/*/modules.dep")
	if len(dirs) == 0 {
		t.Skip("no kernel modules installed under /lib/modules")
	}
	set, err := ReadModuleSet(filepath.Dir(dirs[len(dirs)-1]))
	require.NoError(t, err)
	order, missing := set.Resolve(StorageModules...)
	assert.Empty(t, missing, "modules of %s", set.Dir)
	pos := map[string]int{}
	for i, m := range order {
		pos[m] = i + 1
	}
	for _, bus := range []string{"ahci", "ata_piix", "nvme", "virtio_blk", "virtio_scsi", "usb_storage", "uas", "sdhci_pci", "mmc_block"} {
		assert.NotZero(t, pos[bus], "%s is loaded", bus)
	}
	for _, dep := range [][2]string{{"mmc_core", "mmc_block"}, {"mmc_core", "sdhci_pci"}, {"scsi_mod", "virtio_scsi"}} {
		if pos[dep[0]] != 0 { // built in on some kernels
			assert.Less(t, pos[dep[0]], pos[dep[1]], "%s before %s", dep[0], dep[1])
		}
	}
}

func TestFindSource(t *testing.T) {
	root, err := FindSource(".")
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(root, "cmd/fwcheck/main.go"))
	_, err = FindSource(t.TempDir())
	assert.ErrorContains(t, err, "not inside the fwcheck source tree")
	assert.Equal(t, "example.com/x", modulePath("// c\nmodule example.com/x\n\ngo 1.26\n"))
}

func TestBuildNeedsOutputAndKernel(t *testing.T) {
	_, err := Build(Options{})
	assert.ErrorContains(t, err, "no output")
	_, err = Build(Options{Output: filepath.Join(t.TempDir(), "x.cpio.gz")})
	assert.ErrorContains(t, err, "no kernel")
	_, err = Build(Options{Output: filepath.Join(t.TempDir(), "x.cpio.gz"), Kernel: "testdata/modules/modules.dep"})
	assert.ErrorContains(t, err, "not a bzImage")
}

func TestBuildOpts(t *testing.T) {
	assert.Empty(t, buildOpts("").ExtraArgs, "no version: the library's defaults")
	o := buildOpts("v1.2")
	assert.True(t, o.NoStrip)
	assert.Equal(t, []string{"-ldflags=-s -w -buildid= -X github.com/fwcheck/fwcheck/image.Version=v1.2"}, o.ExtraArgs)
}

// TestCommandsAreModuleTools keeps the image's u-root commands in go.mod's
// tool directives: without one, go mod tidy drops a command's own
// dependencies (gosh's line editor) and the image stops building.
func TestCommandsAreModuleTools(t *testing.T) {
	root, err := FindSource(".")
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	mf, err := modfile.Parse("go.mod", b, nil)
	require.NoError(t, err)
	tools := map[string]bool{}
	for _, tl := range mf.Tool {
		tools[tl.Path] = true
	}
	for _, c := range append([]string{"core/init", "core/gosh"}, Commands...) {
		assert.True(t, tools["github.com/u-root/u-root/cmds/"+c], "go get -tool github.com/u-root/u-root/cmds/%s", c)
	}
}

func TestCompressionByName(t *testing.T) {
	for name, want := range map[string]string{"out/fwcheck.cpio.lz4": "lz4", "a.cpio.zst": "zstd", "a.cpio.gz": "gzip", "a.cpio": "none"} {
		got, err := Compression(name)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	_, err := Compression("fwcheck.img")
	assert.ErrorContains(t, err, ".cpio.zst")
	_, err = Build(Options{Output: filepath.Join(t.TempDir(), "x.xz"), Kernel: "testdata/modules/modules.dep"})
	assert.ErrorContains(t, err, "name the initramfs", "refused before the slow build")
}

// TestCompressFileRoundTrip writes one file each way and reads it back with
// the decompressor the kernel's format implies.
func TestCompressFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.cpio")
	data := bytes.Repeat([]byte("070701 fwcheck initramfs "), 40000)
	require.NoError(t, os.WriteFile(src, data, 0o644))
	for _, name := range []string{"o.cpio.lz4", "o.cpio.zst", "o.cpio.gz", "o.cpio"} {
		dst := filepath.Join(dir, name)
		raw, size, err := compressFile(src, dst)
		require.NoError(t, err, name)
		assert.Equal(t, int64(len(data)), raw, name)
		b, err := os.ReadFile(dst)
		require.NoError(t, err)
		assert.Equal(t, int64(len(b)), size, name)
		var got []byte
		switch name {
		case "o.cpio.zst":
			assert.Equal(t, []byte{0x28, 0xb5, 0x2f, 0xfd}, b[:4], "zstd frame magic")
			// A nil reader: DecodeAll alone, no stream decoder
			// holding one of the decoders DecodeAll waits for.
			zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
			require.NoError(t, err)
			got, err = zr.DecodeAll(b, nil)
			zr.Close()
			require.NoError(t, err)
		case "o.cpio.lz4":
			assert.Equal(t, []byte{0x02, 0x21, 0x4c, 0x18}, b[:4], "LZ4 legacy frame magic, the one the kernel reads")
			var buf bytes.Buffer
			_, err := buf.ReadFrom(lz4.NewReader(bytes.NewReader(b)))
			require.NoError(t, err)
			got = buf.Bytes()
		case "o.cpio.gz":
			zr, err := gzip.NewReader(bytes.NewReader(b))
			require.NoError(t, err)
			var buf bytes.Buffer
			_, err = buf.ReadFrom(zr)
			require.NoError(t, err)
			got = buf.Bytes()
		default:
			got = b
		}
		assert.Equal(t, data, got, name)
		_, err = os.Stat(dst + ".tmp")
		assert.True(t, os.IsNotExist(err), "no temporary file left")
	}
}
