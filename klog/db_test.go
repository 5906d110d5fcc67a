package klog

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func defaultDB(t testing.TB) []Entry {
	t.Helper()
	es, err := DefaultDB()
	require.NoError(t, err)
	return es
}

func TestDBSize(t *testing.T) {
	assert.GreaterOrEqual(t, len(defaultDB(t)), 400, "the advice database must hold at least 400 entries")
}

var camel = regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`)

func TestDBEntriesWellFormed(t *testing.T) {
	labels := map[string]bool{}
	patterns := map[string]string{} // pattern and scope → label
	for _, e := range defaultDB(t) {
		assert.Regexp(t, camel, e.Label, "label must be CamelCase")
		assert.False(t, labels[e.Label], "duplicate label %s", e.Label)
		labels[e.Label] = true
		assert.True(t, e.Severity.Valid(), "%s: severity %q", e.Label, e.Severity)
		assert.NotEmpty(t, e.Category, "%s: category", e.Label)
		assert.NotEmpty(t, e.Source, "%s: kernel source file", e.Label)
		assert.NotEmpty(t, e.Examples, "%s: examples", e.Label)
		key := e.Pattern()
		if e.Scope != nil {
			key += fmt.Sprintf(" %+v", *e.Scope)
		}
		if prev, dup := patterns[key]; dup {
			t.Errorf("%s and %s share the pattern %q and scope", prev, e.Label, e.Pattern())
		}
		patterns[key] = e.Label
		// Advice must say more than the message: long enough, and not
		// made of the message's words.
		assert.GreaterOrEqual(t, len(e.Advice), 60, "%s: advice too short", e.Label)
		for _, ex := range e.Examples {
			assert.False(t, strings.Contains(normWords(e.Advice), normWords(ex)), "%s: advice repeats the message", e.Label)
			assert.Less(t, overlap(e.Advice, ex), 0.8, "%s: advice mostly repeats the message", e.Label)
		}
		assert.False(t, unicode.IsLower(rune(e.Advice[0])), "%s: advice should be a sentence", e.Label)
		assert.False(t, strings.HasPrefix(e.Regex, ".*"), "%s: a leading .* only slows matching", e.Label)
		assert.False(t, strings.HasPrefix(e.Pattern(), ": "), "%s: pattern starts with a stray prefix fragment", e.Label)
		lits, _ := requiredLiterals(&e)
		assert.NotNil(t, lits, "%s: pattern %q has no literal for the prefilter", e.Label, e.Pattern())
	}
}

// normWords lowercases s and keeps only letters, digits and single spaces.
func normWords(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(f, " ")
}

// overlap is the share of the advice's words that also occur in msg.
func overlap(advice, msg string) float64 {
	mw := map[string]bool{}
	for _, w := range strings.Fields(normWords(msg)) {
		mw[w] = true
	}
	aw := strings.Fields(normWords(advice))
	n := 0
	for _, w := range aw {
		if mw[w] {
			n++
		}
	}
	if len(aw) == 0 {
		return 1
	}
	return float64(n) / float64(len(aw))
}

// genericEnv is a machine no vendor- or product-scoped entry applies to.
var genericEnv = Env{Vendor: "fwcheck generic test vendor", Product: "fwcheck generic test product"}

// TestDBExamplesMatchAndAreNotShadowed: scoped entries are checked on a
// machine of unknown identity (every scope applies), unscoped ones on a
// machine outside every vendor/product scope.
func TestDBExamplesMatchAndAreNotShadowed(t *testing.T) {
	es := defaultDB(t)
	scoped, err := NewMatcher(es, Env{})
	require.NoError(t, err)
	generic, err := NewMatcher(es, genericEnv)
	require.NoError(t, err)
	for i := range es {
		e := &es[i]
		m := generic
		if e.Scope != nil {
			m = scoped
		}
		for _, ex := range e.Examples {
			assert.True(t, e.Matches(ex), "%s: example %q does not match %q", e.Label, ex, e.Pattern())
			got := m.Match(ex)
			if assert.NotNil(t, got, "%s: matcher finds nothing for %q", e.Label, ex) {
				assert.Equal(t, e.Label, got.Label, "example %q of %s is shadowed by %s", ex, e.Label, got.Label)
			}
		}
	}
}
