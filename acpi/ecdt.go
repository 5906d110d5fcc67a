package acpi

// SigECDT is the Embedded Controller Boot Resources Table's signature.
const SigECDT = "ECDT"

// ECDTMinSize is the ECDT's fixed part and the shortest EC_ID (a lone
// NUL) (ACPI 6.5 §5.2.15).
const ECDTMinSize = 66

// ECDT is the Embedded Controller Boot Resources Table.
type ECDT struct {
	Header  Header
	Control GAS // EC_SC, the command/status register
	Data    GAS // EC_DATA
	UID     uint32
	GPEBit  uint8
	// ID is the EC's namespace path; IDTerminated says it had its NUL.
	ID           string
	IDTerminated bool
}

// ParseECDT decodes an ECDT.
func ParseECDT(t *Table) (*ECDT, error) {
	body, err := sdtBody(t, SigECDT, ECDTMinSize)
	if err != nil {
		return nil, err
	}
	e := &ECDT{Header: t.Header, UID: le(body).u32(60), GPEBit: body[64]}
	e.Control, _ = ParseGAS(body[36:48])
	e.Data, _ = ParseGAS(body[48:60])
	e.ID, e.IDTerminated = cString(body[65:])
	return e, nil
}
