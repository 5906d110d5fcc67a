package aml

import (
	"bytes"
	"fmt"
	"strings"
	"unsafe"
)

// maxDepth caps the nesting of terms (objects in scopes, operators in
// operands) the parser follows, so hostile input cannot exhaust the stack.
// Real tables nest a few dozen levels at most.
const maxDepth = 256

// parseError aborts the innermost object bounded by a package length; the
// parser records it as a Malformed problem and goes on after that object.
type parseError struct {
	pos int
	msg string
}

type parser struct {
	l     *loader
	tab   *Table
	ti    int
	aml   []byte
	pos   int // index into aml
	end   int // end of the innermost bounded object
	scope *Node
	depth int
	// cond counts the If, Else and While bodies being parsed: objects
	// declared there may legitimately be declared again elsewhere.
	cond     int
	inMethod bool
	// guards holds the names tested by CondRefOf in the predicates of
	// the If blocks being parsed: uses of them there are guarded.
	guards []string
	// lazy counts the packages, Name values, region and buffer field
	// operands being parsed: a name there is resolved when the element is
	// used or the namespace initialized, not as the table loads.
	lazy int
}

func (p *parser) off(pos int) int { return pos + HeaderSize }

func (p *parser) fail(pos int, format string, args ...any) {
	panic(parseError{pos, fmt.Sprintf(format, args...)})
}

func (p *parser) problem(pos int, k Kind, format string, args ...any) {
	p.l.problem(p.ti, p.off(pos), k, format, args...)
}

// bounded parses an object that ends at end (set by its package length)
// with fn. A parse error inside is recorded and parsing resumes at end;
// whatever fn had appended to t stays.
func (p *parser) bounded(t *Term, end int, fn func()) {
	saveEnd, saveScope, saveDepth, saveCond, saveLazy := p.end, p.scope, p.depth, p.cond, p.lazy
	defer func() {
		p.end, p.scope, p.depth, p.cond, p.lazy = saveEnd, saveScope, saveDepth, saveCond, saveLazy
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			if p.l.terms > maxTerms {
				// one TooLarge problem says it, for all the tables
				p.pos = end
				return
			}
			what := t.Op.String()
			if t.Name != "" {
				what += " " + displayPath(t.Name)
			}
			p.problem(pe.pos, Malformed, "%s (in %s at offset 0x%X; skipped to its end at 0x%X)",
				pe.msg, what, t.Offset, p.off(end))
			p.pos = end
		}
	}()
	p.end = end
	fn()
}

// aliasString returns b as a string without copying it: a Buffer's
// initializer stays the table's own bytes (as a sub-slice did before the
// term layout was slimmed), which nothing writes after loading.
func aliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (p *parser) u8() byte {
	if p.pos >= p.end {
		p.fail(p.pos, "unexpected end of %s", p.endWhat())
	}
	b := p.aml[p.pos]
	p.pos++
	return b
}

func (p *parser) endWhat() string {
	if p.end == len(p.aml) {
		return "table"
	}
	return "object (its package length ends it here)"
}

func (p *parser) u16() uint16 { return uint16(p.u8()) | uint16(p.u8())<<8 }
func (p *parser) u32() uint32 { return uint32(p.u16()) | uint32(p.u16())<<16 }
func (p *parser) u64() uint64 { return uint64(p.u32()) | uint64(p.u32())<<32 }

func (p *parser) peek() (byte, bool) {
	if p.pos >= p.end {
		return 0, false
	}
	return p.aml[p.pos], true
}

// pkgLength reads a PkgLength and returns the end of the object it
// bounds. A length reaching past the enclosing object is a problem; the
// object is cut at the enclosing end and parsing goes on.
func (p *parser) pkgLength() int {
	start := p.pos
	v := p.pkgValue()
	end := start + v
	if end < p.pos {
		p.fail(start, "package length %d is shorter than its own encoding", v)
	}
	if end > p.end {
		p.problem(start, Malformed, "package length %d runs %d bytes past the end of the enclosing %s",
			v, end-p.end, p.endWhat())
		end = p.end
	}
	return end
}

