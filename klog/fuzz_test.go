package klog

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

// seedLines adds a few dozen real lines of every corpus log to f.
func seedLines(f *testing.F) {
	if corpus.Root() == "" {
		return
	}
	for _, p := range corpusLogs(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		lines := strings.SplitAfter(string(data), "\n")
		for i := 0; i < len(lines); i += 97 {
			f.Add(strings.Join(lines[i:min(i+3, len(lines))], ""))
		}
	}
}

// FuzzParseDmesg: Parse never panics, and Format writes what Parse reads
// back to the same records.
func FuzzParseDmesg(f *testing.F) {
	for _, r := range tricky {
		f.Add(FormatRecord(r))
	}
	f.Add("<3>[    1.000000] x\n[ 2.0] y\nkern  :err   : [ 3.0] z\n\x1b[2Jw\n")
	seedLines(f)
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := Parse(strings.NewReader(in))
		if err != nil {
			return // over-long line
		}
		var b bytes.Buffer
		require.NoError(t, Format(&b, recs))
		back, err := Parse(&b)
		require.NoError(t, err)
		if len(recs) == 0 {
			require.Empty(t, back)
			return
		}
		for i := range recs {
			recs[i].Seq = -1 // Format does not keep sequence numbers
		}
		require.Equal(t, recs, back, "formatted:\n%q", b.String())
	})
}

// FuzzParseKmsg: the /dev/kmsg record parser never panics and keeps
// sequence numbers non-negative.
func FuzzParseKmsg(f *testing.F) {
	f.Add("6,1,10,c;ACPI: (supports S0\n6,2,11,+; S3)\n SUBSYSTEM=acpi\n3,3,12,-;ACPI Error: x\\x0ay\n")
	f.Add("12,99999999999,1,-,caller=T1;text\n")
	f.Add("6,1,1;short\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ParseKmsg(strings.NewReader(in))
		if err != nil {
			return
		}
		require.LessOrEqual(t, len(recs), strings.Count(in, "\n")+1)
		for _, r := range recs {
			require.GreaterOrEqual(t, r.Seq, int64(0))
			require.GreaterOrEqual(t, r.Time, time.Duration(0))
			require.GreaterOrEqual(t, int(r.Level), 0)
		}
	})
}

// FuzzParseJournal: journalctl -k lines parse without panics, and a line
// the journal parser accepts keeps its text after " kernel: ".
func FuzzParseJournal(f *testing.F) {
	f.Add("Nov 30 06:18:32 host kernel: ACPI Error: x")
	f.Add("2026-11-30T06:18:32+0000 host kernel: iso")
	f.Add("[    3.250000] host kernel: mono")
	f.Add("Nov  3 06:18:32.123456 h kernel:")
	f.Add("-- Boot abc --")
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") {
			return
		}
		r, ok := parseJournal(line)
		if ok {
			i := strings.Index(line, " kernel:")
			require.GreaterOrEqual(t, i, 0)
			require.True(t, strings.HasSuffix(line, r.Text) || strings.Contains(line, `\x`), "text comes from the line's end")
		}
		ParseString(line)
	})
}

// FuzzLoadFwts: the fwts klog.json reader never panics; what it accepts
// compiles into a matcher that can match its own patterns.
func FuzzLoadFwts(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "fwts-klog.json"))
	require.NoError(f, err)
	f.Add(string(data))
	f.Add(`[{"compare_mode":"regex","pattern":"a(b|c)+d","label":"L",},]`)
	f.Add(`{"x":[]}`)
	f.Fuzz(func(t *testing.T, in string) {
		es, err := LoadFwts(strings.NewReader(in))
		if err != nil {
			return
		}
		m, err := NewMatcher(es, Env{})
		require.NoError(t, err)
		for _, e := range es {
			if e.Literal != "" {
				require.NotNil(t, m.Match("x "+e.Literal+" y"), "literal %q", e.Literal)
			}
		}
	})
}

