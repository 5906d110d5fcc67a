package lines

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fixtures are real serial consoles of the live image: an OVMF/q35
// guest booted with loglevel=7 (fwcheck.run=acpitables,fadt,klog,s3,
// fwcheck.s3=2; the kernel's "hpet: Lost N RTC interrupts" messages land
// between the lines), and the target output of the LAVA job
// TestLAVAServer runs (SeaBIOS/pc, quiet, every safe check and 2 S3 cycles).
var consoles = []string{"testdata/ovmf-q35-s3.console.txt", "testdata/lava-qemu-s3.console.txt"}

// resultsBlock returns the check IDs and statuses and the S3 cycles of the
// results document printed in the same console.
func resultsBlock(t *testing.T, console string) (ids, statuses []string, cycles []map[string]any) {
	t.Helper()
	console = strings.ReplaceAll(console, "\r", "")
	begin := strings.Index(console, "-----BEGIN FWCHECK RESULTS-----\n")
	end := strings.Index(console, "\n-----END FWCHECK RESULTS-----")
	require.True(t, begin >= 0 && end > begin)
	var doc struct {
		Results []struct {
			ID, Status string
			Data       struct{ Cycles []map[string]any }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(console[begin+len("-----BEGIN FWCHECK RESULTS-----\n"):end]), &doc))
	for _, r := range doc.Results {
		ids, statuses = append(ids, r.ID), append(statuses, r.Status)
		if r.ID == "s3" {
			cycles = r.Data.Cycles
		}
	}
	return ids, statuses, cycles
}

func TestScanRealConsoles(t *testing.T) {
	want := map[string]string{"passed": Pass, "warning": Pass, "failed": Fail, "aborted": Fail,
		"incomplete": Unknown, "skipped": Skip, "not-applicable": Skip}
	for _, f := range consoles {
		t.Run(f, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			tr, err := Scan(bytes.NewReader(raw))
			require.NoError(t, err)
			require.Len(t, tr.Boots, 1, "one start line per boot")
			b := tr.Boots[0]
			assert.True(t, b.Complete(), "end %+v, missing %d", b.End, b.Missing)
			assert.Zero(t, tr.Damaged+tr.Stray)
			assert.Equal(t, Done, b.End.State)

			byID := map[string]Line{}
			for _, c := range b.Cases {
				_, dup := byID[c.ID]
				assert.False(t, dup, "case %s twice", c.ID)
				byID[c.ID] = c
			}
			ids, statuses, cycles := resultsBlock(t, string(raw))
			for i, id := range ids {
				c, ok := byID[id]
				if assert.True(t, ok, "a line for check %s", id) {
					assert.Equal(t, want[statuses[i]], c.Result, "check %s %s", id, statuses[i])
				}
			}
			require.Len(t, cycles, 2)
			for _, cy := range cycles {
				n := int(cy["cycle"].(float64))
				base := "s3.cycle-" + string(rune('0'+n))
				require.Contains(t, byID, base)
				for _, m := range []struct{ name, key, units string }{
					{"kernel-resume", "kernel_resume_ms", "ms"}, {"firmware-resume", "firmware_resume_ms", "ms"}, {"asleep", "asleep_ms", "s"},
				} {
					l, ok := byID[base+"."+m.name]
					require.True(t, ok, "%s.%s", base, m.name)
					v, measured := cy[m.key].(float64)
					if !measured {
						assert.Equal(t, Skip, l.Result)
						assert.Equal(t, "not-measured", l.Note, "a missing time is said")
						continue
					}
					if m.units == "s" {
						v /= 1000
					}
					assert.Equal(t, m.units, l.Units)
					got, err := strconv.ParseFloat(l.Measurement, 64)
					require.NoError(t, err)
					assert.InDelta(t, v, got, 0.0005, "%s.%s", base, m.name)
				}
			}
		})
	}
}

