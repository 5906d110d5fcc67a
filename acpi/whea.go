package acpi

import "fmt"

// This file holds the two APEI tables made of serialization instruction
// entries: the Error Record Serialization Table (ACPI 6.5 §18.5) and the
// Error Injection table (§18.6). Both are a 48-byte header (a header size,
// four bytes of flags or reserved, an entry count) and an array of
// 32-byte entries: action, instruction, flags, reserved, register region
// (a GAS), value, mask.

// Signatures of the instruction-entry tables.
const (
	SigERST = "ERST"
	SigEINJ = "EINJ"
)

// WHEAHeaderSize is the ERST's and EINJ's header; WHEAEntrySize an
// instruction entry.
const (
	WHEAHeaderSize = 48
	WHEAEntrySize  = 32
)

// WHEAPreserveRegister is the entry flag saying the bits outside Mask are
// kept on a write.
const WHEAPreserveRegister = 1 << 0

// ERST actions (ACPI 6.5 Table 18.35); 0x0C is reserved.
const (
	ERSTBeginWrite             = 0x00
	ERSTBeginRead              = 0x01
	ERSTBeginClear             = 0x02
	ERSTEnd                    = 0x03
	ERSTSetRecordOffset        = 0x04
	ERSTExecute                = 0x05
	ERSTCheckBusy              = 0x06
	ERSTGetCommandStatus       = 0x07
	ERSTGetRecordID            = 0x08
	ERSTSetRecordID            = 0x09
	ERSTGetRecordCount         = 0x0A
	ERSTBeginDummyWrite        = 0x0B
	ERSTGetErrorLogRange       = 0x0D
	ERSTGetErrorLogRangeLength = 0x0E
	ERSTGetErrorLogRangeAttrs  = 0x0F
	ERSTGetExecuteTimings      = 0x10
)

// ERST instructions (ACPI 6.5 Table 18.36); EINJ uses the first five.
const (
	WHEAReadRegister       = 0x00
	WHEAReadRegisterValue  = 0x01
	WHEAWriteRegister      = 0x02
	WHEAWriteRegisterValue = 0x03
	WHEANoop               = 0x04
	ERSTLoadVar1           = 0x05
	ERSTLoadVar2           = 0x06
	ERSTStoreVar1          = 0x07
	ERSTAdd                = 0x08
	ERSTSubtract           = 0x09
	ERSTAddValue           = 0x0A
	ERSTSubtractValue      = 0x0B
	ERSTStall              = 0x0C
	ERSTStallWhileTrue     = 0x0D
	ERSTSkipNextIfTrue     = 0x0E
	ERSTGoto               = 0x0F
	ERSTSetSrcAddressBase  = 0x10
	ERSTSetDstAddressBase  = 0x11
	ERSTMoveData           = 0x12
)

// EINJ actions (ACPI 6.5 Table 18.25).
const (
	EINJBeginInjection       = 0x00
	EINJGetTriggerTable      = 0x01
	EINJSetErrorType         = 0x02
	EINJGetErrorType         = 0x03
	EINJEnd                  = 0x04
	EINJExecute              = 0x05
	EINJCheckBusy            = 0x06
	EINJGetCommandStatus     = 0x07
	EINJSetErrorTypeWithAddr = 0x08
	EINJGetExecuteTimings    = 0x09
	EINJTriggerError         = 0xFF
	einjLastAction           = EINJGetExecuteTimings
	erstLastAction           = ERSTGetExecuteTimings
	erstLastInstruction      = ERSTMoveData
	einjLastInstruction      = WHEANoop
	erstReservedAction       = 0x0C
	wheaKnownEntryFlags      = WHEAPreserveRegister
)

// WHEAEntry is one serialization or injection instruction entry.
type WHEAEntry struct {
	Offset      int
	Action      uint8
	Instruction uint8
	Flags       uint8
	Reserved    uint8
	Register    GAS
	Value, Mask uint64
}

// WHEATable is an ERST or an EINJ.
type WHEATable struct {
	Header Header
	// HeaderSize is the serialization/injection header size field.
	HeaderSize uint32
	// Flags is the EINJ's injection flags byte with its three reserved
	// bytes (bits 31:8), or the ERST's reserved word.
	Flags      uint32
	EntryCount uint32
	Entries    []WHEAEntry
	// Trailing counts the bytes after the last whole entry (a length that
	// is not 48 + 32 × entries).
	Trailing int
	NotRead  int
}

// ParseERST decodes an ERST; ParseEINJ an EINJ. The entries are the
// whole 32-byte entries the table's length holds, whatever the entry
// count says (the check compares the two), at most MaxSubtables.
func ParseERST(t *Table) (*WHEATable, error) { return parseWHEA(t, SigERST) }

// ParseEINJ decodes an EINJ (see ParseERST).
func ParseEINJ(t *Table) (*WHEATable, error) { return parseWHEA(t, SigEINJ) }

