package image

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRoot makes a root with the files given (path -> contents).
func fakeRoot(t *testing.T, files map[string][]byte) string {
	root := t.TempDir()
	for p, b := range files {
		full := filepath.Join(root, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		if b == nil {
			require.NoError(t, os.MkdirAll(full, 0o755))
			continue
		}
		require.NoError(t, os.WriteFile(full, b, 0o644))
	}
	return root
}

func TestFindResultsPartition(t *testing.T) {
	labelled, err := os.ReadFile("testdata/f32.bootsector")
	require.NoError(t, err)
	unlabelled, err := os.ReadFile("testdata/fnl.bootsector")
	require.NoError(t, err)
	root := fakeRoot(t, map[string][]byte{
		"sys/class/block/sda":  nil,
		"sys/class/block/sdb":  nil,
		"sys/class/block/sdb1": nil,
		"sys/class/block/sdc":  nil, // no device node
		"dev/sda":              unlabelled,
		"dev/sdb":              make([]byte, 4096),
		"dev/sdb1":             labelled,
	})
	d, err := PickResults(ScanBlockDevices(root), "")
	require.NoError(t, err)
	assert.Equal(t, "sdb1", d.Name)

	require.NoError(t, os.WriteFile(filepath.Join(root, "dev/sdb1"), unlabelled, 0o644))
	_, err = PickResults(ScanBlockDevices(root), "")
	assert.ErrorIs(t, err, ErrNoResultsPartition, "no FWCHECK label")
	_, err = PickResults(ScanBlockDevices(t.TempDir()), "")
	assert.ErrorIs(t, err, ErrNoResultsPartition, "no sysfs")
}

func TestPublish(t *testing.T) {
	root := fakeRoot(t, map[string][]byte{"proc/sys/kernel/printk": []byte("7\t4\t1\t7\n")})
	printk := filepath.Join(root, "proc/sys/kernel/printk")
	serial, err := os.Create(filepath.Join(t.TempDir(), "ttyS0"))
	require.NoError(t, err)
	defer serial.Close()
	var consoles bytes.Buffer
	l := &Live{Root: root, serial: []*os.File{serial}, out: &consoles}

	doc := []byte("{\n  \"schema\": \"1.0\"\n}\n")
	require.NoError(t, l.Publish([]byte("PASSED checksum\n"), doc))
	assert.Equal(t, "PASSED checksum\n", consoles.String(), "the human report goes to every console")

	b, err := os.ReadFile(serial.Name())
	require.NoError(t, err)
	got, err := ExtractResults(b)
	require.NoError(t, err)
	assert.Equal(t, string(bytes.TrimSpace(doc)), string(got))

	level, err := os.ReadFile(printk)
	require.NoError(t, err)
	assert.Equal(t, "7", string(level), "console log level restored")
}

func TestQuietKernel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "printk")
	require.NoError(t, os.WriteFile(p, []byte("4\t4\t1\t7\n"), 0o644))
	restore := quietKernel(p)
	b, _ := os.ReadFile(p)
	assert.Equal(t, "1", string(b), "only emergencies while the block prints")
	restore()
	b, _ = os.ReadFile(p)
	assert.Equal(t, "4", string(b))
	quietKernel(filepath.Join(t.TempDir(), "absent"))() // no file: no-op
}

func TestModuleErrors(t *testing.T) {
	l := &Live{Root: fakeRoot(t, map[string][]byte{ModuleOrderFile: []byte("checks msr\nchecks ../x\n")})}
	_, err := l.moduleOrder()
	assert.Error(t, err, "a path in the order file is refused")
	ok, err := l.loadModule("nosuchmodule")
	assert.False(t, ok)
	assert.ErrorContains(t, err, "nosuchmodule")
}
