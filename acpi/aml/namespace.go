package aml

import (
	"strings"
)

// Type is an object's type. Values 0–16 are the ACPI object type codes
// (ObjectType operator, ACPI 6.5 §19.6.97; External's ObjectType byte);
// TypeScope and TypeAlias are this package's own.
type Type uint8

// Object types.
const (
	TypeAny             Type = 0 // uninitialised, or an External of unknown type
	TypeInteger         Type = 1
	TypeString          Type = 2
	TypeBuffer          Type = 3
	TypePackage         Type = 4
	TypeFieldUnit       Type = 5
	TypeDevice          Type = 6
	TypeEvent           Type = 7
	TypeMethod          Type = 8
	TypeMutex           Type = 9
	TypeOperationRegion Type = 10
	TypePowerResource   Type = 11
	TypeProcessor       Type = 12
	TypeThermalZone     Type = 13
	TypeBufferField     Type = 14
	TypeDDBHandle       Type = 15
	TypeDebug           Type = 16
	TypeScope           Type = 32 // the root and the predefined scopes \_SB and friends
	TypeAlias           Type = 33
)

var typeNames = map[Type]string{
	TypeAny: "Any", TypeInteger: "Integer", TypeString: "String", TypeBuffer: "Buffer",
	TypePackage: "Package", TypeFieldUnit: "FieldUnit", TypeDevice: "Device", TypeEvent: "Event",
	TypeMethod: "Method", TypeMutex: "Mutex", TypeOperationRegion: "OperationRegion",
	TypePowerResource: "PowerResource", TypeProcessor: "Processor", TypeThermalZone: "ThermalZone",
	TypeBufferField: "BufferField", TypeDDBHandle: "DDBHandle", TypeDebug: "DebugObject",
	TypeScope: "Scope", TypeAlias: "Alias",
}

func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return "Type(" + itoa(int(t)) + ")"
}

// Node is one object of the namespace.
//
// The small fields come first, packed into one word, so that a node is
// 160 bytes (it was 176): one load of the corpus's 36 full dumps makes
// 208,000 of them (the probing loads included), from slabs (see
// loader.node) rather than an allocation each.
type Node struct {
	Type Type
	// SyncLevel is a Mutex's sync level.
	SyncLevel uint8
	// Op is the opcode that declared the object (OpName for Name
	// objects, OpDevice, OpMethod, OpNamedField for field units,
	// OpCreateDWord for buffer fields, OpExternal while only an External
	// declares it); 0 for the predefined objects.
	Op Op

	// External marks an object that only External declarations name:
	// no loaded table defines it.
	External bool
	// InMethod marks an object declared inside a method body: such
	// objects exist only while the method runs; they are kept so that
	// names in the body resolve.
	InMethod bool
	// Predefined marks the objects every namespace starts with (\_SB,
	// \_OSI, \_GL, …).
	Predefined bool
	// Conditional marks an object declared by load-time code inside an
	// If, Else or While block (or below such an object): whether the OS
	// creates it depends on what that code finds when the table loads.
	Conditional bool

	// Name is the object's NameSeg, always four characters ("_SB_",
	// "PCI0"); the root's is `\`.
	Name   string
	Parent *Node
	// Table and Offset locate the declaration: the table's name and the
	// byte offset of the opcode from the start of the table (header
	// included, as in iasl listings and acpidump rows).
	Table  string
	Offset int
	// Def is the declaring term; nil for predefined objects.
	Def *Term

	// Value is a Name object's DataRefObject (an integer, string,
	// buffer or package term; see Term.Integer and friends).
	Value *Term
	// Method holds a method's flags and body.
	Method *Method
	// Region describes an OperationRegion or DataTableRegion.
	Region *Region
	// Field describes a field unit.
	Field *FieldUnit
	// Processor holds a Processor object's operands.
	Processor *Processor
	// Power holds a PowerResource's operands.
	Power *PowerResource
	// Target is what an Alias stands for (nil when its source is not
	// found).
	Target *Node

	children []*Node
	index    map[uint32]*Node // by segKey, once there are more than 8
	// detached marks a node outside the namespace: the second
	// declaration of a name, with whatever its body declares.
	detached bool
}

// Method describes a control method.
type Method struct {
	Args       int // 0–7
	Serialized bool
	SyncLevel  uint8
	// Body is the parsed TermList.
	Body []*Term
	// Unparsed: the body was not parsed (or only in part), the tables
	// being larger than Load's budget; evaluating it is EvalBudget.
	Unparsed bool
	mayLoad  bool // see MayLoadTables
}

