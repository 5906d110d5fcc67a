package klog

import (
	"bytes"
	"encoding/binary"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const acGeneratedFile = "ac_generated.bin"

// TestGeneratedAC is both the generator of ac_generated.bin (go generate
// runs it with -regenerate, after db_generated.go) and the test that fails
// while the file is stale: the automaton of db_generated.go's keys and
// generatedWords, every transition computed, must be the file's, byte for
// byte.
func TestGeneratedAC(t *testing.T) {
	src := generateDense(t)
	if *regenerate {
		require.NoError(t, os.WriteFile(acGeneratedFile, src, 0o644))
		return
	}
	cur, err := os.ReadFile(acGeneratedFile)
	require.NoError(t, err)
	if !bytes.Equal(cur, src) {
		t.Fatalf("%s is stale: the database's keys changed since it was generated; run `go generate ./klog`", acGeneratedFile)
	}
	require.NotNil(t, loadDense(), "the embedded automaton does not decode")
	// Decoded rather than used in place (a big-endian machine), it is the
	// same automaton.
	d, err := decodeDense(acGenerated, false)
	require.NoError(t, err)
	require.Equal(t, loadDense(), d)
	if nativeLittleEndian() {
		require.Equal(t, unsafe.StringData(acGenerated[denseHeader:]), (*byte)(unsafe.Pointer(&loadDense().delta[0])), "used in place")
	}
}

// ErrorWords are the words the automaton was generated with.
func TestErrorWordsGenerated(t *testing.T) {
	require.Equal(t, generatedWords, ErrorWords)
	m, err := NewMatcherWords(defaultDB(t), Env{}, ErrorWords)
	require.NoError(t, err)
	require.NotNil(t, m.dense)
}

// generateDense builds the automaton NewMatcherWords would build for the
// embedded database and generatedWords, computes every transition, numbers
// the states that report nothing first (root 0) and writes it in
// ac_generated.bin's format (see decodeDense).
func generateDense(tb testing.TB) []byte {
	tb.Helper()
	var pats []string
	var owner []int32
	for i := range generatedDB {
		for _, k := range generatedDB[i].code.keys {
			pats = append(pats, k)
			owner = append(owner, int32(i))
		}
	}
	for k, w := range generatedWords {
		pats = append(pats, w)
		owner = append(owner, int32(len(generatedDB)+k))
	}
	for _, p := range pats {
		// scan's two streams overlap by keyLen-1 bytes
		require.LessOrEqual(tb, len(p), keyLen, "%q", p)
	}
	a := buildAC(pats, owner, true)
	require.LessOrEqual(tb, a.nclass, 64, "byte classes")
	n := len(a.child)
	require.Less(tb, n, 1<<16, "states")
	reports := func(s int) bool { return a.outs[a.outStart[s]] >= 0 }
	require.False(tb, reports(0))
	// New numbers: quiet states first, in the trie's order, then the
	// reporting ones.
	num := make([]int, n)
	quiet := 0
	for s := range n {
		if !reports(s) {
			num[s] = quiet
			quiet++
		}
	}
	next := quiet
	byNum := make([]int, n)
	for s := range n {
		if reports(s) {
			num[s] = next
			next++
		}
		byNum[num[s]] = s
	}
	le := binary.LittleEndian
	var b bytes.Buffer
	b.WriteString(denseMagic)
	var outs []uint16
	var starts []uint32
	for k := quiet; k < n; k++ {
		starts = append(starts, uint32(len(outs)))
		for j := a.outStart[byNum[k]]; a.outs[j] >= 0; j++ {
			outs = append(outs, uint16(a.outs[j]))
		}
	}
	starts = append(starts, uint32(len(outs)))
	for _, v := range []uint32{uint32(n), uint32(quiet), uint32(len(generatedDB)), uint32(len(outs))} {
		b.Write(le.AppendUint32(nil, v))
	}
	for c := range 256 {
		b.WriteByte(byte(a.class[c]))
	}
	row := make([]byte, 2*64)
	for k := range n {
		clear(row)
		s := int32(byNum[k])
		for c := range a.nclass {
			le.PutUint16(row[2*c:], uint16(num[a.target(a.transition(s, int32(c)))]))
		}
		b.Write(row)
	}
	for _, v := range starts {
		b.Write(le.AppendUint32(nil, v))
	}
	for _, v := range outs {
		b.Write(le.AppendUint16(nil, v))
	}
	return b.Bytes()
}

// TestMatcherAgreesWithPlainRegexps holds every matcher configuration to
// the plainest reading of the database: each entry's whole regex (its
// older wordings included), compiled with regexp and tried on every line
// of every corpus log and every example, the first one in scope winning.
// The matchers checked are the klog check's (the generated automaton, for
// the machine each log describes and for no machine), the same database
// in a copy (an automaton built at run time) and one without words. The
// words the generated automaton finds are held to a case-insensitive
// regex on ASCII lines.
func TestMatcherAgreesWithPlainRegexps(t *testing.T) {
	if testing.Short() {
		t.Skip("tries every regex on every corpus line")
	}
	es := defaultDB(t)
	type line struct {
		text string
		env  int // index into envs
	}
	envs := []Env{{}, {VM: "any"}}
	var lines []line
	for _, e := range es {
		for _, ex := range e.Examples {
			lines = append(lines, line{ex, 1})
		}
	}
	for _, p := range corpusLogs(t) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		recs := ParseString(string(data))
		envs = append(envs, EnvFromLog(recs))
		for _, r := range recs {
			lines = append(lines, line{r.Text, len(envs) - 1})
		}
	}
	// plain[i]: the entries whose whole regex matches line i, in order.
	plain := make([][]int, len(lines))
	var wg sync.WaitGroup
	var mu sync.Mutex
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < len(es); k += workers {
				e := &es[k]
				full := e.fullRegex()
				var re *regexp.Regexp
				if full != "" {
					re = regexp.MustCompile(full)
				}
				for i, l := range lines {
					if re != nil && re.MatchString(l.text) || re == nil && strings.Contains(l.text, e.Literal) {
						mu.Lock()
						plain[i] = append(plain[i], k)
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	for i := range plain {
		slices.Sort(plain[i])
	}
	wordRe := regexp.MustCompile(`(?i)\b(?:` + strings.Join(generatedWords, "|") + `)\b`)
	hits := 0
	for k, env := range envs {
		gen, err := NewMatcherWords(es, env, generatedWords)
		require.NoError(t, err)
		require.NotNil(t, gen.dense, "the klog check's matcher uses the generated automaton")
		built, err := NewMatcherWords(slices.Clone(es), env, generatedWords)
		require.NoError(t, err)
		require.Nil(t, built.dense)
		noWords, err := NewMatcher(es, env)
		require.NoError(t, err)
		for i, l := range lines {
			if l.env != k && k != 0 {
				continue // each log with its own machine's env, and every line with none
			}
			want := ""
			for _, j := range plain[i] {
				if es[j].Scope.Applies(env) {
					want = es[j].Label
					hits++
					break
				}
			}
			e, w := gen.MatchWords(l.text)
			require.Equal(t, want, label(e), "%q (env %+v)", l.text, env)
			e2, w2 := built.MatchWords(l.text)
			require.Equal(t, want, label(e2), "%q (env %+v, built automaton)", l.text, env)
			require.Equal(t, w, w2, "%q: words", l.text)
			if isASCII(l.text) {
				require.Equal(t, wordRe.MatchString(l.text), w, "%q: words", l.text)
			}
			require.Equal(t, want, label(noWords.Match(l.text)), "%q (env %+v, no words)", l.text, env)
		}
	}
	assert.Greater(t, hits, 1000)
}

// BenchmarkMatchWordsCorpus is the klog check's matching (the embedded
// database with the error words) over every corpus line, with the
// generated automaton and with one built at run time from a copy of the
// database (built once, its transitions computed as the lines take them):
//
//	go test ./klog -run XXX -bench MatchWordsCorpus -count 5
func BenchmarkMatchWordsCorpus(b *testing.B) {
	texts := corpusText(b)
	size := 0
	for _, s := range texts {
		size += len(s) + 1
	}
	es := defaultDB(b)
	for _, c := range []struct {
		name string
		es   []Entry
	}{{"generated", es}, {"built", slices.Clone(es)}} {
		b.Run(c.name, func(b *testing.B) {
			m, err := NewMatcherWords(c.es, Env{}, generatedWords)
			require.NoError(b, err)
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, s := range texts {
					m.MatchWords(s)
				}
			}
		})
	}
}

// FuzzGeneratedMatcher: the klog check's matcher, with the generated
// automaton (two or four streams on long texts), finds what the same database
// finds with an automaton built at run time, entry and words alike.
func FuzzGeneratedMatcher(f *testing.F) {
	es := defaultDB(f)
	for i := 0; i < len(es); i += 11 {
		f.Add(es[i].Examples[0])
		f.Add("x: " + es[i].Examples[0] + " and a tail long enough for two halves")
	}
	f.Add("nothing to see here, or an ERROR at the end of a long line")
	env := Env{VM: "any"}
	gen, err := NewMatcherWords(es, env, generatedWords)
	require.NoError(f, err)
	require.NotNil(f, gen.dense)
	built, err := NewMatcherWords(slices.Clone(es), env, generatedWords)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, text string) {
		e, w := gen.MatchWords(text)
		e2, w2 := built.MatchWords(text)
		require.Equal(t, label(e2), label(e), "%q", text)
		require.Equal(t, w2, w, "%q: words", text)
	})
}

