package klog

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// A branch is one alternative of an entry's top-level alternation,
// compiled on its own, with literals one of which occurs in every text it
// matches (nil: it is tried on every text).
//
// Why (issue 24): many entries are alternations of a dozen to sixty
// messages, "(?:During name lookup/catalog)|(?:Evaluating _STA)|…". When
// the prefilter finds one of their keys, the whole alternation used to
// run: too large for regexp's backtracker, so the NFA stepped every
// alternative over the line, and compiling it came first. On the corpus's
// 1.8 MB of boot logs four such entries took nine tenths of the time spent
// confirming candidates. The alternatives whose literals are not in the
// line cannot match; the others are small regexes the backtracker runs
// at once. An entry matches a text exactly when one of its alternatives
// does, so the result is the same.
type branch struct {
	// src is the alternative's own regex.
	src string
	// lits: one of them occurs in every text src matches (nil: none
	// known, the branch is tried on every text).
	lits []string
	// lit says src is the single literal lits[0]: finding it is the
	// match, and no regex is compiled.
	lit   bool
	posix bool
	once  sync.Once
	re    *regexp.Regexp
}

// mayMatch reports whether text holds one of the branch's literals.
func (b *branch) mayMatch(text string) bool {
	if b.lits == nil {
		return true
	}
	for _, l := range b.lits {
		if strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// matches reports whether the branch matches a text for which mayMatch
// is true, compiling its regex on first use: a log pays for the branches
// its lines nearly match, not for every alternative of an entry that
// became a candidate (issue 24: compiling all 60 alternatives of
// ACPICAInternalError because one key occurred was 0.6 ms of a run).
func (b *branch) matches(text string) bool {
	if b.lit {
		return true
	}
	b.once.Do(func() {
		// Every branch compiled when its entry was checked (Compile, or
		// TestGeneratedDB for the embedded database): no error here.
		b.re, _ = compileRE(b.src, b.posix)
	})
	return b.re != nil && b.re.MatchString(text)
}

// splitBranches splits full into its top-level alternatives, each with
// its required literals; ok is false when full is no alternation or cannot
// be split safely (a flag group such as "(?i)" outside any group applies
// across '|'). With compile, each branch's regex is compiled now (an error
// makes ok false); without, on first use.
func (e *Entry) splitBranches(full string, compile bool) ([]*branch, bool) {
	parts, ok := topLevelAlternatives(full)
	if !ok {
		return nil, false
	}
	// A regex that is one group of alternatives, "(?:A|B)", splits too
	// (issue 24: AMLUnresolvedSymbol's whole regex ran on each of the
	// corpus's 98 lines with " AE_NOT_FOUND", 9 of which it matched).
	if parts = flattenGroups(parts); len(parts) < 2 {
		return nil, false
	}
	flags := syntax.Perl
	if e.posix {
		flags = syntax.POSIX
	}
	bs := make([]*branch, 0, len(parts))
	for _, p := range parts {
		b := &branch{src: p, posix: e.posix}
		if compile {
			re, err := compileRE(p, e.posix)
			if err != nil {
				return nil, false
			}
			b.once.Do(func() { b.re = re })
		}
		s, err := syntax.Parse(p, flags)
		if err != nil {
			return nil, false
		}
		s = s.Simplify()
		if set := required(s); set != nil && minLen(set) >= minLiteral && len(set) <= 64 {
			b.lits = set
		}
		if l, ok := plainLiteral(s); ok && len(l) >= minLiteral {
			b.lits, b.lit = []string{l}, true
		}
		bs = append(bs, b)
	}
	return bs, true
}

// plainLiteral returns the text a parsed regex matches when it is one
// literal string (case-sensitive, no anchors): such a regex matches a text
// exactly when the text contains it.
func plainLiteral(re *syntax.Regexp) (string, bool) {
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
		return "", false
	}
	for _, r := range re.Rune {
		if r >= utf8.RuneSelf {
			// regexp reads invalid UTF-8 as U+FFFD, Contains does not
			return "", false
		}
	}
	return string(re.Rune), true
}

// topLevelAlternatives splits a regex at the '|' outside any group,
// character class or escape. ok is false for quoted text (\Q…\E), for a
// flag group that is not scoped ("(?i)" rather than "(?i:…)") outside
// every group, and for unbalanced text.
func topLevelAlternatives(re string) (parts []string, ok bool) {
	if strings.Contains(re, `\Q`) {
		return nil, false // quoted text may hold any of the characters below
	}
	depth, start := 0, 0
	for i := 0; i < len(re); i++ {
		switch re[i] {
		case '\\':
			i++
		case '[':
			// a class ends at the first ']' after its first character
			// (and after a leading '^'); "[[:alpha:]]" holds one more
			j := i + 1
			if j < len(re) && re[j] == '^' {
				j++
			}
			if j < len(re) && re[j] == ']' {
				j++
			}
			for j < len(re) && re[j] != ']' {
				if re[j] == '\\' {
					j++
				} else if re[j] == '[' && j+1 < len(re) && re[j+1] == ':' {
					if k := strings.Index(re[j:], ":]"); k > 0 {
						j += k + 1
					}
				}
				j++
			}
			if j >= len(re) {
				return nil, false
			}
			i = j
		case '(':
			if depth == 0 && strings.HasPrefix(re[i:], "(?") {
				k := i + 2
				for k < len(re) && (re[k] >= 'a' && re[k] <= 'z' || re[k] >= 'A' && re[k] <= 'Z' || re[k] == '-') {
					k++
				}
				if k < len(re) && re[k] == ')' {
					return nil, false
				}
			}
			depth++
		case ')':
			if depth--; depth < 0 {
				return nil, false
			}
		case '|':
			if depth == 0 {
				parts = append(parts, re[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, false
	}
	return append(parts, re[start:]), true
}

// flattenGroups replaces each part that is one non-capturing group of
// alternatives, "(?:A|B)", by its alternatives (an entry with older forms
// wraps its own alternation so).
func flattenGroups(parts []string) []string {
	var out []string
	for _, p := range parts {
		if inner, ok := strings.CutPrefix(p, "(?:"); ok && strings.HasSuffix(inner, ")") {
			// the group spans the whole part when what it encloses is
			// balanced by itself
			if sub, ok := topLevelAlternatives(inner[:len(inner)-1]); ok && len(sub) > 1 {
				out = append(out, flattenGroups(sub)...)
				continue
			}
		}
		out = append(out, p)
	}
	return out
}
