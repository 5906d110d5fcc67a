package aml

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"unsafe"

	"github.com/fwcheck/fwcheck/acpi"
)

// Table is one definition block to load: a DSDT or SSDT.
type Table struct {
	// Name identifies the table in problems and in Node.Table ("DSDT",
	// "SSDT3").
	Name string
	// Signature, OEMID and OEMTableID come from the table header.
	Signature, OEMID, OEMTableID string
	// Revision is the header's revision; a DSDT revision below 2 means
	// integers are 32 bits wide (ACPI 6.5 §5.2.11.1).
	Revision uint8
	// AML is the definition block: the table's bytes after the 36-byte
	// header.
	AML []byte
	// Code is filled in by Load: the table's top-level TermList (the
	// declarations and the load-time code outside method bodies).
	Code []*Term
}

// HeaderSize is the length of the table header that precedes the AML;
// offsets in problems and nodes count from the start of the table.
const HeaderSize = acpi.HeaderSize

// FromACPI turns an acpi.Table into a Table, cutting it to its declared
// length. A table shorter than its header yields an empty definition
// block.
func FromACPI(t *acpi.Table) Table {
	raw := t.Data()
	tb := Table{Name: t.Name(), Signature: t.Signature, OEMID: t.Header.OEMID,
		OEMTableID: t.Header.OEMTableID, Revision: t.Header.Revision}
	if len(raw) > HeaderSize {
		tb.AML = raw[HeaderSize:]
	}
	return tb
}

// Definitions returns the DSDT followed by every SSDT of ts in the order
// found, then the tables of other signatures that a LoadTable of theirs
// names (loaded at run time; Load puts every run-time table last).
func Definitions(ts *acpi.Tables) []Table {
	var out []Table
	for _, t := range ts.Get(acpi.SigDSDT) {
		out = append(out, FromACPI(t))
	}
	for _, t := range ts.Get(acpi.SigSSDT) {
		out = append(out, FromACPI(t))
	}
	// definition blocks of other signatures that LoadTable brings in
	seen := map[string]bool{}
	for i := range out {
		for _, sig := range loadTableSignatures(out[i].AML) {
			if seen[sig] {
				continue
			}
			seen[sig] = true
			for _, t := range ts.Get(sig) {
				out = append(out, FromACPI(t))
			}
		}
	}
	return out
}

// Kind classifies a Problem.
type Kind uint8

const (
	// Malformed: AML that cannot be parsed: an unknown opcode, a package
	// length or name string running past its end, a string without its
	// terminator, nesting deeper than the parser follows. The rest of
	// the enclosing object is skipped.
	Malformed Kind = iota + 1
	// BadName: a NameSeg with characters outside A–Z, 0–9 and '_'.
	BadName
	// Duplicate: an object declared twice in the same scope outside
	// conditional code; the first declaration is kept.
	Duplicate
	// Unresolved: a reference (or a Scope, Alias or Field operand)
	// naming an object that no table declares.
	Unresolved
	// ExternalOnly: a reference to an object that only External
	// declarations name; no loaded table defines it. Reported once per
	// object, at its first use. Often harmless (the use is guarded by
	// CondRefOf, or the object lives in a table loaded at run time).
	ExternalOnly
	// Conflict: an External declaration that disagrees with the object's
	// definition about being a method or about its argument count, which
	// changes how calls to it parse.
	Conflict
	// ForwardCall: a name at load time (outside any method) that was not
	// yet declared when parsed as a reference and turned out to be a
	// method taking arguments, so its arguments were parsed as separate
	// terms.
	ForwardCall
	// TooLarge: the tables hold more AML than Load keeps (its budget of
	// terms, far above any real machine); what lies beyond is not parsed
	// and methods left unparsed evaluate as EvalBudget. Reported once.
	TooLarge
	// ExternalScope: a Scope (X) at load time where X is, when the table
	// loads, only declared External (no earlier table defines it).
	// ACPICA fails the lookup (AE_NOT_FOUND) and drops the whole scope
	// body: every object declared in it is missing.
	ExternalScope
	// RunTimeOnly: a reference to an object no loaded table defines, in
	// a scope where the firmware loads a table at run time (Load,
	// LoadTable) that the tables given lack: that table may define it.
	// Not a defect the tables show; capture the run-time tables to
	// check it.
	RunTimeOnly
	// LoadOrder: load-time code (outside any method: an OperationRegion's
	// address or length, a Field's region, an If's predicate) uses an
	// object that only a table loaded later defines. The OS runs a
	// table's load-time code as it loads the table, before the later
	// table exists: ACPICA fails the lookup (AE_NOT_FOUND).
	LoadOrder
)

