package aml

import (
	"fmt"
	"sync"
)

// Op is an AML opcode. Extended opcodes (ExtOpPrefix 0x5B followed by a
// byte) are 0x5Bxx. Values from 0xF000 up are pseudo-opcodes this package
// uses for tree nodes that have no opcode of their own in AML (a name
// reference, a method invocation, a field list element).
type Op uint16

// One-byte opcodes (ACPI 6.5 §20.2).
const (
	OpZero        Op = 0x00
	OpOne         Op = 0x01
	OpAlias       Op = 0x06
	OpName        Op = 0x08
	OpByteConst   Op = 0x0A
	OpWordConst   Op = 0x0B
	OpDWordConst  Op = 0x0C
	OpString      Op = 0x0D
	OpQWordConst  Op = 0x0E
	OpScope       Op = 0x10
	OpBuffer      Op = 0x11
	OpPackage     Op = 0x12
	OpVarPackage  Op = 0x13
	OpMethod      Op = 0x14
	OpExternal    Op = 0x15
	OpLocal0      Op = 0x60 // Local0 … Local7 are 0x60 … 0x67
	OpLocal7      Op = 0x67
	OpArg0        Op = 0x68 // Arg0 … Arg6 are 0x68 … 0x6E
	OpArg6        Op = 0x6E
	OpStore       Op = 0x70
	OpRefOf       Op = 0x71
	OpAdd         Op = 0x72
	OpConcat      Op = 0x73
	OpSubtract    Op = 0x74
	OpIncrement   Op = 0x75
	OpDecrement   Op = 0x76
	OpMultiply    Op = 0x77
	OpDivide      Op = 0x78
	OpShiftLeft   Op = 0x79
	OpShiftRight  Op = 0x7A
	OpAnd         Op = 0x7B
	OpNand        Op = 0x7C
	OpOr          Op = 0x7D
	OpNor         Op = 0x7E
	OpXor         Op = 0x7F
	OpNot         Op = 0x80
	OpFindSetLeft Op = 0x81
	OpFindSetRt   Op = 0x82
	OpDerefOf     Op = 0x83
	OpConcatRes   Op = 0x84
	OpMod         Op = 0x85
	OpNotify      Op = 0x86
	OpSizeOf      Op = 0x87
	OpIndex       Op = 0x88
	OpMatch       Op = 0x89
	OpCreateDWord Op = 0x8A
	OpCreateWord  Op = 0x8B
	OpCreateByte  Op = 0x8C
	OpCreateBit   Op = 0x8D
	OpObjectType  Op = 0x8E
	OpCreateQWord Op = 0x8F
	OpLAnd        Op = 0x90
	OpLOr         Op = 0x91
	OpLNot        Op = 0x92
	OpLEqual      Op = 0x93
	OpLGreater    Op = 0x94
	OpLLess       Op = 0x95
	OpToBuffer    Op = 0x96
	OpToDecString Op = 0x97
	OpToHexString Op = 0x98
	OpToInteger   Op = 0x99
	OpToString    Op = 0x9C
	OpCopyObject  Op = 0x9D
	OpMid         Op = 0x9E
	OpContinue    Op = 0x9F
	OpIf          Op = 0xA0
	OpElse        Op = 0xA1
	OpWhile       Op = 0xA2
	OpNoop        Op = 0xA3
	OpReturn      Op = 0xA4
	OpBreak       Op = 0xA5
	OpBreakPoint  Op = 0xCC
	OpOnes        Op = 0xFF
)

// Extended opcodes (0x5B prefix).
const (
	OpMutex       Op = 0x5B01
	OpEvent       Op = 0x5B02
	OpCondRefOf   Op = 0x5B12
	OpCreateField Op = 0x5B13
	OpLoadTable   Op = 0x5B1F
	OpLoad        Op = 0x5B20
	OpStall       Op = 0x5B21
	OpSleep       Op = 0x5B22
	OpAcquire     Op = 0x5B23
	OpSignal      Op = 0x5B24
	OpWait        Op = 0x5B25
	OpReset       Op = 0x5B26
	OpRelease     Op = 0x5B27
	OpFromBCD     Op = 0x5B28
	OpToBCD       Op = 0x5B29
	OpUnload      Op = 0x5B2A
	OpRevision    Op = 0x5B30
	OpDebug       Op = 0x5B31
	OpFatal       Op = 0x5B32
	OpTimer       Op = 0x5B33
	OpRegion      Op = 0x5B80
	OpField       Op = 0x5B81
	OpDevice      Op = 0x5B82
	OpProcessor   Op = 0x5B83
	OpPowerRes    Op = 0x5B84
	OpThermalZone Op = 0x5B85
	OpIndexField  Op = 0x5B86
	OpBankField   Op = 0x5B87
	OpDataRegion  Op = 0x5B88
)

