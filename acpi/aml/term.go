package aml

import (
	"strings"
	"unsafe"
)

// Term is one node of the parse tree: an opcode with its operands (Args)
// and, for the ops that have one, a body (Body). Which fields are set
// depends on Op:
//
//   - constants (OpZero, OpOne, OpOnes, OpByteConst … OpQWordConst): Int;
//     OpString: Name holds the string (see StringValue); OpLocal0…7,
//     OpArg0…6: nothing more.
//   - OpBuffer: Args()[0] the size TermArg, Name the initializer bytes
//     (the table's own bytes, not a copy; see BufferValue).
//   - OpPackage: Int the NumElements byte, Body the elements;
//     OpVarPackage: Args()[0] the element count TermArg, Body the
//     elements.
//   - OpNamePath, OpCall: Name the path as written (four-character
//     segments joined by '.', with `\` or `^` prefixes), Node the object
//     it resolved to (nil when none), and for OpCall Args the arguments.
//   - declarations (OpName, OpMethod, OpDevice, OpScope, OpRegion, OpField,
//     OpCreateDWord, …): Name the declared path, Node the object created
//     (for a duplicate, an object outside the namespace), Args the
//     operands in grammar order, Body the TermList or field list. Byte,
//     word and dword immediates (method flags, Processor ID, region
//     space, Match opcodes, Acquire timeout) are constant Terms in Args.
//   - OpIf, OpWhile: Args()[0] the predicate, Body the TermList. OpElse
//     (a sibling following its OpIf in the list): Body.
//   - every other operator: Args in grammar order; absent Targets are
//     OpNullName terms.
//
// The layout is kept small, as a dense table holds about one term a byte
// (Load's budget, maxTerms, bounds how many) and loading the corpus makes
// 2.2 M of them: 56 bytes a term on 64-bit machines. The opcode, the
// operand count and a 32-bit offset share a word; a String's or Buffer's
// bytes are held in Name (no term has both a name and such bytes); the
// operands and the body are one list, the operands first (Args and Body
// cut it), held as a pointer to its first element and two 32-bit counts
// rather than a slice header. See the package documentation for the
// figures.
type Term struct {
	Op    Op
	nargs uint16 // the list's first nargs terms are the operands, the rest the body
	// Offset is the opcode's byte offset from the start of its table
	// (header included); a table is at most 4 GiB long.
	Offset int32
	Int    uint64
	Name   string
	kids   **Term // the list: nkids of kcap elements in use
	Node   *Node
	nkids  uint32
	kcap   uint32
}

// list returns the operands and the body, a slice no longer than what is
// in use, so that appending to it never writes past it.
func (t *Term) list() []*Term {
	if t.kids == nil {
		return nil
	}
	return unsafe.Slice(t.kids, t.kcap)[:t.nkids:t.nkids]
}

// setKids makes s (its length and its capacity) the term's list.
func (t *Term) setKids(s []*Term) {
	if cap(s) == 0 {
		t.kids, t.nkids, t.kcap = nil, 0, 0
		return
	}
	t.kids, t.nkids, t.kcap = &s[:1][0], uint32(len(s)), uint32(cap(s))
}

// Args returns the term's operands in grammar order.
func (t *Term) Args() []*Term {
	l := t.list()
	return l[:t.nargs:t.nargs]
}

// Body returns the term's TermList, field list or package elements.
func (t *Term) Body() []*Term { return t.list()[t.nargs:] }

// IntegerValue returns the value of an integer constant term (Zero, One,
// Ones, Byte/Word/DWord/QWord constants, Revision).
func (t *Term) IntegerValue() (uint64, bool) {
	if t == nil {
		return 0, false
	}
	switch t.Op {
	case OpZero:
		return 0, true
	case OpOne:
		return 1, true
	case OpOnes:
		return ^uint64(0), true
	case OpByteConst, OpWordConst, OpDWordConst, OpQWordConst, OpRevision:
		return t.Int, true
	}
	return 0, false
}

// StringValue returns the value of a string constant term.
func (t *Term) StringValue() (string, bool) {
	if t == nil || t.Op != OpString {
		return "", false
	}
	return t.Name, true
}

// BufferValue returns a Buffer term's initializer bytes and its declared
// size when that size is a constant (size is -1 otherwise). A buffer
// longer than its initializer is zero-filled when evaluated.
func (t *Term) BufferValue() (data []byte, size int64, ok bool) {
	if t == nil || t.Op != OpBuffer {
		return nil, 0, false
	}
	size = -1
	if t.nargs > 0 {
		if v, ok := t.list()[0].IntegerValue(); ok && v < 1<<40 {
			size = int64(v)
		}
	}
	return []byte(t.Name), size, true
}

// String renders the term roughly as ASL, cut short after a few hundred
// characters.
func (t *Term) String() string {
	var b strings.Builder
	writeTerm(&b, t, 0)
	s := b.String()
	if len(s) > maxRender {
		s = s[:maxRender] + "…"
	}
	return s
}

const maxRender = 240