var kindNames = map[Kind]string{Malformed: "malformed", BadName: "bad-name", Duplicate: "duplicate",
	Unresolved: "unresolved", ExternalOnly: "external-only", Conflict: "conflict", ForwardCall: "forward-call",
	TooLarge: "too-large", ExternalScope: "external-scope", RunTimeOnly: "run-time-only", LoadOrder: "load-order"}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "kind-" + itoa(int(k))
}

// Problem is something wrong found while loading: where (table name and
// offset from the start of the table, header included), what kind, and a
// message naming the object.
type Problem struct {
	Table  string
	Offset int
	Kind   Kind
	Msg    string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s+0x%X: %s: %s", p.Table, p.Offset, p.Kind, p.Msg)
}

// maxProblemsPerTable bounds the problems one table can produce; a table
// of garbage would otherwise report one per byte.
const maxProblemsPerTable = 500

// Load parses the definition blocks, in order, into one namespace and
// returns it with the problems found, sorted by table and offset. It never
// fails: a table that cannot be parsed leaves what could be parsed of it
// in the namespace.
//
// Loading runs in passes, the way ACPICA defers method bodies: first every
// table's top level is parsed in load order (declarations, and load-time
// code such as If blocks outside methods), with method bodies recorded but
// not parsed; then every method body is parsed, when every table's
// declarations — and so every method's argument count — are known, which
// is what a call (a bare NameString followed by its arguments) needs to
// parse. Last, references that named nothing when parsed (a package
// element naming a device declared further down, say) are resolved again
// against the complete namespace, and only those still unresolved are
// problems.
//
// Tables the code loads at run time (Load, LoadTable; see RunTimeLoads)
// are loaded after the static ones, as the OS does, whatever their place
// in tables.
func Load(tables ...Table) (*Namespace, []Problem) {
	if len(tables) < 2 || !mayLoadTables(tables) {
		ns, probs := load(tables, false)
		if len(tables) > 1 {
			// not when the filters hold, which are conservative
			if again := runTimeOrder(tables, ns.loads); again != nil {
				return load(again, false)
			}
		}
		return ns, probs
	}
	// Which tables are loaded at run time, and so go last, is known only
	// from the Load and LoadTable terms, inside method bodies as a rule.
	// Loading everything twice (in the given order, then in the run-time
	// order) was a third of the corpus's loading: 7 of the 156 corpus
	// dumps, with half its AML, have run-time tables. A probe instead
	// parses the top levels and only the method bodies whose bytes hold a
	// Load or LoadTable opcode; the full load follows in the order the
	// probe found. When the full load's own Loads disagree with the
	// probe's (a Load naming an object that only an unparsed body
	// declares), the namespace is built as without the probe.
	probe, _ := load(tables, true)
	order := runTimeOrder(tables, probe.loads)
	if order == nil {
		ns, probs := load(tables, false)
		if again := runTimeOrder(tables, ns.loads); again != nil {
			return load(again, false)
		}
		return ns, probs
	}
	ns, probs := load(order, false)
	if again := runTimeOrder(tables, ns.loads); slices.EqualFunc(again, order, func(a, b Table) bool { return a.Name == b.Name }) {
		return ns, probs
	}
	ns, probs = load(tables, false)
	if again := runTimeOrder(tables, ns.loads); again != nil {
		return load(again, false)
	}
	return ns, probs
}