func parseWHEA(t *Table, sig string) (*WHEATable, error) {
	body, err := sdtBody(t, sig, WHEAHeaderSize)
	if err != nil {
		return nil, err
	}
	r := le(body)
	w := &WHEATable{Header: t.Header, HeaderSize: r.u32(36), Flags: r.u32(40), EntryCount: r.u32(44)}
	off := WHEAHeaderSize
	for ; off+WHEAEntrySize <= len(body); off += WHEAEntrySize {
		if len(w.Entries) == MaxSubtables {
			w.NotRead = len(body) - off
			return w, nil
		}
		w.Entries = append(w.Entries, WHEAEntry{Offset: off, Action: body[off], Instruction: body[off+1],
			Flags: body[off+2], Reserved: body[off+3], Register: gasAt(body, off+4),
			Value: r.u64(off + 16), Mask: r.u64(off + 24)})
	}
	w.Trailing = len(body) - off
	return w, nil
}

// ERSTActionName names an ERST action.
func ERSTActionName(a uint8) string {
	names := []string{"BEGIN_WRITE_OPERATION", "BEGIN_READ_OPERATION", "BEGIN_CLEAR_OPERATION", "END_OPERATION",
		"SET_RECORD_OFFSET", "EXECUTE_OPERATION", "CHECK_BUSY_STATUS", "GET_COMMAND_STATUS",
		"GET_RECORD_IDENTIFIER", "SET_RECORD_IDENTIFIER", "GET_RECORD_COUNT", "BEGIN_DUMMY_WRITE_OPERATION",
		"", "GET_ERROR_LOG_ADDRESS_RANGE", "GET_ERROR_LOG_ADDRESS_RANGE_LENGTH",
		"GET_ERROR_LOG_ADDRESS_RANGE_ATTRIBUTES", "GET_EXECUTE_OPERATION_TIMINGS"}
	if int(a) < len(names) && names[a] != "" {
		return names[a]
	}
	return fmt.Sprintf("reserved action 0x%02x", a)
}

// EINJActionName names an EINJ action.
func EINJActionName(a uint8) string {
	names := []string{"BEGIN_INJECTION_OPERATION", "GET_TRIGGER_ERROR_ACTION_TABLE", "SET_ERROR_TYPE",
		"GET_ERROR_TYPE", "END_OPERATION", "EXECUTE_OPERATION", "CHECK_BUSY_STATUS", "GET_COMMAND_STATUS",
		"SET_ERROR_TYPE_WITH_ADDRESS", "GET_EXECUTE_OPERATION_TIMINGS"}
	if int(a) < len(names) {
		return names[a]
	}
	if a == EINJTriggerError {
		return "TRIGGER_ERROR"
	}
	return fmt.Sprintf("reserved action 0x%02x", a)
}

// WHEAActionKnown reports whether sig's table defines action a.
func WHEAActionKnown(sig string, a uint8) bool {
	if sig == SigEINJ {
		return a <= einjLastAction || a == EINJTriggerError
	}
	return a <= erstLastAction && a != erstReservedAction
}

// WHEAInstructionKnown reports whether sig's table defines instruction i.
func WHEAInstructionKnown(sig string, i uint8) bool {
	if sig == SigEINJ {
		return i <= einjLastInstruction
	}
	return i <= erstLastInstruction
}

// WHEAInstructionReadsRegister reports whether instruction i of an ERST
// or EINJ accesses its entry's register region: every one but NOOP,
// STALL, GOTO, ADD, SUBTRACT (which work on the variables) and MOVE_DATA
// (which uses the source and destination bases set before it).
func WHEAInstructionReadsRegister(i uint8) bool {
	switch i {
	case WHEANoop, ERSTAdd, ERSTSubtract, ERSTStall, ERSTGoto, ERSTMoveData:
		return false
	}
	return true
}

// WHEAEntryFlagsReserved returns the reserved bits set in an entry's flags.
func WHEAEntryFlagsReserved(f uint8) uint8 { return f &^ wheaKnownEntryFlags }

// APEIRegisterProblem says what makes g unusable as an APEI register (an
// ERST or EINJ register region, a generic error source's error status
// address or read-ack register), or "" when nothing does: it must be in
// System Memory or System I/O space, at a nonzero address, with its bit
// width and offset inside its access size. Linux's APEI code
// (apei_check_gar) refuses such a register, and with it the whole table
// or error source. Like Linux, an access size smaller than a 32- or
// 64-bit register at an aligned address is taken as the register's width,
// since firmware commonly leaves the access size 0 there.
func APEIRegisterProblem(g GAS) string {
	if g.Space != SpaceSystemMemory && g.Space != SpaceSystemIO {
		return fmt.Sprintf("address space %s (only SystemMemory and SystemIO are defined for it)", g.Space)
	}
	if g.Address == 0 {
		return "address 0"
	}
	access := 4 << g.AccessSize // bits: 0 → 4, 1 → 8 … 4 → 64
	if g.AccessSize > 4 {
		return fmt.Sprintf("access size %d (reserved)", g.AccessSize)
	}
	if g.BitOffset == 0 && ((g.BitWidth == 32 && g.Address&3 == 0) || (g.BitWidth == 64 && g.Address&7 == 0)) {
		access = max(access, int(g.BitWidth))
	}
	if int(g.BitWidth)+int(g.BitOffset) > access || g.BitWidth == 0 {
		return fmt.Sprintf("bit width %d at offset %d does not fit access size %d (%d bits)", g.BitWidth, g.BitOffset, g.AccessSize, access)
	}
	return ""
}
