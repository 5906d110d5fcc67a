package aml

import (
	"bytes"
	"strings"
)

// Tables loaded at run time. Firmware brings in definition blocks from
// its methods with Load (from an OperationRegion holding the table) and
// LoadTable (a table of the XSDT, by signature and OEM IDs): Intel's
// processor power management tables (Cpu0Ist, ApCst, …) are loaded by
// _PDC/_OSC, a processor aggregator table (PRAD) by an _INI. An acpidump
// taken after boot holds those the firmware loaded (Linux lists them in
// /sys/firmware/acpi/tables/dynamic), in no particular order. The OS
// loads them after every static table, so Load finds them and loads them
// last; a load whose table the tables given lack is kept, so that a
// reference such a table may satisfy is said as such (RunTimeOnly), not
// as an object nothing defines.

// RunTimeLoad is one Load or LoadTable in the namespace's code.
type RunTimeLoad struct {
	// Scope is the absolute path of the scope whose code loads the
	// table (a method's enclosing scope): where its objects go, as a rule.
	Scope string
	// Want names the table as the code does: the OEM table ID of an
	// Intel-style SSDT package entry ("CPU0CST"), or a LoadTable's
	// signature and IDs; "" when the code does not say (a region at an
	// address only).
	Want string
	// Loaded is the name of the table given that it loads ("SSDT13"),
	// "" when none of the tables given is it.
	Loaded string
	// Table and Offset locate the Load.
	Table  string
	Offset int
}

// RunTimeLoads lists the Load and LoadTable operations of the namespace's
// code, with the table each loads when it is among the tables loaded.
func (ns *Namespace) RunTimeLoads() []RunTimeLoad { return ns.loads }

// HasLoadTerms reports whether any parsed code of the namespace holds a
// Load or LoadTable term (well-formed or not, in a method or not). A
// check that looks for them can skip walking every term when it is
// false, as it is for most machines.
func (ns *Namespace) HasLoadTerms() bool { return ns.loadTerms > 0 }

