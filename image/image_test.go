package image

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCmdline(t *testing.T) {
	for _, tc := range []struct {
		name, cmdline string
		want          Config
		errs          []string
	}{
		{"empty", "", Config{After: AfterShell}, nil},
		{"foreign options only", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet console=ttyS0,115200", Config{After: AfterShell}, nil},
		{"all", "fwcheck.run=all fwcheck.after=poweroff", Config{After: AfterPoweroff}, nil},
		{"ids", "quiet fwcheck.run=checksum,fadt,,madt fwcheck.s3=3 fwcheck.after=reboot",
			Config{Run: []string{"checksum", "fadt", "madt"}, S3: 3, After: AfterReboot}, nil},
		{"quoted value", `fwcheck.after="poweroff" x="a b"`, Config{After: AfterPoweroff}, nil},
		{"later wins", "fwcheck.after=reboot fwcheck.after=shell", Config{After: AfterShell}, nil},
		{"bad after", "fwcheck.after=halt", Config{After: AfterShell}, []string{`fwcheck.after="halt"`}},
		{"bad s3", "fwcheck.s3=-1 fwcheck.run=checksum", Config{Run: []string{"checksum"}, After: AfterShell}, []string{`fwcheck.s3="-1"`}},
		{"huge s3", "fwcheck.s3=99999999", Config{After: AfterShell}, []string{"fwcheck.s3"}},
		{"reboot", "fwcheck.reboot=5 fwcheck.reboot.method=acpi", Config{Reboot: 5, After: AfterShell,
			Settings: []Setting{{"reboot", "method", "acpi"}}}, nil},
		{"bad reboot", "fwcheck.reboot=many", Config{After: AfterShell}, []string{`fwcheck.reboot="many"`}},
		{"bad id", "fwcheck.run=checksum,../etc", Config{After: AfterShell}, []string{`"../etc" is not a check ID`}},
		{"empty run", "fwcheck.run=", Config{After: AfterShell}, []string{"fwcheck.run= is empty"}},
		{"only commas", "fwcheck.run=,,", Config{After: AfterShell}, []string{"names no check"}},
		{"unknown and bad", "fwcheck.bogus=1 fwcheck.after=x", Config{After: AfterShell},
			[]string{"unknown option fwcheck.bogus", `fwcheck.after="x"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCmdline(tc.cmdline)
			assert.Equal(t, tc.want, got)
			if len(tc.errs) == 0 {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, e := range tc.errs {
				assert.Contains(t, err.Error(), e)
			}
		})
	}
}

func TestSplitCmdline(t *testing.T) {
	assert.Equal(t, []string{"a", "b=c d", "e"}, splitCmdline("  a\tb=\"c d\"  e\n"))
	assert.Equal(t, []string{""}, splitCmdline(`""`))
	assert.Empty(t, splitCmdline("   "))
}

func FuzzParseCmdline(f *testing.F) {
	for _, s := range []string{"", "fwcheck.run=all", "fwcheck.run=a,b fwcheck.s3=2 fwcheck.after=poweroff",
		`console=ttyS0 fwcheck.after="reboot"`, "fwcheck.s3=x fwcheck.zz", `"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, _ := ParseCmdline(s)
		switch c.After {
		case AfterShell, AfterPoweroff, AfterReboot:
		default:
			t.Fatalf("after-action %q", c.After)
		}
		if c.S3 < 0 || c.S3 > maxS3 {
			t.Fatalf("s3 %d", c.S3)
		}
		for _, id := range c.Run {
			if !validID(id) {
				t.Fatalf("invalid id %q accepted", id)
			}
		}
	})
}

func TestExtractResults(t *testing.T) {
	doc := `{"a": 1,
  "b": [2]}`
	console := "[    1.0] boot\r\nreport\r\n" + BeginMarker + "\r\n" + strings.ReplaceAll(doc, "\n", "\r\n") + "\r\n" + EndMarker + "\r\n[    9.0] reboot: Power down\r\n"
	got, err := ExtractResults([]byte(console))
	require.NoError(t, err)
	assert.Equal(t, doc, string(got))
	assert.True(t, json.Valid(got))

	// The last complete block wins; a truncated one is not complete.
	two := BeginMarker + "\n{\"n\":1}\n" + EndMarker + "\n" + BeginMarker + "\n{\"n\":2}\n" + EndMarker + "\n" + BeginMarker + "\n{\"n\":"
	got, err = ExtractResults([]byte(two))
	require.NoError(t, err)
	assert.Equal(t, `{"n":2}`, string(got))

	for _, bad := range []string{"", "no markers", BeginMarker + "\n{}\n", EndMarker + "\n", "x" + BeginMarker + "\n{}\n" + EndMarker + "\n",
		BeginMarker + "\n{}\n" + EndMarker + " trailing\n"} {
		_, err := ExtractResults([]byte(bad))
		assert.ErrorIs(t, err, ErrNoResults, "%q", bad)
	}
}

func FuzzExtractResults(f *testing.F) {
	f.Add([]byte(BeginMarker + "\n{}\n" + EndMarker + "\n"))
	f.Add([]byte("x\r\n" + BeginMarker + "\r\n[1,\r\n2]\r\n" + EndMarker))
	f.Add([]byte(EndMarker + "\n" + BeginMarker))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ExtractResults(b)
		if err != nil {
			return
		}
		if bytes.Contains(got, []byte(EndMarker+"\n")) || bytes.Contains(got, []byte("\r")) {
			t.Fatalf("block %q holds a marker or CR", got)
		}
	})
}

