package klog

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

func TestTopLevelAlternatives(t *testing.T) {
	for re, want := range map[string][]string{
		`(?:a)|(?:b)|c`:        {`(?:a)`, `(?:b)`, `c`},
		`a(b|c)d|e`:            {`a(b|c)d`, `e`},
		`[|]x|\|y|[^]|]z`:      {`[|]x`, `\|y`, `[^]|]z`},
		`[[:alpha:]|]x|y`:      {`[[:alpha:]|]x`, `y`},
		`no alternation (a|b)`: {`no alternation (a|b)`},
	} {
		got, ok := topLevelAlternatives(re)
		require.True(t, ok, re)
		assert.Equal(t, want, got, re)
	}
	// "(?i)" reaches across '|'; \Q…\E and unbalanced text are not split
	for _, re := range []string{`(?i)a|b`, `x(?-s)y|z`, `\Q(|)\E|a`, `a)|(b`, `(a|b`, `[a|b`} {
		_, ok := topLevelAlternatives(re)
		assert.False(t, ok, re)
	}
	assert.Equal(t, []string{"a", "b", "c", "(?:d)e"}, flattenGroups([]string{"(?:a|(?:b|c))", "(?:d)e"}))
}

// Split entries match exactly the texts their whole regex matches, on the
// texts the matcher confirms them on: every entry of the embedded
// database and of the fwts database in testdata, over every entry's
// examples (tried on every split entry) and the lines of the corpus's boot
// logs (tried on the entries the prefilter makes candidates, as
// MatchWords does; FuzzBranches covers other texts).
func TestBranchesMatchAsTheWholeRegex(t *testing.T) {
	es, err := DefaultDB()
	require.NoError(t, err)
	f, err := os.Open("testdata/fwts-klog.json")
	require.NoError(t, err)
	fw, err := LoadFwts(f)
	f.Close()
	require.NoError(t, err)
	var examples, lines []string
	for _, e := range append(slices.Clone(es), fw...) {
		examples = append(examples, e.Examples...)
	}
	logs := append(corpus.Glob(t, "klog/*.txt"), corpus.Glob(t, "klog/linuxhw/*.dmesg.txt")...)
	for _, p := range logs {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, r := range ParseString(string(data)) {
			lines = append(lines, r.Text)
		}
	}
	split, confirmed := 0, 0
	for _, db := range [][]Entry{es, fw} {
		m, err := NewMatcherWords(db, Env{}, []string{"error"})
		require.NoError(t, err)
		wholes := make([]*regexp.Regexp, len(m.entries))
		for i, e := range m.entries {
			if full := e.fullRegex(); full != "" {
				if _, ok := e.splitBranches(full, false); ok {
					split++
					require.Nil(t, e.regexp(), e.Label) // split: no whole regex
					require.NotNil(t, e.code.branches, e.Label)
					wholes[i], err = e.compileRegex(full)
					require.NoError(t, err)
				}
			}
		}
		same := func(i int32, s string) {
			if wholes[i] != nil {
				confirmed++
				require.Equal(t, wholes[i].MatchString(s), m.entries[i].Matches(s), "%s on %q", m.entries[i].Label, s)
			}
		}
		for _, s := range examples {
			for i := range m.entries {
				same(int32(i), s)
			}
		}
		for _, s := range lines {
			cands, _ := m.automaton().scan(s, nil, int32(len(m.entries)), m.words)
			for _, i := range append(cands, m.always...) {
				same(i, s)
			}
		}
	}
	assert.Greater(t, split, 20, "entries split into branches")
	t.Logf("%d split entries, %d confirmations compared", split, confirmed)
}

// Entries confirmed with their whole regex after their must-literals
// match every corpus line and example exactly as the regex alone does.
func TestMustLiteralsAsTheWholeRegex(t *testing.T) {
	es, err := DefaultDB()
	require.NoError(t, err)
	var texts []string
	for _, p := range append(corpus.Glob(t, "klog/*.txt"), corpus.Glob(t, "klog/linuxhw/*.dmesg.txt")...) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, r := range ParseString(string(data)) {
			texts = append(texts, r.Text)
		}
	}
	checked := 0
	for i := range es {
		e := &es[i]
		if e.code.musts == nil {
			continue
		}
		checked++
		whole, err := e.compileRegex(e.fullRegex())
		require.NoError(t, err)
		for _, s := range append(slices.Clone(texts), e.Examples...) {
			if whole.MatchString(s) != e.Matches(s) {
				t.Fatalf("%s on %q: whole %v", e.Label, s, whole.MatchString(s))
			}
		}
	}
	assert.Greater(t, checked, 100)
}

// FuzzBranches holds the split to the whole regex: whenever a pattern
// splits, a text matches one of its branches exactly when it matches the
// pattern; a text the pattern matches holds its must-literals and, when
// the pattern is one literal, contains it.
func FuzzBranches(f *testing.F) {
	f.Add(`(?:ACPI Error.*AE_TIME)|(?:Evaluating _STA)|x[|]y`, "ACPI Error: Method failed AE_TIME")
	f.Add(`a(b|c)|[^]|]z|\|q`, "]z")
	f.Add(`(?:(?:a|b)|c)d|^e$`, "e")
	f.Fuzz(func(t *testing.T, pat, text string) {
		if len(pat) > 200 || len(text) > 500 {
			return
		}
		whole, err := regexp.Compile(pat)
		if err != nil {
			return
		}
		e := &Entry{Label: "Fuzz", Regex: pat}
		if _, lit, err := e.analyse(pat, false); err == nil && lit != "" && whole.MatchString(text) != strings.Contains(text, lit) {
			t.Fatalf("%q on %q: whole %v, literal %q", pat, text, whole.MatchString(text), lit)
		}
		if whole.MatchString(text) {
			for _, set := range e.mustLiterals(pat) {
				if !containsAny(text, set) {
					t.Fatalf("%q matches %q without any of %q", pat, text, set)
				}
			}
		}
		bs, ok := e.splitBranches(pat, false)
		if !ok {
			return
		}
		got := false
		for _, b := range bs {
			if b.mayMatch(text) && b.matches(text) {
				got = true
			}
		}
		if whole.MatchString(text) != got {
			t.Fatalf("%q on %q: whole %v, branches %v", pat, text, !got, got)
		}
	})
}