// pkgValue decodes a PkgLength encoding (also used for field widths).
func (p *parser) pkgValue() int {
	b0 := p.u8()
	n := int(b0 >> 6)
	if n == 0 {
		return int(b0 & 0x3F)
	}
	v := int(b0 & 0x0F)
	for i := 0; i < n; i++ {
		v |= int(p.u8()) << (4 + 8*i)
	}
	return v
}

func isLeadChar(b byte) bool { return b >= 'A' && b <= 'Z' || b == '_' }

func isNameStart(b byte) bool {
	return isLeadChar(b) || b == '\\' || b == '^' || b == 0x2E || b == 0x2F
}

// nameString reads a NameString and returns it as text: `\` or `^`
// prefixes, then four-character segments joined by '.'. A NullName gives
// the prefix alone ("" for a bare NullName).
//
// A name of one segment, with or without prefixes, is the table's own
// bytes (see aliasString), not a copy: building a string for each was
// 565,000 allocations a pass of BenchmarkAllACPIChecksCorpus in tests/all,
// a quarter of all it made.
func (p *parser) nameString() string {
	start := p.pos
	c := p.u8()
	if c == '\\' {
		c = p.u8()
	} else {
		for c == '^' {
			c = p.u8()
		}
	}
	prefix := p.pos - 1 - start
	nsegs := 1
	switch c {
	case 0x00:
		return aliasString(p.aml[start : start+prefix])
	case 0x2E:
		nsegs = 2
	case 0x2F:
		nsegs = int(p.u8())
	default:
		p.pos--
	}
	if p.pos+4*nsegs > p.end {
		p.fail(start, "name string of %d segments runs past the end of the %s", nsegs, p.endWhat())
	}
	var b strings.Builder
	single := c != 0x2E && c != 0x2F
	if !single {
		b.Grow(prefix + 5*nsegs)
		b.Write(p.aml[start : start+prefix])
	}
	bad := false
	for i := 0; i < nsegs; i++ {
		if i > 0 {
			b.WriteByte('.')
		}
		seg := p.aml[p.pos : p.pos+4]
		for j, ch := range seg {
			if ch < 0x20 || ch > 0x7E {
				p.fail(p.pos+j, "byte 0x%02X in a name segment", ch)
			}
			if !(isLeadChar(ch) || j > 0 && ch >= '0' && ch <= '9') {
				bad = true
			}
		}
		if !single {
			b.Write(seg)
		}
		p.pos += 4
	}
	name := b.String()
	if single {
		name = aliasString(p.aml[start:p.pos])
	}
	if bad {
		p.problem(start, BadName, "name %q has characters outside A-Z, 0-9 and '_' (or starts with a digit)", name)
	}
	return name
}

func (p *parser) opcode() Op {
	b := p.u8()
	if b == 0x5B {
		return 0x5B00 | Op(p.u8())
	}
	return Op(b)
}

// termList parses terms until p.end, appending them to t.Body().
func (p *parser) termList(t *Term) {
	p.collect(t, p.term)
}

// collect appends to t.Body() what next parses, up to the end of the
// innermost object. The terms gather on the loader's stack (shared by the
// nested lists) and move to a slice of their exact length at the end, so
// a list costs its elements and nothing for the doubling of a growing
// slice; a parse error inside keeps what was parsed, as bounded says.
func (p *parser) collect(t *Term, next func() *Term) {
	l := p.l
	base := len(l.stack)
	defer func() {
		items := l.stack[base:]
		if len(items) > 0 {
			t.setKids(l.concat(t.list(), items))
		}
		clear(items)
		l.stack = l.stack[:base]
	}()
	for p.pos < p.end {
		l.stack = append(l.stack, next())
	}
}

// term parses one term: a statement, an expression, a declaration or a
// data object. A NameString here is a method call when it names a
// method.
func (p *parser) term() *Term {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.pos, "terms nested more than %d deep", maxDepth)
	}
	t := p.term1()
	p.depth--
	return t
}

