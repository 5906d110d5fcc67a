// Package devicetree reads a flattened devicetree blob (FDT, as the kernel
// exposes it in /sys/firmware/fdt) and answers the questions fwcheck asks
// of it: its structure, /chosen, the memory nodes, compatible strings and
// the PSCI node.
//
// The tree itself is built by u-root's pkg/dt. That parser trusts the
// header's sizes (it allocates a property's or the strings block's length
// before reading it, and walks nodes recursively), so Parse first walks the
// blob itself, with every offset and length bounded by the blob and the
// nesting depth bounded, and hands it to pkg/dt only when that walk found
// it sound: the walk is also what reports the structural problems, with
// the offsets at which they are. Devicetree Specification v0.4, chapter 5
// (flattened format), chapters 2-3 (standard properties and nodes).
package devicetree

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/u-root/u-root/pkg/dt"
)

// Limits on a blob, so that a hostile one cannot exhaust memory or time.
// Real ones are a few to a few hundred kilobytes.
const (
	MaxSize  = 8 << 20
	MaxDepth = 64
	MaxNodes = 100_000
)

// Header field offsets and token values (DTSpec §5.2, §5.4.1).
const (
	Magic      = 0xd00dfeed
	headerSize = 40

	tokBeginNode = 1
	tokEndNode   = 2
	tokProp      = 3
	tokNop       = 4
	tokEnd       = 9
)

// Header is the blob's header.
type Header struct {
	Magic, TotalSize, OffStruct, OffStrings, OffMemRsvmap uint32
	Version, LastCompVersion, BootCPUID                   uint32
	SizeStrings, SizeStruct                               uint32
}

// Blob is a parsed devicetree.
type Blob struct {
	Header Header
	// Size is the length of the data read (TotalSize may say less).
	Size int
	// Problems are what the structural walk found wrong, each with its
	// offset; a blob with problems has no Root.
	Problems []string
	// Root is the tree as pkg/dt builds it; nil when Problems is not
	// empty.
	Root *dt.Node
	// Reserved are the memory reservation block's entries.
	Reserved []dt.ReserveEntry
	// Nodes counts the nodes.
	Nodes int
}

// Parse reads a blob. The error is for data that is not a devicetree at
// all (too short, wrong magic, too large); a devicetree with structural
// faults parses with those in Problems.
func Parse(b []byte) (*Blob, error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("devicetree: %d bytes, more than the %d accepted", len(b), MaxSize)
	}
	if len(b) < headerSize {
		return nil, fmt.Errorf("devicetree: %d bytes, shorter than the %d-byte header", len(b), headerSize)
	}
	var h Header
	_ = binary.Read(bytes.NewReader(b[:headerSize]), binary.BigEndian, &h)
	if h.Magic != Magic {
		return nil, fmt.Errorf("devicetree: magic 0x%08x, not 0x%08x", h.Magic, uint32(Magic))
	}
	bl := &Blob{Header: h, Size: len(b)}
	bl.walk(b)
	if len(bl.Problems) > 0 {
		return bl, nil
	}
	f, err := dt.ReadFDT(bytes.NewReader(b[:h.TotalSize]))
	if err != nil {
		bl.Problems = append(bl.Problems, err.Error())
		return bl, nil
	}
	bl.Root, bl.Reserved = f.RootNode, f.ReserveEntries
	return bl, nil
}

func (bl *Blob) problem(format string, args ...any) {
	if len(bl.Problems) < 20 {
		bl.Problems = append(bl.Problems, fmt.Sprintf(format, args...))
	}
}

