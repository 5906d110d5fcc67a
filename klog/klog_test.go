package klog

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func TestParseFormats(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want Record
	}{
		{"dmesg", "[    1.500000] ACPI: Interpreter enabled", Record{Level: Unknown, Time: sec(1.5), Seq: -1, Text: "ACPI: Interpreter enabled", Count: 1}},
		{"dmesg no time", "ACPI: Interpreter enabled", Record{Level: Unknown, Time: -1, Seq: -1, Text: "ACPI: Interpreter enabled", Count: 1}},
		{"dmesg -r", "<3>[   12.000001] ACPI Error: x", Record{Level: Err, Time: sec(12.000001), Seq: -1, Text: "ACPI Error: x", Count: 1}},
		{"prio facility", "<30>systemd: hi", Record{Level: Info, Facility: 3, Time: -1, Seq: -1, Text: "systemd: hi", Count: 1}},
		{"dmesg -x", "kern  :warn  : [    2.000000] mtrr: corrected configuration.", Record{Level: Warning, Time: sec(2), Seq: -1, Text: "mtrr: corrected configuration.", Count: 1}},
		{"kmsg", "3,1234,5678901,-;ACPI Error: y", Record{Level: Err, Time: sec(5.678901), Seq: 1234, Text: "ACPI Error: y", Count: 1}},
		{"kmsg extra fields", "6,7,8,-,caller=T1;hello", Record{Level: Info, Time: 8 * time.Microsecond, Seq: 7, Text: "hello", Count: 1}},
		{"journal short", "Nov 30 06:18:32 host kernel: ACPI Error: z", Record{Level: Unknown, Time: -1, Seq: -1, Text: "ACPI Error: z", Count: 1}},
		{"journal day pad", "Nov  3 06:18:32 host kernel: a b", Record{Level: Unknown, Time: -1, Seq: -1, Text: "a b", Count: 1}},
		{"journal iso", "2026-11-30T06:18:32+0000 host kernel: iso line", Record{Level: Unknown, Time: -1, Seq: -1, Text: "iso line", Count: 1}},
		{"journal monotonic", "[    3.250000] host kernel: mono line", Record{Level: Unknown, Time: sec(3.25), Seq: -1, Text: "mono line", Count: 1}},
		{"serial escapes", "\x1b[2J\x1b[01;01H[    0.100000] after escapes\r", Record{Level: Unknown, Time: sec(0.1), Seq: -1, Text: "after escapes", Count: 1}},
		{"kmsg hex escape", `4,1,2,-;line\x0awith newline`, Record{Level: Warning, Time: 2 * time.Microsecond, Seq: 1, Text: "line\nwith newline", Count: 1}},
		{"kern.log", "Nov 30 06:18:32 host kernel: [    7.500000] ACPI Error: k", Record{Level: Unknown, Time: sec(7.5), Seq: -1, Text: "ACPI Error: k", Count: 1}},
		{"dmesg -T", "[Mon Nov 30 06:18:32 2026] human time", Record{Level: Unknown, Time: -1, Seq: -1, Text: "human time", Count: 1}},
		{"dmesg iso", "2026-11-30T06:18:32,123456+00:00 iso time", Record{Level: Unknown, Time: -1, Seq: -1, Text: "iso time", Count: 1}},
		{"dmesg -r -T", "<4>[Mon Nov  3 06:18:32 2026] warn", Record{Level: Warning, Time: -1, Seq: -1, Text: "warn", Count: 1}},
		{"nanosecond stamp", "[    1.123456789] ns", Record{Level: Unknown, Time: sec(1.123456), Seq: -1, Text: "ns", Count: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParseString(c.in)
			require.Len(t, got, 1)
			assert.Equal(t, c.want, got[0])
		})
	}
}

func TestParseSkipsBannersAndDictionary(t *testing.T) {
	in := "-- Boot 0123456789abcdef --\n" +
		"6,10,100,-;pci 0000:00:1f.0: first\n" +
		" SUBSYSTEM=pci\n" +
		" DEVICE=+pci:0000:00:1f.0\n" +
		"6,11,200,-;second\n" +
		"\n   \n"
	got := ParseString(in)
	require.Len(t, got, 2)
	assert.Equal(t, "pci 0000:00:1f.0: first", got[0].Text)
	assert.Equal(t, int64(11), got[1].Seq)
}