func (p *parser) term1() *Term {
	start := p.pos
	b, _ := p.peek()
	if isNameStart(b) {
		return p.nameRef(true, false)
	}
	op := p.opcode()
	t := p.l.term(Term{Op: op, Offset: int32(p.off(start))})
	if op == OpLoad || op == OpLoadTable {
		p.l.loadOps++ // findLoads walks the terms only when there are some
	}
	switch {
	case op >= OpLocal0 && op <= OpArg6:
		return t
	}
	switch op {
	case OpZero, OpOne, OpOnes, OpRevision, OpDebug, OpTimer:
	case OpByteConst:
		t.Int = uint64(p.u8())
	case OpWordConst:
		t.Int = uint64(p.u16())
	case OpDWordConst:
		t.Int = uint64(p.u32())
	case OpQWordConst:
		t.Int = p.u64()
	case OpString:
		i := p.pos
		for i < p.end && p.aml[i] != 0 {
			i++
		}
		if i >= p.end {
			p.fail(start, "string has no terminating NUL before the end of the %s", p.endWhat())
		}
		t.Name = string(p.aml[p.pos:i])
		p.pos = i + 1
	case OpBuffer:
		end := p.pkgLength()
		p.bounded(t, end, func() {
			t.setKids(p.l.args(1))
			t.addArg(p.term())
			t.Name = aliasString(p.aml[p.pos:end])
			p.pos = end
		})
	case OpPackage, OpVarPackage:
		end := p.pkgLength()
		p.bounded(t, end, func() {
			if op == OpPackage {
				t.Int = uint64(p.u8())
			} else {
				t.setKids(p.l.args(1))
				t.addArg(p.term())
			}
			if p.l.probe && bytes.IndexByte(p.aml[p.pos:end], 0x0D) < 0 {
				// a probe reads packages only for the table names (strings)
				// of the Intel-style package Load's region address indexes
				p.pos = end
				return
			}
			p.lazy++
			p.collect(t, p.dataRef)
		})
	case OpName:
		t.Name = p.nameString()
		p.lazy++
		v := p.dataRef()
		p.lazy--
		p.l.setArgs(t, v)
		n := p.declare(t, start, t.Name, valueType(v))
		n.Value = v
	case OpAlias:
		src := p.nameString()
		t.Name = p.nameString()
		p.l.setArgs(t, p.l.term(Term{Op: OpNamePath, Offset: t.Offset, Name: src}))
		n := p.declare(t, start, t.Name, TypeAlias)
		n.Target = p.l.ns.Resolve(p.scope, src)
		t.list()[0].Node = n.Target
		if n.Target == nil {
			// resolved, or reported, once every table is loaded
			ref := p.l.term(Term{Op: OpAlias, Offset: t.Offset, Name: src, Node: n})
			p.l.pending = append(p.l.pending, pendingRef{term: ref, scope: p.scope, table: p.ti})
		}
	case OpScope:
		end := p.pkgLength()
		p.bounded(t, end, func() {
			t.Name = p.nameString()
			n := p.l.ns.Resolve(p.scope, t.Name)
			if n == nil {
				if !p.guarded(t.Name) {
					p.problem(start, Unresolved, "Scope %s: no such object", displayPath(t.Name))
				}
				n = p.declare(t, start, t.Name, TypeAny)
				n.External = true
			} else {
				p.externalScope(start, t.Name, n)
			}
			t.Node = n
			if r := n.Resolved(); r != nil {
				n = r
			}
			p.scope = n
			p.termList(t)
		})
	case OpDevice, OpThermalZone, OpProcessor, OpPowerRes:
		end := p.pkgLength()
		p.bounded(t, end, func() {
			t.Name = p.nameString()
			typ := TypeDevice
			switch op {
			case OpThermalZone:
				typ = TypeThermalZone
			case OpProcessor:
				typ = TypeProcessor
			case OpPowerRes:
				typ = TypePowerResource
			}
			var n *Node
			switch op {
			case OpProcessor:
				id, addr, l := p.u8(), p.u32(), p.u8()
				p.l.setArgs(t, p.byteTerm(id), p.l.term(Term{Op: OpDWordConst, Int: uint64(addr)}), p.byteTerm(l))
				n = p.declare(t, start, t.Name, typ)
				n.Processor = &Processor{ID: id, PblkAddr: addr, PblkLen: l}
			case OpPowerRes:
				lvl, order := p.u8(), p.u16()
				p.l.setArgs(t, p.byteTerm(lvl), p.l.term(Term{Op: OpWordConst, Int: uint64(order)}))
				n = p.declare(t, start, t.Name, typ)
				n.Power = &PowerResource{SystemLevel: lvl, ResourceOrder: order}
			default:
				n = p.declare(t, start, t.Name, typ)
			}
			p.scope = n
			p.termList(t)
		})
	case OpMethod:
		end := p.pkgLength()
		p.bounded(t, end, func() {
			t.Name = p.nameString()
			flags := p.u8()
			p.l.setArgs(t, p.byteTerm(flags))
			n := p.declare(t, start, t.Name, TypeMethod)
			n.Method = &Method{Args: int(flags & 7), Serialized: flags&8 != 0, SyncLevel: flags >> 4}
			p.l.methods = append(p.l.methods, pendingMethod{term: t, node: n, table: p.ti, start: p.pos, end: end})
			p.pos = end
		})
	case OpExternal:
		t.Name = p.nameString()
		typ, argc := p.u8(), p.u8()
		p.l.setArgs(t, p.byteTerm(typ), p.byteTerm(argc))
		p.external(t, start, Type(typ), int(argc))
	case OpMutex:
		t.Name = p.nameString()
		flags := p.u8()
		p.l.setArgs(t, p.byteTerm(flags))
		p.declare(t, start, t.Name, TypeMutex).SyncLevel = flags & 0xF
	case OpEvent:
		t.Name = p.nameString()
		p.declare(t, start, t.Name, TypeEvent)
	case OpRegion:
		t.Name = p.nameString()
		space := p.u8()
		// ACPICA defers a region's operands until the namespace is
		// initialized, after every static table is loaded
		p.lazy++
		o, l := p.term(), p.term()
		p.lazy--
		p.l.setArgs(t, p.byteTerm(space), o, l)
		p.declare(t, start, t.Name, TypeOperationRegion).Region = &Region{Space: space, Offset: o, Length: l}
	case OpDataRegion:
		t.Name = p.nameString()
		s, o, i := p.term(), p.term(), p.term()
		p.l.setArgs(t, s, o, i)
		p.declare(t, start, t.Name, TypeOperationRegion).Region = &Region{Space: 0xFF,
			Signature: s, OEMID: o, OEMTableID: i}
	case OpField, OpIndexField, OpBankField:
		end := p.pkgLength()
		p.bounded(t, end, func() {
			if p.l.probe {
				// a probe needs no field units: Load takes a region
				p.pos = end
				return
			}
			p.field(t)
		})
	case OpCreateDWord, OpCreateWord, OpCreateByte, OpCreateBit, OpCreateQWord, OpCreateField:
		p.lazy++ // deferred like a region's operands
		if op == OpCreateField {
			t.setKids(p.l.args(3))
		} else {
			t.setKids(p.l.args(2))
		}
		t.addArg(p.term())
		t.addArg(p.term())
		if op == OpCreateField {
			t.addArg(p.term())
		}
		p.lazy--
		t.Name = p.nameString()
		p.declare(t, start, t.Name, TypeBufferField)
	case OpIf, OpWhile:
		end := p.pkgLength()
		saveGuards := len(p.guards)
		p.bounded(t, end, func() {
			p.cond++
			p.l.setArgs(t, p.term())
			if op == OpIf {
				p.guards = p.condRefs(t.list()[0], p.guards)
			}
			p.termList(t)
		})
		p.guards = p.guards[:saveGuards]
	case OpElse:
		end := p.pkgLength()
		p.bounded(t, end, func() {
			p.cond++
			p.termList(t)
		})
	default:
		info := exprOp(op)
		if info == nil {
			p.fail(start, "unknown opcode %s", op)
		}
		if len(info.args) > 0 {
			t.setKids(p.l.args(len(info.args)))
		}
		for _, k := range info.args {
			t.addArg(p.operand(k, op == OpCondRefOf))
		}
	}
	return t
}