// TestScanInterleaved: the real console with real kernel messages spliced
// into result lines mid-way, as the kernel's own console writes land in a
// UART's output: the cut lines are counted damaged and missing, every
// other line is read, and none is misread.
func TestScanInterleaved(t *testing.T) {
	raw, err := os.ReadFile(consoles[0])
	require.NoError(t, err)
	kmsg := "\r\n[   55.737111] hpet: Lost 9 RTC interrupts\r\n"
	var out strings.Builder
	cut := 0
	for i, l := range strings.SplitAfter(string(raw), "\n") {
		switch {
		case strings.HasPrefix(l, "FWCHECK-CASE") && i%3 == 0:
			// mid-line: this line is lost
			out.WriteString(l[:len(l)/2] + kmsg + l[len(l)/2:])
			cut++
		case strings.HasPrefix(l, "FWCHECK-CASE") && i%3 == 1:
			// on a message without a line end: the line survives
			out.WriteString("[   56.100000] PM: suspend exit" + l)
		default:
			out.WriteString(l)
		}
	}
	require.Positive(t, cut)
	clean, err := Scan(bytes.NewReader(raw))
	require.NoError(t, err)
	tr, err := Scan(strings.NewReader(out.String()))
	require.NoError(t, err)
	require.Len(t, tr.Boots, 1)
	b := tr.Boots[0]
	assert.Equal(t, cut, tr.Damaged, "every cut line is damaged")
	assert.Equal(t, cut, b.Missing, "and shows as a gap")
	assert.False(t, b.Complete())
	assert.Equal(t, b.End.Cases, len(b.Cases)+cut, "the end line's count tells the loss")
	// What was read is exactly the clean log's lines less the cut ones.
	seen := map[int]Line{}
	for _, c := range clean.Boots[0].Cases {
		seen[c.Seq] = c
	}
	for _, c := range b.Cases {
		assert.Equal(t, seen[c.Seq], c)
	}
}

func TestScanBoots(t *testing.T) {
	var log bytes.Buffer
	for boot := 0; boot < 3; boot++ {
		w := NewWriter(&log)
		w.Begin("boot"+string(rune('a'+boot)), "v")
		w.CheckStarted("reboot")
		if boot < 2 {
			w.Finish(Reset, "")
			log.WriteString("[    0.000000] Linux version 6.1.0\r\n")
			continue
		}
		w.Finish(Done, "pass")
	}
	// A line repeated by a console replay, and one from no boot.
	log.WriteString(strings.SplitAfter(log.String(), "\n")[0])
	tr, err := Scan(&log)
	require.NoError(t, err)
	require.Len(t, tr.Boots, 4)
	assert.Equal(t, []string{Reset, Reset, Done}, []string{tr.Boots[0].End.State, tr.Boots[1].End.State, tr.Boots[2].End.State})
	assert.Nil(t, tr.Boots[3].End, "a boot with no end line: hung, or cut off")
}

func FuzzParse(f *testing.F) {
	for _, c := range consoles {
		raw, err := os.ReadFile(c)
		require.NoError(f, err)
		for _, l := range strings.Split(string(raw), "\n") {
			if strings.Contains(l, "FWCHECK-") {
				f.Add(l)
			}
		}
	}
	f.Add("FWCHECK-CASE 1 x pass 1 ms note=y ~00000000")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		// A line that parses is one Format writes, to the byte.
		out, err := l.Format()
		require.NoError(t, err)
		i := strings.Index(s, "FWCHECK-")
		assert.Equal(t, strings.TrimRight(s[i:], "\r\n "), out)
	})
}

func FuzzScan(f *testing.F) {
	for _, c := range consoles {
		raw, err := os.ReadFile(c)
		require.NoError(f, err)
		f.Add(raw[:min(len(raw), 3000)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Scan(bytes.NewReader(b))
		require.NoError(t, err)
		for _, bt := range tr.Boots {
			assert.LessOrEqual(t, len(bt.Cases), MaxCases)
			assert.GreaterOrEqual(t, bt.Missing, 0)
		}
	})
}

func BenchmarkScan(b *testing.B) {
	raw, err := os.ReadFile(consoles[1])
	require.NoError(b, err)
	b.SetBytes(int64(len(raw)))
	for i := 0; i < b.N; i++ {
		if _, err := Scan(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDocExample: every line the format's documentation shows parses.
func TestDocExample(t *testing.T) {
	b, err := os.ReadFile("../../docs/console-lines.md")
	require.NoError(t, err)
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		for _, f := range strings.Split(l, "`") {
			if strings.HasPrefix(f, "FWCHECK-") && strings.Contains(f, " ~") {
				_, err := Parse(f)
				assert.NoError(t, err, "%q", f)
				n++
			}
		}
	}
	assert.GreaterOrEqual(t, n, 19)
}
