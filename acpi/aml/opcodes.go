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
// opcode: one-byte opcodes at 0–255, extended ones (0x5B xx, whose first
// byte is odd) at 256 + their second byte. An array of constants, laid out
// by the linker: no map built at package init (issue 24).
var exprTable = [512]*opInfo{
	int(OpStore&0xFF) + int(OpStore>>8&1)*256:             {"Store", []argKind{aTerm, aSuper}},
	int(OpRefOf&0xFF) + int(OpRefOf>>8&1)*256:             {"RefOf", sup},
	int(OpAdd&0xFF) + int(OpAdd>>8&1)*256:                 {"Add", ttn},
	int(OpConcat&0xFF) + int(OpConcat>>8&1)*256:           {"Concatenate", ttn},
	int(OpSubtract&0xFF) + int(OpSubtract>>8&1)*256:       {"Subtract", ttn},
	int(OpIncrement&0xFF) + int(OpIncrement>>8&1)*256:     {"Increment", sup},
	int(OpDecrement&0xFF) + int(OpDecrement>>8&1)*256:     {"Decrement", sup},
	int(OpMultiply&0xFF) + int(OpMultiply>>8&1)*256:       {"Multiply", ttn},
	int(OpDivide&0xFF) + int(OpDivide>>8&1)*256:           {"Divide", []argKind{aTerm, aTerm, aTarget, aTarget}},
	int(OpShiftLeft&0xFF) + int(OpShiftLeft>>8&1)*256:     {"ShiftLeft", ttn},
	int(OpShiftRight&0xFF) + int(OpShiftRight>>8&1)*256:   {"ShiftRight", ttn},
	int(OpAnd&0xFF) + int(OpAnd>>8&1)*256:                 {"And", ttn},
	int(OpNand&0xFF) + int(OpNand>>8&1)*256:               {"NAnd", ttn},
	int(OpOr&0xFF) + int(OpOr>>8&1)*256:                   {"Or", ttn},
	int(OpNor&0xFF) + int(OpNor>>8&1)*256:                 {"NOr", ttn},
	int(OpXor&0xFF) + int(OpXor>>8&1)*256:                 {"Xor", ttn},
	int(OpNot&0xFF) + int(OpNot>>8&1)*256:                 {"Not", tn},
	int(OpFindSetLeft&0xFF) + int(OpFindSetLeft>>8&1)*256: {"FindSetLeftBit", tn},
	int(OpFindSetRt&0xFF) + int(OpFindSetRt>>8&1)*256:     {"FindSetRightBit", tn},
	int(OpDerefOf&0xFF) + int(OpDerefOf>>8&1)*256:         {"DerefOf", one},
	int(OpConcatRes&0xFF) + int(OpConcatRes>>8&1)*256:     {"ConcatenateResTemplate", ttn},
	int(OpMod&0xFF) + int(OpMod>>8&1)*256:                 {"Mod", ttn},
	int(OpNotify&0xFF) + int(OpNotify>>8&1)*256:           {"Notify", []argKind{aSuper, aTerm}},
	int(OpSizeOf&0xFF) + int(OpSizeOf>>8&1)*256:           {"SizeOf", sup},
	int(OpIndex&0xFF) + int(OpIndex>>8&1)*256:             {"Index", ttn},
	int(OpMatch&0xFF) + int(OpMatch>>8&1)*256:             {"Match", []argKind{aTerm, aByte, aTerm, aByte, aTerm, aTerm}},
	int(OpObjectType&0xFF) + int(OpObjectType>>8&1)*256:   {"ObjectType", sup},
	int(OpLAnd&0xFF) + int(OpLAnd>>8&1)*256:               {"LAnd", tt},
	int(OpLOr&0xFF) + int(OpLOr>>8&1)*256:                 {"LOr", tt},
	int(OpLNot&0xFF) + int(OpLNot>>8&1)*256:               {"LNot", one},
	int(OpLEqual&0xFF) + int(OpLEqual>>8&1)*256:           {"LEqual", tt},
	int(OpLGreater&0xFF) + int(OpLGreater>>8&1)*256:       {"LGreater", tt},
	int(OpLLess&0xFF) + int(OpLLess>>8&1)*256:             {"LLess", tt},
	int(OpToBuffer&0xFF) + int(OpToBuffer>>8&1)*256:       {"ToBuffer", tn},
	int(OpToDecString&0xFF) + int(OpToDecString>>8&1)*256: {"ToDecimalString", tn},
	int(OpToHexString&0xFF) + int(OpToHexString>>8&1)*256: {"ToHexString", tn},
	int(OpToInteger&0xFF) + int(OpToInteger>>8&1)*256:     {"ToInteger", tn},
	int(OpToString&0xFF) + int(OpToString>>8&1)*256:       {"ToString", ttn},
	int(OpCopyObject&0xFF) + int(OpCopyObject>>8&1)*256:   {"CopyObject", []argKind{aTerm, aSuper}},
	int(OpMid&0xFF) + int(OpMid>>8&1)*256:                 {"Mid", []argKind{aTerm, aTerm, aTerm, aTarget}},
	int(OpContinue&0xFF) + int(OpContinue>>8&1)*256:       {"Continue", none},
	int(OpNoop&0xFF) + int(OpNoop>>8&1)*256:               {"Noop", none},
	int(OpReturn&0xFF) + int(OpReturn>>8&1)*256:           {"Return", one},
	int(OpBreak&0xFF) + int(OpBreak>>8&1)*256:             {"Break", none},
	int(OpBreakPoint&0xFF) + int(OpBreakPoint>>8&1)*256:   {"BreakPoint", none},
	int(OpCondRefOf&0xFF) + int(OpCondRefOf>>8&1)*256:     {"CondRefOf", []argKind{aSuper, aTarget}},
	int(OpLoadTable&0xFF) + int(OpLoadTable>>8&1)*256:     {"LoadTable", []argKind{aTerm, aTerm, aTerm, aTerm, aTerm, aTerm}},
	int(OpLoad&0xFF) + int(OpLoad>>8&1)*256:               {"Load", []argKind{aSuper, aTarget}},
	int(OpStall&0xFF) + int(OpStall>>8&1)*256:             {"Stall", one},
	int(OpSleep&0xFF) + int(OpSleep>>8&1)*256:             {"Sleep", one},
	int(OpAcquire&0xFF) + int(OpAcquire>>8&1)*256:         {"Acquire", []argKind{aSuper, aWord}},
	int(OpSignal&0xFF) + int(OpSignal>>8&1)*256:           {"Signal", sup},
	int(OpWait&0xFF) + int(OpWait>>8&1)*256:               {"Wait", []argKind{aSuper, aTerm}},
	int(OpReset&0xFF) + int(OpReset>>8&1)*256:             {"Reset", sup},
	int(OpRelease&0xFF) + int(OpRelease>>8&1)*256:         {"Release", sup},
	int(OpFromBCD&0xFF) + int(OpFromBCD>>8&1)*256:         {"FromBCD", tn},
	int(OpToBCD&0xFF) + int(OpToBCD>>8&1)*256:             {"ToBCD", tn},
	int(OpUnload&0xFF) + int(OpUnload>>8&1)*256:           {"Unload", sup},
	int(OpRevision&0xFF) + int(OpRevision>>8&1)*256:       {"Revision", none},
	int(OpDebug&0xFF) + int(OpDebug>>8&1)*256:             {"Debug", none},
	int(OpFatal&0xFF) + int(OpFatal>>8&1)*256:             {"Fatal", []argKind{aByte, aDWord, aTerm}},
	int(OpTimer&0xFF) + int(OpTimer>>8&1)*256:             {"Timer", none},
}

func exprOp(op Op) *opInfo {
	if op > 0xFF {
		if op>>8 != 0x5B {
			return nil
		}
		return exprTable[256+int(op&0xFF)]
	}
	return exprTable[op&0xFF]
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