// byteTerm returns the constant term of an immediate byte operand (method
// flags, External's type and argument count, a region's space, field
// flags, Match opcodes): such terms have no offset of their own and
// nothing writes to a term once parsed, so every namespace shares the 256
// of them. They were 94,000 of the 1.9 M terms of the corpus's 36 full
// dumps.
func (p *parser) byteTerm(b byte) *Term { return &byteTerms.get()[b] }

var byteTerms = table256[Term]{make: func(i int) Term { return Term{Op: OpByteConst, Int: uint64(i)} }}

// operand parses one operand of the given kind.
func (p *parser) operand(k argKind, quiet bool) *Term {
	switch k {
	case aByte:
		return p.byteTerm(p.u8())
	case aWord:
		return p.l.term(Term{Op: OpWordConst, Int: uint64(p.u16())})
	case aDWord:
		return p.l.term(Term{Op: OpDWordConst, Int: uint64(p.u32())})
	case aTarget, aSuper:
		b, ok := p.peek()
		if !ok {
			p.fail(p.pos, "operand missing at the end of the %s", p.endWhat())
		}
		if b == 0 && k == aTarget {
			p.pos++
			return p.l.term(Term{Op: OpNullName, Offset: int32(p.off(p.pos - 1))})
		}
		if isNameStart(b) {
			return p.nameRef(false, quiet)
		}
	}
	return p.term()
}

