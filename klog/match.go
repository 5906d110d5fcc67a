package klog

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Matcher finds, for a message text, the first database entry that matches
// it. One Aho–Corasick pass over the text finds the entries whose required
// literal substrings occur; only those are confirmed with their regex. A
// Matcher is safe for concurrent use.
//
// Start-up cost (issue 24). Building a matcher for the embedded database at
// run time took 50–100 ms of every process: decoding 355 KB of JSON,
// compiling about 500 regexes, parsing each for its required literals,
// choosing the prefilter keys and building the automaton. Now the keys are
// chosen when the database is generated (db_generated.go: Go composite
// literals the linker lays out as static data, so loading costs nothing),
// each regex is compiled the first time a text holds one of its keys (a
// boot log makes a few dozen entries candidates, not 750), and the
// automaton is built when the first text is matched, so an empty log or a
// command that never matches pays for none of it. Building the automaton
// (6,500 states × 55 byte classes) took 13 M instructions with a dense
// table (6% of `fwcheck klog` on 1.8 MB); its transitions are now computed
// as the text takes them (see acAutomaton).
//
// Why generate rather than compile everything lazily: the automaton needs
// every entry's required literals before the first line, and finding them
// means parsing every regex, which alone took 3–6 ms; keys chosen ahead
// make that free. The generated file holds data only (no automaton), so it
// is small to review, and it is regenerated from db/*.json by `go generate
// ./klog`; TestGeneratedDB fails while it is stale. A user's --klog-db file
// (fwts format) is still compiled when it is read.
//
// Confirming a candidate runs its regex; an entry that is a top-level
// alternation of many messages is confirmed branch by branch, only the
// branches whose literals the line holds (see branch): on the corpus's
// 1.8 MB of boot logs that took `fwcheck klog` from 242–248 M to 195 M
// instructions.
//
// Third pass (issue 24, callgrind of `fwcheck klog FILE --json /dev/null`
// on the 1.8 MB, 198.7–199.8 M → 147.3–148.7 M instructions): the
// branches and their literals are found at go generate time and each
// branch is compiled when a line first holds its literals (compiling was
// 8 of the 10.6 ms the confirmations took; a log now compiles a few
// branches, not all 60 of an entry that became a candidate); an entry or
// branch whose regex is one literal is a strings.Contains; an entry
// confirmed by its whole regex first tests the required literals of each
// part of it (Entry.mustLiterals: the "Aborting method … (AE_xxx)"
// entries share a key, and a backtracking regex costs about 20,000
// instructions a line), which took the regexes from 30 M to 15 M; the
// automaton's inner loop holds its state in registers (advance); lines
// are cut from chunks without an allocation each (lineReader). What is
// left (self costs, grouped): the automaton about 35 M (its build 6 M,
// its scan 25 M), parsing 27 M plus most of 20 M of substring searches,
// the regexes 15 M, the GC 13 M, the reports 9 M, the crash-report scan
// 8 M.
//
// Fourth pass (issue 24, the same measure: 147.0 M → 114.7 M
// instructions, then 118.2 M with four streams, which trade instructions
// for time; page faults 2,730 → 2,070), in order of gain:
//
//   - The automaton of the klog check's matcher (the embedded database
//     itself, with the error words) is generated ahead with every
//     transition computed (ac_generated.bin, embedded; see denseAC) and
//     used in place in read-only data: no trie, failure links or 1.4 MB
//     zeroed table to build, no transition to compute on the way. 147.0 M
//     → 126.6 M, the automaton 33.7 M → 18.4 M. A copy of the database,
//     an fwts database before it (--klog-db) or other words still build
//     theirs as before; TestMatcherAgreesWithPlainRegexps holds both to
//     every whole regex tried on every corpus line, for each log's own
//     machine.
//   - `fwcheck klog` collects garbage at 4x the live heap, not 2x (in the
//     command only, and unless GOGC is set: --follow and library users
//     keep the default): no
//     collection on the 1.8 MB instead of two, 128.6 M → 118.0 M; three
//     instead of 15 on 35 MB, for 7 MB more peak RSS.
//   - A regex that is one group of alternatives, "(?:A|B)", is split
//     into branches too: 119.5 M → 115.2 M.
//   - The crash-report pre-test looks for BUG, LOCKUP and lockup by their
//     rarest letters (see mayStartOops): 1.7 M fewer.
//   - A line of 32 bytes or more is scanned as two halves in step (see
//     denseAdvance2), one of 64 or more as four quarters (denseAdvance4).
//     It costs instructions (116.1 M → 119.0 M with two, 114.7 M → 118.2
//     M with four) but runs the scan 1.3–1.6x as fast with two and 1.3x
//     again with four on the long lines: a step waits for the load of the
//     step before, and independent chains overlap in the CPU. On the
//     whole process four streams were worth 3–8% of the wall time on the
//     1.8 MB, 1–2% on 35 MB.
//
// Not taken: a table of uint32 row offsets (state×64) in place of uint16
// state numbers saves the shift on the load chain (one stream ran 1.5x
// as fast in a microbenchmark) but doubles the table to 3 MB in the
// binary; two streams over uint16 gained more without it. The earlier,
// lost round of this work reported no gain from numbering the states
// breadth-first or from a 16 KB buffered writer; neither was retried.
// Tried and dropped: a SWAR test for the crash-report letters before the
// three IndexByte calls (114.7 M → 115.9 M instructions, no faster on
// 35 MB); 256 KB chunks for the line reader (the same CPU time on 35 MB);
// collecting at 2x or 3x rather than 4x (indistinguishable on 35 MB, but
// 2x costs the 1.8 MB its two collections).
// What is left (self costs): the automaton 21.7 M (more with four
// streams, but faster), parsing about 20 M
// (hasControl 6.9 M, parseSecs 4.4 M), IndexByte's scans 7.4 M (the
// newline search, the crash-report pre-test), the regexes 10.3 M (3.2 M
// of it compiling), the reports and the JSON document about 8 M.
type Matcher struct {
	entries []*Entry
	// always lists entries with no usable literal: tried on every text.
	always []int32
	// exact[e] is true when finding the literal proves the match (literal
	// entries with a single pattern).
	exact []bool
	// The automaton is built from pats and owner on first use.
	acOnce sync.Once
	ac     *acAutomaton
	pats   []string
	owner  []int32
	fold   bool
	// dense, when set, is the generated automaton (see denseAC), used in
	// place of ac; remap turns its database indexes into entries'.
	dense *denseAC
	remap []int32
	// words are whole words looked for, ignoring ASCII case, in the same
	// automaton pass (see NewMatcherWords); their owner indexes follow the
	// entries'.
	words []string
}

