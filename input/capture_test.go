package input

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smbiosStruct builds one SMBIOS structure: its formatted area (type,
// length and handle filled in) and its strings.
func smbiosStruct(typ byte, formatted []byte, strs ...string) []byte {
	b := append([]byte{typ, byte(4 + len(formatted)), 0, 0}, formatted...)
	for _, s := range strs {
		b = append(append(b, s...), 0)
	}
	if len(strs) == 0 {
		b = append(b, 0)
	}
	return append(b, 0)
}

func captureOf(t *testing.T, root string, opts CaptureOptions, ins ...Decl) (fs.FS, []string) {
	t.Helper()
	var buf bytes.Buffer
	notes, err := CaptureWith(&buf, Live(root), ins, opts)
	require.NoError(t, err)
	m, err := readTarGz(&buf)
	require.NoError(t, err)
	return m, notes
}

// The MSDM table carries the Windows product key: snapshots leave it out
// unless asked, say so, and the snapshot's reader is told too.
func TestSnapshotLeavesOutMSDM(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/firmware/acpi/tables/FACP": "FACP" + strings.Repeat("\x00", 40),
		"sys/firmware/acpi/tables/MSDM": "MSDM" + strings.Repeat("\x00", 50) + "ABCDE-FGHIJ-KLMNO-PQRST-UVWXY",
	})
	m, notes := captureOf(t, root, CaptureOptions{}, ACPITables)
	_, err := fs.Stat(m, "sys/firmware/acpi/tables/MSDM")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, strings.Join(notes, "\n"), "MSDM table holds the Windows product key")
	ts, err := ACPITables.Get(New(snapshot{name: "s", fsys: m}, Options{}))
	require.NoError(t, err)
	assert.Nil(t, ts.First("MSDM"))
	assert.Contains(t, strings.Join(ts.Warnings, "\n"), "snapshot: sys/firmware/acpi/tables/MSDM: left out")

	m, _ = captureOf(t, root, CaptureOptions{IncludeMSDM: true}, ACPITables)
	b, err := fs.ReadFile(m, "sys/firmware/acpi/tables/MSDM")
	require.NoError(t, err)
	assert.Contains(t, string(b), "ABCDE-FGHIJ")
}

func TestRedactSMBIOS(t *testing.T) {
	sys := make([]byte, 0x19-4) // type 1: strings at 0x04..0x07, UUID at 0x08
	sys[0], sys[1], sys[2], sys[3] = 1, 2, 3, 4
	copy(sys[0x08-4:], []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	board := make([]byte, 0x0f-4)
	board[0], board[1], board[2], board[3], board[4] = 1, 2, 3, 4, 5 // 0x07 serial = 4, 0x08 asset = 5
	table := append(smbiosStruct(1, sys, "QEMU", "Standard PC", "pc-q35-8.2", "SN-12345"),
		smbiosStruct(2, board, "Vendor", "Board", "v1", "BSN-999", "ASSET-7")...)
	table = append(table, smbiosStruct(127, nil)...)
	orig := bytes.Clone(table)

	n := RedactSMBIOS(table)
	assert.Equal(t, 4, n, "system serial, UUID, board serial and asset tag")
	assert.Len(t, table, len(orig), "lengths kept")
	s := string(table)
	for _, gone := range []string{"SN-12345", "BSN-999", "ASSET-7", "\xde\xad\xbe\xef"} {
		assert.NotContains(t, s, gone)
	}
	for _, kept := range []string{"QEMU", "Standard PC", "pc-q35-8.2", "Vendor", "Board"} {
		assert.Contains(t, s, kept)
	}
	assert.Contains(t, s, "XXXXXXXX\x00")

	// Malformed tables end the walk; nothing panics or runs off the end.
	for i := range orig {
		RedactSMBIOS(bytes.Clone(orig[:i]))
	}
	RedactSMBIOS([]byte{1, 0, 0, 0, 0, 0})
}

func TestRedactText(t *testing.T) {
	in := "[    1.0] e1000e 0000:00:19.0 eth0: (PCI Express:2.5GT/s:Width x1) 3c:97:0e:12:34:56\n" +
		"[    2.0] usb 1-1: SerialNumber: 0123456789AB\n" +
		"[    3.0] EXT4-fs (sda1): mounted filesystem 5f3c1c1e-2b1a-4c4e-9d1e-0a1b2c3d4e5f r/w\n" +
		"[    4.0] Serial: 8250/16550 driver, 4 ports, IRQ sharing enabled\n" +
		"[    5.0] pci 0000:00:1f.3: [8086:a170] type 00 class 0x040300\n"
	out, n := RedactText([]byte(in))
	assert.Equal(t, 3, n)
	s := string(out)
	for _, gone := range []string{"3c:97:0e:12:34:56", "0123456789AB", "5f3c1c1e-2b1a"} {
		assert.NotContains(t, s, gone)
	}
	assert.Contains(t, s, "Serial: 8250/16550 driver", "the serial-port driver line is no serial number")
	assert.Contains(t, s, "0000:00:1f.3: [8086:a170]", "PCI addresses are no MAC addresses")
}

func TestSnapshotRedact(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/class/dmi/id/sys_vendor":     "QEMU\n",
		"sys/class/dmi/id/product_serial": "SN-1\n",
		"sys/class/dmi/id/product_uuid":   "5f3c1c1e-2b1a-4c4e-9d1e-0a1b2c3d4e5f\n",
		"dev/kmsg":                        "6,1,1000,-;usb 1-1: SerialNumber: 0123456789AB\n",
	})
	ser := Declare(Def[string]{Name: "test-serial", Capture: []string{"sys/class/dmi/id"}, Load: func(Source) (string, error) { return "", nil }})
	m, notes := captureOf(t, root, CaptureOptions{Redact: true}, DMI, ser, KernelLog)
	for _, p := range []string{"sys/class/dmi/id/product_serial", "sys/class/dmi/id/product_uuid"} {
		_, err := fs.Stat(m, p)
		assert.ErrorIs(t, err, fs.ErrNotExist, p)
	}
	b, err := fs.ReadFile(m, RecordedDir+"/"+KlogFile)
	require.NoError(t, err)
	assert.Contains(t, string(b), "SerialNumber: REDACTED")
	b, err = fs.ReadFile(m, RecordedDir+"/"+OmittedFile)
	require.NoError(t, err)
	assert.Contains(t, string(b), "product_serial: left out (--redact)")
	assert.NotEmpty(t, notes)
	dmi, err := DMI.Get(New(snapshot{name: "s", fsys: m}, Options{}))
	require.NoError(t, err)
	assert.Equal(t, "QEMU", dmi.SysVendor)
}