// nameRef parses a NameString used as a reference or, where call is true
// and it names a method, as a call with its arguments.
func (p *parser) nameRef(call, quiet bool) *Term {
	start := p.pos
	t := p.l.term(Term{Op: OpNamePath, Offset: int32(p.off(start))})
	t.Name = p.nameString()
	n := p.l.ns.Resolve(p.scope, t.Name)
	t.Node = n
	if len(p.guards) > 0 && p.guarded(t.Name) {
		quiet = true
	}
	loadTime := !p.inMethod && p.lazy == 0
	if n == nil {
		p.l.pending = append(p.l.pending, pendingRef{term: t, scope: p.scope, table: p.ti, call: call, quiet: quiet, loadTime: loadTime})
		return t
	}
	if n.External && !quiet {
		p.l.extRefs = append(p.l.extRefs, pendingRef{term: t, scope: p.scope, table: p.ti, loadTime: loadTime})
	}
	if !call {
		return t
	}
	if m := n.Resolved(); m != nil && m.Type == TypeMethod && m.Method != nil {
		t.Op = OpCall
		if m.Method.Args > 0 {
			t.setKids(p.l.args(m.Method.Args))
		}
		for i := 0; i < m.Method.Args; i++ {
			t.addArg(p.term())
		}
	}
	return t
}

// dataRef parses a DataRefObject (a Name's value, a package element): a
// NameString here is a reference, never a call.
func (p *parser) dataRef() *Term {
	b, _ := p.peek()
	if isNameStart(b) {
		return p.nameRef(false, false)
	}
	return p.term()
}

func valueType(v *Term) Type {
	switch v.Op {
	case OpZero, OpOne, OpOnes, OpByteConst, OpWordConst, OpDWordConst, OpQWordConst, OpRevision:
		return TypeInteger
	case OpString:
		return TypeString
	case OpBuffer:
		return TypeBuffer
	case OpPackage, OpVarPackage:
		return TypePackage
	}
	return TypeAny
}

