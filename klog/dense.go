package klog

import (
	_ "embed"
	"encoding/binary"
	"slices"
	"sync"
	"unsafe"
)

// acGenerated is the embedded database's prefilter automaton, complete,
// as `go generate ./klog` wrote it (TestGeneratedAC): see denseAC.
//
//go:embed ac_generated.bin
var acGenerated string

// ErrorWords are the words that make a line without a level read like an
// error, for NewMatcherWords (the klog check's logscan.ErrorWords are
// these). The generated automaton finds them in its one pass; a matcher
// for the embedded database with other words, or none, builds its own
// automaton. Changing them means running `go generate ./klog`
// (TestGeneratedAC fails until then).
var ErrorWords = []string{"error", "failed", "failure", "timed out", "timeout", "invalid", "corrupt", "corrupted", "bogus", "broken"}

// generatedWords are the words ac_generated.bin was built with: a copy of
// ErrorWords (TestErrorWordsGenerated), so that a caller changing those
// gets a matcher built for its words, not the generated one.
var generatedWords = []string{"error", "failed", "failure", "timed out", "timeout", "invalid", "corrupt", "corrupted", "bogus", "broken"}

// denseAC is the Aho–Corasick automaton of the embedded database's keys
// and generatedWords (ignoring ASCII case), every transition computed
// ahead: a DFA over byte classes whose rows are padded to 64 columns, so
// the next state is delta[state<<6|class[b]]. States below quiet report
// nothing; the others report outs[outStart[s-quiet]:outStart[s-quiet+1]],
// database indexes (below nEntries) and words (nEntries+k).
//
// Why (issue 24): building the automaton at run time (the trie, the
// failure links and a zeroed 1.4 MB table of int32s whose transitions were
// computed as lines took them) was about 8.5 M of the 148 M instructions
// of `fwcheck klog` on the corpus's 1.8 MB, and the table's pages were
// faulted in as the log went. The generated table (11,646 states × 64
// uint16s, 1.5 MB) is used in place in the binary's read-only data: loading it
// reads a header and the small output lists, and the scan loop tests one
// state number a byte with no transition left to compute. uint16 state
// numbers halve the table and its cache footprint against int32 offsets.
type denseAC struct {
	class    [256]uint8
	delta    []uint16
	quiet    uint32
	nEntries int32
	outStart []uint32
	outs     []uint16
}

// denseMagic starts ac_generated.bin; the version is its last byte.
const denseMagic = "FWAC\x00\x00\x00\x01"

// loadDense returns the generated automaton, decoded once, or nil when
// the embedded file is unusable (TestGeneratedAC keeps it usable).
var loadDense = sync.OnceValue(func() *denseAC {
	d, err := decodeDense(acGenerated, nativeLittleEndian())
	if err != nil {
		return nil
	}
	return d
})

// denseHeader is the size of ac_generated.bin's header: the magic, four
// uint32s (states, quiet states, database entries, outputs) and the byte
// classes.
const denseHeader = 8 + 4*4 + 256

// decodeDense reads an automaton in ac_generated.bin's format (all
// little-endian): the header, delta (states×64 uint16), outStart
// (states-quiet+1 uint32) and outs (uint16). With inPlace (a little-endian
// machine), delta is used in place when the data is 2-byte aligned.
func decodeDense(s string, inPlace bool) (*denseAC, error) {
	if len(s) < denseHeader || s[:8] != denseMagic {
		return nil, errDense
	}
	le := binary.LittleEndian
	u32 := func(off int) uint32 { return le.Uint32([]byte(s[off : off+4])) }
	n, quiet, nEntries, nOuts := u32(8), u32(12), u32(16), u32(20)
	d := &denseAC{quiet: quiet, nEntries: int32(nEntries)}
	copy(d.class[:], s[24:24+256])
	off := denseHeader
	nDelta := int(n) * 64
	nStart := int(n-quiet) + 1
	if n == 0 || quiet == 0 || quiet > n || n > 1<<16 || len(s) != off+2*nDelta+4*nStart+2*int(nOuts) {
		return nil, errDense
	}
	for _, c := range d.class {
		if c >= 64 {
			return nil, errDense
		}
	}
	raw := s[off : off+2*nDelta]
	if p := unsafe.StringData(raw); inPlace && uintptr(unsafe.Pointer(p))%2 == 0 {
		d.delta = unsafe.Slice((*uint16)(unsafe.Pointer(p)), nDelta)
	} else {
		d.delta = make([]uint16, nDelta)
		for i := range d.delta {
			d.delta[i] = le.Uint16([]byte(raw[2*i:]))
		}
	}
	off += 2 * nDelta
	d.outStart = make([]uint32, nStart)
	for i := range d.outStart {
		d.outStart[i] = u32(off + 4*i)
	}
	off += 4 * nStart
	d.outs = make([]uint16, nOuts)
	for i := range d.outs {
		d.outs[i] = le.Uint16([]byte(s[off+2*i:]))
	}
	if d.outStart[nStart-1] != nOuts || int(nEntries) != len(generatedDB) {
		return nil, errDense
	}
	for _, o := range d.outs {
		if int(o) >= len(generatedDB)+len(generatedWords) {
			return nil, errDense
		}
	}
	for i := 1; i < nStart; i++ {
		if d.outStart[i] < d.outStart[i-1] {
			return nil, errDense
		}
	}
	return d, nil
}