func TestParseFoldsIdenticalLines(t *testing.T) {
	in := "[ 1.0] a\n[ 2.0] same\n[ 3.0] same\n[ 4.0] same\n[ 5.0] b\n[ 6.0] same\n"
	got := ParseString(in)
	require.Len(t, got, 4)
	assert.Equal(t, "same", got[1].Text)
	assert.Equal(t, 3, got[1].Count)
	assert.Equal(t, sec(2), got[1].Time, "a folded record keeps the first time")
	assert.Equal(t, 1, got[3].Count)

	again := Fold([]Record{{Text: "x", Count: 2}, {Text: "x"}, {Text: "y"}})
	require.Len(t, again, 2)
	assert.Equal(t, 3, again[0].Count)
}

func TestParseKmsgJoinsContinuations(t *testing.T) {
	in := "6,1,10,c;ACPI: (supports S0\n6,2,11,+; S3\n6,3,12,+; S5)\n6,4,13,-;next\n"
	got, err := ParseKmsg(strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "ACPI: (supports S0 S3 S5)", got[0].Text)
	assert.Equal(t, int64(4), got[1].Seq)
}

// tricky are records whose text looks like log syntax; Format must keep
// them apart from it.
var tricky = []Record{
	{Level: Err, Time: sec(1), Seq: -1, Text: "plain", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "<3>looks like a prefix", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "[    1.000000] looks like a stamp", Count: 1},
	{Level: Info, Time: -1, Seq: -1, Text: "[ 2.5] stamp after level", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "6,1,2,-;kmsg lookalike", Count: 1},
	{Level: Unknown, Time: sec(3), Seq: -1, Text: "host kernel: journal lookalike", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "Nov 30 06:18:32 h kernel: journal lookalike", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "-- banner lookalike --", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "kern  :err   : dmesg -x lookalike", Count: 1},
	{Level: Warning, Facility: 3, Time: sec(4), Seq: -1, Text: `back\slash \x41 and` + "\x01ctl\x1b[0m", Count: 2},
	{Level: Debug, Time: sec(5), Seq: -1, Text: "", Count: 1},
	{Level: Unknown, Time: sec(6), Seq: -1, Text: "  leading spaces", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "[Mon Nov 30 06:18:32 2026] human lookalike", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "2026-11-30T06:18:32,1+00:00 iso lookalike", Count: 1},
	{Level: Unknown, Time: -1, Seq: -1, Text: "Nov 30 06:18:32 h kernel: [ 1.0] kern.log lookalike", Count: 1},
	{Level: Unknown, Time: sec(1), Seq: -1, Text: "x kernel: [ 2.0] both", Count: 1},
}

func TestFormatRoundTrip(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Format(&b, tricky))
	got, err := Parse(&b)
	require.NoError(t, err)
	assert.Equal(t, tricky, got, "Format output:\n%s", b.String())
}

func TestFormatLines(t *testing.T) {
	assert.Equal(t, "<3>[    1.000000] plain", FormatRecord(tricky[0]))
	assert.Equal(t, "<30>[  123.000001] x", FormatRecord(Record{Level: Info, Facility: 3, Time: sec(123.000001), Text: "x"}))
	assert.Equal(t, "no prefix", FormatRecord(Record{Level: Unknown, Time: -1, Text: "no prefix"}))
}