// mayLoadTables reports whether some table's bytes hold the opcode of
// Load or LoadTable (0x5B 0x20, 0x5B 0x1F): a table without either byte
// pair holds no such term.
func mayLoadTables(tables []Table) bool {
	for _, t := range tables {
		if mayLoad(t.AML) {
			return true
		}
	}
	return false
}

func mayLoad(b []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], 0x5B)
		if j < 0 || i+j+1 >= len(b) {
			return false
		}
		i += j + 1
		if b[i] == 0x20 || b[i] == 0x1F {
			return true
		}
	}
}

// load builds the namespace of tables in their order. A probe (see Load)
// parses only the method bodies that may hold a Load or LoadTable and
// stops once the run-time loads are known; its problems are not reported.
func load(tables []Table, probe bool) (*Namespace, []Problem) {
	l := &loader{ns: newNamespace(), perTable: map[string]int{}, extSeen: map[*Node]bool{}, probe: probe}
	for i := range tables {
		t := tables[i]
		t.Code = nil
		l.ns.Tables = append(l.ns.Tables, &t)
	}
	// Pass 1: the top level of each table.
	for ti, t := range l.ns.Tables {
		p := &parser{l: l, tab: t, ti: ti, aml: t.AML, end: len(t.AML), scope: l.ns.Root}
		root := &Term{Op: OpScope, Name: `\`}
		p.bounded(root, len(t.AML), func() { p.termList(root) })
		t.Code = root.Body()
	}
	// Pass 2: method bodies; the queue grows when a body declares a
	// method. Past the term budget the bodies are left unparsed.
	unparsed := 0
	for i := 0; i < len(l.methods); i++ {
		m := l.methods[i]
		if l.terms >= maxTerms {
			if m.node.Def == m.term && m.node.Method != nil {
				m.node.Method.Unparsed = true
			}
			unparsed++
			continue
		}
		if probe && !mayLoad(l.ns.Tables[m.table].AML[m.start:m.end]) {
			continue
		}
		p := &parser{l: l, tab: l.ns.Tables[m.table], ti: m.table, aml: l.ns.Tables[m.table].AML,
			pos: m.start, end: m.end, scope: m.node, inMethod: true}
		p.bounded(m.term, m.end, func() { p.termList(m.term) })
		if m.node.Def == m.term && m.node.Method != nil {
			m.node.Method.Body = m.term.Body()
			m.node.Method.mayLoad = mayLoad(p.aml[m.start:m.end])
			if l.terms >= maxTerms {
				m.node.Method.Unparsed = true
				unparsed++
			}
		}
	}
	if l.terms >= maxTerms {
		size := 0
		for _, t := range l.ns.Tables {
			size += len(t.AML)
		}
		l.problems = append(l.problems, tabProblem{Problem{Table: l.ns.Tables[0].Name, Kind: TooLarge,
			Msg: fmt.Sprintf("the %d bytes of AML hold more than %d terms, the load budget (the largest real machine seen has 302,263); the rest is not parsed: %d method bodies, and the table-level code beyond it", size, maxTerms, unparsed)}, 0})
	}
	// Pass 3: late resolution, knowing what the code loads at run time.
	l.ns.loadTerms = l.loadOps
	l.findLoads()
	if probe {
		return l.ns, nil
	}
	l.resolvePending()
	l.reportExtScopes()
	sort.SliceStable(l.problems, func(i, j int) bool {
		a, b := l.problems[i], l.problems[j]
		if a.ti != b.ti {
			return a.ti < b.ti
		}
		return a.Offset < b.Offset
	})
	out := make([]Problem, len(l.problems))
	for i, p := range l.problems {
		out[i] = p.Problem
	}
	return l.ns, out
}

type loader struct {
	ns       *Namespace
	problems []tabProblem
	perTable map[string]int
	methods  []pendingMethod
	pending  []pendingRef
	extRefs  []pendingRef
	extSeen  map[*Node]bool
	// extScopes are the load-time Scopes of External-only objects
	extScopes []extScope
	termSlab  []Term
	nodeSlab  []Node
	argSlab   []*Term
	stack     []*Term          // the lists being parsed (see parser.collect)
	terms     int              // terms allocated, against maxTerms
	loadOps   int              // Load and LoadTable terms parsed (see findLoads)
	probe     bool             // see Load
	paths     map[*Node]string // scope paths (see parser.guardedSeg)
	candBuf   []byte
}

// term allocates a Term from a slab: a namespace's terms live and die
// together, and one allocation per few hundred terms keeps the garbage
// collector's work proportional to the tables, not to their terms.
func (l *loader) term(t Term) *Term {
	if len(l.termSlab) == 0 {
		l.termSlab = make([]Term, 256)
	}
	l.terms++
	if l.terms > maxTerms {
		panic(parseError{-1, "over the load budget"})
	}
	p := &l.termSlab[0]
	// Field by field, the pointer fields only when set: the slab is
	// zeroed, and copying the whole value went through the garbage
	// collector's bulk write barrier whenever it was marking (a fifth of
	// loading the corpus's namespaces when terms were 104 bytes).
	p.Op, p.Offset, p.Int = t.Op, t.Offset, t.Int
	if t.Name != "" {
		p.Name = t.Name
	}
	if t.Node != nil {
		p.Node = t.Node
	}
	l.termSlab = l.termSlab[1:]
	return p
}

// node allocates a Node from a slab, as term does terms: the nodes of a
// namespace live and die together. The fields are written one by one
// into the zeroed slab, not copied as a whole struct (see term).
func (l *loader) node(name string, typ Type, op Op, table string, offset int, def *Term) *Node {
	if len(l.nodeSlab) == 0 {
		l.nodeSlab = make([]Node, 128)
	}
	n := &l.nodeSlab[0]
	l.nodeSlab = l.nodeSlab[1:]
	n.Name, n.Type, n.Op, n.Table, n.Offset, n.Def = name, typ, op, table, offset, def
	return n
}

// args returns an empty operand list with room for n, cut from a shared
// arena.
func (l *loader) args(n int) []*Term {
	if n > 64 {
		return make([]*Term, 0, n)
	}
	if cap(l.argSlab)-len(l.argSlab) < n {
		l.argSlab = make([]*Term, 0, 2048)
	}
	k := len(l.argSlab)
	l.argSlab = l.argSlab[:k+n]
	return l.argSlab[k : k : k+n]
}

// list returns ts as an operand list from the arena.
func (l *loader) list(ts ...*Term) []*Term {
	return append(l.args(len(ts)), ts...)
}

// setArgs makes ts the operands of t, which has none yet.
func (l *loader) setArgs(t *Term, ts ...*Term) {
	t.setKids(append(l.args(len(ts)), ts...))
	t.nargs = uint16(len(ts))
}

// addArg appends an operand to t, whose body is still empty; its list has
// room for it (from args) as a rule.
func (t *Term) addArg(a *Term) {
	var l []*Term
	if t.kids != nil {
		l = unsafe.Slice(t.kids, t.kcap)[:t.nkids] // with its room
	}
	t.setKids(append(l, a))
	t.nargs++
}

// concat returns a list of exactly a's and b's elements, from the arena:
// a term's operands followed by its body.
func (l *loader) concat(a, b []*Term) []*Term {
	n := len(a) + len(b)
	if n > 64 {
		out := make([]*Term, n)
		copy(out[copy(out, a):], b)
		return out
	}
	return append(append(l.args(n), a...), b...)
}

type tabProblem struct {
	Problem
	ti int
}

type pendingMethod struct {
	term       *Term
	node       *Node
	table      int
	start, end int
}

// pendingRef is a reference whose resolution is checked after loading.
type pendingRef struct {
	term  *Term
	scope *Node
	table int
	call  bool // parsed where a method call could stand
	quiet bool // CondRefOf operand: absence is expected
	// loadTime: the reference runs when the table loads (outside any
	// method and any package)
	loadTime bool
}

func (l *loader) problem(ti int, off int, k Kind, format string, args ...any) {
	name := l.ns.Tables[ti].Name
	n := l.perTable[name]
	l.perTable[name] = n + 1
	switch {
	case n < maxProblemsPerTable:
		l.problems = append(l.problems, tabProblem{Problem{name, off, k, fmt.Sprintf(format, args...)}, ti})
	case n == maxProblemsPerTable:
		l.problems = append(l.problems, tabProblem{Problem{name, off, Malformed,
			fmt.Sprintf("more than %d problems; the rest are not reported", maxProblemsPerTable)}, ti})
	}
}

func (l *loader) resolvePending() {
	for _, r := range l.pending {
		t := r.term
		n := l.ns.Resolve(r.scope, t.Name)
		if t.Op == OpAlias {
			// an Alias whose source was not declared yet
			if n != nil && t.Node != nil {
				t.Node.Target = n
				continue
			}
			l.problem(r.table, int(t.Offset), Unresolved, "Alias %s: source %s not found",
				displayPath(t.Node.Path()), displayPath(t.Name))
			continue
		}
		t.Node = n
		switch {
		case n == nil:
			if r.quiet {
				break
			}
			if ld := l.ns.runTimeSource(r.scope, t.Name); ld != nil {
				l.problem(r.table, int(t.Offset), RunTimeOnly, "%s not found (in scope %s); %s",
					displayPath(t.Name), displayPath(r.scope.Path()), ld.says())
				break
			}
			l.problem(r.table, int(t.Offset), Unresolved, "%s not found (in scope %s)",
				displayPath(t.Name), displayPath(r.scope.Path()))
		case r.loadTime && !r.quiet && l.later(n, r.table):
			l.loadOrder(r, n)
		case r.call && n.Resolved() != nil && n.Resolved().Type == TypeMethod &&
			n.Resolved().Method != nil && n.Resolved().Method.Args > 0:
			l.problem(r.table, int(t.Offset), ForwardCall,
				"%s is called before its declaration, so its %d arguments were parsed as separate terms",
				displayPath(t.Name), n.Resolved().Method.Args)
		case n.External && !r.quiet:
			l.extRefs = append(l.extRefs, r)
		}
	}
	for _, r := range l.extRefs {
		n := r.term.Node
		if n != nil && !n.External && r.loadTime && l.later(n, r.table) {
			// only External when the table loaded: a later table defines it
			l.loadOrder(r, n)
			continue
		}
		if n == nil || !n.External || l.extSeen[n] {
			continue
		}
		l.extSeen[n] = true
		if ld := l.ns.runTimeSource(nil, n.Path()); ld != nil {
			l.problem(r.table, int(r.term.Offset), RunTimeOnly, "%s is declared External and no loaded table defines it; %s",
				displayPath(n.Path()), ld.says())
			continue
		}
		l.problem(r.table, int(r.term.Offset), ExternalOnly, "%s is declared External but no loaded table defines it",
			displayPath(n.Path()))
	}
}

// later reports whether n is defined by a table loaded after table ti.
func (l *loader) later(n *Node, ti int) bool {
	d := n.Resolved()
	if d == nil || d.External || d.InMethod {
		return false
	}
	for i := ti + 1; i < len(l.ns.Tables); i++ {
		if l.ns.Tables[i].Name == d.Table {
			return true
		}
	}
	return false
}

func (l *loader) loadOrder(r pendingRef, n *Node) {
	d := n.Resolved()
	l.problem(r.table, int(r.term.Offset), LoadOrder, "load-time code uses %s (in scope %s), which only %s defines (at %s+0x%X), "+
		"a table loaded after %s: when this code runs the object does not exist yet (ACPICA: AE_NOT_FOUND)",
		displayPath(d.Path()), displayPath(r.scope.Path()), d.Table, d.Table, d.Offset, l.ns.Tables[r.table].Name)
}

// says explains a run-time load for a reference it may satisfy.
func (ld *RunTimeLoad) says() string {
	return fmt.Sprintf("the firmware loads table %s at run time (%s+0x%X, in %s), and the tables given lack it: it may define the object",
		ld.Want, ld.Table, ld.Offset, displayPath(ld.Scope))
}