// field parses the rest of a Field, IndexField or BankField after its
// package length, declaring its field units in the current scope.
func (p *parser) field(t *Term) {
	ref := func() *Term { return p.nameRef(false, false) }
	tmpl := FieldUnit{Kind: t.Op}
	// the operands go in once all are parsed, the flags byte after them
	switch t.Op {
	case OpField:
		tmpl.Region = ref()
		t.setKids(p.l.args(2))
		t.addArg(tmpl.Region)
	case OpIndexField:
		tmpl.Region, tmpl.Data = ref(), ref()
		t.setKids(p.l.args(3))
		t.addArg(tmpl.Region)
		t.addArg(tmpl.Data)
	case OpBankField:
		tmpl.Region, tmpl.Bank = ref(), ref()
		tmpl.BankValue = p.term()
		t.setKids(p.l.args(4))
		t.addArg(tmpl.Region)
		t.addArg(tmpl.Bank)
		t.addArg(tmpl.BankValue)
	}
	t.Name = tmpl.Region.Name
	tmpl.Flags = p.u8()
	t.addArg(p.byteTerm(tmpl.Flags))
	tmpl.AccessType = tmpl.Flags & 0x0F
	bit := 0
	p.collect(t, func() *Term {
		epos := p.pos
		e := p.l.term(Term{Offset: int32(p.off(epos))})
		switch c := p.u8(); c {
		case 0x00:
			e.Op = OpReservedField
			e.Int = uint64(p.pkgValue())
			bit += int(e.Int)
		case 0x01:
			e.Op = OpAccessField
			typ, attr := p.u8(), p.u8()
			e.Int = uint64(typ) | uint64(attr)<<8
			tmpl.AccessType, tmpl.AccessAttrib = typ, attr
		case 0x02:
			e.Op = OpConnection
			if b, _ := p.peek(); b == byte(OpBuffer) {
				p.l.setArgs(e, p.term())
			} else {
				p.l.setArgs(e, ref())
			}
			tmpl.Connection = e.list()[0]
		case 0x03:
			e.Op = OpExtAccessField
			typ, attr, l := p.u8(), p.u8(), p.u8()
			e.Int = uint64(typ) | uint64(attr)<<8 | uint64(l)<<16
			tmpl.AccessType, tmpl.AccessAttrib = typ, attr
		default:
			if !isLeadChar(c) {
				p.fail(epos, "byte 0x%02X starts no field list element", c)
			}
			p.pos--
			if p.pos+4 > p.end {
				p.fail(epos, "field name runs past the end of the field list")
			}
			e.Op = OpNamedField
			e.Name = p.nameString()
			e.Int = uint64(p.pkgValue())
			n := p.declare(e, epos, e.Name, TypeFieldUnit)
			u := tmpl
			u.BitOffset, u.BitLength = bit, int(e.Int)
			n.Field = &u
			bit += int(e.Int)
		}
		return e
	})
}

// declare creates the object a declaration names, or finds the External
// placeholder it defines. A second declaration of the same name gives a
// node outside the namespace (so its body still parses, and resolves
// names upward) and, outside conditional code and method bodies, a
// Duplicate problem.
func (p *parser) declare(t *Term, pos int, path string, typ Type) *Node {
	parent, seg := p.parentOf(path)
	n := p.l.node(seg, typ, t.Op, p.tab.Name, int(t.Offset), t)
	n.InMethod = p.inMethod
	t.Node = n
	if seg == "" {
		p.problem(pos, Malformed, "%s declares an empty name", t.Op)
		n.Name = "____"
		n.Parent, n.detached = p.scope, true
		return n
	}
	if parent == nil {
		p.problem(pos, Unresolved, "%s %s: the scope it is declared in does not exist", t.Op, displayPath(path))
		n.Parent, n.detached = p.scope, true
		return n
	}
	n.Conditional = !p.inMethod && (p.cond > 0 || parent.Conditional)
	old := parent.Child(seg)
	if old == nil {
		p.l.ns.add(parent, n)
		return n
	}
	if old.External {
		p.checkExternal(pos, old, typ, t)
		old.Type, old.Op, old.Table, old.Offset, old.Def, old.External, old.InMethod = typ, t.Op, n.Table, n.Offset, t, false, p.inMethod
		old.Method = nil
		t.Node = old
		return old
	}
	if !p.inMethod && p.cond == 0 && !old.InMethod {
		where := old.Table + fmt.Sprintf("+0x%X", old.Offset)
		if old.Predefined {
			where = "the predefined namespace"
		}
		p.problem(pos, Duplicate, "%s %s is already declared (%s, at %s)", t.Op, displayPath(old.Path()), old.Type, where)
	}
	n.Parent, n.detached = parent, true
	return n
}