func TestMarkAndSince(t *testing.T) {
	// With sequence numbers, the mark is the last sequence number seen.
	first, err := ParseKmsg(strings.NewReader("6,1,1,-;a\n6,2,2,-;b\n"))
	require.NoError(t, err)
	m := MarkAfter(first)
	assert.Equal(t, Mark{Seq: 2, Count: 2}, m)
	later, err := ParseKmsg(strings.NewReader("6,1,1,-;a\n6,2,2,-;b\n6,3,3,-;c\n6,4,4,-;d\n"))
	require.NoError(t, err)
	got := Since(later, m)
	require.Len(t, got, 2)
	assert.Equal(t, "c", got[0].Text)
	// After the buffer wrapped, sequence numbers still decide.
	assert.Equal(t, "d", Since(later[3:], Mark{Seq: 3})[0].Text)
	assert.Empty(t, Since(later, Mark{Seq: 4}))

	// Without sequence numbers, the count decides, splitting folded records.
	text := ParseString("[1.0] a\n[2.0] x\n[3.0] x\n[4.0] x\n")
	m = MarkAfter(text[:1])
	assert.Equal(t, Mark{Seq: -1, Count: 1}, m)
	got = Since(ParseString("[1.0] a\n[2.0] x\n[3.0] x\n[4.0] x\n[5.0] y\n"), Mark{Seq: -1, Count: 2})
	require.Len(t, got, 2)
	assert.Equal(t, Record{Level: Unknown, Time: sec(2), Seq: -1, Text: "x", Count: 2}, got[0])
	assert.Equal(t, "y", got[1].Text)
	assert.Len(t, Since(text, Mark{Seq: -1}), 2)
	assert.Empty(t, Since(text, Mark{Seq: -1, Count: 99}))
}

func TestReadKmsgFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kmsg")
	require.NoError(t, os.WriteFile(p, []byte("6,5,1000000,-;Linux version 6.1.0-test (x)\n SUBSYSTEM=x\n3,6,2000000,-;ACPI Error: w\n"), 0o600))
	recs, err := ReadKmsg(p)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, "6.1.0-test", KernelRelease(recs))
	assert.Equal(t, Err, recs[1].Level)

	_, err = ReadKmsg(filepath.Join(t.TempDir(), "absent"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "absent")
}

// The live device: readable as root on Linux; reading must not block and
// must return the boot's first record.
func TestReadKmsgLive(t *testing.T) {
	f, err := os.Open("/dev/kmsg")
	if err != nil {
		t.Skipf("no readable /dev/kmsg: %v", err)
	}
	f.Close()
	done := make(chan struct{})
	var recs []Record
	go func() {
		defer close(done)
		recs, err = ReadKmsg("/dev/kmsg")
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("ReadKmsg blocked")
	}
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	assert.GreaterOrEqual(t, recs[0].Seq, int64(0))
	for i := 1; i < len(recs); i++ {
		require.Greater(t, recs[i].Seq, recs[i-1].Seq, "sequence numbers increase")
	}
	// Format + Parse keeps what a snapshot needs.
	var b bytes.Buffer
	require.NoError(t, Format(&b, recs))
	back, err := Parse(&b)
	require.NoError(t, err)
	require.Len(t, back, len(recs))
	for i := range recs {
		assert.Equal(t, recs[i].Text, back[i].Text)
		assert.Equal(t, recs[i].Time, back[i].Time)
		assert.Equal(t, recs[i].Level, back[i].Level)
	}
}

func TestReadSyslogLive(t *testing.T) {
	recs, err := ReadSyslog()
	if err != nil {
		t.Skipf("syslog(2) not permitted here: %v", err)
	}
	require.NotEmpty(t, recs)
	assert.GreaterOrEqual(t, int(recs[0].Level), 0, "syslog(2) records carry levels")
}

// corpusLogs returns every real kernel log in the shared corpus.
func corpusLogs(tb testing.TB) []string {
	tb.Helper()
	var out []string
	out = append(out, corpus.Glob(tb, "klog/*.txt")...)
	out = append(out, corpus.Glob(tb, "klog/linuxhw/*.dmesg.txt")...)
	out = append(out, corpus.Glob(tb, "suspend-qemu/*.serial.txt")...)
	out = append(out, corpus.Glob(tb, "suspend-pmgraph/*/*/*_dmesg.txt")...)
	return out
}

func TestParseCorpus(t *testing.T) {
	for _, p := range corpusLogs(t) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		recs, err := Parse(bytes.NewReader(data))
		require.NoError(t, err, p)
		stamped := 0
		for _, r := range recs {
			if r.Time >= 0 {
				stamped++
			}
			assert.NotContains(t, r.Text, "\x1b", "%s: escape sequences are dropped", p)
		}
		assert.Greater(t, stamped, len(recs)*8/10, "%s: most records carry a timestamp", p)
		if !strings.Contains(p, "suspend-pmgraph") && len(recs) > 0 && recs[0].Time < time.Second {
			assert.NotEmpty(t, KernelRelease(recs), "%s: boot logs name the kernel", p)
		}
		var b bytes.Buffer
		require.NoError(t, Format(&b, recs))
		back, err := Parse(&b)
		require.NoError(t, err)
		assert.Equal(t, recs, back, "%s: Format/Parse round trip", p)
	}
}