// walk checks the header's layout and the structure block's tokens.
func (bl *Blob) walk(b []byte) {
	h := bl.Header
	switch {
	case h.Version < 16:
		bl.problem("version %d: the kernel reads version 16 and later", h.Version)
	case h.LastCompVersion > 17:
		bl.problem("last compatible version %d: no reader of version 17 may read it", h.LastCompVersion)
	}
	if h.TotalSize > uint32(len(b)) || h.TotalSize < headerSize {
		bl.problem("totalsize %d, but the blob is %d bytes", h.TotalSize, len(b))
		return
	}
	total := uint64(h.TotalSize)
	in := func(name string, off, size uint64, align uint64) bool {
		switch {
		case off < headerSize:
			bl.problem("%s block at 0x%x overlaps the header", name, off)
		case off+size > total:
			bl.problem("%s block 0x%x+0x%x runs past totalsize 0x%x", name, off, size, total)
		case off%align != 0:
			bl.problem("%s block at 0x%x is not %d-byte aligned", name, off, align)
		default:
			return true
		}
		return false
	}
	okS := in("structure", uint64(h.OffStruct), uint64(h.SizeStruct), 4)
	okT := in("strings", uint64(h.OffStrings), uint64(h.SizeStrings), 1)
	okR := in("memory reservation", uint64(h.OffMemRsvmap), 16, 8)
	if !okS || !okT || !okR {
		return
	}
	// The reservation block: pairs of 64-bit values ending in 0, 0.
	for off := uint64(h.OffMemRsvmap); ; off += 16 {
		if off+16 > total {
			bl.problem("memory reservation block at 0x%x has no terminating entry", h.OffMemRsvmap)
			return
		}
		if binary.BigEndian.Uint64(b[off:]) == 0 && binary.BigEndian.Uint64(b[off+8:]) == 0 {
			if off+16 > uint64(h.OffStruct) && uint64(h.OffMemRsvmap) < uint64(h.OffStruct) {
				bl.problem("memory reservation block (to 0x%x) overlaps the structure block at 0x%x", off+16, h.OffStruct)
			}
			break
		}
	}
	strs := b[h.OffStrings : uint64(h.OffStrings)+uint64(h.SizeStrings)]
	st := b[h.OffStruct : uint64(h.OffStruct)+uint64(h.SizeStruct)]
	depth, off, roots := 0, 0, 0
	u32 := func() (uint32, bool) {
		if off+4 > len(st) {
			return 0, false
		}
		v := binary.BigEndian.Uint32(st[off:])
		off += 4
		return v, true
	}
	align := func() { off = (off + 3) &^ 3 }
	for {
		at := int(h.OffStruct) + off
		tok, ok := u32()
		if !ok {
			bl.problem("structure block ends at 0x%x without FDT_END", at)
			return
		}
		switch tok {
		case tokBeginNode:
			if depth == 0 {
				roots++
				if roots > 1 {
					bl.problem("a second root node at 0x%x", at)
					return
				}
			}
			depth++
			bl.Nodes++
			if depth > MaxDepth || bl.Nodes > MaxNodes {
				bl.problem("node at 0x%x: more than %d levels or %d nodes", at, MaxDepth, MaxNodes)
				return
			}
			end := bytes.IndexByte(st[off:], 0)
			if end < 0 {
				bl.problem("node name at 0x%x has no terminating NUL", at+4)
				return
			}
			if depth > 1 && end == 0 {
				bl.problem("node at 0x%x has an empty name", at)
			}
			off += end + 1
			align()
		case tokEndNode:
			if depth == 0 {
				bl.problem("FDT_END_NODE at 0x%x closes no node", at)
				return
			}
			depth--
		case tokProp:
			n, ok1 := u32()
			nameoff, ok2 := u32()
			switch {
			case !ok1 || !ok2:
				bl.problem("property at 0x%x is cut off", at)
				return
			case depth == 0:
				bl.problem("property at 0x%x is outside every node", at)
				return
			case uint64(nameoff) >= uint64(len(strs)):
				bl.problem("property at 0x%x: name offset 0x%x past the strings block (0x%x bytes)", at, nameoff, len(strs))
				return
			case bytes.IndexByte(strs[nameoff:], 0) < 0:
				bl.problem("property at 0x%x: name at strings offset 0x%x has no terminating NUL", at, nameoff)
				return
			case uint64(off)+uint64(n) > uint64(len(st)):
				bl.problem("property at 0x%x: %d-byte value runs past the structure block", at, n)
				return
			}
			off += int(n)
			align()
		case tokNop:
		case tokEnd:
			if depth != 0 {
				bl.problem("FDT_END at 0x%x with %d nodes still open", at, depth)
			}
			if roots == 0 {
				bl.problem("no root node")
			}
			return
		default:
			bl.problem("unknown token 0x%x at 0x%x", tok, at)
			return
		}
		if off > len(st) {
			bl.problem("structure block ends inside an item at 0x%x", at)
			return
		}
	}
}

