package aml

import "strings"

// CondRefOf guards. A use inside If (CondRefOf (X)) is guarded when it
// names X, an object below X, or a scope X lies in (X cannot exist
// without them), however either is spelled: the guard
// may be absolute and the use relative or with ^ prefixes, and a Scope
// inside the If may move the use's scope. Both are compared as the
// absolute paths the interpreter would look up at that point (ACPI 6.5
// §5.3): a prefixed or multi-segment name has one; a single NameSeg the
// search rules make one candidate per enclosing scope.

// lexical returns the absolute paths name may stand for in scope.
func lexical(scope *Node, name string) []string {
	if name == "" {
		return nil
	}
	base := scope
	rest := name
	prefixed := false
	if rest[0] == '\\' {
		base, rest, prefixed = nil, rest[1:], true
	} else {
		for len(rest) > 0 && rest[0] == '^' {
			if base != nil {
				base = base.Parent
			}
			rest, prefixed = rest[1:], true
		}
	}
	segs := strings.Split(rest, ".")
	for i, s := range segs {
		segs[i] = padSeg(s)
	}
	rel := strings.Join(segs, ".")
	join := func(b *Node) string {
		if b == nil || b.Parent == nil {
			return `\` + rel
		}
		return b.Path() + "." + rel
	}
	if rest == "" {
		if base == nil {
			return []string{`\`}
		}
		return []string{base.Path()}
	}
	if prefixed || len(segs) > 1 {
		return []string{join(base)}
	}
	var out []string
	for s := base; ; s = s.Parent {
		out = append(out, join(s))
		if s == nil || s.Parent == nil {
			break
		}
	}
	return out
}

// condRefs appends the paths pred tests with CondRefOf, directly or
// under LAnd, to guards.
func (p *parser) condRefs(pred *Term, guards []string) []string {
	switch pred.Op {
	case OpCondRefOf:
		if len(pred.Args()) > 0 && pred.Args()[0].Op == OpNamePath {
			guards = append(guards, lexical(p.scope, pred.Args()[0].Name)...)
		}
	case OpLAnd:
		for _, a := range pred.Args() {
			guards = p.condRefs(a, guards)
		}
	}
	return guards
}

// guarded reports whether name, used in the current scope, is an object a
// CondRefOf of the enclosing If blocks tests, or lies below one.
func (p *parser) guarded(name string) bool {
	if len(p.guards) == 0 {
		return false
	}
	if len(name) == 4 && isLeadChar(name[0]) && p.scope != nil {
		return p.guardedSeg(name)
	}
	for _, c := range lexical(p.scope, name) {
		for _, g := range p.guards {
			// X exists only when its scopes do: a guard on \A.B._PPC
			// guards a use of \A.B too
			if c == g || strings.HasPrefix(c, g+".") || strings.HasPrefix(g, c+".") || g == `\` {
				return true
			}
		}
	}
	return false
}

// externalScope records a Scope (X) at load time whose X only External
// declares so far: ACPICA drops the body (AE_NOT_FOUND). Inside an If
// whose CondRefOf tests X, the body runs only when X exists. Whether X is
// defined by no table (ExternalScope) or by a later one (LoadOrder) is
// decided once every table is loaded.
func (p *parser) externalScope(start int, name string, n *Node) {
	if p.inMethod || !n.External || p.guarded(name) {
		return
	}
	p.l.extScopes = append(p.l.extScopes, extScope{ti: p.ti, off: p.off(start), name: name, node: n, cond: p.cond > 0})
}

type extScope struct {
	ti, off int
	name    string
	node    *Node
	cond    bool
}

func (l *loader) reportExtScopes() {
	for _, x := range l.extScopes {
		when := ""
		if x.cond {
			when = " (inside a load-time If: when its condition holds)"
		}
		if d := x.node.Resolved(); d != nil && !x.node.External {
			l.problem(x.ti, x.off, LoadOrder, "Scope (%s): %s is only declared External when the table loads; only %s defines it, "+
				"a table loaded after %s: ACPICA fails the lookup (AE_NOT_FOUND) and drops the scope's body%s",
				displayPath(x.name), displayPath(d.Path()), d.Table, l.ns.Tables[x.ti].Name, when)
			continue
		}
		l.problem(x.ti, x.off, ExternalScope, "Scope (%s): %s is only declared External when the table loads; "+
			"ACPICA fails the lookup (AE_NOT_FOUND) and drops the scope's body%s", displayPath(x.name), displayPath(x.node.Path()), when)
	}
}

// guardedSeg is guarded for a single NameSeg (most names), without
// building lexical's candidate paths: the candidates are written in turn
// into one buffer, and the enclosing scopes' paths are kept by the loader.
// Building them was a fifth of the allocations of loading the 36 full
// corpus dumps (BenchmarkLoadCorpus: 911,000 → 719,000 a pass).
func (p *parser) guardedSeg(seg string) bool {
	for _, g := range p.guards {
		if g == `\` {
			return true
		}
	}
	buf := p.l.candBuf[:0]
	defer func() { p.l.candBuf = buf[:0] }()
	for s := p.scope; s != nil; s = s.Parent {
		buf = buf[:0]
		if s.Parent == nil {
			buf = append(buf, '\\')
		} else {
			buf = append(buf, p.l.path(s)...)
			buf = append(buf, '.')
		}
		buf = append(buf, seg...)
		c := buf
		for _, g := range p.guards {
			switch {
			case len(c) == len(g):
				if string(c) == g {
					return true
				}
			case len(c) > len(g):
				// c lies below g
				if c[len(g)] == '.' && string(c[:len(g)]) == g {
					return true
				}
			default:
				// g lies below c
				if g[len(c)] == '.' && g[:len(c)] == string(c) {
					return true
				}
			}
		}
	}
	return false
}

// path is n.Path(), remembered.
func (l *loader) path(n *Node) string {
	if s, ok := l.paths[n]; ok {
		return s
	}
	if l.paths == nil {
		l.paths = map[*Node]string{}
	}
	s := n.Path()
	l.paths[n] = s
	return s
}