// runTimeSource returns the load, of a table the tables given lack, that
// may define name as used in scope (nil scope: name is absolute): one
// whose scope is an enclosing scope of, or the same as, a path name may
// stand for.
func (ns *Namespace) runTimeSource(scope *Node, name string) *RunTimeLoad {
	if len(ns.loads) == 0 {
		return nil
	}
	if scope == nil {
		scope = ns.Root
	}
	cands := lexical(scope, name)
	for i := range ns.loads {
		ld := &ns.loads[i]
		if ld.Loaded != "" || ld.Want == "" {
			continue
		}
		for _, c := range cands {
			if c == ld.Scope || strings.HasPrefix(c, ld.Scope+".") || ld.Scope == `\` {
				return ld
			}
		}
	}
	return nil
}

// findLoads records the Load and LoadTable operations of the parsed
// tables and which of the tables each loads.
func (l *loader) findLoads() {
	ns := l.ns
	ns.loads = nil
	if l.loadOps == 0 {
		// No Load or LoadTable was parsed (most machines): walking every
		// term of every method for one was a tenth of loading the
		// corpus's namespaces.
		return
	}
	visit := func(scope *Node, table string, body []*Term, top bool) {
		WalkTerms(body, func(t *Term) bool {
			switch t.Op {
			case OpMethod:
				// the bodies are visited with their method's scope
				return !top
			case OpLoadTable:
				if len(t.Args()) >= 3 {
					sig, _ := t.Args()[0].StringValue()
					oem, _ := t.Args()[1].StringValue()
					tid, _ := t.Args()[2].StringValue()
					l.addLoad(scope, table, t, sig, oem, tid)
				}
			case OpLoad:
				if len(t.Args()) > 0 && t.Args()[0].Node != nil {
					if r := t.Args()[0].Node.Resolved(); r != nil && r.Region != nil {
						if r.Region.Space == 0xFF {
							sig, _ := r.Region.Signature.StringValue()
							oem, _ := r.Region.OEMID.StringValue()
							tid, _ := r.Region.OEMTableID.StringValue()
							l.addLoad(scope, table, t, sig, oem, tid)
						} else {
							l.addLoad(scope, table, t, "", "", packageName(r.Region.Offset))
						}
						return true
					}
				}
				l.addLoad(scope, table, t, "", "", "")
			}
			return true
		})
	}
	for _, t := range ns.Tables {
		visit(ns.Root, t.Name, t.Code, true)
	}
	ns.Walk(func(n *Node) bool {
		// only the bodies whose bytes hold a Load or LoadTable opcode:
		// walking every term of the 25 corpus machines with one was a
		// twentieth of loading the corpus
		if n.Method != nil && !n.External && n.Parent != nil && n.Method.mayLoad {
			visit(n.Parent, n.Table, n.Method.Body, false)
		}
		return true
	})
}

func trimID(s string) string { return strings.TrimRight(s, "\x00 ") }

// addLoad records one load and finds its table: by signature, OEM ID and
// OEM table ID (LoadTable, DataTableRegion), or by OEM table ID alone
// (an SSDT package entry).
func (l *loader) addLoad(scope *Node, table string, t *Term, sig, oem, tid string) {
	sig, oem, tid = trimID(sig), trimID(oem), trimID(tid)
	ld := RunTimeLoad{Scope: scope.Path(), Table: table, Offset: int(t.Offset)}
	switch {
	case sig != "":
		ld.Want = strings.Join([]string{sig, oem, tid}, " ")
	case tid != "":
		ld.Want = tid
	}
	for _, tb := range l.ns.Tables {
		if ld.Want == "" || tb.Name == table {
			continue
		}
		switch {
		case sig != "" && tb.Signature == sig && (oem == "" || trimID(tb.OEMID) == oem) &&
			(tid == "" || trimID(tb.OEMTableID) == tid):
		case sig == "" && tb.Signature == "SSDT" && strings.EqualFold(trimID(tb.OEMTableID), tid):
		default:
			continue
		}
		ld.Loaded = tb.Name
		break
	}
	l.ns.loads = append(l.ns.loads, ld)
}

// packageName returns the table name an Intel-style region address names:
// DerefOf (Index (SSDT, k)) where SSDT is a Name of a package of
// (name, address, length) triples, the name being element k-1.
func packageName(addr *Term) string {
	name := ""
	WalkTerms([]*Term{addr}, func(t *Term) bool {
		if name != "" {
			return false
		}
		if t.Op != OpIndex || len(t.Args()) < 2 || t.Args()[0].Node == nil {
			return true
		}
		k, ok := t.Args()[1].IntegerValue()
		n := t.Args()[0].Node.Resolved()
		if !ok || k == 0 || n == nil || n.Def == nil || n.Def.Op != OpName || len(n.Def.Args()) == 0 {
			return true
		}
		pkg := n.Def.Args()[0]
		if pkg.Op != OpPackage && pkg.Op != OpVarPackage || k > uint64(len(pkg.Body())) {
			return true
		}
		if s, ok := pkg.Body()[k-1].StringValue(); ok && len(trimID(s)) > 0 && len(s) <= 8 {
			name = trimID(s)
		}
		return true
	})
	return name
}

// runTimeOrder returns the tables in the order the OS loads them: the
// static ones as given, then those the code loads at run time; nil when
// that is the order given.
func runTimeOrder(tables []Table, loads []RunTimeLoad) []Table {
	late := map[string]bool{}
	for _, ld := range loads {
		if ld.Loaded != "" && ld.Loaded != tables[0].Name {
			late[ld.Loaded] = true
		}
	}
	if len(late) == 0 {
		return nil
	}
	var static, dynamic []Table
	for _, t := range tables {
		if late[t.Name] {
			dynamic = append(dynamic, t)
		} else {
			static = append(static, t)
		}
	}
	out := append(static, dynamic...)
	for i := range out {
		if out[i].Name != tables[i].Name {
			return out
		}
	}
	return nil
}

// loadTableSignatures returns the signatures, other than DSDT and SSDT,
// that LoadTable operations in aml name as constant strings: definition
// blocks the firmware loads from the XSDT at run time.
func loadTableSignatures(aml []byte) []string {
	var out []string
	for i := 0; ; {
		j := bytes.Index(aml[i:], []byte{0x5B, 0x1F, 0x0D})
		if j < 0 || i+j+8 > len(aml) {
			return out
		}
		p := i + j + 3
		if aml[p+4] == 0 {
			sig := string(aml[p : p+4])
			ok := sig != "DSDT" && sig != "SSDT"
			for _, c := range []byte(sig) {
				ok = ok && (c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')
			}
			if ok {
				out = append(out, sig)
			}
		}
		i = p
	}
}
