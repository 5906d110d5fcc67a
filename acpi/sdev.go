package acpi

// SigSDEV is the Secure Devices Table's signature (ACPI 6.5 §5.2.27).
const SigSDEV = "SDEV"

// SDEV structure types and flags (ACPI 6.5 §5.2.27.1-§5.2.27.3).
const (
	SDEVNamespaceDevice = 0
	SDEVPCIeEndpoint    = 1
	// SDEVHandoff allows handoff to the non-secure OS; SDEVComponents
	// says a namespace device structure has secure access components
	// (ACPI 6.4), whose offset and length follow its fixed part.
	SDEVHandoff    = 1 << 0
	SDEVComponents = 1 << 1
)

// SDEVRange is an offset (from the start of the structure) and a length
// a structure gives for one of its variable parts.
type SDEVRange struct {
	What           string
	Offset, Length int
}

// SDEVStruct is one secure device structure. Fields past the header are
// decoded only when the structure holds its type's fixed part (Short is
// clear).
type SDEVStruct struct {
	Subtable
	Flags uint8
	Short bool
	// Fixed is the fixed part's length: 12 for a namespace device (16
	// with secure access components), 16 for a PCIe endpoint.
	Fixed int
	// Ranges are the variable parts: device identifier, vendor data and
	// secure access components of a namespace device; PCI path and vendor
	// data of a PCIe endpoint.
	Ranges []SDEVRange
	// DeviceID is a namespace device's identifier bytes (inside the
	// structure), Segment and StartBus a PCIe endpoint's.
	DeviceID          []byte
	Segment, StartBus uint16
}

// SDEV is the Secure Devices Table.
type SDEV struct {
	Header     Header
	Structures []SDEVStruct
	NotRead    int
}

// ParseSDEV decodes an SDEV. When the structure list is malformed it
// returns the structures before the fault with a *WalkError.
func ParseSDEV(t *Table) (*SDEV, error) {
	body, err := sdtBody(t, SigSDEV, HeaderSize)
	if err != nil {
		return nil, err
	}
	subs, notRead, err := walkSubtables("SDEV structure", body, HeaderSize, subtableLayout{typeSize: 1, lenOff: 2, lenSize: 2})
	d := &SDEV{Header: t.Header, NotRead: notRead}
	for _, s := range subs {
		e := SDEVStruct{Subtable: s, Flags: s.Raw[1]}
		r := le(s.Raw)
		switch s.Type {
		case SDEVNamespaceDevice:
			e.Fixed = 12
			if e.Flags&SDEVComponents != 0 {
				e.Fixed = 16
			}
			if s.Length < e.Fixed {
				e.Short = true
				break
			}
			e.Ranges = []SDEVRange{{"device identifier", int(r.u16(4)), int(r.u16(6))}, {"vendor data", int(r.u16(8)), int(r.u16(10))}}
			if e.Fixed == 16 {
				e.Ranges = append(e.Ranges, SDEVRange{"secure access components", int(r.u16(12)), int(r.u16(14))})
			}
			if id := e.Ranges[0]; id.Length > 0 && id.Offset+id.Length <= s.Length {
				e.DeviceID = s.Raw[id.Offset : id.Offset+id.Length]
			}
		case SDEVPCIeEndpoint:
			e.Fixed = 16
			if s.Length < e.Fixed {
				e.Short = true
				break
			}
			e.Segment, e.StartBus = r.u16(4), r.u16(6)
			e.Ranges = []SDEVRange{{"PCI path", int(r.u16(8)), int(r.u16(10))}, {"vendor data", int(r.u16(12)), int(r.u16(14))}}
		}
		d.Structures = append(d.Structures, e)
	}
	return d, err
}