func TestFATLabel(t *testing.T) {
	for file, want := range map[string]string{
		"f12.bootsector": "FWCHECK", // mkfs.vfat -F 12 -n FWCHECK
		"f16.bootsector": "fwcheck", // lowercase: matched case-insensitively
		"f32.bootsector": "FWCHECK",
		"fnl.bootsector": "NO NAME", // no label given
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		require.NoError(t, err)
		got, err := FATLabel(bytes.NewReader(b))
		require.NoError(t, err, file)
		assert.Equal(t, want, got, file)
	}
	b, err := os.ReadFile("testdata/f32.bootsector")
	require.NoError(t, err)
	for name, mutate := range map[string]func([]byte){
		"zeros":        func(b []byte) { clear(b) },
		"no signature": func(b []byte) { b[511] = 0 },
		"bad sector":   func(b []byte) { b[11], b[12] = 0x33, 0x01 },
		"not FAT type": func(b []byte) { copy(b[0x52:], "NTFS    ") },
		"no ext bpb":   func(b []byte) { b[0x42] = 0 },
	} {
		c := bytes.Clone(b)
		mutate(c)
		_, err := FATLabel(bytes.NewReader(c))
		assert.ErrorIs(t, err, ErrNotFAT, name)
	}
	_, err = FATLabel(bytes.NewReader(b[:100]))
	assert.Error(t, err, "short read")
}