func writeTerm(b *strings.Builder, t *Term, depth int) {
	if b.Len() > maxRender {
		return
	}
	if t == nil {
		b.WriteString("<nil>")
		return
	}
	if depth > 16 {
		b.WriteString("…")
		return
	}
	switch t.Op {
	case OpZero, OpOne, OpOnes:
		b.WriteString(t.Op.String())
	case OpByteConst, OpWordConst, OpDWordConst, OpQWordConst:
		// as iasl prints them: the constant's width in digits
		w := map[Op]int{OpByteConst: 2, OpWordConst: 4, OpDWordConst: 8, OpQWordConst: 16}[t.Op]
		h := hex(t.Int)
		b.WriteString("0x")
		for i := len(h); i < w; i++ {
			b.WriteByte('0')
		}
		b.WriteString(h)
	case OpString:
		b.WriteByte('"')
		for i := 0; i < len(t.Name); i++ {
			c := t.Name[i]
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 || c > 0x7E:
				b.WriteString(`\x`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
	case OpNamePath:
		b.WriteString(displayPath(t.Name))
	case OpNullName:
	case OpBuffer:
		b.WriteString("Buffer (")
		if len(t.Args()) > 0 {
			writeTerm(b, t.Args()[0], depth+1)
		}
		b.WriteString(") {")
		for i, c := range []byte(t.Name) {
			if b.Len() > maxRender {
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("0x")
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
		b.WriteByte('}')
	case OpPackage, OpVarPackage:
		b.WriteString("Package (")
		if t.Op == OpPackage {
			writeTerm(b, &Term{Op: OpByteConst, Int: t.Int}, depth+1)
		} else if len(t.Args()) > 0 {
			writeTerm(b, t.Args()[0], depth+1)
		}
		b.WriteString(") {")
		for i, e := range t.Body() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeTerm(b, e, depth+1)
			if b.Len() > maxRender {
				break
			}
		}
		b.WriteByte('}')
	default:
		if t.Op != OpCall && t.Name == "" && len(t.Args()) == 0 && len(t.Body()) == 0 {
			b.WriteString(t.Op.String()) // Local0, Arg1, Debug, Break, …
			return
		}
		if t.Op == OpCall {
			b.WriteString(displayPath(t.Name))
		} else {
			b.WriteString(t.Op.String())
		}
		b.WriteString(" (")
		first := true
		if t.Name != "" && t.Op != OpCall {
			b.WriteString(displayPath(t.Name))
			first = false
		}
		for _, a := range t.Args() {
			if !first {
				b.WriteString(", ")
			}
			first = false
			writeTerm(b, a, depth+1)
		}
		b.WriteByte(')')
		if len(t.Body()) > 0 {
			b.WriteString(" {…}")
		}
	}
}

// displayPath trims the '_' padding of each segment as iasl prints paths
// (`\_SB_.PCI0` → `\_SB.PCI0`).
func displayPath(p string) string {
	if !strings.Contains(p, "_.") && !strings.HasSuffix(p, "_") {
		return p
	}
	var b strings.Builder
	seg := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' || c == '^' || c == '.' {
			seg = 0
			b.WriteByte(c)
			continue
		}
		seg++
		if c == '_' && seg > 1 && strings.Trim(segRest(p, i), "_") == "" {
			// trailing padding of this segment
			for i+1 < len(p) && p[i+1] == '_' {
				i++
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// segRest returns p from i to the end of its segment.
func segRest(p string, i int) string {
	j := i
	for j < len(p) && p[j] != '.' {
		j++
	}
	return p[i:j]
}

// EISAID decodes a compressed EISA ID (as _HID and _CID integers hold
// them: "PNP0A03" is 0x030AD041) into its seven-character form; ok is
// false when v is not a well-formed one.
func EISAID(v uint64) (string, bool) {
	if v > 0xFFFFFFFF {
		return "", false
	}
	b0, b1, b2, b3 := byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	if b0&0x80 != 0 {
		return "", false
	}
	c := [3]byte{(b0 >> 2) & 0x1F, (b0&3)<<3 | b1>>5, b1 & 0x1F}
	var out [7]byte
	for i, x := range c {
		if x < 1 || x > 26 {
			return "", false
		}
		out[i] = '@' + x
	}
	out[3], out[4] = hexDigits[b2>>4], hexDigits[b2&15]
	out[5], out[6] = hexDigits[b3>>4], hexDigits[b3&15]
	return string(out[:]), true
}

// WalkTerms visits the terms of list and everything under them (operands
// before bodies) depth-first. When fn returns false the term's operands and
// body are skipped. Method bodies are reached through their Method term.
func WalkTerms(list []*Term, fn func(*Term) bool) {
	// A stack of lists and positions, not of terms: its size follows the
	// nesting (bounded by the parser), not the length of a list (a method
	// of a million terms pushed them all at once: 8 MB a walk).
	type frame struct {
		list []*Term
		i    int
	}
	stack := make([]frame, 0, 16)
	push := func(l []*Term) {
		if len(l) > 0 {
			stack = append(stack, frame{l, 0})
		}
	}
	push(list)
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i == len(f.list) {
			stack = stack[:len(stack)-1]
			continue
		}
		t := f.list[f.i]
		f.i++
		if t == nil || !fn(t) {
			continue
		}
		// the arguments first, then the body, as before
		push(t.Body())
		push(t.Args())
	}
}

// DisplayPath returns a path as iasl prints it, without the '_' padding
// of its segments (`\_SB_.PCI0` → `\_SB.PCI0`).
func DisplayPath(p string) string { return displayPath(p) }
