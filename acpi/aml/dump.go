package aml

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Dump writes the namespace as text, one object per line in tree order:
// its path, its type, what it holds (a Name object's value, a method's
// argument count and flags, a region's space, a field unit's place) and
// where it is declared. Objects declared inside method bodies are left
// out; DumpAll includes them. The objects only External declarations
// name (no table defines them) come after the others, under a heading,
// with what was declared in their scope: the OS has none of them (a
// Scope of such an object fails to load), so the listing above the
// heading is the OS's namespace.
func (ns *Namespace) Dump(w io.Writer) error { return ns.dump(w, false) }

// DumpAll is Dump including the objects declared inside method bodies.
func (ns *Namespace) DumpAll(w io.Writer) error { return ns.dump(w, true) }

func (ns *Namespace) dump(w io.Writer, all bool) error {
	bw := bufio.NewWriter(w)
	var ext []*Node
	ns.Walk(func(n *Node) bool {
		if n.InMethod && !all {
			return false
		}
		if n.External {
			ext = append(ext, n)
			return false
		}
		bw.WriteString(n.Line())
		bw.WriteByte('\n')
		return true
	})
	if len(ext) > 0 {
		fmt.Fprintf(bw, "\n# External only: declared External, defined by no table (%d); the OS has none of these, nor what is declared in their scope\n", len(ext))
		for _, x := range ext {
			walkFrom(x, func(n *Node) bool {
				if n.InMethod && !all {
					return false
				}
				bw.WriteString(n.Line())
				bw.WriteByte('\n')
				return true
			})
		}
	}
	return bw.Flush()
}

// walkFrom is Walk from n.
func walkFrom(n *Node, fn func(*Node) bool) {
	stack := []*Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !fn(c) {
			continue
		}
		kids := c.Children()
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
}

// Counts returns the objects of the namespace the OS has (defined, the
// root included; those inside method bodies excepted), the devices among
// them, and the objects only External declarations name, with what is
// declared in their scope (external).
func (ns *Namespace) Counts() (defined, devices, external int) {
	ns.Walk(func(n *Node) bool {
		switch {
		case n.InMethod:
			return false
		case n.External:
			walkFrom(n, func(c *Node) bool {
				if c.InMethod {
					return false
				}
				external++
				return true
			})
			return false
		}
		defined++
		if n.Type == TypeDevice {
			devices++
		}
		return true
	})
	return defined, devices, external
}

// Line describes the node on one line, as Dump prints it:
//
//	\_SB.PCI0._HID  Integer = 0x030AD041 (PNP0A03)  [DSDT+0x1A2B]
//
// An object declared by load-time code inside an If block is marked
// "conditional" after its place.
func (n *Node) Line() string {
	var b strings.Builder
	b.WriteString(displayPath(n.Path()))
	b.WriteString("  ")
	b.WriteString(n.Type.String())
	if d := n.Detail(); d != "" {
		b.WriteByte(' ')
		b.WriteString(d)
	}
	switch {
	case n.Predefined:
		b.WriteString("  [predefined]")
	case n.External:
		fmt.Fprintf(&b, "  [External only, %s+0x%X]", n.Table, n.Offset)
	case n.Conditional:
		// declared by load-time code: exists only if its If holds
		fmt.Fprintf(&b, "  [%s+0x%X, conditional]", n.Table, n.Offset)
	default:
		fmt.Fprintf(&b, "  [%s+0x%X]", n.Table, n.Offset)
	}
	return b.String()
}

// Detail is the type-specific part of Line.
func (n *Node) Detail() string {
	switch {
	case n.Value != nil:
		s := "= " + n.Value.String()
		if v, ok := n.Value.IntegerValue(); ok && (n.Name == "_HID" || n.Name == "_CID") {
			if id, ok := EISAID(v); ok {
				s += " (" + id + ")"
			}
		}
		return s
	case n.Method != nil:
		s := fmt.Sprintf("(%d args", n.Method.Args)
		if n.Method.Serialized {
			s += fmt.Sprintf(", Serialized, SyncLevel %d", n.Method.SyncLevel)
		}
		return s + ")"
	case n.Region != nil:
		r := n.Region
		if n.Op == OpDataRegion {
			return fmt.Sprintf("(DataTableRegion %s, %s, %s)", r.Signature, r.OEMID, r.OEMTableID)
		}
		return fmt.Sprintf("(%s, %s, %s)", SpaceName(r.Space), r.Offset, r.Length)
	case n.Field != nil:
		f := n.Field
		ref := ""
		if f.Region != nil {
			ref = displayPath(f.Region.Name)
		}
		switch f.Kind {
		case OpIndexField:
			return fmt.Sprintf("(IndexField %s/%s, bit %d, %d bits)", ref, displayPath(f.Data.Name), f.BitOffset, f.BitLength)
		case OpBankField:
			return fmt.Sprintf("(BankField %s, bank %s = %s, bit %d, %d bits)", ref, displayPath(f.Bank.Name), f.BankValue, f.BitOffset, f.BitLength)
		}
		return fmt.Sprintf("(%s, bit %d, %d bits)", ref, f.BitOffset, f.BitLength)
	case n.Processor != nil:
		return fmt.Sprintf("(ID 0x%X, PBLK 0x%X, length %d)", n.Processor.ID, n.Processor.PblkAddr, n.Processor.PblkLen)
	case n.Power != nil:
		return fmt.Sprintf("(SystemLevel %d, ResourceOrder %d)", n.Power.SystemLevel, n.Power.ResourceOrder)
	case n.Type == TypeMutex && !n.Predefined:
		return fmt.Sprintf("(SyncLevel %d)", n.SyncLevel)
	case n.Type == TypeAlias:
		if n.Target != nil {
			return "-> " + displayPath(n.Target.Path())
		}
		return "-> (not found)"
	case n.Type == TypeBufferField && n.Def != nil:
		return "(" + n.Def.Op.String() + ")"
	}
	return ""
}
