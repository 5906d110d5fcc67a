package klog

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp/syntax"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequiredLiterals(t *testing.T) {
	cases := []struct {
		re   string
		want []string
	}{
		// With the pre-2009 "ACPI Error (module-NNNN): " form as a branch.
		{`ACPI Error: Divide by zero`, []string{"): Divide by zero", ": Divide by zero"}},
		{`ACPI: Divide by zero`, []string{"ACPI: Divide by zero"}},
		{`Invalid (?:_PCT|_PSS) data`, []string{"Invalid _P"}},
		{`(?:Aborting method \S+ due to previous error \(|Method parse/execution failed .*, )AE_AML_DIVIDE_BY_ZERO\b`, []string{"AE_AML_DIVIDE_BY_ZERO"}},
		{`(?:soft lockup|hard LOCKUP)`, []string{"hard LOCKUP", "soft lockup"}},
		{`[Ee]rror \d+`, []string{"rror "}},
		{`[0-9A]rror`, []string{"rror"}},
		{`x[ab]yz`, []string{"xayz", "xbyz"}},
		{`\d+ widgets`, []string{" widgets"}},
		{`(?i)case insensitive`, nil},
		{`a.b`, nil},
	}
	for _, c := range cases {
		e := &Entry{Label: "X", Regex: c.re}
		require.NoError(t, e.Compile())
		got, exact := requiredLiterals(e)
		sort.Strings(got)
		assert.Equal(t, c.want, got, c.re)
		assert.False(t, exact)
	}
	lits, exact := requiredLiterals(&Entry{Literal: "abc"})
	assert.Equal(t, []string{"abc"}, lits)
	assert.True(t, exact)
}

// TestRequiredIsSound checks the prefilter's promise on the database: for
// every regex entry, each example contains one of the required literals.
func TestRequiredIsSound(t *testing.T) {
	for _, e := range defaultDB(t) {
		lits, _ := requiredLiterals(&e)
		if lits == nil {
			continue
		}
		for _, ex := range e.Examples {
			found := false
			for _, l := range lits {
				found = found || strings.Contains(ex, l)
			}
			assert.True(t, found, "%s: %q contains none of %q", e.Label, ex, lits)
		}
	}
}

// bruteMatch is the reference: the first entry whose pattern matches.
func bruteMatch(es []Entry, text string) *Entry {
	for i := range es {
		if es[i].Matches(text) {
			return &es[i]
		}
	}
	return nil
}

func label(e *Entry) string {
	if e == nil {
		return ""
	}
	return e.Label
}

// TestMatcherAgreesWithBruteForce runs every real corpus line and every DB
// example through both the matcher and a plain loop over all entries.
func TestMatcherAgreesWithBruteForce(t *testing.T) {
	es := defaultDB(t)
	m, err := NewMatcher(es, Env{VM: "any"}) // every entry applies
	require.NoError(t, err)
	assert.Equal(t, len(es), m.Len())
	var texts []string
	for _, e := range es {
		texts = append(texts, e.Examples...)
	}
	hits := 0
	for _, p := range corpusLogs(t) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, r := range ParseString(string(data)) {
			texts = append(texts, r.Text)
		}
	}
	for _, s := range texts {
		want := bruteMatch(es, s)
		got := m.Match(s)
		if want != nil {
			hits++
		}
		require.Equal(t, label(want), label(got), "text %q", s)
	}
	assert.Greater(t, hits, 500, "the corpus and examples produce matches")
}

func TestMatcherScope(t *testing.T) {
	es := []Entry{
		{Label: "OnlyAcme", Literal: "widget failed", Scope: &Scope{Vendor: "acme"}},
		{Label: "OldKernels", Literal: "widget failed", Scope: &Scope{KernelMax: "5.4"}},
		{Label: "Anyone", Literal: "widget failed"},
	}
	for i := range es {
		require.NoError(t, es[i].Compile())
	}
	match := func(env Env) string {
		m, err := NewMatcher(es, env)
		require.NoError(t, err)
		return label(m.Match("x: widget failed"))
	}
	assert.Equal(t, "OnlyAcme", match(Env{Vendor: "ACME Corp"}))
	assert.Equal(t, "OldKernels", match(Env{Vendor: "Other", Kernel: "5.4.0-100-generic"}))
	assert.Equal(t, "Anyone", match(Env{Vendor: "Other", Kernel: "6.1.0-57-amd64"}))
	assert.Equal(t, "OnlyAcme", match(Env{}), "unknown values never exclude")
	assert.True(t, (&Scope{KernelMin: "5.10", KernelMax: "6.1"}).Applies(Env{Kernel: "6.1.12"}))
	assert.False(t, (&Scope{KernelMin: "5.10"}).Applies(Env{Kernel: "4.19.0"}))
}

func TestMatcherAlwaysEntries(t *testing.T) {
	// Entries without a usable literal are tried on every text, in order.
	es := []Entry{
		{Label: "First", Regex: `(?i)WIDGET \d`},
		{Label: "Second", Literal: "widget 7"},
	}
	m, err := NewMatcher(es, Env{})
	require.NoError(t, err)
	assert.Equal(t, "First", label(m.Match("a widget 7")))
	assert.Equal(t, "", label(m.Match("nothing")))
}