// nativeLittleEndian reports whether this machine stores a uint16's low
// byte first.
func nativeLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

type denseError struct{}

func (denseError) Error() string { return "klog: ac_generated.bin is malformed" }

var errDense error = denseError{}

// usesGenerated reports whether a matcher of entries with words can use
// the generated automaton: entries are the embedded database itself (not
// a copy, nor one with an fwts database before it) and words are
// generatedWords.
func usesGenerated(entries []Entry, words []string) bool {
	return len(entries) == len(generatedDB) && len(entries) > 0 && &entries[0] == &generatedDB[0] &&
		slices.Equal(words, generatedWords)
}

// scan appends to cands the matcher's entries whose keys occur in text,
// each once (remap turns a database index into the matcher's, -1 for an
// entry out of scope), and reports whether one of words occurs as a whole
// word.
//
// A text of twoStreams bytes or more is scanned as two overlapping halves
// at once (see denseAdvance2), one of fourStreams or more as four parts
// (scan4).
func (d *denseAC) scan(text string, cands []int32, remap []int32, words []string) ([]int32, bool) {
	word := false
	if len(text) >= fourStreams {
		return d.scan4(text, cands, remap, words)
	}
	if len(text) < twoStreams {
		s := uint32(0)
		for i := 0; i < len(text); i++ {
			if i, s = denseAdvance(d.delta, &d.class, text, i, s, d.quiet); i == len(text) {
				break
			}
			cands, word = d.report(text, i, s, cands, remap, words, word)
		}
		return cands, word
	}
	// A runs over text[:mid+keyLen-1], B over text[mid:], in step: a key
	// (at most keyLen bytes) that starts before mid ends in A's part, one
	// that starts at mid or later is in B's. B's part is as long as A's or
	// one byte longer.
	mid := (len(text) - (keyLen - 1)) / 2
	ta, tb := text[:mid+keyLen-1], text[mid:]
	a, b := uint32(0), uint32(0)
	for j := 0; j < len(ta); j++ {
		if j, a, b = denseAdvance2(d.delta, &d.class, ta, tb, j, a, b, d.quiet); j == len(ta) {
			break
		}
		if a >= d.quiet {
			cands, word = d.report(text, j, a, cands, remap, words, word)
		}
		if b >= d.quiet {
			cands, word = d.report(text, mid+j, b, cands, remap, words, word)
		}
	}
	for j := len(ta); j < len(tb); j++ {
		if j, b = denseAdvance(d.delta, &d.class, tb, j, b, d.quiet); j == len(tb) {
			break
		}
		cands, word = d.report(text, mid+j, b, cands, remap, words, word)
	}
	return cands, word
}

// twoStreams is the shortest text scanned as two halves at once,
// fourStreams as four quarters.
const (
	twoStreams  = 32
	fourStreams = 64
)

// scan4 is scan for a text of fourStreams bytes or more: four parts of it
// in step (see denseAdvance4). Part i runs over text[i*q:(i+1)*q+keyLen-1]
// (the last part to the end of the text): a key (at most keyLen bytes)
// that starts in [i*q, (i+1)*q) ends in part i.
func (d *denseAC) scan4(text string, cands []int32, remap []int32, words []string) ([]int32, bool) {
	word := false
	q := (len(text) - (keyLen - 1)) / 4
	n := q + keyLen - 1 // the first three parts' length
	var s0, s1, s2, s3 uint32
	for j := 0; j < n; j++ {
		var k int
		k, s0, s1, s2, s3 = denseAdvance4(d.delta, &d.class, text[j:], q, n-j, s0, s1, s2, s3, d.quiet)
		if j += k; j == n {
			break
		}
		if s0 >= d.quiet {
			cands, word = d.report(text, j, s0, cands, remap, words, word)
		}
		if s1 >= d.quiet {
			cands, word = d.report(text, q+j, s1, cands, remap, words, word)
		}
		if s2 >= d.quiet {
			cands, word = d.report(text, 2*q+j, s2, cands, remap, words, word)
		}
		if s3 >= d.quiet {
			cands, word = d.report(text, 3*q+j, s3, cands, remap, words, word)
		}
	}
	// the last part's few bytes past the others' length
	for j := 3*q + n; j < len(text); j++ {
		if j, s3 = denseAdvance(d.delta, &d.class, text, j, s3, d.quiet); j == len(text) {
			break
		}
		cands, word = d.report(text, j, s3, cands, remap, words, word)
	}
	return cands, word
}