// Pseudo-opcodes for tree nodes AML encodes without an opcode.
const (
	// OpNamePath is a NameString used as a reference: Term.Name holds the
	// path as written, Term.Node the object it resolves to (nil if none).
	OpNamePath Op = 0xF000 + iota
	// OpCall is a method invocation: Term.Name/Node as for OpNamePath,
	// Term.Args() the arguments.
	OpCall
	// OpNullName is an absent Target (a 0x00 byte where a SuperName may
	// stand).
	OpNullName
	// OpNamedField is a field list element that names a field unit:
	// Term.Name is the NameSeg, Term.Int its width in bits.
	OpNamedField
	// OpReservedField skips Term.Int bits of the field list.
	OpReservedField
	// OpAccessField sets the access type (Term.Int & 0xFF) and attribute
	// (Term.Int >> 8) for the field units after it.
	OpAccessField
	// OpExtAccessField is the extended form: type, attribute and access
	// length in bytes 0, 1 and 2 of Term.Int.
	OpExtAccessField
	// OpConnection names the connection resource (Args[0]: a name path
	// or a buffer) for the field units after it.
	OpConnection
)

// argument kinds of the table-driven operators.
type argKind uint8

const (
	aTerm   argKind = iota // TermArg: may be a method invocation
	aSuper                 // SuperName: a name here is a reference
	aTarget                // Target: SuperName or NullName
	aByte                  // ByteData immediate
	aWord                  // WordData immediate
	aDWord                 // DWordData immediate
)

type opInfo struct {
	name string
	args []argKind
}

var (
	tt   = []argKind{aTerm, aTerm}
	ttn  = []argKind{aTerm, aTerm, aTarget}
	tn   = []argKind{aTerm, aTarget}
	one  = []argKind{aTerm}
	sup  = []argKind{aSuper}
	none = []argKind{}
)

// exprTable holds the operators whose operands follow a fixed pattern (the
// parser handles declarations, data and control flow itself), indexed by
// opcode: one-byte opcodes at 0–255, extended ones (0x5B xx) at 256 +
// their second byte, which is the opcode's low 9 bits since 0x5B is odd.
// An array of constants, laid out by the linker: no map built at package
// init (issue 24).
var exprTable = [512]*opInfo{
	OpStore & 0x1FF:       {"Store", []argKind{aTerm, aSuper}},
	OpRefOf & 0x1FF:       {"RefOf", sup},
	OpAdd & 0x1FF:         {"Add", ttn},
	OpConcat & 0x1FF:      {"Concatenate", ttn},
	OpSubtract & 0x1FF:    {"Subtract", ttn},
	OpIncrement & 0x1FF:   {"Increment", sup},
	OpDecrement & 0x1FF:   {"Decrement", sup},
	OpMultiply & 0x1FF:    {"Multiply", ttn},
	OpDivide & 0x1FF:      {"Divide", []argKind{aTerm, aTerm, aTarget, aTarget}},
	OpShiftLeft & 0x1FF:   {"ShiftLeft", ttn},
	OpShiftRight & 0x1FF:  {"ShiftRight", ttn},
	OpAnd & 0x1FF:         {"And", ttn},
	OpNand & 0x1FF:        {"NAnd", ttn},
	OpOr & 0x1FF:          {"Or", ttn},
	OpNor & 0x1FF:         {"NOr", ttn},
	OpXor & 0x1FF:         {"Xor", ttn},
	OpNot & 0x1FF:         {"Not", tn},
	OpFindSetLeft & 0x1FF: {"FindSetLeftBit", tn},
	OpFindSetRt & 0x1FF:   {"FindSetRightBit", tn},
	OpDerefOf & 0x1FF:     {"DerefOf", one},
	OpConcatRes & 0x1FF:   {"ConcatenateResTemplate", ttn},
	OpMod & 0x1FF:         {"Mod", ttn},
	OpNotify & 0x1FF:      {"Notify", []argKind{aSuper, aTerm}},
	OpSizeOf & 0x1FF:      {"SizeOf", sup},
	OpIndex & 0x1FF:       {"Index", ttn},
	OpMatch & 0x1FF:       {"Match", []argKind{aTerm, aByte, aTerm, aByte, aTerm, aTerm}},
	OpObjectType & 0x1FF:  {"ObjectType", sup},
	OpLAnd & 0x1FF:        {"LAnd", tt},
	OpLOr & 0x1FF:         {"LOr", tt},
	OpLNot & 0x1FF:        {"LNot", one},
	OpLEqual & 0x1FF:      {"LEqual", tt},
	OpLGreater & 0x1FF:    {"LGreater", tt},
	OpLLess & 0x1FF:       {"LLess", tt},
	OpToBuffer & 0x1FF:    {"ToBuffer", tn},
	OpToDecString & 0x1FF: {"ToDecimalString", tn},
	OpToHexString & 0x1FF: {"ToHexString", tn},
	OpToInteger & 0x1FF:   {"ToInteger", tn},
	OpToString & 0x1FF:    {"ToString", ttn},
	OpCopyObject & 0x1FF:  {"CopyObject", []argKind{aTerm, aSuper}},
	OpMid & 0x1FF:         {"Mid", []argKind{aTerm, aTerm, aTerm, aTarget}},
	OpContinue & 0x1FF:    {"Continue", none},
	OpNoop & 0x1FF:        {"Noop", none},
	OpReturn & 0x1FF:      {"Return", one},
	OpBreak & 0x1FF:       {"Break", none},
	OpBreakPoint & 0x1FF:  {"BreakPoint", none},
	OpCondRefOf & 0x1FF:   {"CondRefOf", []argKind{aSuper, aTarget}},
	OpLoadTable & 0x1FF:   {"LoadTable", []argKind{aTerm, aTerm, aTerm, aTerm, aTerm, aTerm}},
	OpLoad & 0x1FF:        {"Load", []argKind{aSuper, aTarget}},
	OpStall & 0x1FF:       {"Stall", one},
	OpSleep & 0x1FF:       {"Sleep", one},
	OpAcquire & 0x1FF:     {"Acquire", []argKind{aSuper, aWord}},
	OpSignal & 0x1FF:      {"Signal", sup},
	OpWait & 0x1FF:        {"Wait", []argKind{aSuper, aTerm}},
	OpReset & 0x1FF:       {"Reset", sup},
	OpRelease & 0x1FF:     {"Release", sup},
	OpFromBCD & 0x1FF:     {"FromBCD", tn},
	OpToBCD & 0x1FF:       {"ToBCD", tn},
	OpUnload & 0x1FF:      {"Unload", sup},
	OpRevision & 0x1FF:    {"Revision", none},
	OpDebug & 0x1FF:       {"Debug", none},
	OpFatal & 0x1FF:       {"Fatal", []argKind{aByte, aDWord, aTerm}},
	OpTimer & 0x1FF:       {"Timer", none},
}