func FuzzFATLabel(f *testing.F) {
	for _, n := range []string{"f12", "f16", "f32", "fnl"} {
		b, err := os.ReadFile(filepath.Join("testdata", n+".bootsector"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		label, err := FATLabel(bytes.NewReader(b))
		if err == nil && len(label) > 11 {
			t.Fatalf("label %q longer than 11 bytes", label)
		}
	})
}

func TestModuleOrder(t *testing.T) {
	in := []ModuleEntry{{GroupChecks, "msr"}, {GroupChecks, "efivarfs"}, {GroupStorage, "scsi_mod"}, {GroupStorage, "sd_mod"}}
	var buf bytes.Buffer
	require.NoError(t, FormatModuleOrder(&buf, in))
	out, err := ParseModuleOrder(&buf)
	require.NoError(t, err)
	assert.Equal(t, in, out)
	assert.Equal(t, "lib/fwcheck/modules/msr.ko", ModuleFile("msr"))

	for _, bad := range []string{"checks\n", "checks a b\n", "checks ../../etc/passwd\n", "storage x.ko\n"} {
		_, err := ParseModuleOrder(strings.NewReader(bad))
		assert.Error(t, err, "%q", bad)
	}
	got, err := ParseModuleOrder(strings.NewReader("# c\n\n  checks   msr  # why\n"))
	require.NoError(t, err)
	assert.Equal(t, []ModuleEntry{{GroupChecks, "msr"}}, got)
}

func FuzzParseModuleOrder(f *testing.F) {
	f.Add("checks msr\nstorage sd_mod\n")
	f.Add("# x\nchecks a b\n")
	f.Fuzz(func(t *testing.T, s string) {
		es, err := ParseModuleOrder(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, e := range es {
			if strings.ContainsAny(e.Name, "/.") || e.Name == "" {
				t.Fatalf("unsafe module name %q", e.Name)
			}
		}
	})
}

func TestParseConsoles(t *testing.T) {
	procConsoles := "tty0                 -WU (E  p  )    4:1\nttyS0                -W- (EC p a)    4:64\nhvc0                 -W- (E    a)  229:0\n"
	names := ParseConsoles([]byte(procConsoles))
	assert.Equal(t, []string{"tty0", "ttyS0", "hvc0"}, names)
	var serial []string
	for _, n := range names {
		if IsSerialConsole(n) {
			serial = append(serial, n)
		}
	}
	assert.Equal(t, []string{"ttyS0", "hvc0"}, serial)
	assert.Empty(t, ParseConsoles([]byte("../etc x\n\n")))
}

// BenchmarkExtractResults scans a console transcript the size of a
// verbose boot (about 100 KiB of kernel messages) for the results block.
func BenchmarkExtractResults(b *testing.B) {
	var console bytes.Buffer
	for i := 0; console.Len() < 100<<10; i++ {
		console.WriteString("[    1.234567] pci 0000:00:01.0: some kernel message number ")
		console.WriteString(strings.Repeat("x", i%40) + "\r\n")
	}
	console.WriteString(BeginMarker + "\r\n{\"schema\": \"1.0\", \"results\": []}\r\n" + EndMarker + "\r\n")
	b.SetBytes(int64(console.Len()))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ExtractResults(console.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseCmdlineDiskWait(t *testing.T) {
	c, err := ParseCmdline("fwcheck.disk-wait=90s")
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, c.DiskWait)
	for _, bad := range []string{"fwcheck.disk-wait=0s", "fwcheck.disk-wait=1h", "fwcheck.disk-wait=soon"} {
		c, err := ParseCmdline(bad)
		assert.ErrorContains(t, err, "fwcheck.disk-wait=", bad)
		assert.Zero(t, c.DiskWait, bad)
	}
}

// TestParseCmdlineProfile: fwcheck.profile= takes a profile name; a value
// that cannot be one is an error and leaves no profile.
func TestParseCmdlineProfile(t *testing.T) {
	c, err := ParseCmdline("quiet fwcheck.profile=sbbr")
	require.NoError(t, err)
	assert.Equal(t, "sbbr", c.Profile)
	c, err = ParseCmdline("fwcheck.profile=SBBR;rm")
	assert.ErrorContains(t, err, "fwcheck.profile")
	assert.Empty(t, c.Profile)
}

func TestCmdlinePost(t *testing.T) {
	c, err := ParseCmdline("fwcheck.post=http://10.0.2.2:8080/fwcheck")
	if err != nil || c.Post != "http://10.0.2.2:8080/fwcheck" {
		t.Fatalf("fwcheck.post: %+v, %v", c, err)
	}
	for _, bad := range []string{"fwcheck.post=", "fwcheck.post=10.0.2.2:8080", "fwcheck.post=ftp://h/x", "fwcheck.post=http://"} {
		if c, err := ParseCmdline(bad); err == nil || c.Post != "" {
			t.Errorf("%s: accepted (%q)", bad, c.Post)
		}
	}
}