// minLiteral is the shortest literal the prefilter uses; shorter required
// literals would make nearly every line a candidate.
const minLiteral = 3

// NewMatcher compiles entries (in priority order: the first matching entry
// wins) for the machine and kernel described by env; entries whose scope
// excludes env are left out.
func NewMatcher(entries []Entry, env Env) (*Matcher, error) {
	return NewMatcherWords(entries, env, nil)
}

// entryLits are an entry's required literals, before keying.
type entryLits struct {
	idx   int32
	lits  []string
	exact bool
}

// prefilterKeys returns, for each entry, the strings the automaton looks
// for (see key) and whether finding one proves the match.
func prefilterKeys(all []entryLits) (keys [][]string, exact []bool) {
	shared := windowCounts(all, func(x entryLits) []string { return x.lits })
	keys = make([][]string, len(all))
	exact = make([]bool, len(all))
	for i, x := range all {
		ex := x.exact
		for _, l := range x.lits {
			if k := key(l, shared); k != l {
				l, ex = k, false
			}
			keys[i] = append(keys[i], l)
		}
		exact[i] = ex
	}
	return keys, exact
}

// NewMatcherWords is NewMatcher with words that MatchWords also looks for,
// as whole words (as regexp's \b sees them) ignoring ASCII case, in the
// same single pass over the text: the klog check's "reads like an error"
// test costs no second scan. The automaton then ignores ASCII case for the
// entries' literals too, and every candidate entry is confirmed. With
// DefaultDB's own slice (not a copy) and words equal to ErrorWords, the
// automaton is the generated one (see denseAC); otherwise it is built.
func NewMatcherWords(entries []Entry, env Env, words []string) (*Matcher, error) {
	m := &Matcher{words: words, fold: words != nil}
	if usesGenerated(entries, words) {
		if m.dense = loadDense(); m.dense != nil {
			m.remap = make([]int32, len(entries))
		}
	}
	// Entries not keyed ahead (an fwts database, tests' own) get their
	// keys here, chosen among themselves.
	var unkeyed []entryLits
	for i := range entries {
		e := &entries[i]
		if !e.Scope.Applies(env) {
			if m.dense != nil {
				m.remap[i] = -1
			}
			continue
		}
		if e.code == nil {
			if err := e.Compile(); err != nil {
				return nil, err
			}
		}
		idx := int32(len(m.entries))
		m.entries = append(m.entries, e)
		m.exact = append(m.exact, false)
		if m.dense != nil {
			// keyed ahead (db_generated.go); exact is false with words
			m.remap[i] = idx
			if e.code.keys == nil {
				m.always = append(m.always, idx)
			}
			continue
		}
		if c := e.code; c.keyed {
			if c.keys == nil {
				m.always = append(m.always, idx)
				continue
			}
			for _, k := range c.keys {
				m.pats = append(m.pats, k)
				m.owner = append(m.owner, idx)
			}
			m.exact[idx] = c.exact && words == nil
			continue
		}
		lits, exact := requiredLiterals(e)
		if lits == nil {
			m.always = append(m.always, idx)
			continue
		}
		unkeyed = append(unkeyed, entryLits{idx, lits, exact})
	}
	keys, exact := prefilterKeys(unkeyed)
	for i, x := range unkeyed {
		for _, k := range keys[i] {
			m.pats = append(m.pats, k)
			m.owner = append(m.owner, x.idx)
		}
		m.exact[x.idx] = exact[i] && words == nil
	}
	if m.dense != nil {
		return m, nil
	}
	for k, w := range words {
		if w == "" {
			return nil, fmt.Errorf("klog: empty matcher word")
		}
		m.pats = append(m.pats, w)
		m.owner = append(m.owner, int32(len(m.entries)+k))
	}
	return m, nil
}