// FuzzMatcher: the prefiltered matcher agrees with trying every entry.
func FuzzMatcher(f *testing.F) {
	es, err := DefaultDB()
	require.NoError(f, err)
	for i := 0; i < len(es); i += 7 {
		f.Add(es[i].Examples[0])
	}
	f.Add("nothing to see")
	f.Add("Firmware ERROR: timed out")
	m, err := NewMatcher(es, Env{VM: "any"}) // every entry applies, as in bruteMatch
	require.NoError(f, err)
	words := []string{"error", "failed", "timed out", "corrupt", "corrupted"}
	mw, err := NewMatcherWords(es, Env{VM: "any"}, words)
	require.NoError(f, err)
	wordRe := regexp.MustCompile(`(?i)\b(?:error|failed|timed out|corrupt(?:ed)?)\b`)
	f.Fuzz(func(t *testing.T, text string) {
		want := label(bruteMatch(es, text))
		require.Equal(t, want, label(m.Match(text)))
		// The case-folding automaton with words agrees too, and finds a
		// word exactly where the regex does (ASCII text: (?i) also folds
		// a few non-ASCII runes such as the Kelvin sign).
		e, w := mw.MatchWords(text)
		require.Equal(t, want, label(e))
		if isASCII(text) {
			require.Equal(t, wordRe.MatchString(text), w, "%q", text)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzFindOopses: crash detection never panics and bounds what it keeps.
func FuzzFindOopses(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "oops-samples.txt"))
	require.NoError(f, err)
	f.Add(string(data))
	f.Add("------------[ cut here ]------------\nWARNING: at x\n---[ end trace 1 ]---\n")
	f.Fuzz(func(t *testing.T, in string) {
		for _, o := range FindOopses(ParseString(in)) {
			require.NotEmpty(t, o.Kind)
			require.LessOrEqual(t, len(o.Lines), MaxOopsLines)
		}
	})
}

// FuzzFollowKmsg: following never panics, and every record it passes on
// is one Scan reads from the same text too.
func FuzzFollowKmsg(f *testing.F) {
	f.Add("6,1,1000,-;ACPI: a\n SUBSYSTEM=acpi\n4,2,2000,-;[Firmware Bug]: b\n")
	f.Add("6,1,1000,-;no newline")
	f.Add("\n\n 6,x;;\n")
	f.Fuzz(func(t *testing.T, in string) {
		n := 0
		err := FollowKmsg(strings.NewReader(in), func(r Record) bool {
			n++
			require.LessOrEqual(t, len(r.Text), len(in))
			return true
		})
		require.NoError(t, err)
		require.LessOrEqual(t, n, strings.Count(in, ";"))
	})
}

// parseSecsStrconv is parseSecs as it was written with strconv: the
// reference the hand-written digit loops must agree with.
func parseSecsStrconv(s string) (time.Duration, bool) {
	dot := strings.IndexByte(s, '.')
	if dot < 1 || dot > 9 || len(s)-dot-1 < 1 || len(s)-dot-1 > 9 {
		return 0, false
	}
	sec, err := strconv.ParseUint(s[:dot], 10, 64)
	if err != nil || s[0] == '+' {
		return 0, false
	}
	frac := s[dot+1:]
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	for len(frac) < 6 {
		frac += "0"
	}
	us, _ := strconv.ParseInt(frac[:6], 10, 64)
	return time.Duration(sec)*time.Second + time.Duration(us)*time.Microsecond, true
}

// FuzzParseSecs: the timestamp parser agrees with the strconv version.
func FuzzParseSecs(f *testing.F) {
	for _, s := range []string{"0.000000", "12.345678", "1.5", "123456789.123456789", "1234567890.1", "+1.0", "-1.0", "1.", ".5", "1.2x", "1_0.5", "1.1234567890", "9.99\u00e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseSecs(s)
		wd, wok := parseSecsStrconv(s)
		if d != wd || ok != wok {
			t.Fatalf("parseSecs(%q) = %v, %v; strconv version %v, %v", s, d, ok, wd, wok)
		}
	})
}

// FuzzScanAgreesWithParse: the streaming readers (Scan, and EachBoth's
// two views) give the records Parse gives, in order, whatever the batch
// boundaries of the parser goroutine: the input is repeated past three
// batches, so that records cross from the reader's own first batch to
// the goroutine's and between its batches.
func FuzzScanAgreesWithParse(f *testing.F) {
	f.Add("[    1.000000] a\n[    1.000000] a\n6,1,2,-;b\n SUBSYSTEM=pci\nc\n")
	f.Add("")
	f.Add("\n\n\n")
	seedLines(f)
	f.Fuzz(func(t *testing.T, in string) {
		lines := strings.Count(in, "\n") + 1
		in = strings.Repeat(in, 1+3*batchRecords/lines)
		if len(in) > 1<<20 {
			in = in[:1<<20]
		}
		want, err := Parse(strings.NewReader(in))
		if err != nil || DroppedLines(want) > 0 {
			return
		}
		var got []Record
		require.NoError(t, Scan(strings.NewReader(in), func(r Record) bool { got = append(got, r); return true }))
		require.Equal(t, len(want), len(got))
		require.Equal(t, want, got)
		var folded []Record
		n := 0
		require.NoError(t, LogBytes([]byte(in)).EachBoth(func(Record) bool { n++; return true },
			func(r Record) bool { folded = append(folded, r); return true }))
		require.Equal(t, want, folded)
		c := 0
		for _, r := range want {
			c += r.Count
		}
		require.Equal(t, c, n, "every line record once")
	})
}