// Node returns the node at path ("/chosen", "/psci"), matching a name
// with or without its unit address; nil when absent.
func (bl *Blob) Node(path string) *dt.Node {
	if bl.Root == nil {
		return nil
	}
	n := bl.Root
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		if part == "" {
			continue
		}
		var next *dt.Node
		for _, c := range n.Children {
			if c.Name == part || strings.SplitN(c.Name, "@", 2)[0] == part && !strings.Contains(part, "@") {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// Prop returns a node's property value, ok false when absent.
func Prop(n *dt.Node, name string) ([]byte, bool) {
	for _, p := range n.Properties {
		if p.Name == name {
			return p.Value, true
		}
	}
	return nil, false
}

// StringList decodes a string-list property (NUL-terminated strings, one
// after another). It fails on a value not ending in NUL, an empty string
// among them, or a byte that is not printable ASCII.
func StringList(v []byte) ([]string, error) {
	if len(v) == 0 || v[len(v)-1] != 0 {
		return nil, errors.New("not NUL-terminated")
	}
	parts := strings.Split(string(v[:len(v)-1]), "\x00")
	for _, s := range parts {
		if s == "" {
			return nil, errors.New("an empty string in the list")
		}
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] > 0x7e {
				return nil, fmt.Errorf("byte 0x%02x in %q", s[i], s)
			}
		}
	}
	return parts, nil
}

// Cells reads a node's #address-cells and #size-cells, with the defaults
// the specification gives (2 and 1) when absent.
func Cells(n *dt.Node) (addr, size int) {
	addr, size = 2, 1
	if v, ok := Prop(n, "#address-cells"); ok && len(v) == 4 {
		addr = int(binary.BigEndian.Uint32(v))
	}
	if v, ok := Prop(n, "#size-cells"); ok && len(v) == 4 {
		size = int(binary.BigEndian.Uint32(v))
	}
	return addr, size
}

// Range is one (address, size) pair of a reg property.
type Range struct{ Addr, Size uint64 }

// Reg decodes a reg property with the given cell counts (each 0-2). It
// fails when the value is not a whole number of entries.
func Reg(v []byte, addr, size int) ([]Range, error) {
	if addr < 0 || addr > 2 || size < 0 || size > 2 {
		return nil, fmt.Errorf("#address-cells %d, #size-cells %d: more than 64 bits", addr, size)
	}
	ent := 4 * (addr + size)
	if ent == 0 || len(v)%ent != 0 || len(v) == 0 {
		return nil, fmt.Errorf("%d bytes are not a whole number of %d-byte entries", len(v), ent)
	}
	read := func(b []byte, cells int) uint64 {
		var x uint64
		for i := 0; i < cells; i++ {
			x = x<<32 | uint64(binary.BigEndian.Uint32(b[4*i:]))
		}
		return x
	}
	var out []Range
	for i := 0; i+ent <= len(v); i += ent {
		out = append(out, Range{read(v[i:], addr), read(v[i+4*addr:], size)})
	}
	return out, nil
}

// Walk calls f on every node with its path, parents first.
func (bl *Blob) Walk(f func(path string, n *dt.Node)) {
	if bl.Root == nil {
		return
	}
	var visit func(path string, n *dt.Node, depth int)
	visit = func(path string, n *dt.Node, depth int) {
		if depth > MaxDepth {
			return
		}
		f(path, n)
		for _, c := range n.Children {
			p := path + "/" + c.Name
			if path == "/" {
				p = "/" + c.Name
			}
			visit(p, c, depth+1)
		}
	}
	visit("/", bl.Root, 0)
}