// automaton returns the matcher's automaton, building it on first use.
func (m *Matcher) automaton() *acAutomaton {
	m.acOnce.Do(func() {
		m.ac = buildAC(m.pats, m.owner, m.fold)
		m.pats, m.owner = nil, nil
	})
	return m.ac
}

// Len returns the number of entries the matcher holds.
func (m *Matcher) Len() int { return len(m.entries) }

// Match returns the first entry matching text, or nil.
func (m *Matcher) Match(text string) *Entry {
	e, _ := m.MatchWords(text)
	return e
}

// MatchWords returns the first entry matching text, or nil, and whether
// text contains one of the matcher's words (see NewMatcherWords).
func (m *Matcher) MatchWords(text string) (*Entry, bool) {
	var buf [16]int32
	var cands []int32
	var word bool
	if m.dense != nil {
		cands, word = m.dense.scan(text, buf[:0], m.remap, m.words)
	} else {
		cands, word = m.automaton().scan(text, buf[:0], int32(len(m.entries)), m.words)
	}
	if len(cands) == 0 && len(m.always) == 0 {
		return nil, word
	}
	if len(cands) > 1 {
		slices.Sort(cands)
	}
	// Merge the candidates with the always-tried entries, in entry order.
	i, j := 0, 0
	last := int32(-1)
	for i < len(cands) || j < len(m.always) {
		var e int32
		if j >= len(m.always) || (i < len(cands) && cands[i] < m.always[j]) {
			e = cands[i]
			i++
		} else {
			e = m.always[j]
			j++
		}
		if e == last {
			continue
		}
		last = e
		if m.exact[e] || m.entries[e].Matches(text) {
			return m.entries[e], word
		}
	}
	return nil, word
}

// keyLen is the longest automaton key: longer literals are represented by
// their rarest window of this size, which keeps the automaton small enough
// for the CPU caches; candidates are confirmed anyway.
const keyLen = 12