// denseAdvance4 runs the automaton over t[:n], t[q:q+n], t[2q:2q+n] and
// t[3q:3q+n] in step, from states s0…s3, until one of them enters a
// reporting state or the parts end, and returns the step (n at the end)
// and the four states. Over the corpus's lines of 64 bytes or more it ran
// at 730–820 MB/s where two streams ran at 570–605 (a microbenchmark,
// five alternating runs, load 4).
//
//go:noinline
func denseAdvance4(delta []uint16, cls *[256]uint8, t string, q, n int, s0, s1, s2, s3, quiet uint32) (int, uint32, uint32, uint32, uint32) {
	_ = cls[0]
	t0, t1, t2, t3 := t[:n], t[q:q+n], t[2*q:2*q+n], t[3*q:3*q+n]
	for j := 0; j < len(t0); j++ {
		s0 = uint32(delta[s0<<6|uint32(cls[t0[j]])])
		s1 = uint32(delta[s1<<6|uint32(cls[t1[j]])])
		s2 = uint32(delta[s2<<6|uint32(cls[t2[j]])])
		s3 = uint32(delta[s3<<6|uint32(cls[t3[j]])])
		if s0 >= quiet || s1 >= quiet || s2 >= quiet || s3 >= quiet {
			return j, s0, s1, s2, s3
		}
	}
	return n, s0, s1, s2, s3
}

// report records the outputs of reporting state s, entered at text[i].
func (d *denseAC) report(text string, i int, s uint32, cands, remap []int32, words []string, word bool) ([]int32, bool) {
	for k := d.outStart[s-d.quiet]; k < d.outStart[s-d.quiet+1]; k++ {
		e := int32(d.outs[k])
		if e >= d.nEntries {
			if !word {
				word = wholeWord(text, i+1-len(words[e-d.nEntries]), i+1)
			}
			continue
		}
		if e = remap[e]; e >= 0 && !slices.Contains(cands, e) {
			cands = append(cands, e)
		}
	}
	return cands, word
}

// denseAdvance runs the automaton over text from i in state s until it
// enters a reporting state (returning where: the byte that led there, and
// the state) or the text ends (i is then len(text)).
//
// Not inlined, so that its few variables stay in registers (see advance).
//
//go:noinline
func denseAdvance(delta []uint16, cls *[256]uint8, text string, i int, s, quiet uint32) (int, uint32) {
	_ = cls[0] // one nil check, not one a byte
	t := text[i:]
	for j := 0; j < len(t); j++ {
		n := uint32(delta[s<<6|uint32(cls[t[j]])])
		if n >= quiet {
			return i + j, n
		}
		s = n
	}
	return len(text), s
}

// denseAdvance2 runs the automaton over ta and tb (at least as long) from
// j, in states a and b, one byte of each a step, until either enters a
// reporting state or ta ends (j is then len(ta)), and returns where and
// both states.
//
// Why (issue 24): a step's next state depends on the one before through
// a load, a shift and an or, so one stream runs at the latency of that
// chain; two independent chains overlap in the CPU. Over the corpus's
// lines (BenchmarkMatchWordsCorpus's texts), scan with two streams ran at
// 590 MB/s where one stream, without even recording candidates, ran at
// 460–470, and at 340–370 against 230–270 when the shared VM was busier
// (six alternating runs, load 4.7–5.2).
//
//go:noinline
func denseAdvance2(delta []uint16, cls *[256]uint8, ta, tb string, j int, a, b, quiet uint32) (int, uint32, uint32) {
	_ = cls[0]
	tb = tb[:len(ta)]
	for ; j < len(ta); j++ {
		a = uint32(delta[a<<6|uint32(cls[ta[j]])])
		b = uint32(delta[b<<6|uint32(cls[tb[j]])])
		if a >= quiet || b >= quiet {
			return j, a, b
		}
	}
	return j, a, b
}