// MayLoadTables reports whether the body may hold a Load or LoadTable
// term, its nested methods' bodies included: false when the body's bytes
// hold neither opcode, so that a walk of the body looking for them can be
// skipped, as it is for most methods.
func (m *Method) MayLoadTables() bool { return m != nil && m.mayLoad }

// Region describes an OperationRegion (or DataTableRegion, Space 0xFF
// here meaning "table data").
type Region struct {
	Space  uint8 // 0 SystemMemory, 1 SystemIO, 2 PCI_Config, …
	Offset *Term // TermArg
	Length *Term // TermArg
	// Signature, OEMID, OEMTableID are a DataTableRegion's operands.
	Signature, OEMID, OEMTableID *Term
}

// Region space identifiers (ACPI 6.5 §5.5.2.4.1).
var spaceNames = []string{"SystemMemory", "SystemIO", "PCI_Config", "EmbeddedControl", "SMBus",
	"SystemCMOS", "PciBarTarget", "IPMI", "GeneralPurposeIo", "GenericSerialBus", "PCC", "PRM", "FFixedHW"}

// SpaceName is the ASL keyword of a region space ("SystemMemory"), or its
// number in hex for OEM-defined spaces.
func SpaceName(s uint8) string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	if s == 0x7F {
		return "FFixedHW"
	}
	return "0x" + hex(uint64(s))
}

// FieldUnit describes a field unit of a Field, IndexField or BankField.
type FieldUnit struct {
	Kind Op // OpField, OpIndexField or OpBankField
	// Region is the OperationRegion (Field, BankField) or the Index
	// field unit (IndexField) as a name reference; Data and Bank are the
	// IndexField's data unit and the BankField's bank register.
	Region, Data, Bank *Term
	BankValue          *Term
	Flags              uint8 // FieldFlags: access type, lock rule, update rule
	BitOffset          int   // from the start of the region (or index)
	BitLength          int
	// AccessType and AccessAttrib are those in force for this unit
	// (from the flags or a preceding AccessAs).
	AccessType, AccessAttrib uint8
	// Connection is the last Connection element before this unit.
	Connection *Term
}

// Processor holds the operands of the (deprecated) Processor object.
type Processor struct {
	ID       uint8
	PblkAddr uint32
	PblkLen  uint8
}

// PowerResource holds a PowerResource's operands.
type PowerResource struct {
	SystemLevel   uint8
	ResourceOrder uint16
}