// key returns the window of l the prefilter looks for: l itself when short,
// else the keyLen bytes that the fewest other literals share (shared[w]
// counts the literals holding window w) and, among those, whose
// characters are rarest in kernel logs. A window many literals share is a
// common phrase ("ACPI Error: "), which would make every line holding it a
// candidate for all of their entries.
func key(l string, shared map[string]int) string {
	if len(l) <= keyLen {
		return l
	}
	best, bestShared, bestScore := 0, -1, -1
	for i := 0; i+keyLen <= len(l); i++ {
		score := 0
		for j := i; j < i+keyLen; j++ {
			score += rarity(l[j])
		}
		n := shared[l[i:i+keyLen]]
		if bestShared < 0 || n < bestShared || n == bestShared && score > bestScore {
			best, bestShared, bestScore = i, n, score
		}
	}
	return l[best : best+keyLen]
}

// windowCounts counts, for each keyLen-byte window, the entries whose
// literals hold it.
func windowCounts[T any](xs []T, lits func(T) []string) map[string]int {
	counts := map[string]int{}
	for _, x := range xs {
		seen := map[string]bool{}
		for _, l := range lits(x) {
			for i := 0; i+keyLen <= len(l); i++ {
				w := l[i : i+keyLen]
				if !seen[w] {
					seen[w] = true
					counts[w]++
				}
			}
		}
	}
	return counts
}

// rarity scores how unusual a byte is in kernel log text.
func rarity(c byte) int {
	switch {
	case c == ' ' || c == ':' || c == '.' || c == ',':
		return 0
	case c >= '0' && c <= '9', c == 'x':
		return 1
	case strings.IndexByte("etaoinsrhlcdu", c) >= 0:
		return 2
	case c >= 'a' && c <= 'z':
		return 4
	case c >= 'A' && c <= 'Z':
		return 5
	}
	return 6
}

// requiredLiterals returns strings at least one of which occurs in every
// text the entry matches, or nil when there is no such set of useful
// strings. exact reports that finding the literal is the match.
func requiredLiterals(e *Entry) (lits []string, exact bool) {
	full := e.fullRegex()
	if full == "" {
		if len(e.Literal) < 1 {
			return nil, false
		}
		return []string{e.Literal}, true
	}
	flags := syntax.Perl
	if e.posix {
		flags = syntax.POSIX
	}
	re, err := syntax.Parse(full, flags)
	if err != nil {
		return nil, false
	}
	set := required(re.Simplify())
	if set == nil || minLen(set) < minLiteral || len(set) > 64 {
		return nil, false
	}
	return set, false
}

// required returns a set of strings at least one of which occurs in every
// match of re, or nil when none is known.
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpCharClass:
		// A class of a few single runes, e.g. [Ee]: each is a literal.
		var set []string
		for k := 0; k+1 < len(re.Rune); k += 2 {
			if re.Rune[k+1]-re.Rune[k] > 3 {
				return nil
			}
			for r := re.Rune[k]; r <= re.Rune[k+1]; r++ {
				set = append(set, string(r))
			}
		}
		if len(set) == 0 || len(set) > 4 {
			return nil
		}
		return set
	case syntax.OpConcat:
		return requiredConcat(re.Sub)
	case syntax.OpAlternate:
		var set []string
		for _, s := range re.Sub {
			r := required(s)
			if r == nil {
				return nil
			}
			set = append(set, r...)
		}
		return set
	}
	return nil
}

// requiredConcat handles a concatenation: runs of adjacent literal-ish parts
// are joined (a cross product for small classes), and the best run or
// sub-expression set wins.
func requiredConcat(subs []*syntax.Regexp) []string {
	var best []string
	var run []string // current run of adjacent fixed parts, as a set
	flush := func() {
		if run != nil && better(run, best) {
			best = run
		}
		run = nil
	}
	for _, s := range subs {
		fixed := s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 ||
			s.Op == syntax.OpCharClass && required(s) != nil
		if fixed {
			part := required(s)
			if run == nil {
				run = part
			} else if len(run)*len(part) <= 64 {
				next := make([]string, 0, len(run)*len(part))
				for _, a := range run {
					for _, b := range part {
						next = append(next, a+b)
					}
				}
				run = next
			} else {
				flush()
				run = part
			}
			continue
		}
		flush()
		if r := required(s); r != nil && better(r, best) {
			best = r
		}
	}
	flush()
	return best
}

