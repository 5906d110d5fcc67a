package aml

// Emulation is an emulated OperationRegion space for evaluating methods
// without the machine: a read of a field unit returns the value recorded
// for it (Recorded, keyed by the unit's path as Node.Path gives it, e.g.
// `\_SB_.PCI0.LPCB.EC0_.ECON`), else what code last wrote to the unit
// when the region is SystemMemory or SystemCMOS (RAM keeps it), else
// zero. Writes reach nothing: they are recorded in the Emulation. Every
// read counts in the Evaluator's FieldReads, so a result that depended on
// one is marked as emulated.
type Emulation struct {
	// Recorded are values a snapshot holds for field units; nil for none.
	Recorded map[string]*Object
	written  map[*Node]*Object
	// Writes counts the writes the code made.
	Writes int
}

// Options returns opt with ReadField and WriteField answered by the
// emulation.
func (m *Emulation) Options(opt Options) Options {
	opt.ReadField = m.read
	opt.WriteField = m.write
	return opt
}

func (m *Emulation) read(n *Node) (*Object, error) {
	// the path is built only when there are recorded values to look up
	// (building it for every read was a fifth of evaluating the corpus)
	if len(m.Recorded) > 0 {
		if v, ok := m.Recorded[n.Path()]; ok && v != nil && (v.Type == TypeInteger || v.Type == TypeBuffer) {
			return v.copy(), nil
		}
	}
	if v, ok := m.written[n]; ok {
		return v.copy(), nil
	}
	bits := 0
	if n.Field != nil {
		bits = n.Field.BitLength
	}
	if bits <= 64 {
		return Integer(0), nil
	}
	if bits > maxBytes*8 {
		bits = maxBytes * 8
	}
	return Buffer(make([]byte, (bits+7)/8)), nil
}

func (m *Emulation) write(n *Node, v *Object) error {
	m.Writes++
	if r := fieldRegion(n); r != nil && (r.Space == 0 || r.Space == 5) {
		if m.written == nil {
			m.written = map[*Node]*Object{}
		}
		m.written[n] = v.copy()
	}
	return nil
}

// fieldRegion is the OperationRegion a field unit lies in, when known.
func fieldRegion(n *Node) *Region {
	if n == nil || n.Field == nil || n.Field.Kind == OpIndexField || n.Field.Region == nil || n.Field.Region.Node == nil {
		return nil
	}
	r := n.Field.Region.Node.Resolved()
	if r == nil {
		return nil
	}
	return r.Region
}