// The redactor on real SMBIOS tables: u-root's dmidecode test dumps
// (dmidecode --dump-bin, table at offset 0x20) with dmidecode's own output
// beside them. Every serial number and asset tag dmidecode printed for the
// redacted structure types is gone, unless the same text is also another
// field's value; manufacturers and product names stay.
func TestRedactSMBIOSRealTables(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/u-root/u-root").Output()
	dir := filepath.Join(strings.TrimSpace(string(out)), "cmds/exp/dmidecode/testdata")
	bins, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if err != nil || len(bins) == 0 {
		t.Skip("u-root's dmidecode test data is not in the module cache")
	}
	checked := 0
	for _, bin := range bins {
		txt, err := os.ReadFile(strings.TrimSuffix(bin, ".bin") + ".orig.txt")
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(bin)
		require.NoError(t, err)
		table := bytes.Clone(raw[0x20:])
		private, public := map[string]bool{}, map[string]bool{}
		typ := -1
		for _, l := range strings.Split(string(txt), "\n") {
			if _, rest, ok := strings.Cut(l, "DMI type "); ok && strings.HasPrefix(l, "Handle") {
				fmt.Sscan(rest, &typ)
				continue
			}
			k, v, ok := strings.Cut(strings.TrimSpace(l), ": ")
			if !ok || !strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "\t\t") {
				continue
			}
			if _, red := smbiosPrivate[byte(typ)]; red && (k == "Serial Number" || k == "Asset Tag") {
				private[v] = true
			} else {
				public[v] = true
			}
		}
		n := RedactSMBIOS(table)
		assert.Len(t, table, len(raw)-0x20)
		assert.Positive(t, n, bin)
	private:
		for v := range private {
			if len(v) < 3 || !bytes.Contains(raw[0x20:], []byte(v)) {
				continue
			}
			for p := range public {
				if strings.Contains(p, v) {
					continue private // the same text in a field that stays
				}
			}
			assert.NotContains(t, string(table), v, "%s: %q", filepath.Base(bin), v)
			checked++
		}
		for v := range public {
			if len(v) >= 4 && bytes.Contains(raw[0x20:], []byte(v+"\x00")) && !private[v] {
				assert.Contains(t, string(table), v+"\x00", "%s: %q kept", filepath.Base(bin), v)
			}
		}
	}
	t.Logf("%d serial numbers and asset tags checked gone", checked)
	assert.Positive(t, checked)
}