// checkExternal reports an External placeholder about to be defined
// whose declared type contradicts the definition on method-ness or
// argument count (a Method term's Args[0] holds its flags by now).
func (p *parser) checkExternal(pos int, ext *Node, typ Type, t *Term) {
	if ext.Type == TypeAny || ext.Op != OpExternal {
		return
	}
	if (ext.Type == TypeMethod) != (typ == TypeMethod) {
		p.problem(pos, Conflict, "%s is declared External as %s (at %s+0x%X) but defined as %s",
			displayPath(ext.Path()), ext.Type, ext.Table, ext.Offset, typ)
	} else if typ == TypeMethod && len(t.Args()) > 0 && ext.Method != nil && int(t.Args()[0].Int&7) != ext.Method.Args {
		p.problem(pos, Conflict, "method %s is declared External with %d arguments (at %s+0x%X) but defined with %d",
			displayPath(ext.Path()), ext.Method.Args, ext.Table, ext.Offset, t.Args()[0].Int&7)
	}
}

// parentOf splits a declared path into the existing scope it names and
// its last segment. Declarations never use the search rules: a relative
// path is taken from the current scope. parent is nil when a scope on the
// way is missing.
func (p *parser) parentOf(path string) (parent *Node, seg string) {
	n := p.scope
	if strings.HasPrefix(path, `\`) {
		n = p.l.ns.Root
		path = path[1:]
	}
	for len(path) > 0 && path[0] == '^' {
		if n.Parent == nil {
			return nil, strings.TrimLeft(path, "^")
		}
		n = n.Parent
		path = path[1:]
	}
	for {
		dot := strings.IndexByte(path, '.')
		if dot < 0 {
			return n, path
		}
		n = n.Child(path[:dot]).Resolved()
		path = path[dot+1:]
		if n == nil {
			return nil, path[strings.LastIndexByte(path, '.')+1:]
		}
	}
}

// external handles an External declaration: nothing when the object
// exists (beyond checking it agrees), otherwise a placeholder, with
// placeholders for any missing scopes on its path.
func (p *parser) external(t *Term, pos int, typ Type, argc int) {
	n := p.l.ns.Resolve(p.scope, t.Name)
	if n != nil {
		t.Node = n
		r := n.Resolved()
		if r == nil || n.External || typ == TypeAny {
			return
		}
		if (typ == TypeMethod) != (r.Type == TypeMethod) {
			p.problem(pos, Conflict, "External declares %s as %s, but its type is %s (%s+0x%X)",
				displayPath(n.Path()), typ, r.Type, r.Table, r.Offset)
		} else if typ == TypeMethod && r.Method != nil && r.Method.Args != argc {
			p.problem(pos, Conflict, "External declares method %s with %d arguments, but it takes %d (%s+0x%X)",
				displayPath(n.Path()), argc, r.Method.Args, r.Table, r.Offset)
		}
		return
	}
	// create the missing path
	s := p.scope
	path := t.Name
	if strings.HasPrefix(path, `\`) {
		s = p.l.ns.Root
		path = path[1:]
	}
	for len(path) > 0 && path[0] == '^' {
		if s.Parent != nil {
			s = s.Parent
		}
		path = path[1:]
	}
	if path == "" {
		return
	}
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		c := s.Child(seg)
		if c == nil {
			c = p.l.node(seg, TypeAny, OpExternal, p.tab.Name, int(t.Offset), t)
			c.External = true
			if i == len(segs)-1 {
				c.Type = typ
				if typ == TypeMethod {
					c.Method = &Method{Args: argc}
				}
			}
			p.l.ns.add(s, c)
		}
		s = c.Resolved()
		if s == nil {
			return
		}
	}
	t.Node = s
}