// Path is the node's absolute path with four-character segments
// (`\_SB_.PCI0._HID`); the root is `\`.
func (n *Node) Path() string {
	if n == nil {
		return ""
	}
	if n.Parent == nil {
		return `\`
	}
	var segs [64]string
	k := len(segs)
	for m := n; m.Parent != nil && k > 0; m = m.Parent {
		k--
		segs[k] = m.Name
	}
	return `\` + strings.Join(segs[k:], ".")
}

// Children returns the node's children in the order they were declared.
func (n *Node) Children() []*Node { return n.children }

// Child returns the child named seg (padded with '_' to four
// characters), or nil.
func (n *Node) Child(seg string) *Node {
	if n == nil {
		return nil
	}
	if len(seg) < 4 {
		seg = padSeg(seg)
	}
	if n.index != nil {
		if len(seg) != 4 {
			return nil
		}
		return n.index[segKey(seg)]
	}
	for _, c := range n.children {
		if c.Name == seg {
			return c
		}
	}
	return nil
}

func (n *Node) addChild(c *Node) {
	c.Parent = n
	n.children = append(n.children, c)
	if n.index != nil {
		n.index[segKey(c.Name)] = c
	} else if len(n.children) > 8 {
		n.index = make(map[uint32]*Node, 16)
		for _, x := range n.children {
			n.index[segKey(x.Name)] = x
		}
	}
}

// segKey is a four-character NameSeg as the key of Node.index: an
// integer key hashes and compares in a few instructions, where a string
// key's lookups were 4% of loading the corpus's namespaces (Resolve asks
// every enclosing scope). A child's name is always four characters.
func segKey(s string) uint32 {
	if len(s) < 4 {
		return 0
	}
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// Resolved follows an Alias to the object it stands for (up to a few
// hops); other nodes are returned as they are.
func (n *Node) Resolved() *Node {
	for i := 0; i < 8 && n != nil && n.Type == TypeAlias; i++ {
		n = n.Target
	}
	return n
}

// Namespace is the ACPI namespace built from a set of definition blocks.
type Namespace struct {
	Root *Node
	// Tables lists the tables loaded into it, in load order.
	Tables []*Table
	nodes  int
	loads  []RunTimeLoad
	// loadTerms counts the Load and LoadTable terms parsed
	loadTerms int
}

// Nodes is the number of objects in the namespace, the root included.
func (ns *Namespace) Nodes() int { return ns.nodes }

// Walk visits every node depth-first, parents before children and
// children in declaration order. When fn returns false the node's
// children are skipped.
func (ns *Namespace) Walk(fn func(*Node) bool) { walk(ns.Root, fn) }

// walk recurses rather than keeping a stack of its own: the checks walk
// each namespace a dozen times, and the stack's allocations were 4% of
// the bytes BenchmarkAllACPIChecksCorpus allocated. The depth is the namespace's,
// which the parser's nesting and name-length bounds bound.
func walk(n *Node, fn func(*Node) bool) {
	if !fn(n) {
		return
	}
	for _, c := range n.children {
		walk(c, fn)
	}
}

// Lookup finds the object at path, an absolute path (`\_SB.PCI0._HID`;
// segments shorter than four characters are padded with '_'). A path
// without the leading backslash is taken from the root too. Aliases are
// not followed.
func (ns *Namespace) Lookup(path string) *Node {
	path = strings.TrimPrefix(path, `\`)
	n := ns.Root
	if path == "" {
		return n
	}
	for _, seg := range strings.Split(path, ".") {
		if len(seg) > 4 {
			return nil
		}
		n = n.Child(seg)
		if n == nil {
			return nil
		}
	}
	return n
}

// Resolve finds the object a NameString written in scope refers to,
// following ACPI 6.5 §5.3: a path starting with `\` is absolute; each
// leading `^` moves up one level; a single NameSeg with neither prefix is
// searched for in scope and then in each enclosing scope up to the root;
// any other relative path is taken from scope alone. Aliases inside the
// path are followed; the last node is returned as it is. The path may use
// the form Term.Name holds (four-character segments joined by '.') or
// shorter segments.
func (ns *Namespace) Resolve(scope *Node, path string) *Node {
	if scope == nil {
		scope = ns.Root
	}
	if path == "" {
		return nil
	}
	n := scope
	prefixed := false
	if path[0] == '\\' {
		n = ns.Root
		path = path[1:]
		prefixed = true
	} else {
		for len(path) > 0 && path[0] == '^' {
			n = n.Parent
			if n == nil {
				return nil
			}
			path = path[1:]
			prefixed = true
		}
	}
	if path == "" {
		return n
	}
	if !prefixed && strings.IndexByte(path, '.') < 0 {
		// an External declaration creates no object in the OS's
		// namespace (a Scope of one fails with AE_NOT_FOUND): the search
		// goes on past a placeholder, to a defined object further up
		// (an SSDT's External (\_SB.PCI0.PEG0.GPRW) does not hide \GPRW)
		var ext *Node
		for s := n; s != nil; s = s.Parent {
			if c := s.Child(path); c != nil {
				if !c.External {
					return c
				}
				if ext == nil {
					ext = c
				}
			}
		}
		return ext
	}
	for {
		seg := path
		dot := strings.IndexByte(path, '.')
		if dot >= 0 {
			seg, path = path[:dot], path[dot+1:]
		}
		if n.Type == TypeAlias && n.Target != nil {
			n = n.Resolved()
		}
		n = n.Child(seg)
		if n == nil || dot < 0 {
			return n
		}
	}
}

func newNamespace() *Namespace {
	ns := &Namespace{Root: &Node{Name: `\`, Type: TypeScope, Predefined: true}, nodes: 1}
	// ACPI 6.5 §5.3.1: the predefined root scopes, and the objects
	// ACPICA and Windows create before any table loads (§5.7).
	for _, s := range []string{"_GPE", "_PR_", "_SB_", "_SI_", "_TZ_"} {
		ns.add(ns.Root, &Node{Name: s, Type: TypeScope, Predefined: true})
	}
	ns.add(ns.Root, &Node{Name: "_OSI", Type: TypeMethod, Predefined: true, Method: &Method{Args: 1}})
	ns.add(ns.Root, &Node{Name: "_OS_", Type: TypeString, Predefined: true})
	ns.add(ns.Root, &Node{Name: "_REV", Type: TypeInteger, Predefined: true})
	ns.add(ns.Root, &Node{Name: "_GL_", Type: TypeMutex, Predefined: true})
	return ns
}

func (ns *Namespace) add(parent, n *Node) {
	parent.addChild(n)
	if parent.detached {
		n.detached = true
	} else {
		ns.nodes++
	}
}

func padSeg(s string) string {
	for len(s) < 4 {
		s += "_"
	}
	return s
}

const hexDigits = "0123456789ABCDEF"

func hex(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b [16]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = hexDigits[v&15]
		v >>= 4
	}
	return string(b[i:])
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
