package image

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultStickConfigIsClean(t *testing.T) {
	c, fileErr, cmdErr := LoadConfig([]byte(DefaultStickConfig), "")
	require.NoError(t, fileErr)
	require.NoError(t, cmdErr)
	assert.Equal(t, Config{After: AfterShell, FailOn: "medium"}, c, "the stick's file states the defaults")
}

func TestLoadConfig(t *testing.T) {
	file := strings.Join([]string{
		"# a comment",
		"run = fadt, hpet", // a space inside the list: not a check ID
		"fwcheck.run=fadt",
		"  s3 = 3   # trailing comment",
		"s3.sleep = \"5s\"",
		"reboot = 2",
		"after=poweroff",
		"fail-on = high",
		"this line has no equals sign",
		"after = halt",
		"esp = 1234-ABCD",
		"fwcheck.run=fadt fwcheck.after=reboot",
		"\ufeffs3.awake = 1s",
		"",
	}, "\r\n")
	c, fileErr, cmdErr := LoadConfig([]byte(file), "quiet fwcheck.after=shell fwcheck.fail-on=nope fwcheck.esp=1a2b-3c4d")
	assert.Equal(t, Config{
		Run:    []string{"fadt"},
		S3:     3,
		Reboot: 2,
		After:  AfterShell, // the command line overrides the file
		FailOn: "high",     // a bad command-line value leaves the file's
		ESP:    "1A2B-3C4D",
		Settings: []Setting{
			{Check: "s3", Name: "sleep", Value: "5s"},
			{Check: "s3", Name: "awake", Value: "1s"},
		},
	}, c)
	require.Error(t, fileErr)
	lines := strings.Split(fileErr.Error(), "\n")
	require.Len(t, lines, 5, fileErr.Error())
	assert.Contains(t, lines[0], `fwcheck.cfg line 2: fwcheck.run: " hpet" is not a check ID`)
	assert.Contains(t, lines[1], `fwcheck.cfg line 9: "this line has no equals sign": want NAME = VALUE`)
	assert.Contains(t, lines[2], `fwcheck.cfg line 10: fwcheck.after="halt"`)
	assert.Contains(t, lines[3], `fwcheck.cfg line 11: esp is set by the stick's boot loader`)
	assert.Contains(t, lines[4], `fwcheck.cfg line 12: "fwcheck.run=fadt fwcheck.after=reboot": one option per line`)
	require.Error(t, cmdErr)
	assert.Contains(t, cmdErr.Error(), `fwcheck.fail-on="nope"`)
}

func TestLoadConfigNoFile(t *testing.T) {
	c, fileErr, cmdErr := LoadConfig(nil, "fwcheck.run=checksum")
	assert.NoError(t, fileErr)
	assert.NoError(t, cmdErr)
	assert.Equal(t, Config{Run: []string{"checksum"}, After: AfterShell}, c)
}

func TestLoadConfigHuge(t *testing.T) {
	big := []byte("run = fadt\n" + strings.Repeat("#", 2*maxConfigFile))
	c, fileErr, _ := LoadConfig(big, "")
	assert.Equal(t, []string{"fadt"}, c.Run)
	assert.ErrorContains(t, fileErr, "only the first")
}

func TestESPOption(t *testing.T) {
	for _, bad := range []string{"", "1234ABCD", "1234-ABC", "12345-ABCD", "GHIJ-0000"} {
		c, err := ParseCmdline("fwcheck.esp=" + bad)
		assert.Error(t, err, bad)
		assert.Empty(t, c.ESP)
	}
}

func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte(DefaultStickConfig), "fwcheck.after=poweroff")
	f.Add([]byte("run=\n=\n==\n#\nfwcheck.\ns3=99999999999999999999\n\"\"=\"\n"), `fwcheck.esp="1234-abcd`)
	f.Fuzz(func(t *testing.T, file []byte, cmdline string) {
		c, _, _ := LoadConfig(file, cmdline)
		switch c.After {
		case AfterShell, AfterPoweroff, AfterReboot:
		default:
			t.Fatalf("after-action %q", c.After)
		}
		if c.S3 < 0 || c.S3 > maxS3 || c.Reboot < 0 || c.Reboot > maxS3 {
			t.Fatalf("cycles out of range: %+v", c)
		}
		if c.ESP != "" && !validSerial(c.ESP) {
			t.Fatalf("esp %q", c.ESP)
		}
	})
}