func TestLoadFwts(t *testing.T) {
	es, err := LoadFwtsFile(filepath.Join("testdata", "fwts-klog.json"))
	require.NoError(t, err)
	require.Len(t, es, 4)
	assert.Equal(t, "FixtureWidgetTable", es[0].Label)
	assert.Equal(t, High, es[0].Severity)
	assert.Equal(t, "Fixture: widget table is broken", es[0].Literal)
	assert.Equal(t, Medium, es[1].Severity)
	assert.Equal(t, Critical, es[2].Severity)
	assert.Equal(t, Low, es[3].Severity)
	assert.Equal(t, "FwtsKlog4", es[3].Label, "a missing label gets a generated one")

	m, err := NewMatcher(es, Env{})
	require.NoError(t, err)
	assert.Equal(t, "FixtureWidgetTable", label(m.Match("foo: Fixture: widget table is broken here")))
	assert.Equal(t, "FixtureGadget", label(m.Match("Fixture: gadget 12 timed out")))
	assert.Equal(t, "", label(m.Match("Fixture: gadget x timed out")))
	assert.Equal(t, "FixtureSprocket", label(m.Match("Fixture: sprocket 3 halted")), "POSIX classes work")
	assert.Equal(t, "", label(m.Match("pre Fixture: sprocket 3 halted")), "anchors work")

	// A bare array, and errors that name the problem.
	es, err = LoadFwts(strings.NewReader(`[{"compare_mode":"string","pattern":"x y z","advice":"a","label":"L",},]`))
	require.NoError(t, err)
	require.Len(t, es, 1)
	_, err = LoadFwts(strings.NewReader(`{"p":[{"compare_mode":"fuzzy","pattern":"x","label":"L"}]}`))
	require.ErrorContains(t, err, "compare_mode")
	_, err = LoadFwts(strings.NewReader(`{"p":[{"compare_mode":"regex","pattern":"(","label":"L"}]}`))
	require.Error(t, err)
	_, err = LoadFwts(strings.NewReader(`not json`))
	require.Error(t, err)
	_, err = LoadFwtsFile(filepath.Join(t.TempDir(), "missing.json"))
	require.Error(t, err)
}

func TestStripTrailingCommas(t *testing.T) {
	in := `{"a": [1, 2, ], "s": "keep, ]", "b": {"c": 1,
	},}`
	assert.Equal(t, `{"a": [1, 2 ], "s": "keep, ]", "b": {"c": 1
	}}`, string(stripTrailingCommas([]byte(in))))
}

func TestLoadDBRejectsBadEntries(t *testing.T) {
	_, err := LoadDB(strings.NewReader(`[{"label":"A","literal":"x","regex":"y","severity":"low"}]`))
	require.ErrorContains(t, err, "exactly one")
	_, err = LoadDB(strings.NewReader(`[{"label":"A","literal":"x","severity":"urgent"}]`))
	require.ErrorContains(t, err, "severity")
	_, err = LoadDB(strings.NewReader(`[{"label":"A","literal":"x","severity":"low","bogus":1}]`))
	require.Error(t, err)
}

// corpusText concatenates the message texts of every real log in the
// corpus, as the matcher sees them.
func corpusText(tb testing.TB) []string {
	var texts []string
	for _, p := range corpusLogs(tb) {
		data, err := os.ReadFile(p)
		require.NoError(tb, err)
		for _, r := range ParseString(string(data)) {
			texts = append(texts, r.Text)
		}
	}
	return texts
}

// BenchmarkMatchCorpus matches every record of every real kernel log in
// the corpus against the whole database; MB/s counts message text bytes.
func BenchmarkMatchCorpus(b *testing.B) {
	texts := corpusText(b)
	es := defaultDB(b)
	m, err := NewMatcher(es, Env{})
	require.NoError(b, err)
	size := 0
	for _, s := range texts {
		size += len(s) + 1
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	hits := 0
	for b.Loop() {
		for _, s := range texts {
			if m.Match(s) != nil {
				hits++
			}
		}
	}
	b.ReportMetric(float64(len(texts))*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	_ = hits
}

// BenchmarkMatchBruteForce is the baseline the prefilter avoids.
func BenchmarkMatchBruteForce(b *testing.B) {
	texts := corpusText(b)
	es := defaultDB(b)
	size := 0
	for _, s := range texts {
		size += len(s) + 1
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, s := range texts {
			bruteMatch(es, s)
		}
	}
	b.ReportMetric(float64(len(texts))*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkParseCorpus parses the concatenated corpus logs.
func BenchmarkParseCorpus(b *testing.B) {
	var all bytes.Buffer
	for _, p := range corpusLogs(b) {
		data, err := os.ReadFile(p)
		require.NoError(b, err)
		all.Write(data)
	}
	b.SetBytes(int64(all.Len()))
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(all.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}

var _ = syntax.Perl