// FuzzDecodeDense: a damaged automaton file is refused or decoded, never
// a panic.
func FuzzDecodeDense(f *testing.F) {
	f.Add([]byte(acGenerated[:denseHeader]))
	f.Add([]byte(denseMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeDense(string(b), true)
		_, _ = decodeDense(string(b), false)
	})
}

// The streams' overlaps: a message placed at every offset of texts about
// the lengths where scan changes its split finds what the built automaton
// finds, and the words are found at every offset too.
func TestGeneratedAtEveryOffset(t *testing.T) {
	es := defaultDB(t)
	gen, err := NewMatcherWords(es, Env{VM: "any"}, generatedWords)
	require.NoError(t, err)
	built, err := NewMatcherWords(slices.Clone(es), Env{VM: "any"}, generatedWords)
	require.NoError(t, err)
	msgs := []string{"Error", "timed out", "x"}
	for i := 0; i < len(es); i += 13 {
		msgs = append(msgs, es[i].Examples[0])
	}
	for _, msg := range msgs {
		for _, n := range []int{31, 32, 33, 63, 64, 65, 66, 67, 100} {
			for at := 0; at <= max(n-len(msg), 0); at++ {
				pad := max(n-len(msg)-at, 0)
				text := strings.Repeat("~", at) + msg + strings.Repeat(" ", pad)
				e, w := gen.MatchWords(text)
				e2, w2 := built.MatchWords(text)
				require.Equal(t, label(e2), label(e), "%q", text)
				require.Equal(t, w2, w, "%q", text)
			}
		}
	}
}