func exprOp(op Op) *opInfo {
	if op > 0xFF && op>>8 != 0x5B {
		return nil
	}
	return exprTable[op&0x1FF]
}

// opNames are built on first use: only reports and errors name opcodes.
var opNames = sync.OnceValue(func() map[Op]string {
	return map[Op]string{
		OpZero: "Zero", OpOne: "One", OpOnes: "Ones", OpAlias: "Alias", OpName: "Name",
		OpByteConst: "ByteConst", OpWordConst: "WordConst", OpDWordConst: "DWordConst",
		OpQWordConst: "QWordConst", OpString: "String", OpScope: "Scope", OpBuffer: "Buffer",
		OpPackage: "Package", OpVarPackage: "VarPackage", OpMethod: "Method", OpExternal: "External",
		OpCreateDWord: "CreateDWordField", OpCreateWord: "CreateWordField",
		OpCreateByte: "CreateByteField", OpCreateBit: "CreateBitField",
		OpCreateQWord: "CreateQWordField", OpIf: "If", OpElse: "Else", OpWhile: "While",
		OpMutex: "Mutex", OpEvent: "Event", OpCreateField: "CreateField", OpRegion: "OperationRegion",
		OpField: "Field", OpDevice: "Device", OpProcessor: "Processor", OpPowerRes: "PowerResource",
		OpThermalZone: "ThermalZone", OpIndexField: "IndexField", OpBankField: "BankField",
		OpDataRegion: "DataTableRegion", OpNamePath: "NamePath", OpCall: "Call", OpNullName: "NullName",
		OpNamedField: "NamedField", OpReservedField: "Offset", OpAccessField: "AccessAs",
		OpExtAccessField: "AccessAs", OpConnection: "Connection",
	}
})

// String is the opcode's ASL name ("Store", "Local0", "CreateDWordField").
func (o Op) String() string {
	if s, ok := opNames()[o]; ok {
		return s
	}
	if i := exprOp(o); i != nil {
		return i.name
	}
	switch {
	case o >= OpLocal0 && o <= OpLocal7:
		return fmt.Sprintf("Local%d", o-OpLocal0)
	case o >= OpArg0 && o <= OpArg6:
		return fmt.Sprintf("Arg%d", o-OpArg0)
	case o > 0xFF:
		return fmt.Sprintf("Op(0x5B 0x%02X)", uint8(o))
	}
	return fmt.Sprintf("Op(0x%02X)", uint8(o))
}
