package acpi

// SigLPIT is the Low Power Idle Table's signature (Intel, ACPI Low Power
// Idle Table (LPIT), revision 001, 2015).
const SigLPIT = "LPIT"

// LPIT structure types.
const (
	// LPITNativeCState is the native C-state based LPI structure, the only
	// type defined.
	LPITNativeCState = 0
	// LPITNativeCStateSize is its length.
	LPITNativeCStateSize = 56
)

// LPIT flags.
const (
	LPITDisabled          = 1 << 0 // the state is disabled
	LPITCounterNotPresent = 1 << 1 // no residency counter
)

// LPIState is one LPI structure. Fields past Type and Length are decoded
// only for a native C-state structure of full length (Short is clear).
type LPIState struct {
	Subtable
	Short    bool
	UniqueID uint16
	Reserved uint16
	Flags    uint32
	// EntryTrigger is the register the OS writes (or the MWAIT hint it
	// uses, in Functional Fixed Hardware space) to enter the state.
	EntryTrigger GAS
	// Residency is the minimum residency in microseconds, Latency the
	// worst-case exit latency in microseconds.
	Residency, Latency uint32
	// ResidencyCounter is the register counting time in the state.
	ResidencyCounter GAS
	// CounterFrequency is its frequency in Hz; 0 means the TSC's.
	CounterFrequency uint64
}

// LPIT is the Low Power Idle Table.
type LPIT struct {
	Header  Header
	States  []LPIState
	NotRead int
}

// ParseLPIT decodes an LPIT. When the structure list is malformed it
// returns the structures before the fault with a *WalkError.
func ParseLPIT(t *Table) (*LPIT, error) {
	body, err := sdtBody(t, SigLPIT, HeaderSize)
	if err != nil {
		return nil, err
	}
	subs, notRead, err := walkSubtables("LPIT structure", body, HeaderSize, subtableLayout{typeSize: 4, lenOff: 4, lenSize: 4})
	l := &LPIT{Header: t.Header, NotRead: notRead}
	for _, s := range subs {
		st := LPIState{Subtable: s}
		if s.Type == LPITNativeCState {
			if s.Length < LPITNativeCStateSize {
				st.Short = true
			} else {
				r := le(s.Raw)
				st.UniqueID, st.Reserved, st.Flags = r.u16(8), r.u16(10), r.u32(12)
				st.EntryTrigger, _ = ParseGAS(s.Raw[16:28])
				st.Residency, st.Latency = r.u32(28), r.u32(32)
				st.ResidencyCounter, _ = ParseGAS(s.Raw[36:48])
				st.CounterFrequency = r.u64(48)
			}
		}
		l.States = append(l.States, st)
	}
	return l, err
}