func TestParseCorpusFacts(t *testing.T) {
	p := filepath.Join(corpus.Dir(t, "suspend-qemu"), "s3-rtc-q35-bios.serial.txt")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	recs := ParseString(string(data))
	assert.Equal(t, "6.1.0-57-amd64", KernelRelease(recs))
	env := EnvFromLog(recs)
	assert.Contains(t, env.Vendor, "QEMU Standard PC (Q35 + ICH9, 2009)")
	// The firmware's RTC fault is logged once per suspend cycle.
	n := 0
	for _, r := range recs {
		if strings.Contains(r.Text, "Could not disable RealTimeClock events") {
			n++
		}
	}
	assert.Equal(t, 3, n)
}

func TestOverlongLineIsCutAndTheRestRead(t *testing.T) {
	long := "ACPI Error: " + strings.Repeat("x", 3<<20)
	for _, parse := range []struct {
		name string
		text string
		fn   func(io.Reader) ([]Record, error)
	}{
		{"dmesg", "[    1.000000] first\r\n[    2.000000] " + long + "\n[    3.000000] ACPI BIOS Error (bug): last\n", Parse},
		{"kmsg", "6,1,1000000,-;first\n3,2,2000000,-;" + long + "\n3,3,3000000,-;ACPI BIOS Error (bug): last\n", ParseKmsg},
	} {
		recs, err := parse.fn(strings.NewReader(parse.text))
		require.NoError(t, err, parse.name)
		require.Len(t, recs, 3, parse.name)
		assert.Equal(t, "first", recs[0].Text, parse.name)
		assert.Zero(t, recs[0].Truncated)
		assert.True(t, strings.HasPrefix(recs[1].Text, "ACPI Error: xxx"), parse.name)
		assert.Less(t, len(recs[1].Text), MaxLine, parse.name)
		assert.Greater(t, recs[1].Truncated, int64(2<<20), parse.name)
		assert.Equal(t, "ACPI BIOS Error (bug): last", recs[2].Text, parse.name)
		n, first := TruncatedLines(recs)
		assert.Equal(t, 1, n)
		assert.Equal(t, recs[1].Seq, first.Seq)
	}
	// A line of exactly MaxLine bytes is whole.
	exact := strings.Repeat("y", MaxLine)
	recs, err := Parse(strings.NewReader(exact + "\nnext\n"))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Zero(t, recs[0].Truncated)
	assert.Len(t, recs[0].Text, MaxLine)
}

func TestRecordsPastTheLimitAreCountedNotRead(t *testing.T) {
	var b bytes.Buffer
	for i := range MaxRecords + 7 {
		fmt.Fprintf(&b, "6,%d,1000,-;line %d\n", i, i)
	}
	kmsg := b.String()
	recs, err := ParseKmsg(strings.NewReader(kmsg))
	require.NoError(t, err)
	require.Len(t, recs, MaxRecords)
	assert.EqualValues(t, 7, DroppedLines(recs))
	recs, err = Parse(strings.NewReader(kmsg))
	require.NoError(t, err)
	require.Len(t, recs, MaxRecords)
	assert.EqualValues(t, 7, DroppedLines(recs))
	assert.Zero(t, DroppedLines(recs[:10]))
}

// hasControl never misses a control byte, wherever it sits.
func TestHasControl(t *testing.T) {
	for n := 0; n < 20; n++ {
		for pos := 0; pos < n; pos++ {
			for c := byte(0); c <= 0x7f; c++ {
				if c >= 0x20 && c < 0x7f {
					continue // every control byte and DEL
				}
				b := bytes.Repeat([]byte("a\xc3\xa9"), n)[:n]
				b[pos] = c
				assert.True(t, hasControl(string(b)), "%q", b)
			}
		}
		assert.False(t, hasControl(strings.Repeat("Az ~!", n)), n)
	}
}
