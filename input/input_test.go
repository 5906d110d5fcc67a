package input

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/memmap"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	return root
}

func TestMemoryMapAndDMIFromLiveRoot(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/firmware/memmap/0/start": "0x0\n", "sys/firmware/memmap/0/end": "0x9fbff\n", "sys/firmware/memmap/0/type": "System RAM\n",
		"sys/firmware/memmap/1/start": "0xb0000000\n", "sys/firmware/memmap/1/end": "0xbfffffff\n", "sys/firmware/memmap/1/type": "Reserved\n",
		"sys/firmware/memmap/10/start": "0x100000\n", "sys/firmware/memmap/10/end": "0x7ffdffff\n", "sys/firmware/memmap/10/type": "System RAM\n",
		"sys/class/dmi/id/sys_vendor": "LENOVO\n", "sys/class/dmi/id/bios_date": "03/14/2023\n",
	})
	m := New(&liveSource{root: root, fsys: os.DirFS(root), recorders: liveRecorders()}, Options{})
	mm, err := MemoryMap.Get(m)
	if os.Geteuid() != 0 {
		assert.ErrorContains(t, err, "needs root")
		m = New(snapshot{name: root, fsys: os.DirFS(root)}, Options{})
		mm, err = MemoryMap.Get(m)
	}
	require.NoError(t, err)
	assert.Equal(t, []memmap.Range{
		{Start: 0, End: 0x9fbff, Type: "System RAM"}, {Start: 0x100000, End: 0x7ffdffff, Type: "System RAM"}, {Start: 0xb0000000, End: 0xbfffffff, Type: "Reserved"},
	}, mm, "sorted by start address, not by directory name")
	dmi, err := DMI.Get(m)
	require.NoError(t, err)
	assert.Equal(t, &DMIInfo{SysVendor: "LENOVO", BIOSDate: "03/14/2023"}, dmi)
}

func TestMissingInputsAreUnavailableWithReason(t *testing.T) {
	src, err := Open(writeTree(t, map[string]string{"proc/version": "Linux\n"}))
	require.NoError(t, err)
	m := New(src, Options{})
	for _, d := range []Decl{ACPITables, KernelLog, DMI, MemoryMap} {
		err := m.Available(d)
		var u *Unavailable
		require.ErrorAs(t, err, &u, d.Name())
		assert.Equal(t, d.Name(), u.Input)
		assert.NotEmpty(t, u.Reason)
	}
}

func TestSnapshotArchiveRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"escape.tar.gz":    tarGzBytes(map[string]string{"../../etc/passwd": "x"}),
		"absolute.tar.gz":  tarGzBytes(map[string]string{"/etc/passwd": "x"}),
		"empty.tar.gz":     tarGzBytes(map[string]string{}),
		"notgzip.tar.gz":   []byte("plain text"),
		"truncated.tar.gz": tarGzBytes(map[string]string{"proc/version": "Linux"})[:30],
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		_, err := Open(p)
		assert.Error(t, err, name)
	}
	_, err := Open(filepath.Join(dir, "missing.tar.gz"))
	assert.ErrorContains(t, err, "missing.tar.gz")
}

func TestCaptureAndReopen(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/class/dmi/id/product_name": "ThinkPad\n",
		"proc/version":                  "Linux version 6.1\n",
	})
	var buf bytes.Buffer
	notes, err := Capture(&buf, Live(root), []Decl{DMI, MemoryMap})
	require.NoError(t, err)
	assert.NotEmpty(t, notes, "the missing memory map and DMI fields are noted")
	p := filepath.Join(t.TempDir(), "s.tar.gz")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	src, err := Open(p)
	require.NoError(t, err)
	assert.False(t, src.Live())
	m := New(src, Options{})
	dmi, err := DMI.Get(m)
	require.NoError(t, err)
	assert.Equal(t, "ThinkPad", dmi.ProductName)
	assert.Error(t, m.Available(MemoryMap))
}

// FuzzOpenSnapshot reads arbitrary bytes as a snapshot archive and, when
// they are one, walks it and loads every input from it.
func FuzzOpenSnapshot(f *testing.F) {
	f.Add(tarGzBytes(map[string]string{"sys/class/dmi/id/sys_vendor": "QEMU"}))
	f.Add(tarGzBytes(map[string]string{
		"sys/firmware/acpi/tables/FACP":          "FACP\x24\x00\x00\x00\x01\x00QEMU  ",
		"sys/firmware/acpi/tables/dynamic/SSDT1": "SSDT",
		"sys/firmware/memmap/0/start":            "0x0\n", "sys/firmware/memmap/0/end": "0x9fbff\n", "sys/firmware/memmap/0/type": "System RAM\n",
		"fwcheck/klog.txt":    "[    1.000000] ACPI: x\n",
		"fwcheck/omitted.txt": "sys/firmware/acpi/tables/MSDM: left out\n",
		"proc/version":        "Linux version 6.1\n",
	}))
	f.Add(tarGzBytes(map[string]string{"a": "x", "a/b": "y"}))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := readTarGz(bytes.NewReader(b))
		if err != nil {
			return
		}
		require.NoError(t, fs.WalkDir(m, ".", func(string, fs.DirEntry, error) error { return nil }))
		mach := New(snapshot{name: "fuzz", fsys: m}, Options{})
		for _, d := range []Decl{ACPITables, KernelLog, DMI, Kernel, MemoryMap} {
			_ = mach.Available(d)
		}
	})
}

// FuzzRedact runs the redactors over arbitrary bytes: they must keep an
// SMBIOS table's length and never panic.
func FuzzRedact(f *testing.F) {
	f.Add([]byte("usb 1-1: SerialNumber: 0123\n3c:97:0e:12:34:56 5f3c1c1e-2b1a-4c4e-9d1e-0a1b2c3d4e5f"))
	f.Add([]byte{1, 0x1b, 0, 0, 1, 2, 3, 4, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 'a', 0, 'b', 0, 0, 127, 4, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c := bytes.Clone(b)
		RedactSMBIOS(c)
		require.Len(t, c, len(b))
		RedactText(b)
	})
}

func tarGzBytes(entries map[string]string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for n, c := range entries {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(c)), Typeflag: tar.TypeReg})
		tw.Write([]byte(c))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestLiveKernelLogThroughKmsg(t *testing.T) {
	root := writeTree(t, map[string]string{
		"dev/kmsg": "6,1,1500000,-;ACPI: Early table checksum verification disabled\n" +
			"3,2,2250000,-;[Firmware Bug]: TSC_DEADLINE disabled due to Errata\n",
	})
	m := New(Live(root), Options{})
	log, err := KernelLog.Get(m)
	require.NoError(t, err)
	recs, err := log.Records()
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, "[Firmware Bug]: TSC_DEADLINE disabled due to Errata", recs[1].Text)
	assert.EqualValues(t, 3, recs[1].Level)
	assert.Equal(t, "2.250000", recs[1].Stamp())
}

func TestMemFSIsAFileSystem(t *testing.T) {
	m, err := newMemFS(map[string]*memFile{
		"sys/firmware/acpi/tables/FACP":         {data: []byte("FACP....")},
		"sys/firmware/acpi/tables/dynamic/SSDT": {data: []byte("SSDT")},
		"proc/version":                          {data: []byte("Linux\n")},
	})
	require.NoError(t, err)
	require.NoError(t, fstest.TestFS(m, "sys/firmware/acpi/tables/FACP", "sys/firmware/acpi/tables/dynamic/SSDT", "proc/version"))
	_, err = m.Open("sys/nope")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = m.Open("/abs")
	assert.ErrorIs(t, err, fs.ErrInvalid)
}