func minLen(set []string) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// better prefers sets whose shortest string is longer (up to 12 bytes),
// then smaller sets, then longer strings.
func better(a, b []string) bool {
	if b == nil {
		return a != nil
	}
	ma, mb := min(minLen(a), 12), min(minLen(b), 12)
	if ma != mb {
		return ma > mb
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	// A longer literal is less likely to be a common prefix ("ACPI Error: ").
	return minLen(a) > minLen(b)
}

// acAutomaton is an Aho–Corasick automaton run as a DFA over byte
// classes whose transitions are computed when first taken (a lazy DFA).
// delta holds, per state row and byte class, the next state's row offset
// plus one, negated when that state reports matches; 0 is a transition
// not yet computed. The trie (first-child, next-sibling lists), the
// failure links and each state's outputs are built up front.
//
// Why lazy (issue 24): the dense table of the embedded database is 6,500
// states × 55 classes (1.4 MB); filling all of it was 6% of `fwcheck klog`
// on 1.8 MB of boot logs and most of the klog check's time on a live
// image's short log, though a log takes a small part of the transitions.
// A transition computed follows the failure links through the trie at
// most once; the table's pages are touched only where the log goes, and
// the scan loop pays one predictable test per byte. Transitions are
// written and read atomically, so that a Matcher stays safe for
// concurrent use.
type acAutomaton struct {
	class  [256]int32
	nclass int
	delta  []int32
	// The trie: per state, its first child, next sibling and the class of
	// the edge into it (-1: none).
	child, sibling, edge []int32
	fail                 []int32 // per state: its failure state
	outStart             []int32 // per state: index into outs
	outs                 []int32 // entry indexes, per state, terminated by -1
}

func buildAC(pats []string, owner []int32, fold bool) *acAutomaton {
	a := &acAutomaton{}
	// Byte classes: every byte used in a pattern gets its own class; all
	// other bytes share class 0. Folding, a letter's two cases share one.
	var used [256]bool
	for _, p := range pats {
		for i := 0; i < len(p); i++ {
			used[p[i]] = true
			if fold {
				used[lower(p[i])] = true
			}
		}
	}
	a.nclass = 1
	for b := 0; b < 256; b++ {
		if used[b] && (!fold || lower(byte(b)) == byte(b)) {
			a.class[b] = int32(a.nclass)
			a.nclass++
		}
	}
	if fold {
		for b := 'A'; b <= 'Z'; b++ {
			a.class[b] = a.class[b+'a'-'A']
		}
	}
	total := 1
	for _, p := range pats {
		total += len(p)
	}
	a.child = make([]int32, 1, total)
	a.sibling = make([]int32, 1, total)
	a.edge = make([]int32, 1, total)
	a.child[0], a.sibling[0], a.edge[0] = -1, -1, -1
	out := make([][]int32, 1, total)
	for k, p := range pats {
		s := int32(0)
		for i := 0; i < len(p); i++ {
			c := a.class[p[i]]
			t := a.trieChild(s, c)
			if t < 0 {
				t = int32(len(a.child))
				a.child = append(a.child, -1)
				a.edge = append(a.edge, c)
				a.sibling = append(a.sibling, a.child[s])
				a.child[s] = t
				out = append(out, nil)
			}
			s = t
		}
		if !slices.Contains(out[s], owner[k]) {
			out[s] = append(out[s], owner[k])
		}
	}
	n := len(a.child)
	// Failure links in breadth-first order, through the trie alone (no
	// transition is computed yet); each state's outputs gain its failure
	// state's.
	a.fail = make([]int32, n)
	queue := make([]int32, 0, n)
	for t := a.child[0]; t >= 0; t = a.sibling[t] {
		queue = append(queue, t)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if f := out[a.fail[s]]; len(f) > 0 {
			for _, o := range f {
				if !slices.Contains(out[s], o) {
					out[s] = append(out[s], o)
				}
			}
		}
		for t := a.child[s]; t >= 0; t = a.sibling[t] {
			c := a.edge[t]
			f := a.fail[s]
			for {
				if u := a.trieChild(f, c); u >= 0 {
					a.fail[t] = u
					break
				}
				if f == 0 {
					a.fail[t] = 0
					break
				}
				f = a.fail[f]
			}
			queue = append(queue, t)
		}
	}
	a.outStart = make([]int32, n)
	for s := 0; s < n; s++ {
		a.outStart[s] = int32(len(a.outs))
		a.outs = append(a.outs, out[s]...)
		a.outs = append(a.outs, -1)
	}
	// Zeroed memory from the allocator: every transition not computed.
	a.delta = make([]int32, n*a.nclass)
	return a
}

// trieChild returns the child of state s along class c, or -1.
func (a *acAutomaton) trieChild(s, c int32) int32 {
	for t := a.child[s]; t >= 0; t = a.sibling[t] {
		if a.edge[t] == c {
			return t
		}
	}
	return -1
}

// transition computes, stores and returns delta's entry for state s (a
// state number) and class c: the trie's edge if there is one, else the
// failure state's transition (computed the same way, at most a pattern's
// length deep).
func (a *acAutomaton) transition(s, c int32) int32 {
	at := s*int32(a.nclass) + c
	if v := atomic.LoadInt32(&a.delta[at]); v != 0 {
		return v
	}
	t := a.trieChild(s, c)
	if t < 0 {
		if s == 0 {
			t = 0
		} else {
			t = a.target(a.transition(a.fail[s], c))
		}
	}
	v := t*int32(a.nclass) + 1
	if a.outs[a.outStart[t]] >= 0 {
		v = -v
	}
	atomic.StoreInt32(&a.delta[at], v)
	return v
}

// target returns the state number a delta entry leads to.
func (a *acAutomaton) target(v int32) int32 {
	if v < 0 {
		v = -v
	}
	return (v - 1) / int32(a.nclass)
}

// scan appends to cands the entries (owner indexes below nEntries) whose
// literals occur in text, each once, and reports whether one of words
// (owner nEntries+k: words[k]) occurs as a whole word.
func (a *acAutomaton) scan(text string, cands []int32, nEntries int32, words []string) ([]int32, bool) {
	if len(a.delta) == 0 {
		return cands, false
	}
	nc := int32(a.nclass)
	delta := a.delta
	cls := &a.class
	s := int32(0) // the state's row offset
	word := false
	for i := 0; i < len(text); i++ {
		var v int32
		if i, s, v = advance(delta, cls, text, i, s); i == len(text) {
			break
		}
		c := cls[text[i]]
		if v == 0 {
			v = a.transition(s/nc, c)
		}
		if v > 0 {
			s = v - 1
			continue
		}
		s = -v - 1
		for k := a.outStart[s/nc]; a.outs[k] >= 0; k++ {
			e := a.outs[k]
			if e >= nEntries {
				if !word {
					word = wholeWord(text, i+1-len(words[e-nEntries]), i+1)
				}
				continue
			}
			if !slices.Contains(cands, e) {
				cands = append(cands, e)
			}
		}
	}
	return cands, word
}

// advance runs the automaton over text from i in the state at row offset
// s while its transitions are computed and lead to states that report
// nothing, and returns where it stopped, the state there and the
// transition it stopped at (0: not computed; negative: a reporting
// state); i is len(text) at the end of the text.
//
// Why a loop of its own (issue 24): with the rare cases (computing a
// transition, recording candidates) in the same loop, the compiler kept
// the loop's variables on the stack: 29.8 M instructions for the corpus's
// 1.8 MB of boot logs (callgrind), about 17 a byte of message text. This
// loop holds them in registers: 22.4 M, plus 2.9 M for the rare cases in
// scan. Not inlined: inlined into scan it spilled again (31 M).
//
//go:noinline
func advance(delta []int32, cls *[256]int32, text string, i int, s int32) (int, int32, int32) {
	_ = cls[0] // one nil check, not one a byte
	t := text[i:]
	row := int(s)
	for j := 0; j < len(t); j++ {
		v := atomic.LoadInt32(&delta[row+int(cls[t[j]])])
		if v <= 0 {
			return i + j, int32(row), v
		}
		row = int(v - 1)
	}
	return len(text), int32(row), 0
}

// lower returns the ASCII lower case of c.
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// wholeWord reports whether text[start:end] stands as a whole word: no
// word character just before or just after it (regexp's \b on both sides).
func wholeWord(text string, start, end int) bool {
	return (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end]))
}

// isWordByte reports whether c is a word character as regexp's \b sees it.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
